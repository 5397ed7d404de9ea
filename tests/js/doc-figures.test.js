// The sizes and figure labels the docs quote are checked against the build, so they cannot drift
// (the README once said 297 KB for a 403 KB element, the example 5.5 MB for a 6.81 MB file, and its
// iframe title named layer 3, head 1 for a link to layer 0, head 0). Each stated size must be
// within 3% of the file as built (dist/, by scripts/build.sh wasm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { measureSizes } from '../../scripts/build-embed.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const EXAMPLE = readFileSync(join(ROOT, 'examples/embed.html'), 'utf8');
const fileSize = (name) => statSync(join(ROOT, 'dist', name)).size;

// The number before `unit` in the first match of `pattern` (a regex with one group), in bytes.
function stated(text, pattern, unit) {
  const match = text.match(pattern);
  assert.ok(match, `the docs no longer say ${pattern}: update this test with them`);
  return Number(match[1]) * (unit === 'KB' ? 1024 : 1024 ** 2);
}

function near(statedBytes, actual, what) {
  assert.ok(Math.abs(statedBytes - actual) <= 0.03 * actual,
    `${what}: the docs say ${(statedBytes / 1024).toFixed(0)} KB, the build has ${(actual / 1024).toFixed(0)} KB`);
}

test('README and the embed example quote the built sizes', () => {
  const sizes = measureSizes();
  near(stated(README, /element \+ encoder wasm: ([\d.]+) KB gzip/, 'KB'), sizes.elementGzip, 'element + wasm gzip');
  near(stated(README, /\(([\d.]+) MB as `node scripts\/build-embed\.mjs` prints it/, 'MB'), sizes.singleFile, 'single file');
  near(stated(EXAMPLE, /attnscope-embed\.html<\/code> \(everything inlined, about ([\d.]+) MB/, 'MB'), sizes.singleFile,
    'single file (example)');
  near(stated(README, /model="bundled-causal">`, ([\d.]+) MB\)/, 'MB'), fileSize('attnscope-embed-causal.html'), 'causal single file');
  near(stated(README, /target, ([\d.]+) MB; `\?target=/, 'MB'), fileSize('attnscope-embed-seq2seq.html'), 'seq2seq single file');
  near(stated(README, /element bundle of ([\d.]+) KB uncompressed/, 'KB'), fileSize('attnscope-element.js'), 'element bundle');
});

test('the embed example\'s iframe title names the layer and head its link opens', () => {
  const iframe = EXAMPLE.match(/&lt;iframe src="([^"]+)"[^]*?title="([^"]+)"/);
  assert.ok(iframe, 'the example has no iframe snippet');
  const params = new URLSearchParams(iframe[1].replaceAll('&amp;', '&').split('?')[1]);
  assert.match(iframe[2], new RegExp(`layer ${params.get('layer') ?? 0}, head ${params.get('head') ?? 0}\\b`));
});
