// Attention maps on demand through the API (engine/attention_sources.h, js/api/result.js): a run with
// maps 'on-demand' gives every head's map equal to the eager run's bit for bit — the bundled BERT
// (with a padding mask), the bundled GPT-2 (causal), a Llama with grouped K/V heads (rotary) — in
// the wasm build's SIMD kernels; memoryBytes counts what stays in wasm memory; reading `attentions`
// whole gives the eager array; a released result frees its maps; 'auto' keeps small maps eager.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { EAGER_MAPS_MAX_BYTES, attentionMapsBytes, checkFitsWasm32, estimateMemory } from '../../js/api/memory-estimate.js';

const llamaDir = join(fileURLToPath(new URL('.', import.meta.url)), '../fixtures/llama_page');
const TEXT = 'The river bank was steep, and the children who lived by the river walked along the bank every day to school.';
const bits = (a) => new Uint32Array(a.buffer, a.byteOffset, a.length);

function checkSameMaps(lazy, eager, what, config) {
  const [L, H, T] = eager.shape;
  assert.deepEqual(lazy.shape, eager.shape, what);
  assert.ok(lazy.mapsOnDemand && !eager.mapsOnDemand, `${what}: one on demand, one eager`);
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      assert.deepEqual(bits(lazy.attention(l, h)), bits(eager.attention(l, h)), `${what}: layer ${l} head ${h}`);
    }
  }
  assert.equal(eager.memoryBytes, 0, `${what}: an eager result holds nothing in wasm memory`);
  // What stays in wasm memory: per layer q (T·H·dh) and k (T·KV·dh), each row's max and factor
  // (2·H·T), the key mask (T, when there is one), and the last map computed (T·T: copied out).
  const dh = config.headDim ?? config.hiddenSize / H, KV = config.numKeyValueHeads ?? H;
  const sources = L * (T * H * dh + T * KV * dh + 2 * H * T) * 4;
  assert.ok(lazy.memoryBytes >= sources && lazy.memoryBytes <= sources + (T * T + T) * 4,
    `${what}: ${lazy.memoryBytes} B held, sources ${sources} B`);
  assert.deepEqual(bits(lazy.hidden), bits(eager.hidden), `${what}: the rest of the run is the same`);
}

describe('maps on demand through the API', () => {
  for (const [name, source, run] of [
    ['bundled BERT, padding mask', 'bundled', (m, options) => {
      const ids = m.tokenize(TEXT).ids;
      return m.runIds(ids, { ...options, attentionMask: Int32Array.from(ids, (_, i) => (i % 5 === 3 ? 0 : 1)) });
    }],
    ['bundled GPT-2', 'bundled-causal', (m, options) => m.run(TEXT, options)],
    ['Llama, 8 heads over 2 K/V heads', llamaDir, (m, options) => m.run(TEXT, options)],
  ]) {
    it(`${name}: every map equals the eager one bit for bit`, async () => {
      const model = await loadModel(source, { threads: 1 });
      try {
        const eager = await run(model, { maps: 'eager' });
        const lazy = await run(model, { maps: 'on-demand' });
        checkSameMaps(lazy, eager, name, model.config);
        // Small maps stay eager under the default rule.
        assert.equal((await run(model, {})).mapsOnDemand, false);
        // Reading `attentions` whole computes every map once: the eager array.
        assert.deepEqual(bits(lazy.attentions), bits(eager.attentions));
        assert.equal(lazy.mapsOnDemand, false);
        // A result whose memory a later run reuses frees its maps.
        const other = await run(model, { maps: 'on-demand' });
        await run(model, { maps: 'on-demand', reuse: other });
        assert.ok(other.released);
        assert.equal(other.memoryBytes, 0);
        assert.throws(() => other.attention(0, 0), (e) => e.code === 'E_DISPOSED');
        // So does one its reader lets go of (release() with no reason, as README shows it).
        const dropped = await run(model, { maps: 'on-demand' });
        dropped.release();
        assert.ok(dropped.released);
        assert.equal(dropped.memoryBytes, 0);
        assert.throws(() => dropped.attention(0, 0), (e) => e.code === 'E_DISPOSED');
      } finally {
        model.dispose();
      }
    });
  }

  it('a maps option other than auto, eager, on-demand is E_INPUT; a head outside the run too', async () => {
    const model = await loadModel('bundled', { threads: 1 });
    try {
      await assert.rejects(model.run('a b', { maps: 'lazy' }), (e) => e.code === 'E_INPUT' && e.message.includes('on-demand'));
      const r = await model.run('a b', { maps: 'on-demand' });
      assert.throws(() => r.attention(0, r.shape[1]), (e) => e.code === 'E_INPUT');
      assert.throws(() => r.attention(r.shape[0], 0), (e) => e.code === 'E_INPUT');
    } finally {
      model.dispose();
    }
  });
});

describe('the memory estimate counts maps on demand', () => {
  const tinyLlama = { family: 'llama', vocabSize: 32000, hiddenSize: 2048, numLayers: 22, numHeads: 32, numKeyValueHeads: 4,
    headDim: 64, intermediateSize: 5632, maxPositionEmbeddings: 2048, isDecoder: true };

  it('large maps count as their sources, small ones as themselves, as the engine decides', () => {
    const shape = { layers: 22, heads: 32, kvHeads: 4, headDim: 64, queries: 1024, keys: 1024 };
    const eager = 22 * 32 * 1024 * 1024 * 4;  // 2.95 GB
    // Per layer q (T·H·dh) and k (T·KV·dh), each row's max and factor (2·H·T), and the key mask.
    assert.equal(attentionMapsBytes(shape), (22 * (1024 * 32 * 64 + 1024 * 4 * 64 + 2 * 32 * 1024) + 1024) * 4);
    assert.ok(attentionMapsBytes(shape) < eager / 10);
    const bertBase512 = { layers: 12, heads: 12, kvHeads: 12, headDim: 64, queries: 512, keys: 512 };
    assert.equal(attentionMapsBytes(bertBase512), 12 * 12 * 512 * 512 * 4);  // 151 MB: eager
    assert.ok(12 * 12 * 512 * 512 * 4 <= EAGER_MAPS_MAX_BYTES);
  });

  it('a TinyLlama-shaped model at 1,024 tokens is no longer refused for its maps', () => {
    const need = checkFitsWasm32(tinyLlama, 'f16');  // threw E_TOO_LARGE with 2.95 GB of eager maps
    assert.ok(need.run < 1.2 * 1024 ** 3, `run ${need.run}`);
    assert.ok(estimateMemory(tinyLlama, 'q8').total < need.total);
  });
});
