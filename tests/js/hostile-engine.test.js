// Hostile inputs that reach the engine: sizes that wrap wasm32's 32-bit size_t (a trap before),
// and non-finite weights (plausible-looking output before). Each must be a clear AttnScopeError,
// and the model must keep working after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../js/index.js';

const fixture = (path) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));
const bundled = (name) => fileURLToPath(new URL(`../../${name}`, import.meta.url));

const withCopy = async (source, edit, body) => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-hostile-'));
  try {
    cpSync(source, dir, { recursive: true });
    edit(dir);
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

// Overwrites element `index` of tensor `name` (F32, F16 or BF16) in a safetensors file with NaN.
function poison(file, name, index, value = NaN) {
  const bytes = readFileSync(file);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString());
  const { dtype, data_offsets: [begin] } = header[name];
  const at = 8 + headerLength + begin;
  if (dtype === 'F32') bytes.writeFloatLE(value, at + 4 * index);
  else if (dtype === 'F16') bytes.writeUInt16LE(Number.isNaN(value) ? 0x7e00 : 0x7c00, at + 2 * index);
  else if (dtype === 'BF16') bytes.writeUInt16LE(Number.isNaN(value) ? 0x7fc0 : 0x7f80, at + 2 * index);
  else throw new Error(`poison: dtype ${dtype}`);
  writeFileSync(file, bytes);
  return header[name].shape;
}

const rejectsWith = (promise, code, pattern) =>
  assert.rejects(promise, (e) => {
    assert.equal(e.code, code, `${e.code}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });

test('a T5 source of 32,768 ids is E_TOO_LARGE (it trapped: the maps wrapped size_t), and the model still runs', async () => {
  const model = await loadModel(bundled('model-seq2seq'), { threads: 1 });
  try {
    for (const S of [32768, 65536])
      await rejectsWith(model.runIds(new Int32Array(S).fill(5)), 'E_TOO_LARGE', /encoder's attention maps .*GB/);
    const ok = await model.run('the cat sat .', { target: 'the cat sat .' });
    assert.ok(ok.encoderAttentions.every(Number.isFinite));
  } finally {
    model.dispose();
  }
});

test('a Llama with max_position_embeddings 131,072 at 65,537 ids is E_TOO_LARGE, and the model still runs', async () => {
  await withCopy(fixture('llama_page'), (dir) => {
    const config = JSON.parse(readFileSync(join(dir, 'config.json')));
    config.max_position_embeddings = 131072;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  }, async (dir) => {
    const model = await loadModel(dir, { threads: 1 });
    try {
      await rejectsWith(model.runIds(new Int32Array(65537).fill(3)), 'E_TOO_LARGE', /attention maps \(3 × 8 × 65537 × 65537/);
      const ok = await model.runIds([1, 5, 7]);
      assert.ok(ok.attentions.every(Number.isFinite));
    } finally {
      model.dispose();
    }
  });
});

test('one NaN in a query weight is refused at load, naming the tensor and the element', async () => {
  await withCopy(bundled('model-causal'), (dir) => {
    poison(join(dir, 'model.safetensors'), 'transformer.h.1.attn.c_attn.weight', 70);
  }, async (dir) => {
    await rejectsWith(loadModel(dir, { threads: 1 }), 'E_WEIGHTS', /"transformer\.h\.1\.attn\.c_attn\.weight" has NaN at element 70 \(row 0, column 70\)/);
  });
});

test('an infinite embedding is refused at load, in every weight precision', async () => {
  for (const weightPrecision of ['f32', 'f16', 'q8'])
    await withCopy(bundled('model'), (dir) => {
      poison(join(dir, 'model.safetensors'), 'bert.embeddings.word_embeddings.weight', 3, Infinity);
    }, async (dir) => {
      await rejectsWith(loadModel(dir, { threads: 1, weightPrecision }), 'E_WEIGHTS',
        /"bert\.embeddings\.word_embeddings\.weight" has an infinite value at element 3/);
    });
});

test('finite weights whose activations overflow float32 are reported, not drawn as uniform rows', async () => {
  await withCopy(fixture('llama_page'), (dir) => {
    // 3e38 is finite, but the queries it makes overflow to ±Inf, and their scores to NaN.
    for (let i = 0; i < 64; i++) poison(join(dir, 'model.safetensors'), 'model.layers.1.self_attn.q_proj.weight', i, 3e38);
  }, async (dir) => {
    const model = await loadModel(dir, { threads: 1 });
    try {
      await rejectsWith(model.runIds([1, 5, 7, 9]), 'E_WEIGHTS', /^layer 1's output at position \d+ is not a finite number/);
    } finally {
      model.dispose();
    }
  });
});

test('a layer count below the checkpoint\'s loads with a warning naming the unused layers', async () => {
  await withCopy(fixture('llama_page'), (dir) => {
    const config = JSON.parse(readFileSync(join(dir, 'config.json')));
    config.num_hidden_layers = 1;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  }, async (dir) => {
    const model = await loadModel(dir, { threads: 1 });
    try {
      assert.equal(model.info.warnings.length, 2, model.info.warnings.join('\n'));
      assert.match(model.info.warnings[0], /weights for 3 layers but config\.json gives 1 layers: the weights of layers 1–2 are not used/);
      // 2 layers × 9 tensors (q, k, v, o; gate, up, down; two norms).
      assert.match(model.info.warnings[1], /^18 tensors were in the checkpoint but not used: model\.layers\.1\./);
    } finally {
      model.dispose();
    }
  });
  const whole = await loadModel(fixture('llama_page'), { threads: 1 });
  try {
    assert.deepEqual(whole.info.warnings, []);
  } finally {
    whole.dispose();
  }
});

test('after a trap the engine is discarded: earlier models refuse to run (saying why), a new load runs', async () => {
  const { callWasm } = await import('../../js/api/wasm.js');
  const before = await loadModel(bundled('model-causal'), { threads: 1 });
  const seq2seq = await loadModel(bundled('model-seq2seq'), { threads: 1 });
  try {
    // A trap the size checks no longer let the engine reach, raised as the engine would raise it.
    assert.throws(() => callWasm(() => { throw new WebAssembly.RuntimeError('memory access out of bounds'); }),
      (e) => e.code === 'E_INTERNAL' && /trap: memory access out of bounds/.test(e.message));
    for (const call of [() => before.runIds([1, 2, 3]), () => seq2seq.run('the cat .', { target: 'the cat .' })])
      await rejectsWith(Promise.resolve().then(call), 'E_INTERNAL', /trapped \(memory access out of bounds\) and was discarded: .* load it again/);
    const after = await loadModel(bundled('model-causal'), { threads: 1 });
    try {
      const r = await after.runIds([1, 2, 3]);
      assert.ok(r.attentions.every(Number.isFinite));
    } finally {
      after.dispose();
    }
  } finally {
    before.dispose();
    seq2seq.dispose();
  }
});

test('an encoder–decoder asked for 10⁹ tokens without EOS is refused before it starts, naming what fits', async () => {
  const model = await loadModel(bundled('model-seq2seq'), { threads: 1 });
  try {
    const { decoderLayers: L, decoderHeads: H, decoderHeadDim: dh, maxTokens } = model.config;
    const S = model.tokenize('the cat sat on the mat .').ids.length;
    // Kept per step n (keys 1 … n): a self-attention row of n and a cross row of S floats per
    // layer and head, and the step's key and value in every layer's cache.
    const bytes = (n) => 4 * (L * H * (n * (n + 1) / 2 + n * S) + 2 * L * n * H * dh);
    let fits = 0;
    while (bytes(fits + 1) <= 2 ** 32) fits++;
    assert.ok(fits < maxTokens - 1, `the bundled T5's ${maxTokens} positions must not all fit for this test`);
    await rejectsWith(model.generate('the cat sat on the mat .', { maxNewTokens: 1e9, stopAtEos: false }),
      'E_TOO_LARGE', new RegExp(`maxNewTokens = 1000000000 .* at most ${fits} new tokens fit`));
    const few = await model.generate('the cat sat on the mat .', { maxNewTokens: 3, stopAtEos: false });
    assert.equal(few.ids.length, 4);
  } finally {
    model.dispose();
  }
});

test('the CLI prints a load warning on stderr, and info lists it', async () => {
  const { execFile } = await import('node:child_process');
  const cli = (args) => new Promise((resolve) => {
    execFile(process.execPath, [fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url)), ...args, '--threads', '1'],
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
  await withCopy(fixture('llama_page'), (dir) => {
    const config = JSON.parse(readFileSync(join(dir, 'config.json')));
    config.num_hidden_layers = 2;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  }, async (dir) => {
    const { code, stdout, stderr } = await cli(['info', '--model', dir]);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^attnscope: warning: the checkpoint has weights for 3 layers but config\.json gives 2 layers/m);
    assert.match(stderr, /^attnscope: warning: 9 tensors were in the checkpoint but not used/m);
    assert.equal(JSON.parse(stdout).warnings.length, 2);
  });
});
