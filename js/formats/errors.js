// The one error type AttnScope's JavaScript throws: an Error with a stable `.code` (the engine's
// codes copied from C++, plus the loader's own). Callers branch on `code`, never on messages.

/** The engine's codes, as engine/error.h lists them (kErrorCodes, exported by the wasm module as
 *  errorCodes(); tests/js/shared-facts.test.js checks that the two agree). */
export const ENGINE_ERROR_CODES = Object.freeze([
  'E_CONFIG',      // config.json unusable, or a model family or option the engine does not run
  'E_TOO_LARGE',   // the model does not fit in WebAssembly memory (wasm32: 4 GB)
  'E_TOKENIZER',   // vocab.txt / tokenizer.json / vocab.json + merges.txt / tokenizer_config.json unusable
  'E_SAFETENSORS', // malformed safetensors file
  'E_WEIGHTS',     // a tensor is missing or has the wrong shape
  'E_INPUT',       // bad arguments: ids out of vocabulary, too many tokens, wrong types
  'E_INTERNAL',    // a bug: please report it
]);

/** Codes only the JavaScript layer gives (loading files, cancelling, using a freed model). */
const LOADER_ERROR_CODES = [
  'E_NETWORK',     // a URL could not be reached, or the server failed (5xx)
  'E_NOT_FOUND',   // 404/401 on the hub, a missing local file or folder
  'E_ABORTED',     // cancelled through an AbortSignal or the worker client
  'E_DISPOSED',    // the model was disposed (or its worker terminated)
];

/** Every code an AttnScopeError can carry (index.d.ts's ErrorCode lists the same, checked by
 *  tests/js/shared-facts.test.js). */
export const ERROR_CODES = Object.freeze([...LOADER_ERROR_CODES, ...ENGINE_ERROR_CODES]);

export class AttnScopeError extends Error {
  /**
   * @param {string} code one of ERROR_CODES
   * @param {string} message what is wrong, naming the file / URL / tensor
   * @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'AttnScopeError';
    this.code = code;
  }
}

/** Rebuilds an AttnScopeError from `{code, message}` (a worker message or a wasm-thrown Error). */
export function toAttnScopeError(error) {
  if (error instanceof AttnScopeError) return error;
  if (error && typeof error === 'object' && typeof error.code === 'string' && error.code.startsWith('E_')) {
    return new AttnScopeError(error.code, String(error.message));
  }
  if (isAbortError(error)) return abortedError(error);
  if (typeof WebAssembly !== 'undefined' && error instanceof WebAssembly.RuntimeError) {
    return new AttnScopeError('E_INTERNAL', `WebAssembly trap: ${error.message}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : describe(error);
  return new AttnScopeError('E_INTERNAL', message, { cause: error });
}

export function isAbortError(error) {
  return Boolean(error) && (error.name === 'AbortError' || error.code === 'E_ABORTED' ||
    error.name === 'TimeoutError');
}

/** E_ABORTED carrying the abort's reason (AbortController.abort(reason)): its text in the
 *  message ("cancelled: the user left"), the reason itself as `cause`. A signal aborted without
 *  a reason carries the platform's own AbortError, whose text adds nothing to "cancelled". */
export function abortedError(reason) {
  if (reason instanceof AttnScopeError && reason.code === 'E_ABORTED') return reason;
  const text = reason instanceof Error || isDomException(reason) ? reason.message : reason == null ? '' : describe(reason);
  const why = text && text !== DEFAULT_ABORT_MESSAGE ? `: ${text}` : '';
  return new AttnScopeError('E_ABORTED', `cancelled${why}`, reason === undefined ? undefined : { cause: reason });
}

// What this platform's AbortController.abort() without a reason says (it differs by engine).
const DEFAULT_ABORT_MESSAGE = (() => {
  if (typeof AbortController !== 'function') return undefined;
  const controller = new AbortController();
  controller.abort();
  return controller.signal.reason?.message;
})();

// String(value), or '' for a value that has no text (Object.create(null) throws on String()).
function describe(value) {
  try {
    return String(value);
  } catch {
    return '';
  }
}

// DOMException is an Error subclass in current engines, not in every older one.
function isDomException(value) {
  return typeof DOMException === 'function' && value instanceof DOMException;
}

/** `fn` (a caller's onProgress / onToken) wrapped so that what it throws becomes E_INPUT
 *  "<what> threw: …" with the exception as cause: the caller's callback failed, not AttnScope,
 *  which toAttnScopeError would have called E_INTERNAL. Anything but a function is returned as is. */
export function callerCallback(fn, what) {
  if (typeof fn !== 'function') return fn;
  return (value) => {
    try {
      return fn(value);
    } catch (error) {
      throw new AttnScopeError('E_INPUT', `${what} threw: ${error instanceof Error ? error.message : describe(error)}`, { cause: error });
    }
  };
}

/** Throws E_INPUT unless `signal` is absent or an AbortSignal: anything else could never abort,
 *  so the caller would believe they can cancel what they cannot. (Duck-typed: a signal from
 *  another realm, e.g. an iframe's, is not an instance of this realm's AbortSignal.) */
export function checkSignal(signal, call) {
  if (signal === undefined || signal === null) return;
  const isSignal = typeof signal === 'object' && typeof signal.aborted === 'boolean' &&
    typeof signal.addEventListener === 'function' && typeof signal.removeEventListener === 'function';
  if (!isSignal) throw new AttnScopeError('E_INPUT', `${call}: signal must be an AbortSignal, got ${signal === null ? 'null' : typeof signal}`);
}

/** Throws E_ABORTED when `signal` is aborted. */
export function throwIfAborted(signal) {
  if (signal?.aborted) throw abortedError(signal.reason);
}
