// The module worker behind 'attnscope/worker': holds one Model and answers the client's
// messages (load, run, runIds, maps, tokenize, tokenizeTarget, generate, patch, dispose, abort,
// releaseMaps). Runs in a browser Worker and
// in a Node worker_thread. Result arrays are transferred, not copied. The client
// (worker/client.js) sends one job at a time, so a cancelled job never reaches this side; only
// 'abort' interrupts a load, a patching grid (between two rows) or a generation of any kind
// (between two of its steps: the loop yields to this event loop after each). Corpus jobs (corpus-job.js)
// arrive as 'task' slices, each an ordinary job, so other jobs run between two slices.
// A run whose maps are on demand (js/api/result.js) stays here: its message carries every array but
// the maps, and the page asks for heads ('maps' jobs) as it draws them.
import { loadModel } from './api/load.js';
import { createCorpusJobs } from './analysis/corpus-job.js';
import { toAttnScopeError } from './formats/errors.js';
import { START_GENERATION } from './analysis/generate.js';
import { workerPort } from '#platform';

const port = workerPort();
let model = null;
const controllers = new Map(); // job id → AbortController of a load or generation in progress
const corpusJobs = createCorpusJobs(requireModel);
// Runs whose maps stay here, by id, oldest first. Two: the typed text's run and an edited run of it
// (heads switched off, a token masked) are on screen together; a third releases the oldest, so
// memory stays bounded however many runs the page makes.
const KEPT_RUNS = 2;
const keptRuns = new Map();
let nextKeptRun = 1;

port.onMessage(async (message) => {
  const { id, type } = message;
  if (type === 'abort') {
    controllers.get(message.target)?.abort();
    return;
  }
  if (type === 'taskEnd') {
    corpusJobs.end(message.target);
    return;
  }
  if (type === 'releaseMaps') {  // the page let go of a run whose maps stayed here
    releaseKept(message.target, 'the page released it');
    return;
  }
  try {
    const [value, transfer] = await handle(id, type, message);
    port.postMessage({ id, type: 'result', value }, transfer);
  } catch (error) {
    const { code, message: text } = toAttnScopeError(error);
    port.postMessage({ id, type: 'error', error: { code, message: text } });
  }
});

async function handle(id, type, message) {
  switch (type) {
    case 'load': {
      const controller = new AbortController();
      controllers.set(id, controller);
      try {
        const loaded = await loadModel(reviveSource(message.source), {
          ...message.options,
          signal: controller.signal,
          onProgress: (progress) => port.postMessage({ id, type: 'progress', progress }),
        });
        releaseEveryKept('another model was loaded');
        model?.dispose();
        model = loaded;
        corpusJobs.clear();
        return [model.info, []];
      } finally {
        controllers.delete(id);
      }
    }
    case 'generate': {  // each step goes out as it comes, its attention row transferred
      const controller = new AbortController();
      controllers.set(id, controller);
      try {
        // Every kind's generation is the one loop of generate.js, yielding between steps: the abort
        // above reaches it within a step.
        let promptSent = !message.sendPrompt;
        const generation = requireModel()[START_GENERATION](message.prompt, {
          ...message.options,
          signal: controller.signal,
          onToken: (step) => {
            if (!promptSent && generation.prompt) {  // decoders: the prompt has run before the first step, its rows go first
              promptSent = true;
              const { attentions, shape } = generation.prompt;
              port.postMessage({ id, type: 'prompt', prompt: { attentions: attentions.slice(), shape } });
            }
            // A decoder's streamed step is its own (its row moves); an encoder–decoder's is also in
            // the summary's steps (its rows are copied).
            port.postMessage({ id, type: 'step', step }, step.attention ? [step.attention.buffer] : []);
          },
        }, { promptMaps: message.sendPrompt ? 'eager' : 'auto' });
        const summary = await generation.result;
        return [summary, [summary.ids.buffer]];
      } finally {
        controllers.delete(id);
      }
    }
    case 'patch': {  // one row (layer) of the grid at a time, each sent as it comes
      const controller = new AbortController();
      controllers.set(id, controller);
      try {
        const grid = await requireModel().patch({
          ...message.options,
          signal: controller.signal,
          onProgress: (progress) => port.postMessage({ id, type: 'progress', progress }),
        });
        return [grid, []];
      } finally {
        controllers.delete(id);
      }
    }
    case 'run':
      return resultMessage(await requireModel().run(message.text, message.options));
    case 'runIds':
      return resultMessage(await requireModel().runIds(message.ids, message.options));
    case 'tokenize':
    case 'tokenizeTarget': {
      const model = requireModel();
      const encoding = type === 'tokenize' ? model.tokenize(message.text, message.options)
        : model.tokenizeTarget(message.text, message.options);
      return [encoding, [encoding.ids.buffer, encoding.typeIds.buffer, encoding.offsets.buffer,
        encoding.specialTokensMask.buffer]];
    }
    case 'task':   // one time slice of a corpus job
      return corpusJobs.step(message);
    case 'maps':  // heads of a kept run: [[layer, head], …] → one T×T map each, transferred
      return headMaps(message.run, message.heads);
    case 'dispose':
      releaseEveryKept('the model was disposed');
      model?.dispose();
      model = null;
      corpusJobs.clear();
      return [null, []];
    default:
      throw toAttnScopeError({ code: 'E_INPUT', message: `unknown worker message type ${type}` });
  }
}

function requireModel() {
  if (!model) throw toAttnScopeError({ code: 'E_DISPOSED', message: 'no model loaded: call load() first' });
  return model;
}

function resultMessage(result) {
  // Encoder–decoder results (js/api/seq2seq.js) are plain objects, copied rather than transferred.
  if (!result.mapsOnDemand) return [{ ...result }, typeof result.transferables === 'function' ? result.transferables() : []];
  // Maps on demand stay here: every field but `attentions` (reading it would compute them all).
  const run = nextKeptRun++;
  keptRuns.set(run, result);
  for (const old of keptRuns.keys()) {
    if (keptRuns.size <= KEPT_RUNS) break;
    releaseKept(old, 'a newer run replaced it');
  }
  const fields = Object.fromEntries(Object.keys(result).filter((name) => name !== 'attentions').map((name) => [name, result[name]]));
  return [{ ...fields, workerMaps: { run, bytes: result.memoryBytes } }, result.transferables()];
}

function headMaps(run, heads) {
  const result = keptRuns.get(run);
  if (!result) {
    throw toAttnScopeError({ code: 'E_DISPOSED', message: `the maps of run ${run} were released (a newer run, model or dispose); run the text again` });
  }
  if (!Array.isArray(heads)) throw toAttnScopeError({ code: 'E_INPUT', message: 'maps: heads must be an array of [layer, head]' });
  // A copy each: attention() keeps a few computed maps of its own, which a transfer would detach.
  const maps = heads.map((pair) => {
    const [layer, head] = Array.isArray(pair) ? pair : [];
    return result.attention(layer, head).slice();
  });
  return [maps, maps.map((m) => m.buffer)];
}

function releaseKept(run, reason) {
  keptRuns.get(run)?.release(reason);
  keptRuns.delete(run);
}

function releaseEveryKept(reason) {
  for (const run of [...keptRuns.keys()]) releaseKept(run, reason);
}

// URL objects cannot be posted; the client sends them as {$url} and sources.js reads that form.
function reviveSource(source) {
  return source && typeof source === 'object' && typeof source.$url === 'string' ? new URL(source.$url) : source;
}
