// Facts that two layers both need, each defined once per layer and checked here to agree: the
// error codes (engine/error.h, read back from the wasm module = js/formats/errors.js = index.d.ts, and no
// source throws a code outside its layer's list), the weight precisions the engine takes, the
// wasm32 memory limit, the bundled model ids and the activation names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ENGINE_ERROR_CODES, ERROR_CODES } from '../../js/formats/errors.js';
import { getWasmModule } from '../../js/api/wasm.js';
import { EAGER_MAPS_MAX_BYTES, WASM32_MAX_BYTES, WEIGHT_PRECISIONS, WEIGHT_PRECISION_CHOICES } from '../../js/api/memory-estimate.js';
import { BUNDLED_MODEL_IDS } from '../../js/api/bundled-models.js';
import { bundledModelLocations } from '../../js/platform-node.js';
import { activationKind } from '../../js/formats/block-steps.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir, pattern) {
  return readdirSync(join(root, dir), { recursive: true })
    .filter((name) => pattern.test(name))
    .map((name) => ({ name: `${dir}/${name}`, text: readFileSync(join(root, dir, name), 'utf8') }));
}

/** Every distinct code literal ("E_X" or 'E_X') in `files`, with a file that uses it. */
function codeLiterals(files, quote) {
  const found = new Map();
  const literal = new RegExp(`${quote}(E_[A-Z_]+)${quote}`, 'g');
  for (const { name, text } of files) for (const [, code] of text.matchAll(literal)) if (!found.has(code)) found.set(code, name);
  return found;
}

test('the wasm module exports the engine list, and it is ENGINE_ERROR_CODES', async () => {
  const wasm = await getWasmModule();
  assert.deepEqual([...wasm.errorCodes()], [...ENGINE_ERROR_CODES]);
});

test('engine/error.h lists the same codes the module exports (the source the module was built from)', () => {
  const header = readFileSync(join(root, 'engine/error.h'), 'utf8');
  const list = header.slice(header.indexOf('kErrorCodes[]'), header.indexOf('};', header.indexOf('kErrorCodes[]')));
  assert.deepEqual([...list.matchAll(/"(E_[A-Z_]+)"/g)].map((m) => m[1]), [...ENGINE_ERROR_CODES]);
});

test('ERROR_CODES is the engine list plus the loader codes, each once', () => {
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
  for (const code of ENGINE_ERROR_CODES) assert.ok(ERROR_CODES.includes(code), code);
});

test('every code the C++ throws is in engine/error.h', () => {
  const cpp = [...sources('engine', /\.(h|cpp)$/), ...sources('bindings', /\.(h|cpp)$/)]
    .filter(({ name }) => name !== 'engine/error.h');
  const used = codeLiterals(cpp, '"');
  assert.ok(used.size >= 5, `found only ${[...used.keys()]}: the scan is broken`);
  for (const [code, file] of used) assert.ok(ENGINE_ERROR_CODES.includes(code), `${file} throws ${code}, not in engine/error.h`);
});

test('every code the JavaScript and the page use is in ERROR_CODES', () => {
  const js = [...sources('js', /\.js$/), ...sources('web/src', /\.js$/), ...sources('web/embed', /\.js$/)];
  const used = codeLiterals(js, "'");
  assert.ok(used.size >= 8, `found only ${[...used.keys()]}: the scan is broken`);
  for (const [code, file] of used) assert.ok(ERROR_CODES.includes(code), `${file} uses ${code}, not in js/formats/errors.js`);
});

test('index.d.ts declares ERROR_CODES as the same list, in the same order', () => {
  const dts = readFileSync(join(root, 'js/index.d.ts'), 'utf8');
  const declaration = dts.slice(dts.indexOf('export const ERROR_CODES'), dts.indexOf('];', dts.indexOf('export const ERROR_CODES')));
  assert.deepEqual([...declaration.matchAll(/'(E_[A-Z_]+)'/g)].map((m) => m[1]), [...ERROR_CODES]);
});

test('the weight precisions the engine takes are WEIGHT_PRECISIONS, and "auto" is resolved before it', async () => {
  const wasm = await getWasmModule();
  const config = JSON.stringify({ model_type: 'bert', vocab_size: 4, hidden_size: 4, num_hidden_layers: 1,
    num_attention_heads: 1, intermediate_size: 4 });
  for (const precision of WEIGHT_PRECISIONS) new wasm.WeightUpload(config, -1, precision).delete();
  for (const other of [...WEIGHT_PRECISION_CHOICES.filter((p) => !WEIGHT_PRECISIONS.includes(p)), 'f8']) {
    assert.throws(() => new wasm.WeightUpload(config, -1, other), (e) => e.code === 'E_INPUT', other);
  }
  const dts = readFileSync(join(root, 'js/index.d.ts'), 'utf8');
  const declared = /weightPrecision\?: ([^;]+);/.exec(dts)[1];
  assert.deepEqual([...declared.matchAll(/'(\w+)'/g)].map((m) => m[1]).sort(), [...WEIGHT_PRECISION_CHOICES].sort());
});

test('WASM32_MAX_BYTES is what the module may grow to (-sMAXIMUM_MEMORY)', async () => {
  const wasm = await getWasmModule();
  assert.equal(wasm.buildInfo().maxMemoryBytes, WASM32_MAX_BYTES);
});

test('EAGER_MAPS_MAX_BYTES is the engine\'s threshold for maps on demand (attention_sources.h)', async () => {
  const wasm = await getWasmModule();
  assert.equal(wasm.buildInfo().eagerMapsMaxBytes, EAGER_MAPS_MAX_BYTES);
});

test('the bundled model ids are the ones the platform has files for, and the ones index.d.ts names', () => {
  assert.deepEqual(Object.keys(bundledModelLocations), [...BUNDLED_MODEL_IDS]);
  const dts = readFileSync(join(root, 'js/index.d.ts'), 'utf8');
  const source = dts.slice(dts.indexOf('export type ModelSource'), dts.indexOf(';', dts.indexOf('export type ModelSource')));
  for (const id of BUNDLED_MODEL_IDS) assert.ok(source.includes(`'${id}'`), `ModelSource lacks '${id}'`);
});

// The engine's activation names: the ones parse_config accepts (engine/config.cpp) and the kernel
// each one runs (engine/blocks.cpp activation_for); the block view recomputes the feed-forward
// with js/formats/block-steps.js's activationKind, which must agree on every name.
test('js/formats/block-steps.js reads every activation name the engine accepts as the engine does', () => {
  const config = readFileSync(join(root, 'engine/config.cpp'), 'utf8');
  const accepts = config.slice(config.indexOf('bool is_supported_activation'), config.indexOf('}', config.indexOf('bool is_supported_activation')));
  const accepted = [...accepts.matchAll(/"([a-z0-9_]+)"/g)].map((m) => m[1]);
  assert.ok(accepted.length >= 4, `found ${accepted}: the scan is broken`);

  const blocks = readFileSync(join(root, 'engine/blocks.cpp'), 'utf8');
  const body = blocks.slice(blocks.indexOf('activation_for(const std::string& name)'), blocks.indexOf('\n}', blocks.indexOf('activation_for(const std::string& name)')));
  const kindOf = new Map();
  let fallback = null;
  for (const statement of body.split(';')) {
    const kind = /return Activation::(\w+)/.exec(statement)?.[1];
    if (!kind) continue;
    const names = [...statement.matchAll(/name == "([a-z0-9_]+)"/g)].map((m) => m[1]);
    if (names.length === 0) fallback = kind;
    for (const name of names) kindOf.set(name, kind);
  }
  const jsName = { Relu: 'relu', GeluTanh: 'geluTanh', GeluErf: 'geluErf', Silu: 'silu' };
  for (const name of accepted) {
    const kind = kindOf.get(name) ?? fallback;
    assert.ok(jsName[kind], `the engine runs ${name} as Activation::${kind}, which js/formats/block-steps.js does not know`);
    assert.equal(activationKind(name), jsName[kind], name);
  }
});
