// Model files over HTTP(S): the hub, a base URL, or single file URLs. Maps every failure to an
// AttnScopeError code (unreachable → E_NETWORK, 404/401/403 → E_NOT_FOUND, abort → E_ABORTED)
// and, in browsers, keeps downloads in Cache Storage so a second visit makes no request.
import { AttnScopeError, abortedError, isAbortError } from '../formats/errors.js';

const CACHE_NAME = 'attnscope-models-v1';
// The hub answers 401 for a repository that does not exist (or is gated) when not logged in.
const NOT_FOUND_STATUSES = new Set([401, 403, 404, 410]);

/**
 * @param {(name: string) => (URL|string|null)} urlFor the URL of each file name (null: absent)
 * @param {{kind: string, location: string, cache?: boolean}} options
 */
export function httpProvider(urlFor, { kind, location, cache = true }) {
  return {
    kind,
    location,
    describe: (name) => String(urlFor(name) ?? name),
    async check() {},
    async open(name, { signal, required = false } = {}) {
      const url = urlFor(name);
      if (url === null || url === undefined) {
        if (required) throw new AttnScopeError('E_NOT_FOUND', `${name} is required but was not given`);
        return null;
      }
      const response = await fetchWithCache(String(url), { signal, cache });
      if (NOT_FOUND_STATUSES.has(response.status)) {
        response.body?.cancel().catch(() => {});
        if (!required) return null;
        throw new AttnScopeError('E_NOT_FOUND', `${name} not found: ${url} answered HTTP ${response.status}` +
          (response.status === 401 ? ' (no such repository, or it is private/gated)' : ''));
      }
      if (!response.ok) {
        response.body?.cancel().catch(() => {});
        throw new AttnScopeError('E_NETWORK', `${url} answered HTTP ${response.status} ${response.statusText}`.trim());
      }
      return { size: declaredSize(response), chunks: responseChunks(response, String(url), signal) };
    },
  };
}

/** Content-Length, unless the body is compressed (then the decoded size is unknown). */
function declaredSize(response) {
  const encoding = (response.headers.get('content-encoding') || 'identity').toLowerCase();
  const length = response.headers.get('content-length');
  if (encoding !== 'identity' || length === null || !/^\d+$/.test(length)) return undefined;
  return Number(length);
}

async function fetchWithCache(url, { signal, cache }) {
  const storage = cache && /^https?:/i.test(url) && typeof caches !== 'undefined' ? await openCache() : null;
  if (storage) {
    const hit = await storage.match(url).catch(() => undefined);
    if (hit) return hit;
  }
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if (signal?.aborted || isAbortError(error)) throw abortedError(signal?.reason);
    const cause = error?.cause?.code || error?.cause?.message || error?.message || String(error);
    throw new AttnScopeError('E_NETWORK', `cannot reach ${url}: ${cause}`, { cause: error });
  }
  if (storage && (response.status === 200 || response.status === 404)) {
    // A tee of the body goes to the cache while the caller reads the other branch; a full
    // disk or a private window just means no cache. A 404 is kept too (an optional file the
    // model does not have), so a second visit makes no request at all.
    storage.put(url, response.clone()).catch(() => {});
  }
  return response;
}

async function openCache() {
  try {
    return await caches.open(CACHE_NAME);
  } catch {
    return null;
  }
}

async function* responseChunks(response, url, signal) {
  if (!response.body) return;
  const reader = response.body.getReader();
  try {
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (error) {
        if (signal?.aborted || isAbortError(error)) throw abortedError(signal?.reason);
        throw new AttnScopeError('E_NETWORK', `download of ${url} failed: ${error?.message || error}`, { cause: error });
      }
      if (step.done) return;
      if (signal?.aborted) throw abortedError(signal.reason);
      yield step.value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Removes every cached model file (browser Cache Storage); resolves false where there is none. */
export async function clearModelCache() {
  if (typeof caches === 'undefined') return false;
  return caches.delete(CACHE_NAME);
}
