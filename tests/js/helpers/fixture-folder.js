// A golden fixture folder as the fixture scripts write it (tests/fixtures/<family>/<model>/:
// config.json, model.safetensors, inputs.json, expected.safetensors), and the error measure the
// golden tests compare with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { maxAbsDiff } from './api-reference.js';
import { readSafetensors } from './safetensors.js';

export function readFixture(dir, { expected = false } = {}) {
  const config = readFileSync(join(dir, 'config.json'), 'utf8');
  const V = JSON.parse(config).vocab_size;
  return {
    dir, config, V, weights: readFileSync(join(dir, 'model.safetensors')),
    inputs: JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')),
    ...(expected ? { expected: readSafetensors(join(dir, 'expected.safetensors')) } : {}),
    // The fixtures ship no tokenizer; runs by ids need only token names.
    vocab: `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]'][i] ?? `w${i}`).join('\n')}\n`,
  };
}

/** Largest |got[i] − expected[i]| (NaN where either has one, so a tolerance check fails). */
export function maxError(got, expected) {
  return maxAbsDiff(got, expected).max;
}
