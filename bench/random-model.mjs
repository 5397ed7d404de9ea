// Random BERT-family and GPT-2 weights for the benchmark, shared by both runtimes: written as a
// Hugging Face folder (config.json + model.safetensors + vocab.txt) for AttnScope and turned into an
// ONNX graph (bench/bert-onnx.mjs, bench/gpt2-onnx.mjs) for onnxruntime-web. Values follow the
// models' init (uniform with std 0.02; LayerNorm γ ≈ 1) so activations stay in the range real
// checkpoints produce.
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { safetensorsHeader } from '../tests/js/helpers/safetensors.js';

export const SHAPES = {
  'bert-base': { family: 'bert', layers: 12, hidden: 768, heads: 12, ffn: 3072 },
  distilbert: { family: 'distilbert', layers: 6, hidden: 768, heads: 12, ffn: 3072 },
  'minilm-l6': { family: 'bert', layers: 6, hidden: 384, heads: 12, ffn: 1536 },
};
const VOCAB = 30522, POSITIONS = 512, TYPES = 2, EPS = 1e-12;

// GPT-2 small and DistilGPT2 (the same blocks, 6 of them): gelu_new, tied lm_head.
export const GPT2_SHAPES = {
  'gpt2-small': { family: 'gpt2', layers: 12, hidden: 768, heads: 12, ffn: 3072 },
  distilgpt2: { family: 'gpt2', layers: 6, hidden: 768, heads: 12, ffn: 3072 },
};
const GPT2_VOCAB = 50257, GPT2_POSITIONS = 1024, GPT2_EPS = 1e-5, GPT2_EOS = 50256;

function uniform(n, seed, std, mean = 0) {  // xorshift32 → uniform with the given std
  const a = std * Math.sqrt(3), out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    out[i] = mean + a * (s / 2147483648 - 1);
  }
  return out;
}

// { name → { shape, data } } in the family's Hugging Face naming, plus a config object.
export function randomBert(shapeName, seed = 1) {
  const S = SHAPES[shapeName];
  const C = S.hidden, F = S.ffn;
  let k = seed * 1000;
  const t = (shape, std = 0.02, mean = 0) => ({ shape, data: uniform(shape.reduce((a, b) => a * b, 1), ++k, std, mean) });
  const tensors = {};
  const distil = S.family === 'distilbert';
  const e = distil ? 'distilbert.embeddings.' : 'bert.embeddings.';
  tensors[`${e}word_embeddings.weight`] = t([VOCAB, C]);
  tensors[`${e}position_embeddings.weight`] = t([POSITIONS, C]);
  if (!distil) tensors[`${e}token_type_embeddings.weight`] = t([TYPES, C]);
  tensors[`${e}LayerNorm.weight`] = t([C], 0.05, 1);
  tensors[`${e}LayerNorm.bias`] = t([C], 0.02);
  for (let l = 0; l < S.layers; l++) {
    const names = distil ? {
      q: `attention.q_lin`, k: `attention.k_lin`, v: `attention.v_lin`, o: `attention.out_lin`,
      ln1: `sa_layer_norm`, fi: `ffn.lin1`, fo: `ffn.lin2`, ln2: `output_layer_norm`,
    } : {
      q: 'attention.self.query', k: 'attention.self.key', v: 'attention.self.value', o: 'attention.output.dense',
      ln1: 'attention.output.LayerNorm', fi: 'intermediate.dense', fo: 'output.dense', ln2: 'output.LayerNorm',
    };
    const p = distil ? `distilbert.transformer.layer.${l}.` : `bert.encoder.layer.${l}.`;
    for (const [key, out, inp] of [['q', C, C], ['k', C, C], ['v', C, C], ['o', C, C], ['fi', F, C], ['fo', C, F]]) {
      tensors[`${p}${names[key]}.weight`] = t([out, inp]);
      tensors[`${p}${names[key]}.bias`] = t([out], 0.02);
    }
    for (const key of ['ln1', 'ln2']) {
      tensors[`${p}${names[key]}.weight`] = t([C], 0.05, 1);
      tensors[`${p}${names[key]}.bias`] = t([C], 0.02);
    }
  }
  const config = distil
    ? { model_type: 'distilbert', architectures: ['DistilBertModel'], vocab_size: VOCAB, dim: C, n_layers: S.layers,
        n_heads: S.heads, hidden_dim: F, max_position_embeddings: POSITIONS, activation: 'gelu' }
    : { model_type: 'bert', architectures: ['BertModel'], vocab_size: VOCAB, hidden_size: C, num_hidden_layers: S.layers,
        num_attention_heads: S.heads, intermediate_size: F, max_position_embeddings: POSITIONS,
        type_vocab_size: TYPES, layer_norm_eps: EPS, hidden_act: 'gelu' };
  return { shape: { name: shapeName, ...S, eps: EPS }, config, tensors };
}

// GPT2LMHeadModel's state dict: transformer.* names, Conv1D weights stored [in, out], c_attn one
// fused [C, 3C] q|k|v matrix, lm_head tied to wte (not stored). Projections into the residual
// (c_proj) get GPT-2's smaller init, 0.02/√(2·layers).
export function randomGpt2(shapeName, seed = 1) {
  const S = GPT2_SHAPES[shapeName];
  const C = S.hidden, F = S.ffn;
  let k = seed * 1000;
  const t = (shape, std = 0.02, mean = 0) => ({ shape, data: uniform(shape.reduce((a, b) => a * b, 1), ++k, std, mean) });
  const residualStd = 0.02 / Math.sqrt(2 * S.layers);
  const tensors = {};
  tensors['transformer.wte.weight'] = t([GPT2_VOCAB, C]);
  tensors['transformer.wpe.weight'] = t([GPT2_POSITIONS, C], 0.01);
  for (let l = 0; l < S.layers; l++) {
    const p = `transformer.h.${l}.`;
    const norm = (name) => { tensors[`${p}${name}.weight`] = t([C], 0.05, 1); tensors[`${p}${name}.bias`] = t([C], 0.02); };
    const conv = (name, inDim, outDim, std) => { tensors[`${p}${name}.weight`] = t([inDim, outDim], std); tensors[`${p}${name}.bias`] = t([outDim], 0.02); };
    norm('ln_1');
    conv('attn.c_attn', C, 3 * C, 0.02);
    conv('attn.c_proj', C, C, residualStd);
    norm('ln_2');
    conv('mlp.c_fc', C, F, 0.02);
    conv('mlp.c_proj', F, C, residualStd);
  }
  tensors['transformer.ln_f.weight'] = t([C], 0.05, 1);
  tensors['transformer.ln_f.bias'] = t([C], 0.02);
  const config = {
    model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], vocab_size: GPT2_VOCAB, n_embd: C, n_layer: S.layers,
    n_head: S.heads, n_inner: F, n_positions: GPT2_POSITIONS, activation_function: 'gelu_new',
    layer_norm_epsilon: GPT2_EPS, bos_token_id: GPT2_EOS, eos_token_id: GPT2_EOS, tie_word_embeddings: true,
  };
  return { shape: { name: shapeName, ...S, eps: GPT2_EPS, vocab: GPT2_VOCAB, positions: GPT2_POSITIONS }, config, tensors };
}

export function weightBytes(tensors) {
  return Object.values(tensors).reduce((s, t) => s + t.data.byteLength, 0);
}

// Writes config.json, model.safetensors (F32, tensors in insertion order) and a vocab.txt of
// config.vocab_size lines (a WordPiece vocabulary: the benchmarks feed ids, never text).
export function writeHfFolder(dir, { config, tensors }) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const size = config.vocab_size ?? VOCAB;
  const vocab = [...special, ...Array.from({ length: size - special.length }, (_, i) => `w${i}`)];
  writeFileSync(join(dir, 'vocab.txt'), vocab.join('\n') + '\n');
  const fd = openSync(join(dir, 'model.safetensors'), 'w');
  try {
    writeSync(fd, safetensorsHeader(Object.entries(tensors).map(([name, t]) => [name, 'F32', t.shape])));
    for (const t of Object.values(tensors)) writeSync(fd, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  } finally {
    closeSync(fd);
  }
}

// A SmolLM2-135M-shaped Llama (LlamaForCausalLM names, tied head, no biases, SiLU), the shape the
// issue benchmarks: 30 layers, 576 wide, 9 query heads over 3 key/value heads of 64, FFN 1536.
export const LLAMA_SHAPES = {
  'smollm2-135m': { family: 'llama', layers: 30, hidden: 576, heads: 9, kvHeads: 3, ffn: 1536, vocab: 49152,
    positions: 8192, ropeTheta: 100000, eps: 1e-5 },
  // TinyLlama-1.1B's width (2,048 wide, 32 query heads over 4 key/value heads of 64, FFN 5,632) in
  // 4 layers, for bench/maps-on-demand.mjs; a 2,048-token vocabulary (TinyLlama's is 32,000: the
  // maps do not depend on it, and the folder stays ~0.7 GB).
  'tinyllama-width-4l': { family: 'llama', layers: 4, hidden: 2048, heads: 32, kvHeads: 4, ffn: 5632, vocab: 2048,
    positions: 2048, ropeTheta: 10000, eps: 1e-5 },
};

export function randomLlama(shapeName, seed = 1) {
  const S = LLAMA_SHAPES[shapeName];
  const C = S.hidden, F = S.ffn, dh = C / S.heads;
  let k = seed * 1000;
  const t = (shape, std = 0.02, mean = 0) => ({ shape, data: uniform(shape.reduce((a, b) => a * b, 1), ++k, std, mean) });
  const tensors = { 'model.embed_tokens.weight': t([S.vocab, C]) };
  for (let l = 0; l < S.layers; l++) {
    const p = `model.layers.${l}.`;
    tensors[`${p}input_layernorm.weight`] = t([C], 0.05, 1);
    tensors[`${p}self_attn.q_proj.weight`] = t([S.heads * dh, C]);
    tensors[`${p}self_attn.k_proj.weight`] = t([S.kvHeads * dh, C]);
    tensors[`${p}self_attn.v_proj.weight`] = t([S.kvHeads * dh, C]);
    tensors[`${p}self_attn.o_proj.weight`] = t([C, S.heads * dh]);
    tensors[`${p}post_attention_layernorm.weight`] = t([C], 0.05, 1);
    tensors[`${p}mlp.gate_proj.weight`] = t([F, C]);
    tensors[`${p}mlp.up_proj.weight`] = t([F, C]);
    tensors[`${p}mlp.down_proj.weight`] = t([C, F]);
  }
  tensors['model.norm.weight'] = t([C], 0.05, 1);
  const config = {
    model_type: 'llama', architectures: ['LlamaForCausalLM'], vocab_size: S.vocab, hidden_size: C,
    intermediate_size: F, num_hidden_layers: S.layers, num_attention_heads: S.heads, num_key_value_heads: S.kvHeads,
    max_position_embeddings: S.positions, rms_norm_eps: S.eps, rope_theta: S.ropeTheta, hidden_act: 'silu',
    tie_word_embeddings: true, bos_token_id: 1, eos_token_id: 2,
  };
  return { shape: { name: shapeName, ...S, headDim: dh }, config, tensors };
}

// A t5-small-shaped T5ForConditionalGeneration (v1.0: relu feed-forward, tied head): 6 + 6 layers,
// d_model 512, 8 heads of d_kv 64, d_ff 2048, vocab 32128, 32 relative position buckets up to 128.
// Values follow T5PreTrainedModel._init_weights (factor 1): shared std 1, q (d_model·d_kv)^-½,
// k/v/wi d_model^-½, o (heads·d_kv)^-½, wo d_ff^-½, the bias tables d_model^-½; norms ≈ 1. (Uniform
// with those stds: the scale is what keeps T5's unscaled q·k and its rescaled tied head realistic.)
export const T5_SHAPES = {
  't5-small': { family: 't5', layers: 6, decoderLayers: 6, hidden: 512, heads: 8, dKv: 64, ffn: 2048, vocab: 32128,
    buckets: 32, maxDistance: 128, eps: 1e-6 },
};

export function randomT5(shapeName, seed = 1) {
  const S = T5_SHAPES[shapeName];
  const C = S.hidden, F = S.ffn, inner = S.heads * S.dKv;
  let k = seed * 1000;
  const t = (shape, std, mean = 0) => ({ shape, data: uniform(shape.reduce((a, b) => a * b, 1), ++k, std, mean) });
  const tensors = { 'shared.weight': t([S.vocab, C], 1) };
  for (const [stack, layers] of [['encoder', S.layers], ['decoder', S.decoderLayers]]) {
    for (let l = 0; l < layers; l++) {
      const p = `${stack}.block.${l}.layer.`;
      const attention = (name) => {
        tensors[`${name}.q.weight`] = t([inner, C], (C * S.dKv) ** -0.5);
        tensors[`${name}.k.weight`] = t([inner, C], C ** -0.5);
        tensors[`${name}.v.weight`] = t([inner, C], C ** -0.5);
        tensors[`${name}.o.weight`] = t([C, inner], inner ** -0.5);
      };
      attention(`${p}0.SelfAttention`);
      if (l === 0) tensors[`${p}0.SelfAttention.relative_attention_bias.weight`] = t([S.buckets, S.heads], C ** -0.5);
      tensors[`${p}0.layer_norm.weight`] = t([C], 0.05, 1);
      if (stack === 'decoder') {
        attention(`${p}1.EncDecAttention`);
        tensors[`${p}1.layer_norm.weight`] = t([C], 0.05, 1);
      }
      const ff = `${p}${stack === 'decoder' ? 2 : 1}.`;
      tensors[`${ff}DenseReluDense.wi.weight`] = t([F, C], C ** -0.5);
      tensors[`${ff}DenseReluDense.wo.weight`] = t([C, F], F ** -0.5);
      tensors[`${ff}layer_norm.weight`] = t([C], 0.05, 1);
    }
    tensors[`${stack}.final_layer_norm.weight`] = t([C], 0.05, 1);
  }
  const config = {
    model_type: 't5', architectures: ['T5ForConditionalGeneration'], vocab_size: S.vocab, d_model: C, d_kv: S.dKv,
    d_ff: F, num_layers: S.layers, num_decoder_layers: S.decoderLayers, num_heads: S.heads,
    relative_attention_num_buckets: S.buckets, relative_attention_max_distance: S.maxDistance,
    layer_norm_epsilon: S.eps, feed_forward_proj: 'relu', tie_word_embeddings: true, is_encoder_decoder: true,
    pad_token_id: 0, eos_token_id: 1, decoder_start_token_id: 0,
  };
  return { shape: { name: shapeName, ...S }, config, tensors };
}
