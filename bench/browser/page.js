// The bench page's side: starts one bench worker per thread count (/dist/bench-worker.js, built
// from bench/browser/worker.js) and forwards bench/browser.mjs's calls to them, one at a time.
const workers = [];
let nextId = 1;

function call(index, type, args = {}) {
  const worker = workers[index];
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const onMessage = ({ data }) => {
      if (data.id !== id) return;
      worker.removeEventListener('message', onMessage);
      worker.removeEventListener('error', onError);
      if (data.error) reject(new Error(data.error));
      else resolve(data.value);
    };
    const onError = (event) => {
      worker.removeEventListener('message', onMessage);
      reject(new Error(`bench worker ${index} failed: ${event.message ?? 'error'}`));
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', onError);
    worker.postMessage({ id, type, ...args });
  });
}

window.bench = {
  /** Starts a worker; returns its index. */
  start() {
    workers.push(new Worker('/dist/bench-worker.js', { type: 'module' }));
    return workers.length - 1;
  },
  call,
  isolated: () => self.crossOriginIsolated,
};
document.body.dataset.ready = 'true';
