// What an npm user writes (README "Use it from JavaScript"), type-checked against js/*.d.ts by
// tests/js/types.test.js. Never run: only the compiler reads it. Lines marked @ts-expect-error
// must be rejected, so a declaration that accepts anything fails the test too.
import { AttnScopeError, ERROR_CODES, RunResult, buildInfo, bundledModelFile, bundledModelLocation, clearModelCache,
  DEFAULT_HUB_URL, FLOW_DEFAULT_TAU, flowGraph, heapStats, hubUrlFor, loadModel, loadSeq2SeqModel, topFlowRoute } from 'attnscope';
import type { ErrorCode, LoadProgress, MaskPrediction, Model, ModelInfo } from 'attnscope';
import { createWorkerClient } from 'attnscope/worker';

const model: Model = await loadModel();
await loadModel('bundled', { weightPrecision: 'f16' });
await loadModel('google-bert/bert-base-uncased', {
  onProgress: (p: LoadProgress) => console.log(p.file, p.loaded, p.total ?? '?'),
  signal: new AbortController().signal, revision: 'main', cache: false,
});
await loadModel(new URL('https://example.com/model/'));
await loadModel({ config: '{}', weights: new ArrayBuffer(0), vocab: '[PAD]\n' });

const r = await model.run('The bank of the river.', { textPair: 'A pair.', maxLength: 64, qkv: true,
  valueNorms: true, hiddenStates: true, topK: 3 });
const tokens: string[] = r.tokens;
const [layers, heads, t]: number[] = r.shape;
const row0: Float32Array = r.attention(layers - 1, heads - 1).subarray(0, t);
const spans: Int32Array = r.offsets;
const top: MaskPrediction[] = r.maskPredictions ?? [];
const firstGuess: string | undefined = top[0]?.top[0]?.token;
const again = await model.runIds(r.ids, { tokenTypes: r.typeIds, attentionMask: [1, 1, 1], reuse: r });
const buffers: ArrayBuffer[] = again.transferables();
const info: Readonly<ModelInfo> = model.info;
const hidden: number = model.config.hiddenSize * info.config.numLayers;
const id: number = model.tokenToId('[MASK]');
const token: string = model.idToToken(id);
const enc = model.tokenize('Hello, world!', { maxLength: 8 });
const mask: Uint8Array = enc.specialTokensMask;
model.dispose();

try {
  await loadModel('./missing-folder');
} catch (e) {
  if (e instanceof AttnScopeError) {
    const code: ErrorCode = e.code;
    console.log(code, ERROR_CODES.includes(code));
  }
}
const url: string = hubUrlFor('owner/name', { revision: 'v1' }) + DEFAULT_HUB_URL + bundledModelLocation;
const cleared: boolean = await clearModelCache();
const t5 = await loadSeq2SeqModel('bundled-seq2seq');
const withLogits = await t5.run('Only Miss Gee asked for bail.', { target: 'Only Miss Gee for bail asked.', logits: true });
const logits: Float32Array | undefined = withLogits.logits;
const withFlow = await model.run('The river was high.', { flow: true });
if (withFlow.flow) {
  const graph = flowGraph(withFlow.flow, { tau: FLOW_DEFAULT_TAU, position: 2 });
  const firstHeads: Float32Array | undefined = topFlowRoute(graph)[0]?.heads;
  const share: number = withFlow.flow.tokens[0] + (withFlow.flow.heads[0] ?? 0);
}
const t5Flow = (await t5.run('Bail.', { target: 'Bail.', flow: true })).flow;
const crossShare: number | undefined = t5Flow?.crossTokens[0] ?? t5Flow?.encoder.tokens[0];
// @ts-expect-error: tau is a number
flowGraph(withFlow.flow!, { tau: 'low' });
const heldout: string | null = bundledModelFile('bundled-seq2seq', 'heldout.jsonl');
// @ts-expect-error: only the bundled ids have files
bundledModelFile('gpt2', 'config.json');
const { inUse, memoryBytes } = await heapStats();
const { relaxedSimd } = await buildInfo();
const fromFields = new RunResult({ ...enc, shape: [1, 1, 1, 1], attentions: new Float32Array(1),
  hidden: new Float32Array(1) });

const client = createWorkerClient();
const workerInfo: ModelInfo = await client.load('bundled', { weightPrecision: 'f16' });
const live = await client.run('The bank.', { replacePending: true, signal: AbortSignal.timeout(1000) });
const viaWorker: Float32Array = live.attention(0, 0);
await client.tokenize('x', { maxLength: 4 });
client.cancel();
await client.dispose();
await client.terminate();

// Wrong uses the declarations must reject.
// @ts-expect-error text must be a string
await model.run(42);
// @ts-expect-error only 'f32' and 'f16'
await loadModel('bundled', { weightPrecision: 'f8' });
// @ts-expect-error not an error code
const badCode: ErrorCode = 'E_WHATEVER';
// @ts-expect-error attention() takes a layer and a head
r.attention(0);
// @ts-expect-error results cannot be reused through the worker (they are transferred)
await client.run('x', { reuse: live });
// @ts-expect-error the model's config is read-only
model.config.numLayers = 2;

console.log(tokens, row0, spans, firstGuess, buffers, hidden, token, mask, url, cleared, inUse,
  memoryBytes, relaxedSimd, fromFields, workerInfo, viaWorker, badCode);
