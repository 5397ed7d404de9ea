// `node bench/t5.mjs`: a t5-small-shaped T5 (random weights, bench/random-model.mjs randomT5) in
// AttnScope's WebAssembly engine against onnxruntime-web (wasm backend, one thread, SIMD) running
// the same weights as an encoder graph + a decoder-with-past graph (bench/t5-onnx.mjs), runs
// alternating in one process. One generation = the encoder over a --source-token source, then
// --new-tokens greedy tokens over the decoder's KV cache (the cross keys and values computed once):
//  - AttnScope: model.generate(sourceIds, { temperature: 0 }) — its encoder attentions and every
//    step's self- and cross-attention rows returned to JavaScript;
//  - ORT: the encoder graph, then one decoder-with-past run per token (argmax in JavaScript), with
//    the graphs' attention outputs ("+ maps") and without them (hidden-only).
//   node bench/t5.mjs [--source-tokens 64] [--new-tokens 32] [--runs 5] [--warmup 2]
// Checked first: the greedy ids are equal; the encoder attentions, every step's self- and
// cross-attention rows, the decoder's last hidden state at every position (AttnScope's runIds over
// the generated target) and each step's probability of the chosen token agree. CPU from lscpu.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';

import { randomT5, writeHfFolder } from './random-model.mjs';
import { t5DecoderWithPastOnnx, t5EncoderOnnx, t5PositionBias } from './t5-onnx.mjs';
import { median, timed } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    'source-tokens': { type: 'string', default: '64' },
    'new-tokens': { type: 'string', default: '32' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
  },
});
const S = Number(args['source-tokens']), NEW_TOKENS = Math.max(2, Number(args['new-tokens']));
const RUNS = Math.max(3, Number(args.runs)), WARMUP = Number(args.warmup);
const { loadModel } = await import(pathToFileURL(join(repo, 'js/index.js')));
ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
ort.env.logLevel = 'error';

const cpu = (() => {
  try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/Model name:\s*(.+)/)?.[1]?.trim() ?? 'unknown'; } catch { return 'unknown'; }
})();
const maxAbsDiff = (a, b) => {
  if (a.length !== b.length) throw new Error(`lengths differ: ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};
const medians = (samples) => ({ wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) });
const randomIds = (n, seed, V) => { let r = seed >>> 0; return Int32Array.from({ length: n }, () => 2 + ((r = (r * 1103515245 + 12345) >>> 0) % (V - 2))); };
const argmax = (xs) => { let best = 0; for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i; return best; };
const softmaxAt = (logits, id) => {
  let max = -Infinity, sum = 0;
  for (const x of logits) max = Math.max(max, x);
  for (const x of logits) sum += Math.exp(x - max);
  return Math.exp(logits[id] - max) / sum;
};
const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };

const m = randomT5('t5-small', 1);
const { decoderLayers: Ld, heads: H, dKv: dk, vocab: V, hidden: C } = m.shape;
const table = (stack) => m.tensors[`${stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight`].data;
const work = mkdtempSync(join(tmpdir(), 'attnscope-bench-t5-'));
const load0 = loadavg();
try {
  writeHfFolder(join(work, 'model'), m);
  const model = await loadModel(join(work, 'model'), { threads: 1 });
  if (model.info.kind !== 'encoder-decoder') throw new Error(`loaded as ${model.info.kind}`);
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const sessions = {};
  for (const attentions of [true, false]) {
    sessions[attentions ? 'maps' : 'hidden'] = {
      encoder: await ort.InferenceSession.create(t5EncoderOnnx(m, S, { attentions }), options),
      decoder: await ort.InferenceSession.create(t5DecoderWithPastOnnx(m, S, { attentions }), options),
    };
  }
  const sourceIds = randomIds(S, 12345, V);
  sourceIds[S - 1] = m.config.eos_token_id;  // as T5's tokenizer ends a source
  const encoderBias = new ort.Tensor('float32', t5PositionBias(table('encoder'), m.shape, { queries: S, keys: S, bidirectional: true }), [1, H, S, S]);
  const encoderFeeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(sourceIds, BigInt), [1, S]), position_bias: encoderBias };
  const empty = new ort.Tensor('float32', new Float32Array(0), [1, H, 0, dk]);

  // One ORT generation: encoder, then a decoder step per token with the previous step's present
  // keys and values as past; the decoder's position bias row (one direction) made per step.
  const generateOrt = async ({ encoder, decoder }, { record = false } = {}) => {
    const stamps = [{ wall: performance.now(), cpu: cpuNow() }];
    const enc = await encoder.run(encoderFeeds);
    const feeds = {};
    for (let l = 0; l < Ld; l++) {
      feeds[`cross_k_${l}`] = enc[`cross_k_${l}`];
      feeds[`cross_v_${l}`] = enc[`cross_v_${l}`];
      feeds[`past_k_${l}`] = feeds[`past_v_${l}`] = empty;
    }
    const ids = [m.config.decoder_start_token_id], steps = [];
    for (let n = 0; n < NEW_TOKENS; n++) {
      const P = n;
      feeds.input_ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(ids[ids.length - 1])), [1, 1]);
      feeds.position_bias = new ort.Tensor('float32', t5PositionBias(table('decoder'), m.shape, { queries: 1, keys: P + 1, queryStart: P, bidirectional: false }), [1, H, 1, P + 1]);
      const out = await decoder.run(feeds);
      for (let l = 0; l < Ld; l++) {
        feeds[`past_k_${l}`] = out[`present_k_${l}`];
        feeds[`past_v_${l}`] = out[`present_v_${l}`];
      }
      const id = argmax(out.logits.data);
      if (record) steps.push({ out, prob: softmaxAt(out.logits.data, id) });
      ids.push(id);
      stamps.push({ wall: performance.now(), cpu: cpuNow() });
    }
    return { ids, enc, steps, stamps };
  };
  // One AttnScope generation; the stamps are onToken's (after each token's step).
  const generateOurs = async () => {
    const stamps = [{ wall: performance.now(), cpu: cpuNow() }];
    const g = await model.generate(sourceIds, { maxNewTokens: NEW_TOKENS, temperature: 0, stopAtEos: false, candidates: 0,
      onToken: () => stamps.push({ wall: performance.now(), cpu: cpuNow() }) });
    return { ids: [...g.ids], g, stamps };
  };

  // Same weights, same graphs → same answer up to summation order.
  const ours = await generateOurs(), theirs = await generateOrt(sessions.maps, { record: true });
  const idsEqual = ours.ids.length === theirs.ids.length && ours.ids.every((id, i) => id === theirs.ids[i]);
  if (!idsEqual) throw new Error(`greedy ids differ:\n${ours.ids}\n${theirs.ids}`);
  const diff = { encoder: 0, self: 0, cross: 0, hidden: 0, prob: 0 };
  const [Le, He] = ours.g.encoderShape;
  for (let l = 0; l < Le; l++) diff.encoder = Math.max(diff.encoder, maxAbsDiff(ours.g.encoderAttentions.subarray(l * He * S * S, (l + 1) * He * S * S), theirs.enc[`enc_attn_${l}`].data));
  const full = await model.runIds(sourceIds, { targetIds: ours.ids.slice(1, NEW_TOKENS), topK: 0 });
  theirs.steps.forEach(({ out, prob }, t) => {
    const step = ours.g.steps[t], keys = t + 1;
    for (let l = 0; l < Ld; l++) {
      diff.self = Math.max(diff.self, maxAbsDiff(step.decoderAttentions.subarray(l * H * keys, (l + 1) * H * keys), out[`self_attn_${l}`].data));
      diff.cross = Math.max(diff.cross, maxAbsDiff(step.crossAttentions.subarray(l * H * S, (l + 1) * H * S), out[`cross_attn_${l}`].data));
    }
    diff.hidden = Math.max(diff.hidden, maxAbsDiff(full.hidden.subarray(t * C, (t + 1) * C), out.last_hidden_state.data));
    diff.prob = Math.max(diff.prob, Math.abs(step.prob - prob));
  });
  if (!(diff.encoder < 1e-4 && diff.self < 1e-4 && diff.cross < 1e-4 && diff.hidden < 1e-3 && diff.prob < 1e-4)) {
    throw new Error(`AttnScope and ORT differ: ${JSON.stringify(diff)}`);
  }

  // Alternating timed rounds: AttnScope, ORT + maps, ORT hidden-only.
  const kinds = { ours: generateOurs, maps: () => generateOrt(sessions.maps), hidden: () => generateOrt(sessions.hidden) };
  const t = { ours: [], maps: [], hidden: [] }, firstToken = { ours: [], maps: [], hidden: [] }, steps = { ours: [], maps: [], hidden: [] };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const [kind, fn] of Object.entries(kinds)) {
      const r = await timed(fn);
      if (i < WARMUP) continue;
      if (r.value.ids.length !== ours.ids.length || r.value.ids.some((id, j) => id !== ours.ids[j])) throw new Error(`${kind}: ids changed`);
      t[kind].push(r);
      const s = r.value.stamps;
      // Encoder + first token; then each later step (token n's logits, pick, one token through the decoder).
      firstToken[kind].push({ wall: s[1].wall - s[0].wall, cpu: s[1].cpu - s[0].cpu });
      for (let j = 2; j < s.length; j++) steps[kind].push({ wall: s[j].wall - s[j - 1].wall, cpu: s[j].cpu - s[j - 1].cpu });
    }
  }
  for (const s of Object.values(sessions)) { await s.encoder.release(); await s.decoder.release(); }
  const memoryMB = model.info.memoryBytes / 2 ** 20;
  model.dispose();

  const med = Object.fromEntries(Object.keys(t).map((k) => [k, { total: medians(t[k]), first: medians(firstToken[k]), step: medians(steps[k]) }]));
  console.log(`CPU: ${cpu}; onnxruntime-web ${ort.env.versions?.web ?? ''} (wasm, 1 thread, SIMD); AttnScope 1 thread; load average ${load0.map((x) => x.toFixed(2)).join(' ')} → ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`t5-small shape (random weights): ${m.shape.layers} + ${Ld} layers, d_model ${C}, ${H} heads × d_kv ${dk}, d_ff ${m.shape.ffn}, relu, vocab ${V}, ${m.shape.buckets} buckets, tied; AttnScope memory ${memoryMB.toFixed(0)} MB`);
  console.log(`source ${S} tokens, ${NEW_TOKENS} greedy tokens; ORT's relative position bias: a graph input computed in JavaScript per run/step`);
  console.log(`checks: greedy ids equal ${NEW_TOKENS}/${NEW_TOKENS}; max |Δ| encoder attentions ${diff.encoder.toExponential(1)}, self rows ${diff.self.toExponential(1)}, cross rows ${diff.cross.toExponential(1)}, decoder hidden ${diff.hidden.toExponential(1)}, p(chosen token) ${diff.prob.toExponential(1)}`);
  console.log(`medians of ${RUNS} alternating runs after ${WARMUP} warm-up\n`);
  console.log('| clock | AttnScope ms | ORT + maps ms | ratio | ORT hidden-only ms | ratio | AttnScope encoder + 1st token | ORT + maps | AttnScope ms/token | ORT + maps ms/token | ORT hidden-only ms/token |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const clock of ['wall', 'cpu']) {
    const o = med.ours, mp = med.maps, hd = med.hidden;
    console.log(`| ${clock} | ${o.total[clock].toFixed(1)} | ${mp.total[clock].toFixed(1)} | ${(o.total[clock] / mp.total[clock]).toFixed(2)} | ${hd.total[clock].toFixed(1)} | ${(o.total[clock] / hd.total[clock]).toFixed(2)} | ${o.first[clock].toFixed(1)} | ${mp.first[clock].toFixed(1)} | ${o.step[clock].toFixed(2)} | ${mp.step[clock].toFixed(2)} | ${hd.step[clock].toFixed(2)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
