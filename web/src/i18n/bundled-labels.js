// What the page calls each bundled model (js/api/bundled-models.js's ids), in the picker, the model
// line, the loading message and exported figures: one place, so a new bundled model is named once.
import { BUNDLED_CAUSAL_MODEL, BUNDLED_MODEL, BUNDLED_SEQ2SEQ_MODEL, isBundledModelId } from '../../../js/api/bundled-models.js';

const LABEL_KEYS = {
  [BUNDLED_MODEL]: 'modelBundled',
  [BUNDLED_CAUSAL_MODEL]: 'modelBundledCausal',
  [BUNDLED_SEQ2SEQ_MODEL]: 'modelBundledSeq2Seq',
};

/** The picker's name of a bundled model, or null for any other source. */
export function bundledLabel(t, id) {
  return isBundledModelId(id) ? t(LABEL_KEYS[id]) : null;
}

/** The name of `id` as the page shows it: a bundled model's label, else the id itself. */
export function modelLabel(t, id) {
  return bundledLabel(t, id) ?? id;
}
