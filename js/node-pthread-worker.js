// The start of each pthread worker in Node. The threaded module is built for the web (Emscripten
// 3.1.6's own Node path does not run on Node 20 as an ES module), so its workers expect a Web
// Worker's globals: this worker_threads script provides them (self, postMessage, onmessage,
// location) and then runs Emscripten's worker script, which imports the module glue and waits
// for the main thread's 'load' and 'run' messages.
import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

globalThis.self = globalThis;
globalThis.location = { href: workerData.script };
// Emscripten's glue takes a worker for a web worker by this function's presence; it never calls
// it here (the pthread worker imports the glue with import()).
globalThis.importScripts = () => {
  throw new Error('importScripts is not available in a Node pthread worker');
};
globalThis.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
parentPort.on('message', (data) => globalThis.onmessage?.({ data }));
// Indirect eval: the script is a classic worker script that assigns self.onmessage.
(0, eval)(readFileSync(fileURLToPath(workerData.script), 'utf8'));
