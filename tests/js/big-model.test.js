// Big models (hub checkpoints beyond the bundled ones): the worker client passes the load options on (weightPrecision reached
// the worker's loadModel), weightPrecision 'auto', the memory a loaded model reports, and
// E_TOO_LARGE from config.json alone — before the tokenizer files or model.safetensors are
// requested. The estimate's parameter counts are checked against the safetensors headers of real
// checkpoints (an independent count), and its run memory against the heap's measured growth.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createWorkerClient } from 'attnscope/worker';
import { AttnScopeError, heapStats, loadModel } from 'attnscope';
import {
  AUTO_F16_ABOVE_BYTES, WASM32_MAX_BYTES, estimateMemory, parameterCounts, resolveWeightPrecision, runBytes, weightBytes,
} from '../../js/api/memory-estimate.js';
import { tinyBertFiles, writeTinyBert } from './helpers/api-tiny-model.js';
import { startMockHub } from './helpers/api-mock-hub.js';
import { writeDistilBertFolder } from '../e2e/helpers/distilbert-folder.js';

// The loads whose heap is compared here run on one thread, and heapStats(ONE_THREAD) reads that
// (plain) module: with threads, Node's default loads live in the threaded one.
const ONE_THREAD = { threads: 1 };
const repo = (path) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'attnscope-big-'));
const tiny = writeTinyBert(join(work, 'tiny'), { seed: 9, layers: 2, heads: 2 });
const tinyFiles = tinyBertFiles({ seed: 9 });

// 48 layers × 4096: ~9.7 G parameters, 19 GB even as f16.
const GIANT = { model_type: 'bert', vocab_size: 30522, hidden_size: 4096, num_hidden_layers: 48, num_attention_heads: 32,
  intermediate_size: 16384, max_position_embeddings: 512, type_vocab_size: 2 };
// ~1 G parameters: 3.9 GB of f32 weights (no room), 2 GB as f16 (fits).
const ONE_BILLION = { model_type: 'bert', vocab_size: 30522, hidden_size: 1600, num_hidden_layers: 32,
  num_attention_heads: 16, intermediate_size: 6400, max_position_embeddings: 512, type_vocab_size: 2 };

let hub, client;
before(async () => {
  hub = await startMockHub({
    'org/tiny': tinyFiles,
    'org/giant': { ...tinyFiles, 'config.json': JSON.stringify(GIANT) },
    'org/billion': { ...tinyFiles, 'config.json': JSON.stringify(ONE_BILLION) },
  });
  client = createWorkerClient();
});
after(async () => {
  await client?.terminate();
  await hub?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The parameters a checkpoint stores that the engine keeps (as weight_is_used in engine/weights.cpp). */
function headerParameters(path) {
  const bytes = readFileSync(path);
  const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString());
  let count = 0;
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__' || /pooler\.|seq_relationship|position_ids$|\.attn\.(masked_)?bias$/.test(name)) continue;
    count += t.shape.reduce((a, b) => a * b, 1);
  }
  return count;
}

async function rejectsTooLarge(promise, pattern) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof AttnScopeError, String(error?.stack ?? error));
    assert.equal(error.code, 'E_TOO_LARGE', error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('the worker client passes the load options on', () => {
  it("weightPrecision 'f16' loads f16 in the worker, with half the memory of f32", async () => {
    const f32 = await client.load(tiny);
    assert.equal(f32.weightPrecision, 'f32');
    const f16 = await client.load(tiny, { weightPrecision: 'f16' });
    assert.equal(f16.weightPrecision, 'f16');
    // The matrices are nearly all of this model's weights: f16 holds clearly less.
    assert.ok(f16.memoryBytes > 0 && f16.memoryBytes < 0.75 * f32.memoryBytes, `${f16.memoryBytes} vs ${f32.memoryBytes}`);
    assert.ok(f16.wasmMemoryBytes >= f16.memoryBytes);
    // The same value reaches the worker's own check (a dropped option would load f32 silently).
    await assert.rejects(client.load(tiny, { weightPrecision: 'f8' }), (e) => e.code === 'E_INPUT' && /'auto'/.test(e.message));
  });

  it('hubUrl, revision and cache reach the worker too', async () => {
    const info = await client.load('org/tiny', { hubUrl: hub.url, revision: 'v2', cache: false, weightPrecision: 'f16' });
    assert.equal(info.source, 'hub');
    assert.equal(info.weightPrecision, 'f16');
    assert.ok(hub.requests.includes('/org/tiny/resolve/v2/model.safetensors'), hub.requests.join(' '));
  });

  it("'auto' keeps a small model at f32", async () => {
    assert.equal((await client.load(tiny, { weightPrecision: 'auto' })).weightPrecision, 'f32');
  });
});

describe('E_TOO_LARGE from config.json, before the download', () => {
  it('a 48 × 4096 model is refused having fetched config.json only (in-thread and through the worker)', async () => {
    const heapBefore = (await heapStats(ONE_THREAD)).inUse;
    for (const load of [(o) => loadModel('org/giant', { ...o, ...ONE_THREAD }), (o) => client.load('org/giant', o)]) {
      for (const weightPrecision of ['f32', 'f16', 'auto']) {
        const first = hub.requests.length;
        await rejectsTooLarge(load({ hubUrl: hub.url, weightPrecision }),
          /needs about \d+\.\d\d GB .*weights .*-token run.*4 GB.*even with f16 weights/);
        assert.deepEqual(hub.requests.slice(first), ['/org/giant/resolve/main/config.json']);
      }
    }
    assert.equal((await heapStats(ONE_THREAD)).inUse, heapBefore, 'the refused loads left memory behind');
  });

  it("a model that fits only as f16 names the remedy; 'auto' chooses f16 and goes on to download", async () => {
    const first = hub.requests.length;
    await rejectsTooLarge(loadModel('org/billion', { hubUrl: hub.url }), /weightPrecision 'f16'/);
    assert.ok(!hub.requests.slice(first).some((u) => u.endsWith('model.safetensors')));
    // The tiny checkpoint behind this config then fails on its tensors, after the download.
    await assert.rejects(loadModel('org/billion', { hubUrl: hub.url, weightPrecision: 'auto' }),
      (e) => e.code !== 'E_TOO_LARGE' && e.code.startsWith('E_'));
    assert.ok(hub.requests.slice(first).includes('/org/billion/resolve/main/model.safetensors'));
  });
});

describe('the estimate', () => {
  it('counts the parameters a checkpoint holds (bundled BERT and decoder exactly; DistilBERT plus its absent MLM head)', async () => {
    for (const [source, file] of [['bundled', 'model/model.safetensors'], ['bundled-causal', 'model-causal/model.safetensors']]) {
      const model = await loadModel(source);
      const { matrices, other } = parameterCounts(model.config);
      assert.equal(matrices + other, headerParameters(repo(file)), source);
      model.dispose();
    }
    const { dir } = writeDistilBertFolder(join(work, 'distil'), { layers: 2 });
    const model = await loadModel(dir);
    const { matrices, other } = parameterCounts(model.config);
    const C = model.config.hiddenSize;
    assert.equal(matrices + other - (C * C + 3 * C + model.config.vocabSize), headerParameters(join(dir, 'model.safetensors')));
    model.dispose();
  });

  it("agrees with the memory a load takes, at f32, f16 and q8, and 'auto' switches at 300 MB", async () => {
    for (const weightPrecision of ['f32', 'f16', 'q8']) {
      const model = await loadModel('bundled', { weightPrecision });
      const estimate = weightBytes(model.config, weightPrecision);
      // The rest is the tokenizer (an 8,000-word vocabulary) and the model's small buffers.
      assert.ok(model.info.memoryBytes >= estimate && model.info.memoryBytes < estimate + 1024 ** 2,
        `${weightPrecision}: measured ${model.info.memoryBytes}, estimated ${estimate}`);
      model.dispose();
    }
    const bertBase = { family: 'bert', vocabSize: 30522, hiddenSize: 768, numLayers: 12, numHeads: 12, intermediateSize: 3072,
      maxPositionEmbeddings: 512, typeVocabSize: 2, maxTokens: 512 };
    const distilBase = { ...bertBase, family: 'distilbert', numLayers: 6, typeVocabSize: 0 };
    assert.ok(weightBytes(bertBase, 'f32') > AUTO_F16_ABOVE_BYTES && weightBytes(distilBase, 'f32') < AUTO_F16_ABOVE_BYTES);
    assert.equal(resolveWeightPrecision(bertBase, 'auto'), 'f16');
    assert.equal(resolveWeightPrecision(distilBase, 'auto'), 'f32');
    assert.equal(resolveWeightPrecision(bertBase, 'f32'), 'f32');
    // bert-base (110 M parameters): 418 MB as f32, about half as f16.
    assert.equal(Math.round(weightBytes(bertBase, 'f32') / 1024 ** 2), 418);
    assert.ok(estimateMemory(bertBase, 'f16').total < WASM32_MAX_BYTES / 4);
    // q8: int8 layers, f16 word embeddings; a q8 load streams the matrices in as f16, so its
    // total is never below the f16 weights. 'auto' picks q8 only where f16 (weights + a run) does
    // not fit and q8 does: this 1.9 B-parameter Llama-shaped model (3.8 GB of f16 weights, a
    // 0.6 GB run at 256 tokens).
    assert.ok(weightBytes(bertBase, 'q8') < weightBytes(bertBase, 'f16') / 1.5);
    assert.equal(resolveWeightPrecision(bertBase, 'q8'), 'q8');
    const big = { family: 'llama', vocabSize: 32000, hiddenSize: 2048, numLayers: 36, numHeads: 16, numKeyValueHeads: 16,
      headDim: 128, intermediateSize: 5632, maxPositionEmbeddings: 256, maxTokens: 256, isDecoder: true };
    assert.ok(estimateMemory(big, 'q8').total >= weightBytes(big, 'f16'));
    assert.equal(resolveWeightPrecision(big, 'auto'), 'q8');
    assert.equal(resolveWeightPrecision({ ...big, numLayers: 48 }, 'auto'), 'f16');  // q8 would not fit either: f16's error names it
  });

  // The config.json path before any download: every config the engine accepts from the fuzz
  // seeds (tests/fuzz/corpus/config, huge sizes included) gets a finite estimate, f16 never above
  // f32, and a clear E_TOO_LARGE (never a crash or NaN in the message) when it cannot fit.
  it('every config the engine parses from the fuzz seeds gets a finite estimate and fits or is E_TOO_LARGE', async () => {
    const { getWasmModule, callWasm } = await import('../../js/api/wasm.js');
    const { checkFitsWasm32 } = await import('../../js/api/memory-estimate.js');
    const wasm = await getWasmModule();
    const seeds = repo('tests/fuzz/corpus/config');
    let parsed = 0;
    for (const name of readdirSync(seeds)) {
      let config;
      try {
        config = callWasm(() => wasm.parseConfig(readFileSync(join(seeds, name), 'utf8')));
      } catch (error) {
        assert.equal(error.code, 'E_CONFIG', name);
        continue;
      }
      parsed++;
      const f32 = estimateMemory(config, 'f32'), f16 = estimateMemory(config, 'f16');
      assert.ok(Number.isFinite(f32.total) && f32.total > 0 && f16.total <= f32.total, name);
      for (const precision of ['f32', 'f16']) {
        try {
          checkFitsWasm32(config, precision);
        } catch (error) {
          assert.ok(error instanceof AttnScopeError && error.code === 'E_TOO_LARGE' && !/NaN|Infinity/.test(error.message), `${name}: ${error.message}`);
        }
      }
    }
    assert.ok(parsed >= 5, `only ${parsed} seeds parsed`);
  });

  it('a run at the longest input fits in the run estimate, which holds at least the attention maps', async () => {
    const model = await loadModel('bundled', ONE_THREAD);
    const { numLayers: L, numHeads: H, maxTokens: T } = model.config;
    await model.run('a', { qkv: true, valueNorms: true });   // the engine's buffers at their smallest
    const before = (await heapStats(ONE_THREAD)).inUse;
    const r = await model.run(Array(T).fill('river').join(' '), { qkv: true, valueNorms: true, hiddenStates: true, maxLength: T });
    assert.equal(r.shape[2], T);
    const grew = (await heapStats(ONE_THREAD)).inUse - before;
    assert.ok(grew >= L * H * T * T * 4 * 0.9 && grew <= runBytes(model.config), `grew ${grew}, estimate ${runBytes(model.config)}`);
    model.dispose();
  });
});
