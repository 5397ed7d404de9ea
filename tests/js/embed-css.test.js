// The element adopts only the page's style rules its code can use (scripts/element-css.mjs). What
// the rule keeps, on a small sheet and code; tests/e2e/embed-chunks.test.js checks the built
// element's sheet against the classes its views put on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectorNames, usedCss } from '../../scripts/element-css.mjs';

const selectorsOf = (css) => [...css.matchAll(/([^{}]+)\{/g)].map((m) => m[1].trim().replace(/\s+/g, ' '));

test('a rule stays when the code names or builds every class and id of a selector', () => {
  const css = `
:root { --fg: #111; }
button { color: red; }
.named { a: 1; }
.named .unused { a: 2; }
.unused, .named > .other { a: 3; }
.agg-mean { a: 4; }
.view-grid > .hint { a: 5; }
#run-status { a: 6; }
[data-x=".unused"] .named { a: 7; }
.is-on:not(.unused) { a: 8; }
@media (max-width: 600px) {
  .named { b: 1; }
  .unused { b: 2; }
}
@media print {
  .unused { c: 1; }
}
@keyframes spin { from { d: 0; } to { d: 1; } }
`;
  const code = 'el("div","named other");x.className=`agg-${kind}`;p.className="view view-"+id;t("hint");c.toggle("is-on")';
  assert.deepEqual(selectorsOf(usedCss(css, code)), [
    ':root', 'button', '.named', '.named > .other', '.agg-mean', '.view-grid > .hint', '[data-x=".unused"] .named', '.is-on:not(.unused)',
    '@media (max-width: 600px)', '.named', '@keyframes spin', 'from', 'to',
  ]);
});

test('selectorNames reads classes and ids, not attribute values or numbers', () => {
  assert.deepEqual(selectorNames('.a > #b .c-d:hover [data-v=".e"]'), ['a', 'b', 'c-d']);
  assert.deepEqual(selectorNames('td:nth-child(2)'), []);
});
