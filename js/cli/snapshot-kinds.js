// `attnscope snapshot --view flow|patching`: the figures that hold a block of their own
// (js/analysis/figure-flow.js, js/analysis/figure-patching.js) rather than attention matrices, and the runs each
// needs. Flags are read in the CLI's words (js/cli/args.js); the API checks what they mean.
import { UsageError, optionalInteger, optionalNumber, refuseEmpty } from './args.js';
import { FLOW_DEFAULT_TAU } from '../analysis/flow-tau.js';
import { PATCH_SITES, PATCH_STACKS, targetPrefixIds } from '../analysis/patching.js';
import { FIGURE_VIEW, LENS_TOP_K } from '../formats/figure-views.js';
import { encoderRun } from '../analysis/snapshot.js';

// Patching compares the logits after the last token (or at the first [MASK]): top 5 as the view shows.
const TOP_K = 5;

export const SNAPSHOT_KIND_FLAGS = {
  position: { type: 'string' }, tau: { type: 'string' },
  corrupted: { type: 'string' }, answer: { type: 'string' }, wrong: { type: 'string' }, site: { type: 'string' },
  stack: { type: 'string' },
};

export const SNAPSHOT_KIND_USAGE = `            --view flow [--position P] [--tau T]: the information-flow graph into position P's
            prediction (default: the last) with the edges of share ≥ T (default ${FLOW_DEFAULT_TAU}) — those shares only,
            and the logit lens's top ${LENS_TOP_K} at each dot of the graph (models with an output head)
            --view patching --corrupted "..." --answer TOKEN --wrong TOKEN [--site ${PATCH_SITES.join('|')}]:
            the activation-patching grid of --text (clean) against --corrupted (default site ${PATCH_SITES[0]}),
            with both logit differences and both runs' top ${TOP_K} predictions; encoder–decoders: two
            sources, [--target "..."] the target so far (the answer is its next token) and
            [--stack ${PATCH_STACKS.join('|')}] whose sites (as \`attnscope patch\`)`;

const FLOW_ONLY = ['position', 'tau'];
const PATCHING_ONLY = ['corrupted', 'answer', 'wrong', 'site', 'stack'];

/** Refuses the flags of a figure kind other than --view's. */
export function checkKindFlags(values) {
  for (const [view, flags] of [[FIGURE_VIEW.flow, FLOW_ONLY], [FIGURE_VIEW.patching, PATCHING_ONLY]]) {
    const stray = flags.find((f) => values[f] !== undefined);
    if (stray && values.view !== view) throw new UsageError(`--${stray} goes with --view ${view}`);
  }
}

/**
 * The run a flow or patching figure is written from and what figureData needs besides it, or null
 * for the matrix views. Encoder–decoders: a patching grid (the flow view reads one stack).
 */
export async function kindFigureRun(model, values) {
  if (values.view !== FIGURE_VIEW.flow && values.view !== FIGURE_VIEW.patching) return null;
  const seq2seq = model.info.kind === 'encoder-decoder';
  if (seq2seq && values.view === FIGURE_VIEW.flow) {
    throw new UsageError(`--view ${values.view}: encoder-decoder models are drawn live only (the view reads one stack)`);
  }
  if (!seq2seq && values.stack !== undefined) throw new UsageError('--stack is for encoder-decoder models (bart, marian, t5)');
  if (values.words) throw new UsageError(`--words merges attention matrices; a ${values.view} figure is drawn over tokens`);
  if (values.view === FIGURE_VIEW.flow) {
    const tau = optionalNumber(values.tau, '--tau', { min: 0, max: 1, note: 'the smallest share drawn' }) ?? FLOW_DEFAULT_TAU;
    // The logit lens too where the model has a head: what a click on a dot of the graph shows.
    const lens = model.info.config.isDecoder || model.info.hasMlmHead ? { logitLens: LENS_TOP_K } : {};
    const result = await model.run(values.text, { topK: 0, flow: true, ...lens });
    const position = optionalInteger(values.position, '--position', 0) ?? result.tokens.length - 1;
    if (position >= result.tokens.length) {
      throw new UsageError(`--position ${position}: the text has ${result.tokens.length} tokens (0 to ${result.tokens.length - 1})`);
    }
    return { result, what: { position, tau } };
  }
  for (const flag of ['corrupted', 'answer', 'wrong']) {
    if (values[flag] === undefined) throw new UsageError(`--view patching needs --${flag}`);
  }
  refuseEmpty(values.corrupted, '--corrupted', 'give the corrupted prompt');
  const site = values.site ?? PATCH_SITES[0];
  if (!PATCH_SITES.includes(site)) throw new UsageError(`--site must be one of ${PATCH_SITES.join(', ')}, got "${site}"`);
  const options = { clean: values.text, corrupted: values.corrupted, answer: values.answer, wrong: values.wrong, site };
  if (seq2seq) return seq2seqPatchingRun(model, values, options);
  const result = await model.run(values.text, { topK: TOP_K });
  const corruptedRun = await model.run(values.corrupted, { topK: TOP_K });
  const grid = await model.patch(options);
  return { result, what: { patching: { grid, corruptedRun, corruptedText: values.corrupted, answer: values.answer, wrong: values.wrong } } };
}

// An encoder–decoder's grid: the two sources run over the target so far (as patch() reads --target),
// the figure drawn over the clean source (its encoder's run, kind 'enc').
async function seq2seqPatchingRun(model, values, options) {
  if (values.kind !== undefined) throw new UsageError('--kind: an encoder-decoder\'s patching figure is drawn over its source (the view shows no attention)');
  const stack = values.stack ?? PATCH_STACKS[0];
  if (!PATCH_STACKS.includes(stack)) throw new UsageError(`--stack is ${PATCH_STACKS.join(' or ')}, not "${stack}"`);
  const prefix = values.target ?? '';
  const targetIds = prefix ? targetPrefixIds(model.tokenizeTarget(prefix)) : [];
  const run = (text) => model.run(text, { topK: TOP_K, targetIds });
  const [cleanRun, corrupted] = [await run(values.text), await run(values.corrupted)];
  const grid = await model.patch({ ...options, targetIds, stack });
  // The corrupted source's tokens as the figure's labels show them.
  const corruptedRun = { ...corrupted, tokens: corrupted.sourceTokens, tokenTexts: model.tokenize(values.corrupted).tokenTexts };
  return { result: encoderRun(cleanRun, model.tokenize(values.text)),
    what: { patching: { grid, corruptedRun, cleanRun, prefix, corruptedText: values.corrupted, answer: values.answer, wrong: values.wrong } } };
}
