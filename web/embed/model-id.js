// What an <attn-scope> model attribute may name, checked before anything loads (the models
// themselves live in web/src/model/model-registry.js, shared with the explorer page).
import { AttnScopeError } from '../../js/formats/errors.js';
import { isHubId } from '../../js/api/hub-id.js';
import { BUNDLED_MODEL_IDS, isBundledModelId } from '../../js/api/bundled-models.js';

/** What a model attribute may be: 'bundled', 'bundled-causal' (the GPT-2-style decoder),
 *  'bundled-seq2seq' (the T5: the element shows its encoder's self-attention), a hub id
 *  (owner/name) or an http(s) folder URL. */
export function parseModelId(value) {
  const id = (value ?? '').trim() || 'bundled';
  if (isBundledModelId(id) || isHubId(id)) return id;
  if (id.length <= 2048 && /^https?:\/\//i.test(id)) {
    try {
      return new URL(id).href;
    } catch { /* fall through */ }
  }
  throw new AttnScopeError('E_INPUT', `model must be ${BUNDLED_MODEL_IDS.map((m) => `"${m}"`).join(', ')}, a hub id (owner/name) or an http(s) URL, got ${preview(id)}`);
}

/** A value shortened and quoted for a message (attributes may be hostile or huge). */
export function preview(value, max = 60) {
  const s = String(value);
  return JSON.stringify(s.length > max ? s.slice(0, max) + '…' : s);
}
