// Readable token texts through the API: tokenize, run and runIds carry tokenTexts beside the raw
// vocabulary tokens. For WordPiece (the bundled model) the readable form is the token itself; the
// byte-level forms ("␣the" for "Ġthe") are checked against the input in tokenizer-bpe-parity and
// cli-tokenize-bpe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel } from '../../js/index.js';

test('tokenize, run and runIds carry tokenTexts', async () => {
  const model = await loadModel();
  try {
    const e = model.tokenize('The river bank.', { textPair: 'Unaffable!' });
    assert.equal(e.tokenTexts.length, e.tokens.length);
    assert.deepEqual(e.tokenTexts, e.tokens);
    const r = await model.run('The river bank.');
    assert.deepEqual(r.tokenTexts, r.tokens);
    const ids = await model.runIds([...r.ids]);
    assert.deepEqual(ids.tokenTexts, r.tokens);
  } finally {
    model.dispose();
  }
});
