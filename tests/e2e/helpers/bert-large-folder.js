// A bert-large-shaped checkpoint folder with random weights (24 layers, hidden 1024, 16 heads,
// intermediate 4096, vocabulary 30522, 512 positions: 335 M parameters), written as F16
// safetensors (640 MB) one tensor at a time, so the writer never holds more than one tensor
// (the word embeddings, 60 MB). Values are drawn once into a pool of f16 numbers and each
// tensor copies the pool from random offsets: random enough for attention to vary, and fast
// (the file is written at test time in a few seconds, not the minute a per-value draw takes).
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../../js/analysis/sampling.js';
import { FIXTURE_WORDS } from '../helpers.js';
import { safetensorsHeader } from '../../js/helpers/safetensors.js';

export const BERT_LARGE = Object.freeze({ layers: 24, hidden: 1024, heads: 16, intermediate: 4096, vocab: 30522, positions: 512 });

const POOL = 1 << 20;

/** f16 bits of a float (round to nearest even; the values here are small and finite). */
export function f16Bits(value) {
  const f32 = new Float32Array([value]);
  const x = new Uint32Array(f32.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp <= 0) {   // subnormal or zero in f16
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1), mid = 1 << (shift - 1);
    return sign | (half + (rest > mid || (rest === mid && (half & 1)) ? 1 : 0));
  }
  const half = (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && (half & 1)) ? 1 : 0));
}

/** Writes the folder; returns {dir, tensors, parameters, bytes, vocab}. */
export function writeBertLargeFolder(dir, { seed = 20, qkStd = 0.06, std = 0.02 } = {}) {
  mkdirSync(dir, { recursive: true });
  const { layers, hidden: C, heads, intermediate: F, vocab: V, positions: P } = BERT_LARGE;
  const random = seededRandom(seed);
  // Uniform(−a, a) has standard deviation a/√3.
  const pool = (s) => Uint16Array.from({ length: POOL }, () => f16Bits((random() * 2 - 1) * s * Math.sqrt(3)));
  const pools = { w: pool(std), qk: pool(qkStd), emb: pool(0.5) };
  const ONE = f16Bits(1);

  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
  const words = [...specials, ...FIXTURE_WORDS, ...letters, ...letters.map((c) => '##' + c), '.', ',', '!', '?'];
  const vocab = [...words, ...Array.from({ length: V - words.length }, (_, i) => `[unused${i}]`)];
  writeFileSync(join(dir, 'vocab.txt'), vocab.join('\n') + '\n');
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: true }));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    architectures: ['BertModel'], model_type: 'bert', vocab_size: V, hidden_size: C, num_hidden_layers: layers,
    num_attention_heads: heads, intermediate_size: F, max_position_embeddings: P, type_vocab_size: 2,
    hidden_act: 'gelu', layer_norm_eps: 1e-12, pad_token_id: 0, torch_dtype: 'float16',
  }, null, 2));

  // [name, shape, fill]: fill is a pool name, 'one' or 'zero'.
  const tensors = [
    ['bert.embeddings.word_embeddings.weight', [V, C], 'emb'],
    ['bert.embeddings.position_embeddings.weight', [P, C], 'emb'],
    ['bert.embeddings.token_type_embeddings.weight', [2, C], 'emb'],
    ['bert.embeddings.LayerNorm.weight', [C], 'one'],
    ['bert.embeddings.LayerNorm.bias', [C], 'zero'],
  ];
  for (let l = 0; l < layers; l++) {
    const p = `bert.encoder.layer.${l}.`;
    for (const m of ['query', 'key']) tensors.push([`${p}attention.self.${m}.weight`, [C, C], 'qk'], [`${p}attention.self.${m}.bias`, [C], 'w']);
    tensors.push(
      [`${p}attention.self.value.weight`, [C, C], 'w'], [`${p}attention.self.value.bias`, [C], 'w'],
      [`${p}attention.output.dense.weight`, [C, C], 'w'], [`${p}attention.output.dense.bias`, [C], 'w'],
      [`${p}attention.output.LayerNorm.weight`, [C], 'one'], [`${p}attention.output.LayerNorm.bias`, [C], 'zero'],
      [`${p}intermediate.dense.weight`, [F, C], 'w'], [`${p}intermediate.dense.bias`, [F], 'w'],
      [`${p}output.dense.weight`, [C, F], 'w'], [`${p}output.dense.bias`, [C], 'w'],
      [`${p}output.LayerNorm.weight`, [C], 'one'], [`${p}output.LayerNorm.bias`, [C], 'zero'],
    );
  }

  const parameters = tensors.reduce((sum, [, shape]) => sum + shape.reduce((a, b) => a * b, 1), 0);
  const head = safetensorsHeader(tensors.map(([name, shape]) => [name, 'F16', shape]));
  const fd = openSync(join(dir, 'model.safetensors'), 'w');
  try {
    writeSync(fd, head);
    for (const [, shape, fill] of tensors) {
      const data = new Uint16Array(shape.reduce((a, b) => a * b, 1));
      if (fill === 'one') data.fill(ONE);
      else if (fill !== 'zero') {
        const from = pools[fill];
        for (let at = 0; at < data.length; at += POOL / 2) {
          const start = Math.floor(random() * (POOL / 2));
          data.set(from.subarray(start, start + Math.min(POOL / 2, data.length - at)), at);
        }
      }
      writeSync(fd, new Uint8Array(data.buffer));
    }
  } finally {
    closeSync(fd);
  }
  return { dir, tensors: tensors.length, parameters, bytes: head.length + 2 * parameters, vocab };
}
