// Error messages in the UI's language: the sentence comes from the error's code (i18n-errors.js),
// and the engine's message — English, naming the file, URL or tensor — follows as secondary
// text, so nothing is lost and nothing in the main sentence switches language. A message on
// screen is kept as a function of t(), so switching language re-words it (relocalizeMessages).
import { ERROR_CODES } from '../../../js/formats/errors.js';

/** The code an error carries, E_INTERNAL when it has none we know. */
export function errorCode(error) {
  return ERROR_CODES.includes(error?.code) ? error.code : 'E_INTERNAL';
}

/** What went wrong, in the UI's language (for a {reason} placeholder). */
export function errorReason(t, error) {
  return t('err_' + errorCode(error));
}

/** The engine's own words, shown under the sentence: "E_CONFIG: config.json: …". */
export function errorDetail(error) {
  const message = error?.message ?? (error == null ? '' : String(error));
  return message ? `${errorCode(error)}: ${message}` : errorCode(error);
}

const live = new Map();   // element → { build, detail } of the message it shows

/**
 * Shows `build(t)` in `el` with `error`'s detail (if any) under it in a smaller, English-tagged
 * line; `build` is kept to re-word the message when the language changes; null hides it.
 */
export function showMessage(el, t, build, error = null) {
  if (!build) {
    live.delete(el);
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  live.set(el, { build, error });
  paint(el, t);
}

function paint(el, t) {
  const { build, error } = live.get(el);
  const main = document.createElement('span');
  main.className = 'error-text';
  main.textContent = build(t);
  el.replaceChildren(main);
  if (error) {
    const detail = document.createElement('small');
    detail.className = 'error-detail';
    detail.lang = 'en';
    detail.textContent = errorDetail(error);
    el.append(detail);
  }
  el.hidden = false;
}

/** Re-words every message on screen in the new language. */
export function relocalizeMessages(t) {
  for (const el of live.keys()) {
    if (el.isConnected) paint(el, t); else live.delete(el);
  }
}
