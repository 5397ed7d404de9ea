// The ids of the models shipped in the package, as loadModel() and the page's ?model= take them:
// the small BERT (model/, also what loadModel() loads when given no source) and the small GPT-2
// (model-causal/). The platform files map these ids to their files.
export const BUNDLED_MODEL = 'bundled';
export const BUNDLED_CAUSAL_MODEL = 'bundled-causal';
export const BUNDLED_MODEL_IDS = Object.freeze([BUNDLED_MODEL, BUNDLED_CAUSAL_MODEL]);

export function isBundledModelId(source) {
  return BUNDLED_MODEL_IDS.includes(source);
}
