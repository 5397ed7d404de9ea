// Builds the embeddable <attn-scope> element into dist/:
//   dist/attnscope-element.js  the element (+ the package's worker, js/worker.js, inlined as a
//                              string); its views and each language's text are chunks beside it,
//                              dist/attnscope-element-chunks/*.js, fetched when an element first
//                              shows them; loads dist/attnscope-encoder.wasm for a BERT or
//                              DistilBERT, dist/attnscope-core-relaxed.wasm (relaxed SIMD) or
//                              dist/attnscope-core.wasm for the other models, or for an
//                              encoder–decoder or int8 weights dist/attnscope[-relaxed].wasm
//                              (js/api/wasm.js), and ../model/, relative to itself
//   dist/attnscope-element-inline.js  the same element as one script (every view, both languages,
//                              no chunks), for pages that inline it: the Python package's notebook
//                              figures
//   dist/attnscope-embed.html  one self-contained file: element (every view, both languages: one
//                              script, no chunks), wasm and the bundled model as base64; opens from
//                              file:// with no network (also an iframe target)
//   dist/attnscope-embed-causal.html  the same with the bundled decoder (model-causal/, GPT-2
//                              style) inlined and <attn-scope model="bundled-causal">; built when
//                              model-causal/ is present
//   dist/attnscope-embed-seq2seq.html  the same with the bundled T5 (model-seq2seq/) inlined,
//                              showing its cross-attention (kind="cross") on a held-out pair;
//                              built when model-seq2seq/ is present
// Needs dist/attnscope.{mjs,wasm} (scripts/build.sh wasm). Usage: node scripts/build-embed.mjs
import { build } from 'esbuild';
import { readFileSync, writeFileSync, existsSync, statSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { SEQ2SEQ_EXAMPLE_SOURCE } from '../web/src/panels/examples.js';
import { ENTRY_DEFAULTS, VIEW, VIEW_LIST } from '../web/src/views/registry.js';
import { LANGUAGES, STRING_TABLES } from '../web/src/i18n/i18n.js';
import { tablesFor } from './element-strings.mjs';
import { usedCss } from './element-css.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const MODEL_FILES = { config: 'config.json', weights: 'model.safetensors', vocab: 'vocab.txt', tokenizerConfig: 'tokenizer_config.json' };
const TOKENIZER_JSON_FILES = { config: 'config.json', weights: 'model.safetensors', tokenizer: 'tokenizer.json', tokenizerConfig: 'tokenizer_config.json' };
// The single files: which bundled model each inlines (the names js/platform-browser.js knows), its
// folder and files (the decoder's tokenizer.json holds its vocabulary and merges).
const SINGLE_FILES = [
  { out: 'attnscope-embed.html', modelName: 'bundled', folder: 'model', files: MODEL_FILES },
  { out: 'attnscope-embed-causal.html', modelName: 'bundled-causal', folder: 'model-causal', files: TOKENIZER_JSON_FILES },
  { out: 'attnscope-embed-seq2seq.html', modelName: 'bundled-seq2seq', folder: 'model-seq2seq', files: TOKENIZER_JSON_FILES,
    attributes: seq2seqAttributes },
];

// The T5's single file opens on the page's example source with its held-out target (the data's
// own subject–object–verb rewrite, read at build time: the file changes when the model does), at
// its cross-attention.
function seq2seqAttributes() {
  const pairs = readFileSync(join(ROOT, 'model-seq2seq', 'heldout.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const pair = pairs.find((p) => p.source === SEQ2SEQ_EXAMPLE_SOURCE) ?? pairs[0];
  return { text: pair.source, target: pair.target, kind: 'cross', view: 'head', layer: '0', head: '0' };
}

const escapeAttribute = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const common = {
  bundle: true, format: 'esm', platform: 'browser', target: 'es2022', absWorkingDir: ROOT,
  minify: !process.env.ATTNSCOPE_NO_MINIFY, legalComments: 'none', logLevel: 'error',
};

// The package's worker as one classic-script string (Chromium will not start a *module* worker
// from a blob: URL on a file:// page). A Blob-URL worker has no useful import.meta.url: the line
// js/platform-browser.js puts before this script sets __attnscopeModuleUrl in its place.
async function workerSource() {
  const out = await build({
    ...common,
    format: 'iife',
    define: { 'import.meta.url': '__attnscopeModuleUrl' },
    entryPoints: ['js/worker.js'],
    write: false,
  });
  return out.outputFiles[0].text;
}

// Virtual modules the entries import: the worker's code and (single file only) the inline assets.
function virtualModules(modules) {
  return {
    name: 'embed-virtual',
    setup(b) {
      b.onResolve({ filter: /^attnscope-embed:/ }, (args) => ({ path: args.path, namespace: 'embed-virtual' }));
      b.onLoad({ filter: /.*/, namespace: 'embed-virtual' }, (args) => {
        if (!(args.path in modules)) throw new Error(`no virtual module ${args.path}`);
        return { contents: modules[args.path](), loader: 'js' };
      });
    },
  };
}

// The element offers the views whose registry entry says so (web/src/views/registry.js), and
// draws those a frozen figure holds (the Layers view of a lens figure). In its bundles the
// registry's list is rewritten from the registry itself, holding those views only, so
// the element carries neither the page's other views nor their entries (their ids are unknown to
// it). dist/attnscope-element.js loads each through a dynamic import (a chunk of its own, fetched
// when first shown); the single file through a static import (a dynamic import without code
// splitting wraps every module it reaches for lazy start-up: a few KB).
const REGISTRY = join(ROOT, 'web/src/views/registry.js');
function elementViewsOnly({ split }) {
  return {
    name: 'element-views-only',
    setup(b) {
      b.onLoad({ filter: /views\/registry\.js$/ }, (args) => {
        if (args.path !== REGISTRY) return undefined;
        const source = readFileSync(REGISTRY, 'utf8');
        const start = source.indexOf('const ENTRIES = [');
        const end = source.indexOf('\n];', start) + 3;
        if (start < 0 || end < start) throw new Error('build-embed: the registry has no ENTRIES list');
        const imports = [];
        const entries = VIEW_LIST.filter((v) => v.element || v.figure).map(({ load, figure, ...entry }) => {
          const declared = Object.entries(entry).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(k === 'label' ? `view_${entry.id}` : ENTRY_DEFAULTS[k]));
          const fields = declared.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ');
          if (split) return `  { ${fields}, load: () => import('./${entry.id}.js') },`;
          imports.push(`import * as view${imports.length} from './${entry.id}.js';`);
          return `  { ${fields}, load: () => Promise.resolve(view${imports.length - 1}) },`;
        });
        const contents = source.slice(0, start) + `const ENTRIES = [\n${entries.join('\n')}\n];` + source.slice(end) +
          '\n' + imports.join('\n');
        return { contents, loader: 'js' };
      });
    },
  };
}

// dist/attnscope-element.js fetches the text of the language an element shows
// (web/embed/strings.js): its main chunk gets i18n.js without the tables (nor the i18n-*.js
// modules they merge), and each language's merged table, read here in Node and cut down to the
// keys the element's code can ask for (scripts/element-strings.mjs), becomes a chunk.
const I18N = join(ROOT, 'web/src/i18n/i18n.js');
const CHUNKS = 'attnscope-element-chunks';
const stringModules = (tables) => ({
  'attnscope-embed:string-chunks': () => `export default {\n${LANGUAGES.map((lang) =>
    `  ${lang}: () => import('attnscope-embed:strings-${lang}'),`).join('\n')}\n};`,
  ...Object.fromEntries(LANGUAGES.map((lang) =>
    [`attnscope-embed:strings-${lang}`, () => `export default ${JSON.stringify(tables[lang])};`])),
});
// A bundle without chunks carries every table and has nothing to fetch.
const noStringChunks = { 'attnscope-embed:string-chunks': () => 'export default {};' };
function stringsByLanguage() {
  return {
    name: 'strings-by-language',
    setup(b) {
      b.onLoad({ filter: /i18n\.js$/ }, (args) => {
        if (args.path !== I18N) return undefined;
        const source = readFileSync(I18N, 'utf8');
        const start = source.indexOf('const STRINGS = {');
        const end = source.indexOf('export const LANGUAGES');
        if (start < 0 || end < start) throw new Error('build-embed: i18n.js has no STRINGS table before LANGUAGES');
        // The tables' imports go too: a template string in one (i18n-memory.js) keeps it otherwise.
        const head = source.slice(0, start).replace(/^import .* from '\.\/i18n-[\w-]+\.js';$/gm, '');
        return { contents: head + 'const STRINGS = {};\n\n' + source.slice(end), loader: 'js' };
      });
    },
  };
}

const loader = { '.css': 'text' };
// The element adopts web/style.css as a string (web/embed/styles.js): its comments, 5 KB, are
// for who reads the file, not for the browser, and of its rules only those the element's code can
// use (scripts/element-css.mjs, read from `code`: half the file) go into the element's bundles.
// Without `code` (the build that code is read from) the sheet is empty: its class names would
// otherwise all be words of the code.
const elementStyles = (code) => ({ name: 'element-styles', setup(b) {
  b.onLoad({ filter: /\.css$/ }, (args) => ({ loader: 'text',
    contents: code === null ? '' : usedCss(readFileSync(args.path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, ''), code) }));
} });

// dist/attnscope-element.js and its chunks, with `tables` as the text of each language and the
// styles `code` uses.
const splitOptions = (modules, tables, code) => ({ ...common, loader, entryPoints: { 'attnscope-element': 'web/embed/element-entry.js' },
  outdir: DIST, splitting: true, chunkNames: `${CHUNKS}/[name]-[hash]`, metafile: true,
  plugins: [virtualModules({ ...modules, ...stringModules(tables) }), elementViewsOnly({ split: true }), stringsByLanguage(), elementStyles(code)] });

/** The code of dist/attnscope-element.js and its chunks but the string chunks, as one text, built
 *  with every key and no style sheet (what scripts/element-strings.mjs reads the used keys from,
 *  and scripts/element-css.mjs the used rules). `minify: false` keeps the source's quoting, for
 *  tests/js/embed-strings.test.js to read the keys another way. */
export async function elementCode({ modules = { 'attnscope-embed:worker-source': () => 'export default "";' }, minify = true } = {}) {
  const out = await build({ ...splitOptions(modules, STRING_TABLES, null), minify, write: false });
  return out.outputFiles.filter((f) => !/attnscope-embed_strings-/.test(f.path)).map((f) => f.text).join('\n');
}

function base64(path) {
  return readFileSync(path).toString('base64');
}

export async function buildEmbed({ quiet = false } = {}) {
  for (const f of ['attnscope.mjs', 'attnscope.wasm', 'attnscope-core.wasm', 'attnscope-encoder.wasm']) {
    if (!existsSync(join(DIST, f))) throw new Error(`dist/${f} is missing: run scripts/build.sh wasm first`);
  }
  const worker = await workerSource();
  const modules = {
    'attnscope-embed:worker-source': () => `export default ${JSON.stringify(worker)};`,
    // The single file's base64 lives in non-executed data blocks, not in the script, so 5 MB
    // of text skips the JavaScript parser (DOMContentLoaded 3.7 s → 2.6 s here, busy machine).
    'attnscope-embed:inline-assets': () => `export function inlineAssets() {
  const block = (id) => document.getElementById(id)?.textContent.trim() ?? '';
  const model = JSON.parse(block('attnscope-model') || '{}');
  return { wasm: block('attnscope-wasm'), model, modelName: block('attnscope-model-name') || 'bundled' };
}`,
  };
  // Built twice: first with the whole tables and no styles, to read which keys and style rules the
  // element's code names (its string chunks aside), then with those keys and rules only.
  const code = await elementCode({ modules, minify: common.minify });
  const split = await build(splitOptions(modules, tablesFor(code, STRING_TABLES), code));
  // An earlier build's chunks (other hashes) go; not the folder: a test process building at the
  // same time writes the same files and may be serving them.
  const written = new Set(Object.keys(split.metafile.outputs).map((p) => join(ROOT, p)));
  for (const f of readdirSync(join(DIST, CHUNKS))) if (!written.has(join(DIST, CHUNKS, f))) rmSync(join(DIST, CHUNKS, f));
  await build({ ...common, loader, entryPoints: { 'attnscope-element-inline': 'web/embed/element-entry.js' }, outdir: DIST,
    plugins: [virtualModules({ ...modules, ...noStringChunks }), elementViewsOnly({ split: false }), elementStyles(code)] });
  const single = await build({ ...common, loader, entryPoints: ['web/embed/single-file-entry.js'], write: false,
    plugins: [virtualModules(modules), elementViewsOnly({ split: false }), elementStyles(code)] });
  const template = readFileSync(join(ROOT, 'web/embed/single-file.html'), 'utf8');
  // A literal "</script" inside the bundle would end the inline script early; JSON-escaped
  // strings never contain it, but check rather than trust.
  const js = single.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
  const marker = '<!--ATTNSCOPE_SCRIPT-->';
  if (!template.includes(marker)) throw new Error('web/embed/single-file.html lacks the script marker');
  const wasm = base64(join(DIST, 'attnscope.wasm'));
  for (const single of SINGLE_FILES) {
    if (single.modelName !== 'bundled' && !existsSync(join(ROOT, single.folder, 'config.json'))) continue;
    const model = Object.fromEntries(Object.entries(single.files)
      .filter(([, name]) => existsSync(join(ROOT, single.folder, name)))
      .map(([key, name]) => [key, base64(join(ROOT, single.folder, name))]));
    const blocks = `<script type="application/octet-stream" id="attnscope-wasm">${wasm}</script>\n` +
      `<script type="application/json" id="attnscope-model">${JSON.stringify(model)}</script>\n` +
      `<script type="text/plain" id="attnscope-model-name">${single.modelName}</script>\n`;
    let page = single.modelName === 'bundled' ? template
      : template.replace('<attn-scope ', `<attn-scope model="${single.modelName}" `);
    if (single.attributes) {
      const attributes = Object.entries(single.attributes()).map(([k, v]) => `${k}="${escapeAttribute(v)}"`).join(' ');
      page = page.replace(/<attn-scope [^>]*>/, () => `<attn-scope model="${single.modelName}" ${attributes}>`);
    }
    const html = page.replace(marker, () => `${blocks}<script type="module">${js}</script>`);
    writeFileSync(join(DIST, single.out), html);
  }
  const sizes = measureSizes();
  if (!quiet) {
    console.log(`dist/attnscope-element.js with a BERT grid's chunks + attnscope-encoder.wasm: ${kb(sizes.elementRaw)} raw, ${kb(sizes.elementGzip)} gzip`);
    console.log(`dist/attnscope-embed.html (model inlined): ${mb(sizes.singleFile)}`);
  }
  return sizes;
}

/** The files of dist/attnscope-element.js a page with one English BERT grid fetches: the script,
 *  the chunks it imports and, of those it imports on demand, the grid view's and the English
 *  text's (with the chunks they import), read from the import statements esbuild wrote. */
export function gridCaseScripts() {
  const wanted = new RegExp(`/(${VIEW.grid}|attnscope-embed_strings-en)-\\w+\\.js$`);
  const files = new Set();
  const visit = (path) => {
    if (files.has(path)) return;
    files.add(path);
    const text = readFileSync(path, 'utf8');
    for (const [, rel] of text.matchAll(/(?:from|import)\s*"(\.\/[^"]+\.js)"/g)) visit(join(dirname(path), rel));
    for (const [, rel] of text.matchAll(/import\("(\.\/[^"]+\.js)"\)/g)) if (wanted.test(rel)) visit(join(dirname(path), rel));
  };
  visit(join(DIST, 'attnscope-element.js'));
  return [...files];
}

/** Sizes the README quotes: what a page with one BERT grid element downloads, its scripts
 *  (gridCaseScripts) and the wasm a BERT loads (the encoder build), raw and gzipped; the
 *  element's script alone; the single-file build. */
export function measureSizes() {
  const files = [...gridCaseScripts(), join(DIST, 'attnscope-encoder.wasm')].map((f) => readFileSync(f));
  return {
    elementRaw: files.reduce((sum, f) => sum + f.length, 0),
    elementGzip: files.reduce((sum, f) => sum + gzipSync(f, { level: 9 }).length, 0),
    elementScript: statSync(join(DIST, 'attnscope-element.js')).size,
    singleFile: statSync(join(DIST, 'attnscope-embed.html')).size,
  };
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const mb = (n) => `${(n / 1024 ** 2).toFixed(2)} MB`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildEmbed();
}
