// Entry of dist/attnscope-embed.html, the single-file build: the wasm (the plain SIMD128 build:
// one copy keeps the file small) and the bundled model sit in the file as base64 data blocks
// (written by scripts/build-embed.mjs) and go to the package's worker as text, which decodes
// them off the main thread. Works from file:// offline.
import workerSource from 'attnscope-embed:worker-source';
import { inlineAssets } from 'attnscope-embed:inline-assets';
import { useEmbedWorker } from '../../js/platform-browser.js';
import { defineAttnScopeElement, VIEW_PARAMS } from './element.js';

useEmbedWorker({ source: workerSource, moduleUrl: location.href, inlineAssets: inlineAssets() });

// The file doubles as an iframe target for Markdown sites: ?text=…&view=head&layer=3 set the
// element's attributes (the element validates each; values only ever become attribute text).
const PARAMS = { text: 'text', pair: 'text-pair', 'text-pair': 'text-pair', model: 'model', view: 'view',
  layer: 'layer', head: 'head', theme: 'theme', lang: 'lang', height: 'height', wp: 'weight-precision',
  'weight-precision': 'weight-precision', src: 'src', lesson: 'lesson', step: 'step', words: 'words',
  // An encoder–decoder's target and attention kind, named as the page's link names them too.
  target: 'target', tgt: 'target', kind: 'kind', k: 'kind',
  // The views' own parameters (q, tau, corrupted, answer, wrong, site, …): the same names.
  ...Object.fromEntries(Object.keys(VIEW_PARAMS).map((name) => [name, name])) };
const element = document.querySelector('attn-scope');
if (element) {
  // A frozen figure (?src=fig.json) brings its own text, view, layer and head.
  const params = new URLSearchParams(location.search);
  if (params.has('src')) for (const name of ['text', 'view', 'layer', 'head']) element.removeAttribute(name);
  if (params.has('lesson')) element.removeAttribute('view');   // the step opens at its own view
  for (const [param, value] of new URLSearchParams(location.search)) {
    if (Object.hasOwn(PARAMS, param)) element.setAttribute(PARAMS[param], value);
  }
  if (element.getAttribute('theme') === 'dark') document.documentElement.dataset.theme = 'dark';
}
// Defined only now, so the element connects with the URL's attributes: defined first, it would
// connect without ?src= and queue a live run (of no text, once src removes it) beside the figure.
defineAttnScopeElement();
