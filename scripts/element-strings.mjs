// Which of the page's i18n keys the <attn-scope> element can ask for, read from its built code:
// dist/attnscope-element.js fetches only those in its language chunks (scripts/build-embed.mjs),
// not the page's whole table (the loader panel, the lesson's every step, the generation panel…).
//
// A key is kept when the code names it as a word (a literal, a data-i18n attribute, an object
// key), or builds it: `view_${id}` / 'err_' + code keep every key with that prefix (built keys
// end their fixed part with "_": `q${i}` is not a key), key + 'Title' / `${kind}Note` keep
// K + suffix for every word K. Keeping too much costs bytes; dropping one
// shows the key itself on screen, so the rule errs on keeping (tests/js/embed-strings.test.js
// checks every key the element's sources name against the chunk).

/** The keys of `keys` that `code` (minified or not) names or can build. */
export function usedStringKeys(code, keys) {
  const words = new Set(code.match(/[A-Za-z_$][\w$]*/g));
  const prefixes = new Set([
    ...[...code.matchAll(/([A-Za-z]\w*_)\$\{/g)].map((m) => m[1]),               // `prefix_${…}`
    ...[...code.matchAll(/["'`]([A-Za-z]\w*_)["'`]\s*\+/g)].map((m) => m[1]),    // 'prefix_' + …
  ]);
  const suffixes = new Set([
    ...[...code.matchAll(/\}([A-Za-z]\w*)`/g)].map((m) => m[1]),                 // `${…}Suffix`
    ...[...code.matchAll(/\+\s*["'`]([A-Za-z]\w*)["'`]/g)].map((m) => m[1]),     // … + 'Suffix'
  ]);
  const built = (key) => [...prefixes].some((p) => key.startsWith(p)) ||
    [...suffixes].some((s) => key.length > s.length && key.endsWith(s) && words.has(key.slice(0, -s.length)));
  return keys.filter((key) => words.has(key) || built(key));
}

/** `tables` ({ lang: { key: text } }) cut down to the keys `code` names or builds (English's keys
 *  decide, so every language keeps the same ones). */
export function tablesFor(code, tables) {
  const keep = usedStringKeys(code, Object.keys(tables.en));
  return Object.fromEntries(Object.entries(tables).map(([lang, table]) =>
    [lang, Object.fromEntries(keep.filter((k) => Object.hasOwn(table, k)).map((k) => [k, table[k]]))]));
}
