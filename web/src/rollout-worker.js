// Computes attention rollout off the main thread: at 512 tokens it is L products of 512×512
// matrices (≈ 1.6 G multiply-adds for 12 layers), seconds of work the page must not freeze for.
// It receives the per-layer head means (the page computes them a layer per task), not the
// attentions, so nothing larger than L·T² floats is copied.
import { rolloutFromMeans } from './attention-math.js';

self.onmessage = (e) => {
  const { id, means, T } = e.data;
  const r = rolloutFromMeans(means, T);
  self.postMessage({ id, rollout: r }, [r.buffer]);
};
