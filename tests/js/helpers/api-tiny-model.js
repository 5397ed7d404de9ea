// Tiny random BERT checkpoints in the Hugging Face layout (config.json, model.safetensors,
// vocab.txt, tokenizer_config.json) for the API, CLI, worker and error tests: small enough to
// write in milliseconds, real enough that the engine loads them through the same code path.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TINY_VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'the', 'bank', 'of', 'river', '.', 'a',
  'cat', 'sat', 'on', 'mat', '##s', '##ing', 'hello', 'world', ',', '!', 'run', 'un', '##aff', '##able', 'é'];

// mulberry32: a fixed-seed generator so every run writes the same weights.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Safetensors bytes for {name: {shape, data: Float32Array}} stored as `dtype` (F32 or F16). */
export function safetensorsBytes(tensors, dtype = 'F32') {
  const width = dtype === 'F32' ? 4 : 2;
  const header = {};
  let offset = 0;
  for (const [name, { shape }] of Object.entries(tensors)) {
    const bytes = shape.reduce((a, b) => a * b, 1) * width;
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(new TextEncoder().encode(json), 8);
  let at = 8 + json.length;
  for (const { data } of Object.values(tensors)) {
    if (dtype === 'F32') out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), at);
    else new Uint16Array(out.buffer, at, data.length).set(Array.from(data, f32ToF16));
    at += data.length * width;
  }
  return out;
}

// Round-to-nearest-even f32 → f16 for the normal range the test weights use.
function f32ToF16(value) {
  const f = new Float32Array([value]);
  const x = new Uint32Array(f.buffer)[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp <= 0) return sign; // tiny → ±0 (test weights never get here)
  const round = mant & 0x1fff;
  mant >>>= 13;
  let h = sign | (exp << 10) | mant;
  if (round > 0x1000 || (round === 0x1000 && (mant & 1))) h++;
  return h;
}

/**
 * The files of a random BERT model.
 * @returns {Record<string, string|Uint8Array>} file name → contents
 */
export function tinyBertFiles({
  layers = 2, hidden = 16, heads = 2, intermediate = 32, maxPositions = 64, vocab = TINY_VOCAB,
  mlmHead = true, dtype = 'F32', seed = 1, extraConfig = {}, lowercase = true,
} = {}) {
  const rand = random(seed);
  const C = hidden;
  const V = vocab.length;
  const tensors = {};
  const add = (name, shape, init) => {
    const n = shape.reduce((a, b) => a * b, 1);
    tensors[name] = { shape, data: Float32Array.from({ length: n }, init) };
  };
  const weight = () => (rand() - 0.5) * 0.6;
  const gamma = () => 1 + (rand() - 0.5) * 0.2;
  const beta = () => (rand() - 0.5) * 0.2;
  add('bert.embeddings.word_embeddings.weight', [V, C], weight);
  add('bert.embeddings.position_embeddings.weight', [maxPositions, C], weight);
  add('bert.embeddings.token_type_embeddings.weight', [2, C], weight);
  add('bert.embeddings.LayerNorm.weight', [C], gamma);
  add('bert.embeddings.LayerNorm.bias', [C], beta);
  for (let l = 0; l < layers; l++) {
    const p = `bert.encoder.layer.${l}`;
    for (const m of ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']) {
      add(`${p}.${m}.weight`, [C, C], weight);
      add(`${p}.${m}.bias`, [C], beta);
    }
    add(`${p}.attention.output.LayerNorm.weight`, [C], gamma);
    add(`${p}.attention.output.LayerNorm.bias`, [C], beta);
    add(`${p}.intermediate.dense.weight`, [intermediate, C], weight);
    add(`${p}.intermediate.dense.bias`, [intermediate], beta);
    add(`${p}.output.dense.weight`, [C, intermediate], weight);
    add(`${p}.output.dense.bias`, [C], beta);
    add(`${p}.output.LayerNorm.weight`, [C], gamma);
    add(`${p}.output.LayerNorm.bias`, [C], beta);
  }
  if (mlmHead) {
    add('cls.predictions.transform.dense.weight', [C, C], weight);
    add('cls.predictions.transform.dense.bias', [C], beta);
    add('cls.predictions.transform.LayerNorm.weight', [C], gamma);
    add('cls.predictions.transform.LayerNorm.bias', [C], beta);
    add('cls.predictions.bias', [V], beta);
  }
  const config = {
    architectures: [mlmHead ? 'BertForMaskedLM' : 'BertModel'],
    model_type: 'bert', vocab_size: V, hidden_size: C, num_hidden_layers: layers, num_attention_heads: heads,
    intermediate_size: intermediate, max_position_embeddings: maxPositions, type_vocab_size: 2,
    hidden_act: 'gelu', layer_norm_eps: 1e-12, pad_token_id: 0, ...extraConfig,
  };
  return {
    'config.json': JSON.stringify(config, null, 2),
    'model.safetensors': safetensorsBytes(tensors, dtype),
    'vocab.txt': `${vocab.join('\n')}\n`,
    'tokenizer_config.json': JSON.stringify({ do_lower_case: lowercase, model_max_length: maxPositions }),
  };
}

/** Writes tinyBertFiles(options) into `dir` (created) and returns `dir`. */
export function writeTinyBert(dir, options) {
  mkdirSync(dir, { recursive: true });
  for (const [name, contents] of Object.entries(tinyBertFiles(options))) writeFileSync(join(dir, name), contents);
  return dir;
}

/** A Hugging Face tokenizer.json equivalent to vocab.txt + do_lower_case (BERT's standard pipeline). */
export function tinyTokenizerJson(vocab = TINY_VOCAB, { lowercase = true } = {}) {
  const id = (t) => vocab.indexOf(t);
  const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].filter((t) => id(t) >= 0);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: special.map((t) => ({ id: id(t), content: t, single_word: false, lstrip: false, rstrip: false,
      normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
  };
}
