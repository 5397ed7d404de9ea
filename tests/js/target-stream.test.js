// web/src/model/target-stream.js: a target being generated, shown as the rows its steps carry. The
// generation is the API's on the page fixture (tests/fixtures/seq2seq_page, a tiny random T5).
// Checked here: after every step the streamed result is the full run of the same decoder inputs
// (shape, tokens, every head's decoder and cross rows ≤ 2e-6: the steps come from the KV-cache
// path, the run from the whole-sequence one), the encoder side reused only for the same source,
// the last row labelled by its written token, a step of the wrong length refused, and which views
// wait for the full run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../js/index.js';
import { seq2seqResult } from '../../web/src/model/seq2seq-run.js';
import { createTargetStream, waitsForFullRun } from '../../web/src/model/target-stream.js';
import { crossRowLabels } from '../../web/src/views/cross.js';

const FOLDER = fileURLToPath(new URL('../fixtures/seq2seq_page', import.meta.url));
const SOURCE = 'The cat sat on the mat.';
let model;
// float32 rounding only: the step's rows come from one query against the KV cache, the run's from
// the whole sequence at once, summed in another order (measured worst here: 1.34e-6, at weights near 1).
const TOLERANCE = 2e-6;

before(async () => { model = await loadModel(FOLDER, { threads: 1 }); });
after(() => model?.dispose());

const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

test('after every step the stream is the full run of the same decoder inputs', async () => {
  const steps = [];
  const gen = await model.generate(SOURCE, { maxNewTokens: 8, temperature: 0, stopAtEos: false, onToken: (s) => steps.push(s) });
  assert.equal(steps.length, 8);
  const src = model.tokenize(SOURCE);
  let kind = 'cross';
  // The run on screen before: another source's (it names the decoder start token; its encoder is not this source's).
  const before = seq2seqResult(await model.run('A dog.', { target: 'a dog' }), { source: 'A dog.', src: model.tokenize('A dog.') }, () => 'enc');
  const stream = createTargetStream({ source: SOURCE, src, config: model.config, before, kindOf: () => kind });
  const { decoderLayers: L, decoderHeads: H } = model.config;
  const S = src.ids.length;
  let worst = 0;
  for (let k = 1; k <= steps.length; k++) {
    stream.add(steps[k - 1]);
    const r = stream.result();
    assert.equal(r.streamed, true);
    // The k rows written so far are the decoder at inputs [start, t1 … t(k−1)].
    const run = await model.runIds(src.ids, { targetIds: Array.from(gen.ids.slice(1, k)) });
    const full = seq2seqResult(run, { source: SOURCE, src }, () => kind);
    kind = 'cross';
    assert.deepEqual(r.shape, [L, H, k, S]);
    assert.deepEqual(r.tokens, full.tokens);
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        kind = 'cross';
        const dc = maxDiff(Array.from(r.attention(l, h)), Array.from(full.attention(l, h)));
        kind = 'dec';
        const dd = maxDiff(Array.from(r.attention(l, h)), Array.from(full.attention(l, h)));
        worst = Math.max(worst, dc, dd);
        assert.ok(dc <= TOLERANCE && dd <= TOLERANCE, `k=${k} l${l} h${h}: cross ${dc}, decoder ${dd}`);
      }
    }
    kind = 'dec';
    assert.deepEqual(r.shape, [L, H, k, k]);
    kind = 'cross';
    // Row i writes t(i+1); the last row's token is written already, so it is no guess.
    assert.deepEqual(crossRowLabels(r), Array.from({ length: k }, (_, i) => `→ ${gen.tokens[i + 1]}`));
  }
  console.log(`# streamed vs full run, worst over ${steps.length} steps and every head: ${worst}`);
  // No encoder run of this source before: the encoder kind waits; grid/head/lines of the other kinds grow.
  kind = 'enc';
  assert.equal(stream.result().seq2seq.encoderAttentions, null);
  assert.equal(waitsForFullRun(stream.result(), { view: 'grid', kind: 'enc' }), true);
  assert.equal(waitsForFullRun(stream.result(), { view: 'grid', kind: 'dec' }), false);
  assert.equal(waitsForFullRun(stream.result(), { view: 'cross', kind: 'cross' }), false);
  assert.equal(waitsForFullRun(stream.result(), { view: 'block', kind: 'cross' }), true);
  assert.equal(waitsForFullRun(stream.result(), { view: 'heads', kind: 'cross' }), true);
});

test('the encoder side of the run on screen is reused for the same source only', async () => {
  const steps = [];
  await model.generate(SOURCE, { maxNewTokens: 2, temperature: 0, onToken: (s) => steps.push(s) });
  const src = model.tokenize(SOURCE);
  const same = seq2seqResult(await model.run(SOURCE, { target: 'the cat' }), { source: SOURCE, src }, () => 'enc');
  const other = seq2seqResult(await model.run('A dog.', { target: 'the cat' }), { source: 'A dog.', src: model.tokenize('A dog.') }, () => 'enc');
  const make = (before) => {
    const s = createTargetStream({ source: SOURCE, src, config: model.config, before, kindOf: () => 'enc' });
    s.add(steps[0]);
    return s.result();
  };
  const reused = make(same);
  assert.equal(reused.seq2seq.encoderAttentions, same.seq2seq.encoderAttentions);
  assert.deepEqual(reused.shape, same.shape);
  assert.equal(waitsForFullRun(reused, { view: 'grid', kind: 'enc' }), false);
  assert.equal(make(other).seq2seq.encoderAttentions, null);
  // A full run is never waited for.
  assert.equal(waitsForFullRun(same, { view: 'block', kind: 'enc' }), false);
});

test('a step whose rows do not fit the next position is refused', async () => {
  const steps = [];
  await model.generate(SOURCE, { maxNewTokens: 2, temperature: 0, stopAtEos: false, onToken: (s) => steps.push(s) });
  const stream = createTargetStream({ source: SOURCE, src: model.tokenize(SOURCE), config: model.config, before: null, kindOf: () => 'cross' });
  assert.throws(() => stream.add(steps[1]), /generate step 0/);
  stream.add(steps[0]);
  assert.throws(() => stream.add(steps[0]), /generate step 1/);
  assert.equal(stream.length, 1);
});
