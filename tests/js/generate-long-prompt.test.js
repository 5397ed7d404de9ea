// A prompt whose attention maps would not fit generates all the same: generate() reads none of the
// prompt's maps, so past the engine's eager limit ('auto', as run() decides) the prompt keeps only
// what they are made of, and drops even that at the first step. A TinyLlama-shaped folder (8 layers,
// 32 query heads over 4 key/value heads, head_dim 8) with a 600-token prompt: eager maps would be
// 8·32·600²·4 B = 369 MB. The tokens and every step's attention row equal those of the same
// generation with the prompt's maps kept whole (the eager path, which tests/js/llama.test.js
// checks against PyTorch), and the wasm memory stays below the eager maps' size.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { heapStats, loadModel } from '../../js/index.js';
import { START_GENERATION } from '../../js/analysis/generate.js';
import { writeTinyLlamaFolder } from '../e2e/helpers/tinyllama-folder.js';

const SHAPE = { layers: 8, heads: 32, kvHeads: 4, headDim: 8 };
const T = 600;
const EAGER_BYTES = SHAPE.layers * SHAPE.heads * T * T * 4;

let dir, model;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'attnscope-long-prompt-'));
  writeTinyLlamaFolder(join(dir, 'm'), SHAPE);
  model = await loadModel(join(dir, 'm'), { threads: 1 });
});
after(() => {
  model?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function generateWith(promptMaps) {
  const prompt = Int32Array.from({ length: T }, (_, t) => 3 + ((t * 37) % 300));
  const rows = [];
  const generation = model[START_GENERATION](prompt, { maxNewTokens: 3, temperature: 0, onToken: (s) => rows.push(s.attention.slice()) },
    { promptMaps });
  const result = await generation.result;
  return { result, rows, prompt: generation.prompt, memory: (await heapStats({ threads: 1 })).memoryBytes };
}

test('a prompt past the eager limit generates with its maps on demand, as the eager prompt does', async () => {
  // The on-demand run first: wasm memory only grows, so its size is read before the eager run's.
  const lazy = await generateWith('auto');
  assert.equal(lazy.prompt.attentions, null, 'the prompt kept its maps whole');
  assert.ok(lazy.memory < EAGER_BYTES, `wasm memory ${lazy.memory} B, the eager maps alone ${EAGER_BYTES} B`);
  const eager = await generateWith('eager');
  assert.equal(eager.prompt.attentions.length, EAGER_BYTES / 4);
  assert.deepEqual(Array.from(lazy.result.ids), Array.from(eager.result.ids));
  assert.equal(lazy.rows.length, 3);
  for (let s = 0; s < 3; s++) {
    assert.equal(lazy.rows[s].length, SHAPE.layers * SHAPE.heads * (T + s + 1));
    assert.deepEqual(new Uint32Array(lazy.rows[s].buffer), new Uint32Array(eager.rows[s].buffer), `step ${s}`);
  }
});
