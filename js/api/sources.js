// Turns whatever loadModel() was given into a "provider" of Hugging Face layout files:
// nothing/'bundled' → the bundled model; an https URL → that folder; a Node path → that folder;
// 'owner/name' → the hub; {config, weights, vocab, tokenizer, tokenizerConfig, vocabJson, merges, sourceSpm,
// targetSpm} or File objects →
// those. A provider opens files by their hub name and knows nothing about models.
import { AttnScopeError } from '../formats/errors.js';
import { httpProvider } from './http-provider.js';
import { isHubId } from './hub-id.js';
import { BUNDLED_MODEL, isBundledModelId } from './bundled-models.js';
import { bundledModelProvider, directoryProvider, env, localPathFor, platformName } from '#platform';

export const DEFAULT_HUB_URL = 'https://huggingface.co';

// loadModel({...}) keys → file names in a Hugging Face model folder.
const OBJECT_SOURCE_FILES = Object.freeze({
  config: 'config.json',
  weights: 'model.safetensors',
  vocab: 'vocab.txt',
  tokenizer: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
  vocabJson: 'vocab.json',
  merges: 'merges.txt',
  sourceSpm: 'source.spm',
  targetSpm: 'target.spm',
});

/**
 * @param {unknown} source
 * @param {{hubUrl?: string, revision?: string, cache?: boolean}} options
 */
export async function resolveSource(source, options = {}) {
  const cache = options.cache !== false;
  if (source === undefined || source === null) return bundledModelProvider(BUNDLED_MODEL);
  if (isBundledModelId(source)) return bundledModelProvider(source);
  if (source instanceof URL) return baseUrlProvider(source, cache);
  if (typeof source === 'string') {
    if (source.trim() === '') throw new AttnScopeError('E_INPUT', 'model source is an empty string');
    if (/^https?:\/\//i.test(source)) return baseUrlProvider(new URL(source), cache);
    const local = await localPathFor(source);
    if (local) return directoryProvider(local);
    if (platformName === 'browser' && /^(\/|\.\.?\/)/.test(source)) {
      return baseUrlProvider(new URL(source, globalThis.location?.href ?? globalThis.document?.baseURI), cache);
    }
    if (isHubId(source)) return hubProvider(source, options, cache);
    throw new AttnScopeError('E_INPUT', `cannot tell what model source ${JSON.stringify(source)} is: ` +
      'expected a hub id (owner/name), an http(s) URL, a local folder, or files');
  }
  if (isFileList(source)) return fileListProvider(source);
  if (typeof source === 'object') return objectProvider(source, cache);
  throw new AttnScopeError('E_INPUT', `unsupported model source of type ${typeof source}`);
}

export function hubUrlFor(id, { hubUrl, revision } = {}) {
  const base = (hubUrl ?? env('ATTNSCOPE_HUB_URL') ?? DEFAULT_HUB_URL).replace(/\/+$/, '');
  return `${base}/${id}/resolve/${encodeURIComponent(revision ?? 'main')}/`;
}

function hubProvider(id, options, cache) {
  const base = hubUrlFor(id, options);
  return { ...httpProvider((name) => new URL(name, base), { kind: 'hub', location: base, cache }), id };
}

function baseUrlProvider(url, cache) {
  // 'https://host/m' and 'https://host/m/config.json' both mean the folder https://host/m/.
  let base = new URL(url);
  base.search = '';
  base.hash = '';
  if (base.pathname.endsWith('/config.json')) base = new URL('./', base);
  else if (!base.pathname.endsWith('/')) base.pathname += '/';
  return httpProvider((name) => new URL(name, base), { kind: 'url', location: base.href, cache });
}

function isFileList(source) {
  const list = Array.isArray(source) ? source : (typeof FileList !== 'undefined' && source instanceof FileList ? [...source] : null);
  return list !== null && list.length > 0 && list.every((f) => typeof Blob !== 'undefined' && f instanceof Blob && typeof f.name === 'string');
}

/** Files picked by the user (e.g. <input type=file webkitdirectory>): matched by base name. */
function fileListProvider(list) {
  const byName = new Map();
  for (const file of list) byName.set(file.name.split('/').pop(), file);
  return valueProvider((name) => byName.get(name), { kind: 'files', location: 'files' });
}

function objectProvider(source, cache) {
  for (const key of Object.keys(source)) {
    if (!(key in OBJECT_SOURCE_FILES)) {
      throw new AttnScopeError('E_INPUT', `unknown model source key "${key}" ` +
        `(expected ${Object.keys(OBJECT_SOURCE_FILES).join(', ')})`);
    }
  }
  const keyOf = Object.fromEntries(Object.entries(OBJECT_SOURCE_FILES).map(([key, name]) => [name, key]));
  return valueProvider((name) => source[keyOf[name]], { kind: 'object', location: 'object', cache });
}

/** A provider over in-memory values: strings, JSON objects, bytes, Blobs, or URLs to fetch. */
function valueProvider(valueFor, { kind, location, cache = true }) {
  const fetcher = httpProvider((name) => urlValue(valueFor(name)), { kind, location, cache });
  return {
    kind,
    location,
    describe: (name) => name,
    async check() {},
    async open(name, options = {}) {
      const value = valueFor(name);
      if (value === undefined || value === null) {
        if (options.required) throw new AttnScopeError('E_NOT_FOUND', `${name} is required but was not given`);
        return null;
      }
      if (urlValue(value)) return fetcher.open(name, options);
      if (typeof Blob !== 'undefined' && value instanceof Blob) return { size: value.size, chunks: blobChunks(value) };
      if (value instanceof ArrayBuffer) return bytesEntry(new Uint8Array(value));
      if (ArrayBuffer.isView(value)) return bytesEntry(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      if (name === 'model.safetensors') {
        throw new AttnScopeError('E_INPUT', 'weights must be an ArrayBuffer, a typed array, a Blob or a URL');
      }
      if (typeof value === 'string') return bytesEntry(new TextEncoder().encode(value));
      if (typeof value === 'object') return bytesEntry(new TextEncoder().encode(JSON.stringify(value)));
      throw new AttnScopeError('E_INPUT', `${name}: unsupported value of type ${typeof value}`);
    },
  };
}

function urlValue(value) {
  if (value instanceof URL) return value;
  if (value && typeof value === 'object' && typeof value.$url === 'string') return new URL(value.$url);
  return null;
}

function bytesEntry(bytes) {
  return { size: bytes.byteLength, chunks: (async function* () { yield bytes; })() };
}

async function* blobChunks(blob) {
  const reader = blob.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}
