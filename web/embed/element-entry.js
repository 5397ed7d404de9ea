// Entry of dist/attnscope-element.js, the element for sites that host files: the wasm is
// dist/attnscope.wasm next to this script, "bundled" is the package's model/ folder beside
// dist/, and permalinks open the explorer at the package root. The engine worker's code is
// inlined (a Blob-URL worker), so the script needs no second JavaScript file.
import workerSource from 'attnscope-embed:worker-source';
import { configureEngine } from './engine.js';
import { defineAttnScopeElement, setDefaultPageUrl } from './element.js';

const here = import.meta.url;
configureEngine({
  workerSource,
  wasm: new URL('./attnscope.wasm', here).href,
  bundled: new URL('../model/', here).href,
});
if (/^https?:/.test(here)) setDefaultPageUrl(new URL('../', here).href);
defineAttnScopeElement();

export { AttnScopeElement, defineAttnScopeElement } from './element.js';
export { viewToCanvas, viewToPng, attentionSvg, bertvizParams } from './export.js';
