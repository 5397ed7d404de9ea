// What the loaded model's family lets the page show, asked in one place: whether positions are
// rotary (the Llama family: no position table, q and k turned by position), which query heads
// share a key/value head (grouped-query attention), and which views cannot apply and why.
// Not here: drawing; the views and the tab bar ask these questions.
import { isSeq2Seq } from './seq2seq-run.js';

/** The views an encoder–decoder has (its three attention kinds in the grid, head and lines views,
 *  the cross-attention view, the head table of alignment accuracy, the Block walk through a decoder
 *  layer (views/block-seq2seq.js); the encoder-vs-decoder view runs the bundled models whatever is
 *  loaded). The others read outputs the seq2seq run does not give (q/k/v, value norms, the
 *  encoder's trace, the lens, the attribution, a corpus of single texts). */
const SEQ2SEQ_VIEWS = new Set(['grid', 'head', 'lines', 'cross', 'heads', 'compare', 'block']);

/** Rotary positions: the Llama family (llama, mistral, qwen2, qwen3 all rotate q and k). */
export function isRotary(info) {
  return info?.config?.family === 'llama';
}

/** The key/value head groups when query heads share them (GQA/MQA): [{ kv, first, last }] over
 *  query heads first..last; [] when every query head has its own keys and values. */
export function kvGroups(config) {
  const kv = config?.kvHeads;
  if (!kv || (config.numKeyValueHeads ?? kv.length) >= kv.length) return [];
  const groups = [];
  kv.forEach((g, h) => {
    const last = groups.at(-1);
    if (last && last.kv === g) last.last = h;
    else groups.push({ kv: g, first: h, last: h });
  });
  return groups;
}

/** The group of one query head, or null without sharing. */
export function kvGroupOf(config, head) {
  return kvGroups(config).find((g) => head >= g.first && head <= g.last) ?? null;
}

/** The i18n key saying why `view` cannot show this model, or null when it can (the tab bar hides
 *  such tabs). Every decoder and encoder family has every view (the Llama family's Block tab walks
 *  its own layer, views/block-llama.js); an encoder–decoder has the views in SEQ2SEQ_VIEWS (its
 *  Block tab walks a decoder layer), and only it has the cross-attention view. */
export function viewUnavailable(info, view) {
  if (isSeq2Seq(info)) return SEQ2SEQ_VIEWS.has(view) ? null : 'viewNotSeq2Seq';
  if (view === 'cross') return 'crossNeedsSeq2Seq';
  return null;
}
