// The option names each call accepts, in one place: the API checks them, and the worker client
// checks them before posting, then passes every one on (a name missing here is rejected, never
// dropped). Job options (signal, onProgress, replacePending) steer the call on this side of
// postMessage and are not forwarded.
import { AttnScopeError } from '../formats/errors.js';

export const LOAD_OPTIONS = Object.freeze(['onProgress', 'signal', 'hubUrl', 'revision', 'cache', 'weightPrecision', 'threads',
  'analyses']);
export const TOKENIZE_OPTIONS = Object.freeze(['textPair', 'maxLength']);
const OUTPUT_OPTIONS = ['hiddenStates', 'qkv', 'valueNorms', 'trace', 'headMask', 'topK', 'nextAll', 'originalIds', 'reuse',
  'logitLens', 'attribution', 'flow', 'maps'];
// The maps option: how a run keeps its attention maps (engine/attention_sources.h): whole
// ('eager'), computed when a head is read ('on-demand'), or the engine's rule ('auto', the default:
// on demand only where the maps would be large).
export const ATTENTION_MAPS = Object.freeze(['auto', 'eager', 'on-demand']);

/** Throws E_INPUT unless `maps` is undefined or one of ATTENTION_MAPS. */
export function checkMapsOption(maps) {
  if (maps !== undefined && !ATTENTION_MAPS.includes(maps)) {
    throw new AttnScopeError('E_INPUT', `maps must be one of ${ATTENTION_MAPS.map((m) => `'${m}'`).join(', ')}, got ${JSON.stringify(maps)}`);
  }
}
// words: sub-word tokens merged into words (js/analysis/words.js); run only, as it reads the text.
export const RUN_OPTIONS = Object.freeze([...TOKENIZE_OPTIONS, ...OUTPUT_OPTIONS, 'words']);
export const RUN_IDS_OPTIONS = Object.freeze(['tokenTypes', 'attentionMask', ...OUTPUT_OPTIONS]);

export const GENERATE_OPTIONS = Object.freeze(['maxNewTokens', 'temperature', 'topK', 'topP', 'seed', 'stopAtEos',
  'candidates', 'onToken', 'signal', 'steer']);

// Encoder-decoders (js/api/seq2seq.js): one option list for run and runIds (runIds refuses target text
// itself), and the decoders' generate options plus maxLength (the source is tokenized there).
export const SEQ2SEQ_RUN_OPTIONS = Object.freeze(['target', 'targetIds', 'topK', 'maxLength', 'trace', 'logits', 'qkv',
  'headMask', 'decoderHeadMask', 'crossAttnHeadMask', 'flow', 'valueNorms', 'logitLens', 'attribution', 'maps']);
export const SEQ2SEQ_GENERATE_OPTIONS = Object.freeze([...GENERATE_OPTIONS, 'maxLength']);

/** Options the worker client handles itself (per call), on top of the call's own. */
export const JOB_OPTIONS = Object.freeze(['signal', 'onProgress', 'onToken', 'onPrompt', 'replacePending']);

/**
 * Throws E_INPUT naming every key of `options` that is not in `allowed` (a typo such as
 * `weightPrecison` would otherwise load f32 without a word). `call` names the method.
 */
export function checkOptionNames(options, allowed, call) {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object') throw new AttnScopeError('E_INPUT', `${call}: options must be an object`);
  // A key set to undefined is the same as no key (callers spread optional values).
  const unknown = Object.keys(options).filter((name) => options[name] !== undefined && !allowed.includes(name));
  if (unknown.length) {
    throw new AttnScopeError('E_INPUT', `${call}: unknown option${unknown.length > 1 ? 's' : ''} ` +
      `${unknown.map((n) => JSON.stringify(n)).join(', ')} (accepted: ${allowed.join(', ')})`);
  }
}
