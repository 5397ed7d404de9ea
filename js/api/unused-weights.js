// What a checkpoint holds that the model did not use, as warnings (transformers warns "Some weights
// of the model checkpoint were not used"): most often config.json's layer count below the
// checkpoint's, which otherwise loads silently with half the weights ignored.

const LAYER_INDEX = /(?:^|\.)(?:layers?|h|block)\.(\d+)\./;
const SHOWN = 3;  // names quoted in a warning; the rest are counted

/**
 * Warnings for the tensors the engine did not take (`untaken`, names in file order); `layers` the
 * layer counts config.json gave, by stack: { '': 2 } or { encoder: 3, decoder: 2 }.
 */
export function unusedWeightWarnings(untaken, layers) {
  if (untaken.length === 0) return [];
  const warnings = [];
  const indices = untaken.map((name) => Number(name.match(LAYER_INDEX)?.[1] ?? NaN)).filter(Number.isFinite);
  const configured = Math.max(...Object.values(layers));
  const deepest = Math.max(...indices, -1);
  if (deepest >= configured) {
    const counts = Object.entries(layers).map(([stack, n]) => `${n}${stack ? ` ${stack}` : ''}`).join(' and ');
    warnings.push(`the checkpoint has weights for ${deepest + 1} layers but config.json gives ${counts} layers: ` +
      `the weights of layers ${configured}–${deepest} are not used`);
  }
  const shown = untaken.slice(0, SHOWN).join(', ') + (untaken.length > SHOWN ? `, … (${untaken.length - SHOWN} more)` : '');
  warnings.push(`${untaken.length} tensor${untaken.length === 1 ? ' was' : 's were'} in the checkpoint but not used: ${shown}`);
  return warnings;
}
