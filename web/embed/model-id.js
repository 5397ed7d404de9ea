// What an <attn-scope> model attribute may name, checked before anything loads (the models
// themselves live in web/src/model-registry.js, shared with the explorer page).
import { AttnScopeError } from '../../js/errors.js';
import { isHubId } from '../../js/hub-id.js';

/** What a model attribute may be: 'bundled', 'bundled-causal' (the GPT-2-style decoder), a hub id
 *  (owner/name) or an http(s) folder URL. */
export function parseModelId(value) {
  const id = (value ?? '').trim() || 'bundled';
  if (id === 'bundled' || id === 'bundled-causal' || isHubId(id)) return id;
  if (id.length <= 2048 && /^https?:\/\//i.test(id)) {
    try {
      return new URL(id).href;
    } catch { /* fall through */ }
  }
  throw new AttnScopeError('E_INPUT', `model must be "bundled", "bundled-causal", a hub id (owner/name) or an http(s) URL, got ${preview(id)}`);
}

/** A value shortened and quoted for a message (attributes may be hostile or huge). */
export function preview(value, max = 60) {
  const s = String(value);
  return JSON.stringify(s.length > max ? s.slice(0, max) + '…' : s);
}
