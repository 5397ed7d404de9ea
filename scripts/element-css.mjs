// Which of the page's style rules (web/style.css) the <attn-scope> element can use, read from its
// built code: the element adopts only those (scripts/build-embed.mjs), not the rules of the page's
// own panels (the loader, the tabs, the heads table, the sampling and steering panels…).
//
// A selector is kept when every class and id it names is a word of the code (a literal such as
// 'lens-cell is-dark', a template, a property) or starts with a prefix the code builds names from
// (`agg-${kind}`, 'view view-' + id). Rules with no class or id (:root, button, svg text) and at-rules
// other than @media and @supports (@keyframes) are kept whole; a @media or @supports block keeps
// what its rules keep. Keeping too much costs bytes; dropping a rule changes what a reader sees,
// so the rule errs on keeping (tests/e2e/embed-chunks.test.js checks every class the element's
// views put on screen against the sheet it adopts).

/** The words and name prefixes `code` (minified or not) can put in a class or id. */
function namesIn(code) {
  const words = new Set(code.match(/[A-Za-z_][\w-]*/g));
  const prefixes = new Set([
    ...[...code.matchAll(/([A-Za-z][\w-]*-)\$\{/g)].map((m) => m[1]),              // `prefix-${…}`
    ...[...code.matchAll(/["'`](?:[^"'`]*\s)?([A-Za-z][\w-]*-)["'`]\s*\+/g)].map((m) => m[1]),   // 'a prefix-' + …
  ]);
  return (name) => words.has(name) || [...prefixes].some((p) => name.startsWith(p));
}

// `text`'s rules at one level: [{ prelude, body }] (body without its braces). Comments must be gone.
function rules(text) {
  const out = [];
  let i = 0;
  for (;;) {
    const open = text.indexOf('{', i);
    if (open < 0) break;
    let depth = 1, j = open + 1;
    for (; depth && j < text.length; j++) {
      if (text[j] === '{') depth++;
      else if (text[j] === '}') depth--;
    }
    if (depth) throw new Error(`element-css: unbalanced braces after ${JSON.stringify(text.slice(open - 40, open))}`);
    out.push({ prelude: text.slice(i, open).trim(), body: text.slice(open + 1, j - 1) });
    i = j;
  }
  if (text.slice(i).trim()) throw new Error(`element-css: text after the last rule: ${JSON.stringify(text.slice(i, i + 40))}`);
  return out;
}

// The selectors of a comma list (commas inside :is(), :not() or [attr="a,b"] stay).
function selectors(prelude) {
  const out = [];
  let depth = 0, quote = null, start = 0;
  for (let i = 0; i < prelude.length; i++) {
    const c = prelude[i];
    if (quote) { if (c === quote) quote = null; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) { out.push(prelude.slice(start, i).trim()); start = i + 1; }
  }
  out.push(prelude.slice(start).trim());
  return out;
}

/** The classes and ids a selector names (not inside attribute values or strings). */
export function selectorNames(selector) {
  const bare = selector.replace(/\[[^\]]*\]/g, '').replace(/"[^"]*"|'[^']*'/g, '');
  return [...bare.matchAll(/[.#](-?[A-Za-z_][\w-]*)/g)].map((m) => m[1]);
}

/** `css` (comments removed) cut down to the rules whose selectors `code` can match. */
export function usedCss(css, code) {
  const known = namesIn(code);
  const keep = (text) => rules(text).map(({ prelude, body }) => {
    if (/^@(media|supports)\b/.test(prelude)) {
      const inner = keep(body);
      return inner ? `${prelude} {\n${inner}}\n` : '';
    }
    if (prelude.startsWith('@')) return `${prelude} {${body}}\n`;
    // What :not() names need not exist: .a:not(.b) matches every .a when nothing is .b.
    const kept = selectors(prelude).filter((s) => selectorNames(s.replace(/:not\([^()]*\)/g, '')).every(known));
    return kept.length ? `${kept.join(',\n')} {${body}}\n` : '';
  }).join('');
  return keep(css);
}
