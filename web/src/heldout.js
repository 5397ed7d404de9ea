// A model folder's heldout.jsonl (js/alignment-accuracy.js reads it): the known alignment of the
// run on screen when its source and typed target are one of the file's pairs. Read when a model
// loads: from the picked files, or beside a URL / bundled folder's config.json.
import { alignmentAccuracy, findHeldout, parseHeldout } from '../../js/alignment-accuracy.js';

export const HELDOUT_FILE = 'heldout.jsonl';
const MAX_BYTES = 4 * 1024 * 1024;   // a bigger file is not a held-out sample: skipped

/** The pairs of the folder `source` came from ([] when it has none or it cannot be read). */
export async function readHeldout(source, baseUrl) {
  try {
    if (typeof source === 'string') {
      if (!baseUrl) return [];
      const response = await fetch(new URL(HELDOUT_FILE, baseUrl));
      if (!response.ok) return [];
      const text = await response.text();
      return text.length > MAX_BYTES ? [] : parseHeldout(text);
    }
    const file = [...(source ?? [])].find((f) => (f.webkitRelativePath || f.name).split('/').pop() === HELDOUT_FILE);
    return file && file.size <= MAX_BYTES ? parseHeldout(await file.text()) : [];
  } catch {
    return [];
  }
}

const scored = new WeakMap();   // result → { pair, score } | null

/** The run's pair in heldout.jsonl and its heads' alignment accuracy, or null (no pair, a
 *  generated target, or an alignment that does not fit the tokens). */
export function knownAlignment(app) {
  const r = app.original;
  if (!r?.seq2seq || !app.heldout?.length || app.generated) return null;
  if (!scored.has(r)) {
    const pair = findHeldout(app.heldout, app.state.text, app.state.target);
    const raw = r.seq2seq;
    const score = pair && alignmentAccuracy(raw.crossAttentions, raw.crossShape, pair.alignment);
    scored.set(r, score ? { pair, score } : null);
  }
  return scored.get(r);
}
