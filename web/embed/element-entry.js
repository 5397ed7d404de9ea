// Entry of dist/attnscope-element.js, the element for sites that host files: the package's
// worker (js/worker.js, inlined as text and started from a Blob URL, so the script needs no
// second JavaScript file) loads the wasm next to this script: the encoder build
// (dist/attnscope-encoder.wasm) for a BERT or DistilBERT, the core build
// (dist/attnscope-core[-relaxed].wasm) for every other model but an encoder–decoder or int8
// weights, which take dist/attnscope[-relaxed].wasm (js/api/wasm.js); -relaxed where the browser has
// relaxed SIMD. "bundled" is the package's model/ folder beside dist/. "Copy link" appears only where the page-url attribute says where the explorer is.
// The views and each language's text are chunks beside this script (esbuild's code splitting),
// fetched when an element first shows them.
import workerSource from 'attnscope-embed:worker-source';
import stringChunks from 'attnscope-embed:string-chunks';
import { useEmbedWorker } from '../../js/platform-browser.js';
import { defineAttnScopeElement } from './element.js';
import { fetchStringsFrom } from './strings.js';

fetchStringsFrom(stringChunks);
const here = import.meta.url;
// Where js/platform-browser.js would sit in the package: its ../dist/ and ../model/ are ours.
useEmbedWorker({ source: workerSource, moduleUrl: new URL('../js/platform-browser.js', here).href });
defineAttnScopeElement();

export { AttnScopeElement, defineAttnScopeElement } from './element.js';
export { viewToCanvas, viewToPng, attentionSvg } from './export.js';
export { bertvizJson } from '../../js/formats/bertviz.js';
