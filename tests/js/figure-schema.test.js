// The frozen-figure format has one description, docs/figure.schema.json, checked on both sides:
// here, the figures the JavaScript writes (`attnscope snapshot`, figureData) and one the Python
// package writes (python/attnscope) must match it and be read back by figureResult; the Python
// tests (tests/python) check the Python side against the same file. The checker
// (helpers/figure-schema.js) knows only the keywords the schema uses and refuses any other, so the
// schema cannot outgrow what is checked. The flow and patching figures: snapshot-kinds.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figureResult } from '../../js/index.js';   // the package's entry registers the version-2 figures' code
import { schemaErrors } from './helpers/figure-schema.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'js', 'cli', 'cli.js');

function snapshot(dir, name, args) {
  const out = join(dir, `${name}.json`);
  execFileSync(process.execPath, [CLI, 'snapshot', '--threads', '1', ...args, '--out', out]);
  return JSON.parse(readFileSync(out, 'utf8'));
}

test('the figures attnscope snapshot writes match docs/figure.schema.json and read back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-figures-'));
  try {
    const figures = {
      head: snapshot(dir, 'head', ['--text', 'The unaffable cat sat on the mat.', '--view', 'head', '--layer', '1', '--head', '2']),
      lines: snapshot(dir, 'lines', ['--text', 'The river bank was muddy.', '--view', 'lines', '--layer', '3']),
      grid: snapshot(dir, 'grid', ['--model', 'bundled-causal', '--text', 'Once upon a time.', '--view', 'grid']),
      words: snapshot(dir, 'words', ['--text', 'Naïve tokenizers mispronounced embeddings.', '--words']),
      encoder: snapshot(dir, 'encoder', ['--model', 'bundled-seq2seq', '--text', 'The cat chased the dog.', '--kind', 'enc']),
      decoder: snapshot(dir, 'decoder', ['--model', 'bundled-seq2seq', '--text', 'The cat chased the dog.', '--kind', 'dec',
        '--target', 'the cat the dog chased', '--view', 'lines']),
      cross: snapshot(dir, 'cross', ['--model', 'bundled-seq2seq', '--text', 'The cat chased the dog.', '--kind', 'cross',
        '--target', 'the cat the dog chased', '--view', 'grid']),
      lens: snapshot(dir, 'lens', ['--model', 'bundled-causal', '--text', 'Once upon a time.', '--view', 'layers']),
      encoderLens: snapshot(dir, 'encoder-lens', ['--text', 'The cat sat on the [MASK].', '--view', 'layers']),
    };
    for (const [name, doc] of Object.entries(figures)) {
      assert.deepEqual(schemaErrors(doc), [], name);
      assert.doesNotThrow(() => figureResult(doc), name);
    }
    assert.ok(figures.words.words.length > 0 && figures.grid.modelInfo.kind === 'decoder');
    // The lowest version that has all a figure holds: cross-attention and the lens are version 2.
    assert.deepEqual(Object.fromEntries(Object.entries(figures).map(([name, doc]) => [name, doc.version])),
      { head: 1, lines: 1, grid: 1, words: 1, encoder: 1, decoder: 1, cross: 2, lens: 2, encoderLens: 2 });
    assert.deepEqual([figures.encoder.kind, figures.decoder.kind, figures.cross.kind], ['enc', 'dec', 'cross']);
    const [L, H, T, S] = figures.cross.shape;
    assert.deepEqual([figures.cross.tokens.length, figures.cross.source.tokens.length, figures.cross.attentions[0].length],
      [T, S, T * S]);
    assert.equal(figures.cross.heads.length, L * H);
    assert.ok(figureResult(figures.cross).covers('head', 1, 3, false, { kind: 'cross' }) && !figureResult(figures.cross).covers('head', 1, 3, false, { kind: 'enc' }));
    for (const lens of [figures.lens, figures.encoderLens]) {
      assert.equal(lens.lens.length, lens.shape[0] + 1, 'the embeddings and every layer');
      assert.ok(lens.lens.every((row) => row.length === lens.shape[2] && row.every((e) => e.top.length === 5)));
      assert.ok(figureResult(lens).covers('layers', 0, 0) && !figureResult(lens).covers('head', 0, 0), 'a lens, no attention');
    }
    assert.ok('nextRank' in figures.lens.lens[0][0] && !('nextRank' in figures.encoderLens.lens[0][0]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a figure the Python package writes matches the schema and reads back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-figures-'));
  try {
    const text = 'The cat sat on the mat.';
    const run = join(dir, 'run.json');
    execFileSync(process.execPath, [CLI, 'run', '--threads', '1', '--text', text, '--format', 'json', '--out', run]);
    const script = `import json, sys, attnscope
run = json.load(open(sys.argv[1]))
attnscope.figure(run["attentions"], run["tokens"], view="grid", text=sys.argv[2], offsets=run["offsets"],
                 words=True, model="bundled", path=sys.argv[3])`;
    const out = join(dir, 'python.json');
    execFileSync('/usr/bin/python3', ['-c', script, run, text, out], { env: { ...process.env, PYTHONPATH: join(ROOT, 'python') } });
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(schemaErrors(doc), []);
    const back = figureResult(doc);
    assert.ok(back.covers('head', 3, 3, true), 'a grid figure with words covers every head, as words');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the checker is not vacuous: broken figures fail it', () => {
  const good = {
    format: 'attnscope-figure', version: 1, model: 'm', modelInfo: { kind: 'encoder', config: { numLayers: 1, numHeads: 1, isDecoder: false } },
    text: 'a', view: 'head', layer: 0, head: 0, tokens: ['a'], tokenTexts: ['a'], specialTokensMask: [0], offsets: [0, 1],
    shape: [1, 1, 1], heads: [[0, 0]], attentions: [[1]],
  };
  assert.deepEqual(schemaErrors(good), []);
  const broken = (change) => { const d = structuredClone(good); change(d); return schemaErrors(d); };
  assert.match(broken((d) => { delete d.attentions; }).join(), /missing attentions/);
  assert.match(broken((d) => { d.view = 'formula'; }).join(), /\$\.view/);
  assert.match(broken((d) => { d.attentions = [[1.5]]; }).join(), /1\.5 > 1/);
  assert.match(broken((d) => { d.extra = 1; }).join(), /unknown field extra/);
  assert.match(broken((d) => { d.words = [{ text: 'a', start: 0, end: 1, tokens: [0] }]; }).join(), /words needs wordAttentions/);
  assert.match(broken((d) => { d.modelInfo.config.numLayers = 1.5; }).join(), /number, not integer/);
  assert.match(broken((d) => { d.view = 'layers'; }).join(), /missing lens/);
  assert.match(broken((d) => { d.kind = 'cross'; }).join(), /missing source[^]*1 items|3 items < 4|missing source/);
  assert.match(broken((d) => { d.source = { tokens: ['a'], tokenTexts: ['a'], specialTokensMask: [0], offsets: [0, 1] }; }).join(),
    /\$\.source: not allowed/);
  assert.match(broken((d) => { d.shape = [1, 1, 1, 1]; }).join(), /4 items > 3/);
  assert.throws(() => schemaErrors(1, { pattern: 'x' }), /does not know/);
  // Version 1 files (before cross-attention and the lens) are still read.
  assert.doesNotThrow(() => figureResult(good));
  assert.throws(() => figureResult({ ...good, version: 4 }), /version 4/);
  // Version 2's kinds: a block of their own instead of matrices, and only in version 2.
  const flow = { ...structuredClone(good), version: 2, view: 'flow', flow: { position: 0, tau: 0.04, layers: 1, headCount: 1, queries: 1,
    keys: 1, tokens: [[0, 0, 0, 0.5]], heads: [[0.5]], residual: [[0, 0, 0.5]], mlp: [], mlpResidual: [] } };
  delete flow.heads;
  delete flow.attentions;
  assert.deepEqual(schemaErrors(flow), []);
  assert.match(schemaErrors({ ...flow, version: 1 }).join(), /\$\.version: 1 is not 2/);
  const { flow: block, ...noBlock } = flow;
  assert.ok(block);
  assert.match(schemaErrors(noBlock).join(), /missing flow/);
  assert.match(schemaErrors({ ...flow, view: 'head' }).join(), /missing heads/);
  assert.match(schemaErrors({ ...flow, flow: { ...flow.flow, residual: [[0, 0, 1.5]] } }).join(), /\$\.flow\.residual\[0\]\[2\]: 1\.5 > 1/);
  assert.match(schemaErrors({ ...flow, flow: { ...flow.flow, tokens: [[0, 0.5, 0, 0.5]] } }).join(), /tokens\[0\]\[1\]: number, not integer/);
  // Cross-attention and the lens are version 2 too; a cross figure draws only the matrix views.
  assert.match(broken((d) => { d.view = 'layers'; d.lens = []; }).join(), /\$\.version: 1 is not 2/);
  assert.match(broken((d) => { d.kind = 'cross'; }).join(), /\$\.version: 1 is not 2/);
  assert.match(schemaErrors({ ...flow, kind: 'cross' }).join(), /\$\.view: "flow" is not one of/);
});
