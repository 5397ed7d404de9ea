// What the loaded model's family lets the page show, asked in one place: whether positions are
// rotary (the Llama family: no position table, q and k turned by position), which query heads
// share a key/value head (grouped-query attention), which views cannot apply and why, and how long
// a text the logit lens is computed for.
// Not here: drawing; the views and the tab bar ask these questions.
import { isSeq2Seq } from './seq2seq-run.js';
import { viewEntry } from '../views/registry.js';

/** The loaded model's family, as the view registry's `families` name them (views/registry.js):
 *  'encoder-decoder', 'decoder' (GPT-2, the Llama family) or 'encoder' (also before any load). */
export function modelFamily(info) {
  if (isSeq2Seq(info)) return 'encoder-decoder';
  return info?.kind === 'decoder' || info?.config?.isDecoder === true ? 'decoder' : 'encoder';
}

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
 *  such tabs): the view's registry entry lists the families it applies to. An encoder–decoder's
 *  run gives no q/k/v, value norms, encoder trace, lens, attribution or corpus of single texts,
 *  so the views reading those are not its. */
export function viewUnavailable(info, view) {
  const entry = viewEntry(view);
  return !entry || entry.families.includes(modelFamily(info)) ? null : entry.unavailable;
}

/** The lens reads (L+1)·T rows through a V×C head: beyond this many multiply-adds (gpt2-small at
 *  ~100 tokens: seconds in wasm) the Layers view says so instead of asking for it. */
export const LENS_BUDGET = 5e10;
/** The most tokens the lens is computed for on this model (Infinity before a model is loaded). */
export function lensMaxTokens(info) {
  const c = info?.config;
  if (!c) return Infinity;
  return Math.floor(LENS_BUDGET / ((c.numLayers + 1) * c.vocabSize * c.hiddenSize));
}
