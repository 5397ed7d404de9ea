// Frozen figures with words : figureData(…, {words: true}) writes the word spans and
// each held head's word matrix; figureResult reads them back as the run's words/wordAttentions
// (so the views draw the file's numbers) and refuses a file whose words do not partition the
// tokens or whose matrices have the wrong size, with E_INPUT rather than a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel, figureData } from '../../js/index.js';
import { figureResult } from '../../js/analysis/snapshot.js';
import { RunResult } from '../../js/api/result.js';

const TEXT = 'The unaffable tokenizer mispronounced embeddings.';

test('a words figure round-trips: spans, W×W matrices per held head, covers(…, words)', async () => {
  const model = await loadModel('bundled', { threads: 1 });
  try {
    const r = await model.run(TEXT, { topK: 0, words: true });
    const doc = JSON.parse(JSON.stringify(figureData(r, { model: 'bundled', info: model.info, text: TEXT, view: 'lines', layer: 1, head: 0, words: true })));
    const H = r.shape[1], W = r.words.length;
    assert.equal(doc.wordAttentions.length, H);
    assert.deepEqual(doc.words.map((w) => w.tokens), r.words.map((w) => w.tokens));
    const back = figureResult(doc);
    const result = new RunResult(back.fields);
    assert.equal(back.words, true);
    assert.ok(back.covers('lines', 1, 3, true));
    assert.ok(!back.covers('lines', 0, 0, true), 'layer 0 is not in a layer-1 lines figure');
    for (let h = 0; h < H; h++) {
      const want = r.wordAttention(1, h), got = result.wordAttention(1, h);
      for (let c = 0; c < W * W; c++) assert.ok(Math.abs(got[c] - want[c]) <= 6e-7, `head ${h} cell ${c}`);
    }
    assert.equal(result.text, TEXT);
    // Without words the figure says so and does not cover a words view.
    const plain = figureResult(JSON.parse(JSON.stringify(figureData(r, { model: 'bundled', info: model.info, text: TEXT, view: 'head', layer: 0, head: 0 }))));
    assert.equal(plain.words, false);
    assert.equal(plain.fields.words, undefined);
    assert.ok(plain.covers('head', 0, 0) && !plain.covers('head', 0, 0, true));

    const broken = (change) => { const d = structuredClone(doc); change(d); return () => figureResult(d); };
    const inputError = { name: 'AttnScopeError', code: 'E_INPUT' };
    assert.throws(broken((d) => { d.words[1].tokens = [999]; }), inputError);
    assert.throws(broken((d) => { d.words[2].tokens.push(d.words[1].tokens[0]); }), inputError);   // a token in two words
    assert.throws(broken((d) => { d.words.pop(); }), inputError);                                    // a token in none
    assert.throws(broken((d) => { d.wordAttentions[0].pop(); }), inputError);
    assert.throws(broken((d) => { d.wordAttentions.pop(); }), inputError);
    assert.throws(broken((d) => { d.words = 'x'; }), inputError);
  } finally {
    model.dispose();
  }
});
