// The views' text in the element: the page's i18n tables (web/src/i18n/i18n.js). The single file
// carries every language; dist/attnscope-element.js carries none in its main chunk and fetches the
// language an element shows, once, from a chunk beside it (scripts/build-embed.mjs), so an English
// figure does not download the Korean text nor a Korean one the English.
import { addLanguage, hasStrings } from '../src/i18n/i18n.js';

let fetchers = {};   // lang → () => import(that language's chunk); set by the bundle's entry
const pending = new Map();

/** The entry's way to fetch each language's table: { en: () => import(…), ko: … }. */
export function fetchStringsFrom(byLanguage) {
  fetchers = byLanguage;
}

/** Resolves once `lang`'s text is here (at once where the bundle carries it). */
export function loadStrings(lang) {
  if (hasStrings(lang) || !Object.hasOwn(fetchers, lang)) return Promise.resolve();
  if (!pending.has(lang)) {
    const promise = fetchers[lang]().then((m) => addLanguage(lang, m.default));
    promise.catch(() => pending.delete(lang));   // a failed fetch (offline) may be retried
    pending.set(lang, promise);
  }
  return pending.get(lang);
}

export { hasStrings as stringsLoaded };
