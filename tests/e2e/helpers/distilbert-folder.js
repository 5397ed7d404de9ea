// A random DistilBERT checkpoint folder in Hugging Face's layout (DistilBertModel names under
// "distilbert.", config keys dim / n_layers / n_heads / hidden_dim), shaped like distilbert-base
// (C = 768, 12 heads of 64, F = 3072) but with one or two layers and a tiny WordPiece vocabulary
// holding "i", "am", "full", so the seed's "I am full" is [CLS] i am full [SEP]: 5 tokens.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../../js/analysis/sampling.js';
import { FIXTURE_WORDS } from '../helpers.js';
import { safetensorsBytes } from '../../js/helpers/api-tiny-model.js';

export function writeDistilBertFolder(dir, { layers = 1, dim = 768, heads = 12, hiddenDim = 3072, maxPositions = 64, seed = 18 } = {}) {
  mkdirSync(dir, { recursive: true });
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'i', 'am', 'full', 'there', 'prince',
    ...FIXTURE_WORDS.filter((w) => !['i', 'am', 'full', 'there', 'prince'].includes(w)), '.', ','];
  writeFileSync(join(dir, 'vocab.txt'), vocab.join('\n') + '\n');
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: true }));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    architectures: ['DistilBertModel'], model_type: 'distilbert', vocab_size: vocab.length, dim, n_layers: layers,
    n_heads: heads, hidden_dim: hiddenDim, max_position_embeddings: maxPositions, activation: 'gelu', pad_token_id: 0,
  }, null, 2));
  const random = seededRandom(seed);
  // Uniform(−a, a) has standard deviation a/√3: enough spread for visible, non-uniform attention.
  const tensor = (name, shape, std) => {
    const data = new Float32Array(shape.reduce((x, y) => x * y, 1));
    if (std === 'ones') data.fill(1);
    else if (std) for (let i = 0; i < data.length; i++) data[i] = (random() * 2 - 1) * std * Math.sqrt(3);
    return { name, shape, data };
  };
  const C = dim, F = hiddenDim, p = 'distilbert.';
  const tensors = [
    tensor(p + 'embeddings.word_embeddings.weight', [vocab.length, C], 0.5),
    tensor(p + 'embeddings.position_embeddings.weight', [maxPositions, C], 0.3),
    tensor(p + 'embeddings.LayerNorm.weight', [C], 'ones'),
    tensor(p + 'embeddings.LayerNorm.bias', [C], 0),
  ];
  for (let l = 0; l < layers; l++) {
    const q = `${p}transformer.layer.${l}.`;
    for (const lin of ['q_lin', 'k_lin', 'v_lin', 'out_lin']) {
      tensors.push(tensor(q + `attention.${lin}.weight`, [C, C], lin === 'q_lin' || lin === 'k_lin' ? 0.08 : 0.03));
      tensors.push(tensor(q + `attention.${lin}.bias`, [C], 0.02));
    }
    tensors.push(tensor(q + 'sa_layer_norm.weight', [C], 'ones'), tensor(q + 'sa_layer_norm.bias', [C], 0));
    tensors.push(tensor(q + 'ffn.lin1.weight', [F, C], 0.03), tensor(q + 'ffn.lin1.bias', [F], 0.02));
    tensors.push(tensor(q + 'ffn.lin2.weight', [C, F], 0.02), tensor(q + 'ffn.lin2.bias', [C], 0.02));
    tensors.push(tensor(q + 'output_layer_norm.weight', [C], 'ones'), tensor(q + 'output_layer_norm.bias', [C], 0));
  }
  writeFileSync(join(dir, 'model.safetensors'), safetensorsBytes(Object.fromEntries(tensors.map(({ name, ...t }) => [name, t]))));
  return { dir, vocab };
}
