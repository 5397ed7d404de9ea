// The tabs whose view depends on the model in use, composed once for both hosts — the explorer
// page (main.js) and <attn-scope> (web/embed/element.js) — so the two cannot drift apart:
// the Block walk (the encoder/GPT-2 walk, the Llama family's, an encoder–decoder's decoder layer),
// the Positions view (learned table or rotary angles),
// and the square matrix views that turn into the cross views (views/cross*.js) when an
// encoder–decoder's cross-attention (state.kind 'cross', target × source) is shown.
import { isRotary } from '../model-family.js';
import { isSeq2Seq } from '../seq2seq-run.js';
import { familySwitch, guardedView } from './family-switch.js';
import { createBlock } from './block.js';
import { createLlamaBlock } from './block-llama.js';
import { createSeq2SeqBlock } from './block-seq2seq.js';
import { createPositions } from './positions.js';
import { createRotary } from './rotary.js';

/** An encoder–decoder showing its cross-attention (not square: the cross views draw it). */
export const crossShown = (app) => isSeq2Seq(app.info) && app.state.kind === 'cross';

/** `square`'s view, or `cross`'s while crossShown(). */
export function squareOrCross(square, cross) {
  return familySwitch((a) => (crossShown(a) ? 'cross' : 'square'), { square, cross });
}

/** The Block tab: one token through one layer, as the loaded model's family builds its layer. */
export const blockView = guardedView('block', familySwitch(
  (a) => (isSeq2Seq(a.info) ? 'seq2seq' : isRotary(a.info) ? 'llama' : 'walk'),
  { walk: createBlock, llama: createLlamaBlock, seq2seq: createSeq2SeqBlock }));

/** The Positions tab: the learned position table, or rotary angles for the Llama family. */
export const positionsView = guardedView('positions', familySwitch((a) => (isRotary(a.info) ? 'rotary' : 'learned'),
  { learned: createPositions, rotary: createRotary }));
