// What bench/decode.mjs needs to know of each model it times, in one table: the random weights
// (random-model.mjs), the onnxruntime-web session(s) running them as a decoder-with-past graph,
// the prompt a generation starts from, one ORT generation step by step, and the bytes of weights
// a token step reads (the numerator of the bandwidth limit).
import { LLAMA_SHAPES, T5_SHAPES, randomGpt2, randomLlama, randomT5 } from './random-model.mjs';
import { decoderBias, gpt2DecoderWithPastOnnx } from './gpt2-onnx.mjs';
import { llamaDecoderWithPastOnnx } from './llama-onnx.mjs';
import { t5DecoderWithPastOnnx, t5EncoderOnnx, t5PositionBias } from './t5-onnx.mjs';

const randomIds = (n, seed, low, high) => {
  let r = seed >>> 0;
  return Int32Array.from({ length: n }, () => low + ((r = (r * 1103515245 + 12345) >>> 0) % (high - low)));
};
export const argmax = (xs) => { let best = 0; for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i; return best; };

// Bytes of the matrices one token step multiplies by (each read once): f32 4 B a weight; q8 1 B a
// weight + a 4 B scale per output row, the vocabulary head included (quantize_dynamic's model).
// Vectors (biases, norms) and the one embedding row gathered are left out (< 0.1%).
function matrixBytes(matrices, precision) {
  return matrices.reduce((sum, [rows, cols]) => sum + (precision === 'q8' ? rows * cols + 4 * rows : 4 * rows * cols), 0);
}

// A decoder-only family (GPT-2, Llama) over its decoder-with-past graph: the prompt in one run
// (past of length 0, a causal bias), then one token a run; the cache's present_* become the next
// run's past_* (for each layer, its key/value heads: all heads for GPT-2, kvHeads for Llama).
function causalLm(graph) {
  return {
    async session(ort, m, { precision, context, newTokens }, options) {
      const { layers: L, heads, hidden } = m.shape;
      const kvHeads = m.shape.kvHeads ?? heads, headDim = m.shape.headDim ?? hidden / heads;
      const decoder = await ort.InferenceSession.create(graph(m, { weights: precision, maxPositions: context + newTokens + 2 }), options);
      const empty = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim]);
      const i64 = (values) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);
      const feeds = {};
      const run = async (ids, P) => {
        feeds.input_ids = i64(ids);
        feeds.position_ids = i64(ids.map((_, i) => P + i));
        feeds.attention_bias = new ort.Tensor('float32', decoderBias(P, ids.length), [1, 1, ids.length, P + ids.length]);
        const out = await decoder.run(feeds);
        for (let l = 0; l < L; l++) { feeds[`past_k_${l}`] = out[`present_k_${l}`]; feeds[`past_v_${l}`] = out[`present_v_${l}`]; }
        return out.logits.data;
      };
      return {
        // onStep(logits) after each token's run (the first one's interval holds the prompt).
        // Greedy, or on the given `forced` ids (teacher forcing: another engine's choices).
        async generate(prompt, tokens, onStep, forced) {
          for (let l = 0; l < L; l++) feeds[`past_k_${l}`] = feeds[`past_v_${l}`] = empty;
          const ids = Array.from(prompt);
          let logits = await run(ids, 0);
          for (let n = 0; n < tokens; n++) {
            if (n > 0) logits = await run([ids[ids.length - 1]], ids.length - 1);
            ids.push(forced ? forced[n] : argmax(logits));
            onStep?.(logits);
          }
          return ids.slice(prompt.length);
        },
        release: () => decoder.release(),
      };
    },
  };
}

export const FAMILIES = {
  'gpt2-small': {
    random: () => randomGpt2('gpt2-small', 1),
    prompt: (context) => randomIds(context, 777, 0, 50256),  // below the end-of-text token
    weightBytes({ layers: L, hidden: C, ffn: F, vocab: V }, precision) {
      return matrixBytes([...Array(L)].flatMap(() => [[3 * C, C], [C, C], [F, C], [C, F]]).concat([[V, C]]), precision);
    },
    ...causalLm(gpt2DecoderWithPastOnnx),
  },
  'smollm2-135m': {
    random: () => randomLlama('smollm2-135m', 1),
    prompt: (context) => randomIds(context, 777, 3, LLAMA_SHAPES['smollm2-135m'].vocab),
    weightBytes({ layers: L, hidden: C, heads: H, kvHeads: KV, headDim: dh, ffn: F, vocab: V }, precision) {
      return matrixBytes([...Array(L)].flatMap(() => [[H * dh, C], [KV * dh, C], [KV * dh, C], [C, H * dh], [F, C], [F, C], [C, F]]).concat([[V, C]]), precision);
    },
    ...causalLm(llamaDecoderWithPastOnnx),
  },
  // The encoder–decoder: the prompt is the source (the encoder's input, cross-attended by every
  // step); the decoder starts from decoder_start_token_id. A step reads the decoder's self-attention
  // q/k/v/o, cross-attention q/o (its keys and values are computed once per source), the
  // feed-forward and the tied head.
  't5-small': {
    random: () => randomT5('t5-small', 1),
    prompt(context) {
      const ids = randomIds(context, 12345, 2, T5_SHAPES['t5-small'].vocab);
      ids[context - 1] = 1;  // eos, as T5's tokenizer ends a source
      return ids;
    },
    weightBytes({ decoderLayers: L, hidden: C, heads: H, dKv, ffn: F, vocab: V }, precision) {
      const inner = H * dKv;
      return matrixBytes([...Array(L)].flatMap(() => [[inner, C], [inner, C], [inner, C], [C, inner], [inner, C], [C, inner], [F, C], [C, F]]).concat([[V, C]]), precision);
    },
    async session(ort, m, { precision, context }, options) {
      const { decoderLayers: L, heads: H, dKv: dk } = m.shape;
      const S = context;
      const encoder = await ort.InferenceSession.create(t5EncoderOnnx(m, S, { attentions: false, weights: precision }), options);
      const decoder = await ort.InferenceSession.create(t5DecoderWithPastOnnx(m, S, { attentions: false, weights: precision }), options);
      const table = m.tensors['decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight'].data;
      const encoderTable = m.tensors['encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight'].data;
      const empty = new ort.Tensor('float32', new Float32Array(0), [1, H, 0, dk]);
      return {
        // As t5.mjs: the encoder (its bias computed in JavaScript), then a decoder step per token,
        // its position bias row made per step; greedy, or on the `forced` ids.
        async generate(source, tokens, onStep, forced) {
          const enc = await encoder.run({
            input_ids: new ort.Tensor('int64', BigInt64Array.from(source, BigInt), [1, S]),
            position_bias: new ort.Tensor('float32', t5PositionBias(encoderTable, m.shape, { queries: S, keys: S, bidirectional: true }), [1, H, S, S]),
          });
          const feeds = {};
          for (let l = 0; l < L; l++) {
            feeds[`cross_k_${l}`] = enc[`cross_k_${l}`];
            feeds[`cross_v_${l}`] = enc[`cross_v_${l}`];
            feeds[`past_k_${l}`] = feeds[`past_v_${l}`] = empty;
          }
          const ids = [m.config.decoder_start_token_id];
          for (let P = 0; P < tokens; P++) {
            feeds.input_ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(ids[P])), [1, 1]);
            feeds.position_bias = new ort.Tensor('float32', t5PositionBias(table, m.shape, { queries: 1, keys: P + 1, queryStart: P, bidirectional: false }), [1, H, 1, P + 1]);
            const out = await decoder.run(feeds);
            for (let l = 0; l < L; l++) { feeds[`past_k_${l}`] = out[`present_k_${l}`]; feeds[`past_v_${l}`] = out[`present_v_${l}`]; }
            ids.push(forced ? forced[P] : argmax(out.logits.data));
            onStep?.(out.logits.data);
          }
          return ids.slice(1);
        },
        release: async () => { await encoder.release(); await decoder.release(); },
      };
    },
  },
};
