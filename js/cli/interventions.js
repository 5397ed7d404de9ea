// The CLI's interventions: `attnscope patch` (activation patching, js/analysis/patching.js) and the
// generate command's --steer-* flags (steering, the generate() option `steer`). Flags are read in
// the CLI's words (js/cli/args.js); the API checks what they mean.
import { writeFileSync } from 'node:fs';

import { UsageError, integerList, optionalInteger, optionalNumber, refuseEmpty } from './args.js';
import { PATCH_SITES } from '../analysis/patching.js';

export const PATCH_USAGE = `  patch     --model M (--clean "..." --corrupted "..." | --clean-ids IDS --corrupted-ids IDS)
            (--answer TOKEN --wrong TOKEN | --answer-id ID --wrong-id ID)
            --site ${PATCH_SITES.join('|')} [--target "..." | --target-ids IDS] [--stack decoder|encoder]
            [--out FILE]
            activation patching: the corrupted prompt run with one activation at a time taken from
            the clean one; JSON {"site", "clean", "corrupted" (the two logit differences
            logit[answer] − logit[wrong] at the last position; encoders: the first mask token),
            "scores" [L][T] (resid_pre, attn_out, mlp_out) or [L][H] (head, pattern): 1 restores
            the clean difference, 0 changes nothing}; encoder–decoders: --clean/--corrupted are
            sources, the decoder reads --target after its start token (the target so far: LD at
            its last word, no end token added),
            --stack picks whose sites (default decoder), and the JSON adds "stack"`;

export const STEER_USAGE = `            [--steer-layer L (--steer-from "..." --steer-to "..." | --steer-from-ids IDS
            --steer-to-ids IDS) --steer-strength S]  decoders: adds S × (mean residual stream of
            --steer-to − that of --steer-from, each run alone) entering layer L at every position`;

export const PATCH_FLAGS = {
  clean: { type: 'string' }, corrupted: { type: 'string' }, 'clean-ids': { type: 'string' },
  'corrupted-ids': { type: 'string' }, answer: { type: 'string' }, wrong: { type: 'string' },
  'answer-id': { type: 'string' }, 'wrong-id': { type: 'string' }, site: { type: 'string' }, out: { type: 'string' },
  target: { type: 'string' }, 'target-ids': { type: 'string' }, stack: { type: 'string' },
};

export const STEER_FLAGS = {
  'steer-layer': { type: 'string' }, 'steer-from': { type: 'string' }, 'steer-to': { type: 'string' },
  'steer-from-ids': { type: 'string' }, 'steer-to-ids': { type: 'string' }, 'steer-strength': { type: 'string' },
};

// One of two ways to give a value: --NAME TEXT or --NAME-id(s) VALUE.
function either(values, text, ids, read) {
  if ((values[text] === undefined) === (values[ids] === undefined)) throw new UsageError(`give exactly one of --${text} and --${ids}`);
  if (values[text] !== undefined) {
    refuseEmpty(values[text], `--${text}`, 'give some text');
    return values[text];
  }
  return read(values[ids], `--${ids}`);
}

/** `attnscope patch`: the grid as JSON on stdout or in --out. */
export async function patchCommand(values, openModel) {
  if (values.site === undefined) throw new UsageError(`patch needs --site (${PATCH_SITES.join(', ')})`);
  if (!PATCH_SITES.includes(values.site)) throw new UsageError(`--site must be one of ${PATCH_SITES.join(', ')}, got "${values.site}"`);
  const clean = either(values, 'clean', 'clean-ids', integerList);
  const corrupted = either(values, 'corrupted', 'corrupted-ids', integerList);
  const answer = either(values, 'answer', 'answer-id', (text, flag) => optionalInteger(text, flag, 0));
  const wrong = either(values, 'wrong', 'wrong-id', (text, flag) => optionalInteger(text, flag, 0));
  // An encoder–decoder's own options, passed only when given: a decoder-only model refuses them by name.
  if (values.target !== undefined && values['target-ids'] !== undefined) throw new UsageError('give --target or --target-ids, not both');
  const seq2seq = {
    ...(values.target !== undefined ? { target: values.target } : {}),
    ...(values['target-ids'] !== undefined ? { targetIds: integerList(values['target-ids'], '--target-ids') } : {}),
    ...(values.stack !== undefined ? { stack: values.stack } : {}),
  };
  const model = await openModel(values);
  try {
    if (Object.keys(seq2seq).length && model.info?.kind !== 'encoder-decoder') {
      throw new UsageError(`--${Object.keys(seq2seq).map((k) => ({ targetIds: 'target-ids' })[k] ?? k).join(', --')}: for encoder–decoders; this model is a ${model.info?.kind ?? 'decoder'}`);
    }
    const grid = await model.patch({ clean, corrupted, answer, wrong, site: values.site, ...seq2seq });
    const json = `${JSON.stringify({ site: grid.site, ...(grid.stack ? { stack: grid.stack } : {}), clean: grid.clean,
      corrupted: grid.corrupted, position: grid.position, scores: grid.scores })}\n`;
    if (values.out) writeFileSync(values.out, json);
    else process.stdout.write(json);
  } finally {
    model.dispose();
  }
  return 0;
}

/** The generate() option `steer` from the --steer-* flags (undefined when none is given). */
export function steerFromFlags(values) {
  const given = Object.keys(STEER_FLAGS).filter((flag) => values[flag] !== undefined);
  if (given.length === 0) return undefined;
  for (const flag of ['steer-layer', 'steer-strength']) if (values[flag] === undefined) throw new UsageError(`steering needs --${flag}`);
  const texts = values['steer-from'] !== undefined || values['steer-to'] !== undefined;
  const ids = values['steer-from-ids'] !== undefined || values['steer-to-ids'] !== undefined;
  if (texts === ids) throw new UsageError('steering needs --steer-from and --steer-to, or --steer-from-ids and --steer-to-ids');
  const pair = texts ? ['steer-from', 'steer-to'] : ['steer-from-ids', 'steer-to-ids'];
  for (const flag of pair) if (values[flag] === undefined) throw new UsageError(`steering needs --${flag} with --${pair.find((f) => f !== flag)}`);
  for (const flag of ['steer-from', 'steer-to']) refuseEmpty(values[flag], `--${flag}`, 'give some text');
  return {
    layer: optionalInteger(values['steer-layer'], '--steer-layer', 0),
    strength: optionalNumber(values['steer-strength'], '--steer-strength'),
    ...(texts ? { from: values['steer-from'], to: values['steer-to'] }
      : { from: integerList(values['steer-from-ids'], '--steer-from-ids'), to: integerList(values['steer-to-ids'], '--steer-to-ids') }),
  };
}
