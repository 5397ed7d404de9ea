// A RoBERTa-style checkpoint end to end: GPT-2's real byte-level vocabulary in RoBERTa's layout
// (RobertaProcessing, <mask> absorbing the space before it) with small random RobertaForMaskedLM
// weights. Through the API and the CLI: ids as @huggingface/tokenizers gives them (<s> … </s>),
// attentions and hidden states against the independent PyTorch forward
// (helpers/api-torch-reference.py: positions from pad_token_id + 1, RobertaLMHead), and <mask>
// predicted from the same logits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { seededRandom } from '../../js/sampling.js';
import { safetensorsBytes } from './helpers/api-tiny-model.js';
import { maxAbsDiff, softmax, torchReference } from './helpers/api-reference.js';
import { gpt2Sources, makeBpeOracle, robertaTokenizerJson } from './helpers/tokenizer-bpe.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli.js', import.meta.url));
const TEXTS = ['The capital of France is <mask>.', "Don't  stop — it's 1,234 km away 😀", 'Seoul is in 한국.'];


function robertaWeights(config, seed) {
  const r = seededRandom(seed);
  const { vocab_size: V, hidden_size: C, intermediate_size: F, max_position_embeddings: P } = config;
  const tensor = (shape, scale, mean = 0) => ({ shape, data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => mean + scale * (2 * r() - 1)) });
  const t = {
    'roberta.embeddings.word_embeddings.weight': tensor([V, C], 1),
    'roberta.embeddings.position_embeddings.weight': tensor([P, C], 0.5),
    'roberta.embeddings.token_type_embeddings.weight': tensor([1, C], 0.5),
    'roberta.embeddings.LayerNorm.weight': tensor([C], 0.1, 1),
    'roberta.embeddings.LayerNorm.bias': tensor([C], 0.1),
  };
  const linear = (name, out, inp, scale) => { t[`${name}.weight`] = tensor([out, inp], scale); t[`${name}.bias`] = tensor([out], 0.1); };
  const norm = (name) => { t[`${name}.weight`] = tensor([C], 0.1, 1); t[`${name}.bias`] = tensor([C], 0.1); };
  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `roberta.encoder.layer.${l}.`;
    linear(`${p}attention.self.query`, C, C, 2.5 / Math.sqrt(C));
    linear(`${p}attention.self.key`, C, C, 2.5 / Math.sqrt(C));
    linear(`${p}attention.self.value`, C, C, 1.5 / Math.sqrt(C));
    linear(`${p}attention.output.dense`, C, C, 1.5 / Math.sqrt(C));
    norm(`${p}attention.output.LayerNorm`);
    linear(`${p}intermediate.dense`, F, C, 1.5 / Math.sqrt(C));
    linear(`${p}output.dense`, C, F, 1.5 / Math.sqrt(F));
    norm(`${p}output.LayerNorm`);
  }
  linear('lm_head.dense', C, C, 1.5 / Math.sqrt(C));
  norm('lm_head.layer_norm');
  t['lm_head.bias'] = tensor([V], 0.1);
  return safetensorsBytes(t);
}

describe('RoBERTa-style checkpoint', () => {
  let dir;
  let oracle;
  before(() => {
    const tokenizer = robertaTokenizerJson(gpt2Sources());
    oracle = makeBpeOracle(tokenizer, 'roberta');
    const V = Object.keys(tokenizer.model.vocab).length;
    const config = {
      model_type: 'roberta', architectures: ['RobertaForMaskedLM'], vocab_size: V, hidden_size: 32,
      num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 48, max_position_embeddings: 66,
      type_vocab_size: 1, layer_norm_eps: 1e-5, hidden_act: 'gelu', pad_token_id: 1, bos_token_id: 0, eos_token_id: 2,
    };
    dir = mkdtempSync(join(tmpdir(), 'attnscope-roberta-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
    writeFileSync(join(dir, 'model.safetensors'), robertaWeights(config, 77));
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
