// Attention rollout off the main thread: at 512 tokens it is L products of 512×512 matrices
// (≈ 1.6 G multiply-adds for 12 layers), seconds of work a page must not freeze for. The worker
// is started from a Blob URL holding attention-math's own rolloutFromMeans (and the matmul it
// calls), so the explorer page and <attn-scope> (a single .html file with no other files) run
// the same code with nothing extra to host. It receives the per-layer head means, not the
// attentions, so nothing larger than L·T² floats is copied.
import { rolloutFromMeans, matmul } from './attention-math.js';

/** A Worker answering {id, means, T} with {id, rollout}. Needs worker-src blob: (CSP). */
export function startRolloutWorker() {
  // Both functions are self-contained; after minification rolloutFromMeans still calls matmul
  // by the name matmul's own text declares.
  const source = `${matmul}\n${rolloutFromMeans}\n` +
    `self.onmessage = (e) => { const r = ${rolloutFromMeans.name}(e.data.means, e.data.T); ` +
    'self.postMessage({ id: e.data.id, rollout: r }, [r.buffer]); };';
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  setTimeout(() => URL.revokeObjectURL(url), 60000);   // long after the worker fetched it
  return new Worker(url, { name: 'attnscope-rollout' });
}
