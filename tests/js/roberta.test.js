// A RoBERTa-style checkpoint end to end: GPT-2's real byte-level vocabulary in RoBERTa's layout
// (RobertaProcessing, <mask> absorbing the space before it) with small random RobertaForMaskedLM
// weights. Through the API and the CLI: ids as @huggingface/tokenizers gives them (<s> … </s>),
// attentions and hidden states against the independent PyTorch forward
// (helpers/api-torch-reference.py: positions from pad_token_id + 1, RobertaLMHead), and <mask>
// predicted from the same logits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { writeRobertaFolder } from './helpers/roberta-model.js';
import { maxAbsDiff, softmax, torchReference } from './helpers/api-reference.js';
import { makeBpeOracle } from './helpers/tokenizer-bpe.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const TEXTS = ['The capital of France is <mask>.', "Don't  stop — it's 1,234 km away 😀", 'Seoul is in 한국.'];


describe('RoBERTa-style checkpoint', () => {
  let dir;
  let oracle;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'attnscope-roberta-'));
    oracle = makeBpeOracle(writeRobertaFolder(dir).tokenizer, 'roberta');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('API: Hugging Face ids with <s> … </s>, attentions and hidden as PyTorch, <mask> predicted', async () => {
    const model = await loadModel(dir);
    try {
      assert.equal(model.config.family, 'roberta');
      assert.equal(model.config.maxTokens, 64);
      assert.equal(model.info.hasMlmHead, true);
      for (const text of TEXTS) {
        const r = await model.run(text, { topK: 5 });
        const expected = oracle.encode(text);
        assert.deepEqual([...r.ids], expected.ids, text);
        assert.equal(r.tokens[0], '<s>');
        assert.equal(r.tokens.at(-1), '</s>');
        assert.ok(!r.tokenTexts.some((t) => t.includes('Ġ')), `readable texts: ${r.tokenTexts}`);
        // <mask> absorbs the space before it: its token string is ' <mask>' (as tokenizers' Rust
        // encoding reports the matched text), so find it by id.
        const maskId = model.tokenToId('<mask>');
        const maskPositions = [...r.ids].flatMap((id, i) => (id === maskId ? [i] : []));
        const ref = torchReference(dir, { ids: r.ids, maskPositions });
        assert.ok(maxAbsDiff(r.attentions, ref.attentions).max <= 1e-4, `attentions: ${text}`);
        assert.ok(maxAbsDiff(r.hidden, ref.hidden).max <= 1e-3, `hidden: ${text}`);
        assert.equal(maskPositions.length, text.includes('<mask>') ? 1 : 0);
        if (maskPositions.length) {
          assert.deepEqual(r.maskPredictions.map((p) => p.position), maskPositions);
          const probs = softmax(ref.mlm_logits);
          const best = probs.indexOf(Math.max(...probs));
          assert.equal(r.maskPredictions[0].top[0].id, best);
          assert.ok(Math.abs(r.maskPredictions[0].top[0].prob - probs[best]) <= 1e-3);
        } else {
          assert.equal(r.maskPredictions, undefined);
        }
      }
    } finally {
      model.dispose();
    }
  });

  it('CLI: run --text gives the same ids and the <mask> predictions', async () => {
    const out = join(dir, 'r.json');
    await run(process.execPath, [CLI, 'run', '--model', dir, '--text', TEXTS[0], '--out', out]);
    const r = JSON.parse(readFileSync(out, 'utf8'));
    assert.deepEqual(r.ids, oracle.encode(TEXTS[0]).ids);
    assert.equal(r.mask_predictions.length, 1);
    assert.equal(r.ids[r.mask_predictions[0].position], r.ids.at(-3));  // '<mask>' '.' '</s>'
  });
});
