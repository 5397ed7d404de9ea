// js/api/memory-estimate.js for encoder–decoders, against figures found outside this project: the
// parameter count transformers reports for t5-small (60,506,624), and the hub's model.safetensors
// sizes (f32, every parameter once): t5-small 242 MB, facebook/bart-base 558 MB,
// Helsinki-NLP/opus-mt-en-de 298 MB (huggingface.co file listings, MB = 10^6 bytes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSeq2SeqFitsWasm32, estimateSeq2SeqMemory, resolveSeq2SeqPrecision, seq2seqParameterCounts } from '../../js/api/memory-estimate.js';

// The three configs' keys as on the hub (only what the estimate reads).
const T5_SMALL = { model_type: 't5', vocab_size: 32128, d_model: 512, d_kv: 64, d_ff: 2048, num_layers: 6, num_heads: 8,
  relative_attention_num_buckets: 32, feed_forward_proj: 'relu', n_positions: 512 };
const BART_BASE = { model_type: 'bart', vocab_size: 50265, d_model: 768, encoder_layers: 6, decoder_layers: 6,
  encoder_attention_heads: 12, decoder_attention_heads: 12, encoder_ffn_dim: 3072, decoder_ffn_dim: 3072, max_position_embeddings: 1024 };
const OPUS_EN_DE = { model_type: 'marian', vocab_size: 58101, d_model: 512, encoder_layers: 6, decoder_layers: 6,
  encoder_attention_heads: 8, decoder_attention_heads: 8, encoder_ffn_dim: 2048, decoder_ffn_dim: 2048, max_position_embeddings: 512 };

const total = (c) => { const p = seq2seqParameterCounts(c); return p.matrices + p.other; };

test('t5-small has 60,506,624 parameters', () => {
  assert.equal(total(T5_SMALL), 60506624);
});

test('f32 weights within 1% of the hub files: t5-small 242 MB, bart-base 558 MB, opus-mt-en-de 298 MB', () => {
  for (const [config, mb] of [[T5_SMALL, 242], [BART_BASE, 558], [OPUS_EN_DE, 298]]) {
    const bytes = estimateSeq2SeqMemory(config, 'f32').weights;
    assert.ok(Math.abs(bytes / 1e6 - mb) / mb < 0.01, `${config.model_type}: ${(bytes / 1e6).toFixed(1)} MB vs ${mb} MB`);
  }
});

test('auto takes f16 above 300 MiB of f32 weights; f16 halves the matrices; a too-large model is refused by name', () => {
  assert.equal(resolveSeq2SeqPrecision(T5_SMALL, 'auto'), 'f32');
  assert.equal(resolveSeq2SeqPrecision(BART_BASE, 'auto'), 'f16');
  const f32 = estimateSeq2SeqMemory(T5_SMALL, 'f32'), f16 = estimateSeq2SeqMemory(T5_SMALL, 'f16');
  assert.equal(f32.weights - f16.weights, 2 * seq2seqParameterCounts(T5_SMALL).matrices);
  assert.equal(f32.run, f16.run);
  // q8: int8 linear layers, the shared embeddings at f16 (as the engine keeps them).
  assert.equal(resolveSeq2SeqPrecision(T5_SMALL, 'q8'), 'q8');
  const q8 = estimateSeq2SeqMemory(T5_SMALL, 'q8');
  const { matrices, embedding } = seq2seqParameterCounts(T5_SMALL);
  assert.ok(q8.weights > (matrices - embedding) + 2 * embedding && q8.weights < f16.weights, `q8 ${q8.weights} B`);
  const huge = { ...T5_SMALL, d_model: 8192, d_ff: 32768, num_layers: 24, d_kv: 128, num_heads: 64 };
  assert.throws(() => checkSeq2SeqFitsWasm32(huge, 'f16'), (e) => e.code === 'E_TOO_LARGE' && /encoder-decoder/.test(e.message));
  assert.ok(checkSeq2SeqFitsWasm32(T5_SMALL, 'f32').total < 1024 ** 3);
});
