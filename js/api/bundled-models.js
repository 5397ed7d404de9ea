// The ids of the models shipped in the package, as loadModel() and the page's ?model= take them:
// the small BERT (model/, also what loadModel() loads when given no source), the small GPT-2
// (model-causal/) and the small T5 (model-seq2seq/, trained to rewrite English into
// subject–object–verb order; its folder also holds heldout.jsonl, the known alignments). The
// platform files map these ids to their files.
export const BUNDLED_MODEL = 'bundled';
export const BUNDLED_CAUSAL_MODEL = 'bundled-causal';
export const BUNDLED_SEQ2SEQ_MODEL = 'bundled-seq2seq';
export const BUNDLED_MODEL_IDS = Object.freeze([BUNDLED_MODEL, BUNDLED_CAUSAL_MODEL, BUNDLED_SEQ2SEQ_MODEL]);

export function isBundledModelId(source) {
  return BUNDLED_MODEL_IDS.includes(source);
}
