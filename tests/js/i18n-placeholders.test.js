// Every {placeholder} a string holds is given by the code that asks for it: a call t('key', { … })
// whose object lacks one shows the reader a literal "{reason}". Checked statically over web/src
// and web/embed against every string table, English and Korean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const I18N = 'web/src/i18n';

async function tables() {
  const merged = {};
  for (const name of readdirSync(join(root, I18N)).filter((n) => /^i18n.*\.js$/.test(n))) {
    const mod = await import(join(root, I18N, name));
    for (const value of Object.values(mod)) {
      if (!value || typeof value !== 'object' || typeof value.en !== 'object') continue;
      for (const [lang, table] of Object.entries(value)) {
        if (table && typeof table === 'object') merged[lang] = { ...merged[lang], ...table };
      }
    }
  }
  return merged;
}

const placeholders = (s) => new Set([...String(s).matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
// t('key', { a: …, b, c: … }) with a flat object (no nested braces): the names it gives.
const CALL = /\bt\(\s*'(\w+)'\s*,\s*\{([^{}]*)\}\s*\)/g;
const given = (body) => new Set([...body.matchAll(/(?:^|,)\s*(\w+)\s*(?=[:,]|$)/g)].map((m) => m[1]));

const sources = (dir) => readdirSync(join(root, dir), { recursive: true })
  .filter((n) => n.endsWith('.js')).map((n) => posix.join(dir, n.split('\\').join('/')));

test('each t(key, vars) call gives every placeholder its string holds, in every language', async () => {
  const byLang = await tables();
  assert.ok(Object.keys(byLang.en ?? {}).length > 300, 'the tables were not found');
  const missing = [];
  let calls = 0;
  for (const file of [...sources('web/src'), ...sources('web/embed')]) {
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(CALL)) {
      const [, key, body] = m;
      const names = given(body);
      for (const [lang, table] of Object.entries(byLang)) {
        if (!(key in table)) continue;
        calls++;
        for (const p of placeholders(table[key])) if (!names.has(p)) missing.push(`${file}: t('${key}', {${body.trim()}}) lacks {${p}} (${lang})`);
      }
    }
  }
  assert.ok(calls > 100, `only ${calls} calls found: the scan is broken`);
  assert.deepEqual(missing, []);
});

test('the scan reads names and shorthand alike', () => {
  assert.deepEqual([...given(' reason: errorReason(t, e) ')], ['reason']);
  assert.deepEqual([...given(' n, heads: list.join(", ") ')], ['n', 'heads']);
});
