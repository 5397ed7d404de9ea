// dist/attnscope-element.js ships only the i18n keys its code can ask for
// (scripts/element-strings.mjs). A key it drops would show as the key itself on screen, so: every
// key the element's code names as a quoted string (read here from an unminified build, as the
// sources quote them, not from the minified words the build reads) must be in both language
// chunks, and so must every key built from a prefix (`view_${id}`, 'err_' + code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { elementCode } from '../../scripts/build-embed.mjs';
import { usedStringKeys } from '../../scripts/element-strings.mjs';
import { LANGUAGES, STRING_TABLES } from '../../web/src/i18n/i18n.js';
import { ROOT } from '../e2e/embed-helpers.js';

test('the key scanner keeps what code names or builds, and nothing else', () => {
  const keys = ['named', 'viaAttribute', 'view_grid', 'view_head', 'err_E_INPUT', 'json', 'jsonTitle',
    'crossNote', 'unused', 'quit', 'lesson_a_title'];
  const code = `t("named");x.innerHTML='<b data-i18n="viaAttribute">';t(\`view_\${id}\`);t("err_"+c);` +
    `const k="json";t(k+"Title");t(\`\${kind}Note\`);const cross=1;q\${i};t(\`lesson_\${s}_title\`)`;
  assert.deepEqual(usedStringKeys(code, keys),
    ['named', 'viaAttribute', 'view_grid', 'view_head', 'err_E_INPUT', 'json', 'jsonTitle', 'crossNote', 'lesson_a_title']);
});

test('every key the element\'s code names or builds is in each language\'s chunk', async () => {
  const chunks = join(ROOT, 'dist/attnscope-element-chunks');
  const shipped = {};
  for (const lang of LANGUAGES) {
    const file = readdirSync(chunks).find((f) => f.startsWith(`attnscope-embed_strings-${lang}-`));
    assert.ok(file, `no ${lang} string chunk in dist/attnscope-element-chunks: run node scripts/build-embed.mjs`);
    shipped[lang] = (await import(pathToFileURL(join(chunks, file)))).default;
  }
  const keys = Object.keys(STRING_TABLES.en);
  const named = new Set(), prefixes = new Set();
  const source = await elementCode({ minify: false });
  assert.ok(source.includes('customElements.define'), 'the element\'s code was not built');
  for (const m of source.matchAll(/'([\w-]+)'|"([\w-]+)"|`([\w-]+)`/g)) named.add(m[1] ?? m[2] ?? m[3]);
  for (const m of source.matchAll(/`(\w+_)\$\{|["'](\w+_)["'] *\+/g)) prefixes.add(m[1] ?? m[2]);
  const needed = keys.filter((k) => named.has(k) || [...prefixes].some((p) => k.startsWith(p)));
  assert.ok(needed.length > 100 && needed.includes('view_grid') && needed.includes('err_E_INPUT'), `only ${needed.length} keys found`);
  for (const lang of LANGUAGES) {
    const missing = needed.filter((k) => !Object.hasOwn(shipped[lang], k));
    assert.deepEqual(missing, [], `${lang} chunk lacks keys the element uses`);
  }
  // And the chunks are the cut-down tables, not the page's whole text.
  assert.ok(Object.keys(shipped.en).length < keys.length * 0.8, `${Object.keys(shipped.en).length} of ${keys.length} keys shipped`);
});
