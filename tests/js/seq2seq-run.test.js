// web/src/model/seq2seq-run.js: an encoder–decoder's run through the page's one result shape. The run
// is the API's on the page fixture (tests/fixtures/seq2seq_page); checked here: each kind's shape,
// tokens, special-token mask and matrices (against slices taken here by the documented layout
// [L][H][rows][cols]), the kind read at each access, and the cross view's row labels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../js/index.js';
import { seq2seqResult, isSeq2Seq } from '../../web/src/model/seq2seq-run.js';
import { crossRowLabels } from '../../web/src/views/cross.js';

const FOLDER = fileURLToPath(new URL('../fixtures/seq2seq_page', import.meta.url));
const SOURCE = 'The cat sat on the mat.', TARGET = 'The cat on the mat sat.';

test('each kind: shape, tokens, special tokens and matrices of the run', async () => {
  const model = await loadModel(FOLDER, { threads: 1 });
  try {
    assert.ok(isSeq2Seq(model.info));
    const raw = await model.run(SOURCE, { target: TARGET });
    const src = model.tokenize(SOURCE), tgt = model.tokenize(TARGET);
    let kind = 'enc';
    const r = seq2seqResult(raw, { source: SOURCE, src, tgt }, () => kind);
    const S = src.ids.length, T = tgt.ids.length + 1;
    const slice = (data, [, H, rows, cols], l, h) => Array.from(data.slice((l * H + h) * rows * cols, (l * H + h + 1) * rows * cols));
    const expected = {
      enc: { shape: [2, 4, S, S], tokens: src.tokens, special: Array.from(src.specialTokensMask), data: raw.encoderAttentions, text: SOURCE },
      dec: { shape: [2, 4, T, T], tokens: ['<pad>', ...tgt.tokens], special: [1, ...tgt.specialTokensMask], data: raw.decoderAttentions },
      cross: { shape: [2, 4, T, S], tokens: ['<pad>', ...tgt.tokens], special: [1, ...tgt.specialTokensMask], data: raw.crossAttentions },
    };
    for (const [k, e] of Object.entries(expected)) {
      kind = k;
      assert.deepEqual(r.shape, e.shape, k);
      assert.deepEqual(r.tokens, e.tokens, k);
      assert.deepEqual(Array.from(r.specialTokensMask), e.special, k);
      assert.equal(r.text, e.text, k);
      assert.deepEqual(Array.from(r.attention(1, 3)), slice(e.data, e.shape, 1, 3), k);
    }
    assert.deepEqual(Array.from(r.cross(0, 2)), slice(raw.crossAttentions, [2, 4, T, S], 0, 2));
    // Row i writes target token i: the decoder input shifted by one, the last row the model's guess.
    const labels = crossRowLabels(r);
    assert.deepEqual(labels.slice(0, -1), tgt.tokens.map((t) => `→ ${t}`));
    assert.equal(labels.at(-1), `→ ${raw.next[0].token}?`);
  } finally {
    model.dispose();
  }
});
