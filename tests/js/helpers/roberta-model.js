// A RoBERTa-style checkpoint folder for the tests: GPT-2's real byte-level vocabulary in RoBERTa's
// layout (tokenizer.json with RobertaProcessing) and small random RobertaForMaskedLM weights.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { seededRandom } from '../../../js/analysis/sampling.js';
import { safetensorsBytes } from './api-tiny-model.js';
import { gpt2Sources, robertaTokenizerJson } from './tokenizer-bpe.js';

/** Writes config.json, tokenizer.json and model.safetensors into dir; returns {config, tokenizer}. */
export function writeRobertaFolder(dir, { seed = 77 } = {}) {
  const tokenizer = robertaTokenizerJson(gpt2Sources());
  const config = {
    model_type: 'roberta', architectures: ['RobertaForMaskedLM'], vocab_size: Object.keys(tokenizer.model.vocab).length,
    hidden_size: 32, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 48, max_position_embeddings: 66,
    type_vocab_size: 1, layer_norm_eps: 1e-5, hidden_act: 'gelu', pad_token_id: 1, bos_token_id: 0, eos_token_id: 2,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(join(dir, 'model.safetensors'), robertaWeights(config, seed));
  return { config, tokenizer };
}

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

