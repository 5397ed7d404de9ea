// A TinyLlama-shaped Llama checkpoint folder with random weights, written at run time: TinyLlama's
// head layout (32 query heads over 4 key/value heads, an FFN 2.75 times as wide as the model) at a
// width of our choosing — narrow for the page tests, TinyLlama's own (22 layers, 2,048 wide,
// head_dim 64, FFN 5,632) for bench/tinyllama-tab.mjs. The tokenizer is tests/fixtures/llama_page's
// (Llama 2's layout, 316 ids). Weights are drawn once into a pool and each tensor copies the pool
// from random offsets, one tensor at a time, so a 1.1 B-parameter folder writes in seconds.
import { closeSync, copyFileSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../../../js/analysis/sampling.js';
import { safetensorsHeader } from '../../js/helpers/safetensors.js';
import { f16Bits } from './bert-large-folder.js';

const TOKENIZER_DIR = fileURLToPath(new URL('../../fixtures/llama_page/', import.meta.url));
const VOCAB = 316;
const POOL = 1 << 20;

/** TinyLlama-1.1B's shape. */
export const TINYLLAMA = Object.freeze({ layers: 22, heads: 32, kvHeads: 4, headDim: 64, ffn: 5632 });

/** Writes the folder (dtype 'F32' or 'F16': TinyLlama's own size is 4.4 GB in f32, 2.2 GB in f16);
 *  returns {dir, config, parameters, bytes}. */
export function writeTinyLlamaFolder(dir, { layers = 4, heads = 32, kvHeads = 4, headDim = 8,
  ffn = Math.round(2.75 * heads * headDim), positions = 2048, seed = 52, dtype = 'F32' } = {}) {
  mkdirSync(dir, { recursive: true });
  const C = heads * headDim;
  const config = {
    model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: C, intermediate_size: ffn,
    num_hidden_layers: layers, num_attention_heads: heads, num_key_value_heads: kvHeads,
    max_position_embeddings: positions, rms_norm_eps: 1e-5, rope_theta: 10000, rope_scaling: null,
    tie_word_embeddings: false, bos_token_id: 1, eos_token_id: 2, hidden_act: 'silu',
    torch_dtype: dtype === 'F16' ? 'float16' : 'float32', vocab_size: VOCAB,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(TOKENIZER_DIR, name), join(dir, name));

  // [name, shape, standard deviation, mean]; q/k larger than 1/√C: sharper, more varied heads.
  const tensors = [['model.embed_tokens.weight', [VOCAB, C], 1, 0]];
  for (let l = 0; l < layers; l++) {
    const p = `model.layers.${l}.`;
    tensors.push([p + 'input_layernorm.weight', [C], 0.1, 1],
      [p + 'self_attn.q_proj.weight', [C, C], 3 / Math.sqrt(C), 0],
      [p + 'self_attn.k_proj.weight', [kvHeads * headDim, C], 3 / Math.sqrt(C), 0],
      [p + 'self_attn.v_proj.weight', [kvHeads * headDim, C], 1 / Math.sqrt(C), 0],
      [p + 'self_attn.o_proj.weight', [C, C], 1 / Math.sqrt(C), 0],
      [p + 'post_attention_layernorm.weight', [C], 0.1, 1],
      [p + 'mlp.gate_proj.weight', [ffn, C], 1 / Math.sqrt(C), 0],
      [p + 'mlp.up_proj.weight', [ffn, C], 1 / Math.sqrt(C), 0],
      [p + 'mlp.down_proj.weight', [C, ffn], 1 / Math.sqrt(ffn), 0]);
  }
  tensors.push(['model.norm.weight', [C], 0.1, 1], ['lm_head.weight', [VOCAB, C], 1 / Math.sqrt(C), 0]);

  const random = seededRandom(seed);
  // Uniform(−√3, √3): unit standard deviation, scaled per tensor.
  const pool = Float32Array.from({ length: POOL }, () => (random() * 2 - 1) * Math.sqrt(3));
  const width = dtype === 'F16' ? 2 : 4;
  // f16: each (std, mean) a tensor uses gets its pool converted once (a conversion per value would
  // take minutes at TinyLlama's size).
  const f16Pools = new Map();
  const f16Pool = (std, mean) => {
    const key = `${std}/${mean}`;
    if (!f16Pools.has(key)) f16Pools.set(key, Uint16Array.from(pool, (v) => f16Bits(mean + std * v)));
    return f16Pools.get(key);
  };
  const file = join(dir, 'model.safetensors');
  const fd = openSync(file, 'w');
  let bytes = 0, parameters = 0;
  try {
    const header = safetensorsHeader(tensors.map(([name, shape]) => [name, dtype, shape]), { format: 'pt' });
    writeSync(fd, header);
    bytes += header.length;
    for (const [, shape, std, mean] of tensors) {
      const n = shape.reduce((a, b) => a * b, 1);
      const chunk = dtype === 'F16' ? null : new Float32Array(Math.min(n, POOL));
      for (let done = 0; done < n; done += POOL) {
        const m = Math.min(POOL, n - done), from = Math.floor(random() * (POOL - m));
        if (dtype === 'F16') {
          writeSync(fd, new Uint8Array(f16Pool(std, mean).buffer, from * 2, m * 2));
          continue;
        }
        for (let i = 0; i < m; i++) chunk[i] = mean + std * pool[from + i];
        writeSync(fd, new Uint8Array(chunk.buffer, 0, m * 4));
      }
      bytes += n * width;
      parameters += n;
    }
  } finally {
    closeSync(fd);
  }
  return { dir, config, parameters, bytes };
}
