// The generation settings' number fields (the Generate panel, the sampling preview, Steering) refuse a value
// out of range and say why, naming the value and the one kept (a temperature of −3 or a
// top-p of 5 snapped back silently). One table of ranges for both panels.

/** The largest |strength| the Steering panel takes (a push 100× the direction is already noise). */
export const STEER_MAX_STRENGTH = 100;

/** The range each setting takes; `parse` gives the value kept (rounded) or null to refuse. */
export const SETTINGS = {
  genTokens: { attrs: { min: 1, max: 200, step: 1 }, parse: (v) => intIn(v, 1, 200) },
  genTemperature: { attrs: { min: 0, max: 10, step: 0.1 }, parse: (v) => (v >= 0 && v <= 10 ? Math.round(v * 1000) / 1000 : null) },
  genTopK: { attrs: { min: 0, max: 100000, step: 1 }, parse: (v) => intIn(v, 0, 100000) },
  genTopP: { attrs: { min: 0.01, max: 1, step: 0.05 }, parse: (v) => (v > 0 && v <= 1 ? Math.round(v * 1000) / 1000 : null) },
  genSeed: { attrs: { min: 0, max: 999999, step: 1 }, parse: (v) => intIn(v, 0, 999999) },
  // Steering (steer-panel.js): the layer is checked against the model in use when it steers.
  steerLayer: { attrs: { min: 0, max: 999, step: 1 }, parse: (v) => intIn(v, 0, 999) },
  steerStrength: { attrs: { min: -STEER_MAX_STRENGTH, max: STEER_MAX_STRENGTH, step: 0.5 },
    parse: (v) => (Math.abs(v) <= STEER_MAX_STRENGTH ? Math.round(v * 1000) / 1000 : null) },
};

function intIn(v, min, max) {
  return Number.isInteger(v) && v >= min && v <= max ? v : null;
}

/**
 * Wires `input` (type=number) to the state's `key`: a value in range goes to app.set, one out of
 * range (or empty) puts the state's value back and calls refused({ key, value }); accepted() on a
 * value taken. The caller shows refusalText() of what was refused until the next accepted value.
 */
export function settingInput(input, key, app, { refused, accepted }) {
  Object.assign(input, SETTINGS[key].attrs);
  input.addEventListener('change', () => {
    const typed = input.value;
    const v = typed === '' ? null : SETTINGS[key].parse(Number(typed));
    if (v === null) {
      input.value = String(app.state[key]);
      refused({ key, value: typed });
      return;
    }
    accepted();
    app.set({ [key]: v });
  });
}

/** Why a value was refused, in the UI's language: the range, the value typed, the value kept. */
export function refusalText(t, { key, value }, kept) {
  return t(`bad_${key}`, { value: value === '' ? '—' : value, kept });
}

/**
 * The line under a panel's number fields that says why a value was refused, until one is taken:
 * { element (a role=alert paragraph), wire(input, key) (settingInput with this line),
 * show() (re-words it, e.g. in a new UI language) }.
 */
export function refusalLine(app, className = 'error') {
  const element = document.createElement('p');
  element.className = className;
  element.setAttribute('role', 'alert');
  element.hidden = true;
  let refusal = null;
  const show = () => {
    element.hidden = !refusal;
    element.textContent = refusal ? refusalText(app.t, refusal, app.state[refusal.key]) : '';
  };
  const wire = (input, key) => settingInput(input, key, app, {
    refused: (r) => { refusal = r; show(); },
    accepted: () => { refusal = null; show(); },
  });
  return { element, wire, show };
}
