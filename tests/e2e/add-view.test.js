// Adding a view takes its file, its registry entry and its strings, nothing more: this test adds
// a trivial view that way — only in the bundles it builds, through an esbuild plugin that adds
// the file, the entry (web/src/views/registry.js) and the strings (web/src/i18n/i18n.js's tables) — and finds
// it in the page's tabs, in the permalink, in <attn-scope>'s view buttons and in its permalink.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { guardedPage, serverAndBrowser, waitForRuns } from './helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const VIEWS = join(ROOT, 'web/src/views');
const TEXT = 'The cat sat on the mat.';
const out = mkdtempSync(join(tmpdir(), 'attnscope-add-view-'));
after(() => rmSync(out, { recursive: true, force: true }));

// The three additions, as a contributor would write them.
const VIEW_FILE = `// How many tokens the run has: the smallest view there is.
export default function createTokenCount(panel, app) {
  const p = document.createElement('p');
  p.className = 'token-count';
  panel.append(p);
  return { render() { p.textContent = app.t('tokenCountText', { n: app.result.tokens.length }); } };
}
`;
const ENTRY = "{ id: 'token-count', label: 'view_tokenCount', element: true, load: () => import('./token-count.js') },";
const STRINGS = {
  en: { view_tokenCount: 'Token count', tokenCountText: '{n} tokens' },
  ko: { view_tokenCount: '토큰 수', tokenCountText: '토큰 {n}개' },
};

// Adds them to the sources as esbuild reads them (the files on disk stay as they are).
const addView = {
  name: 'add-view',
  setup(b) {
    b.onResolve({ filter: /^\.\/token-count\.js$/ }, () => ({ path: join(VIEWS, 'token-count.js'), namespace: 'added' }));
    b.onLoad({ filter: /.*/, namespace: 'added' }, () => ({ contents: VIEW_FILE, resolveDir: VIEWS, loader: 'js' }));
    b.onLoad({ filter: /web\/src\/views\/registry\.js$/ }, ({ path }) => {
      const text = readFileSync(path, 'utf8');
      const end = text.indexOf('\n];', text.indexOf('const ENTRIES = ['));
      assert.ok(end > 0, 'the registry has no ENTRIES list');
      return { contents: text.slice(0, end) + '\n  ' + ENTRY + text.slice(end), loader: 'js' };
    });
    b.onLoad({ filter: /web\/src\/i18n\/i18n\.js$/ }, ({ path }) => {
      let text = readFileSync(path, 'utf8');
      for (const lang of Object.keys(STRINGS)) {
        const open = text.indexOf(`\n  ${lang}: {\n`);
        assert.ok(open > 0, `i18n.js has no ${lang} table`);
        const at = open + `\n  ${lang}: {\n`.length;
        const added = Object.entries(STRINGS[lang]).map(([k, v]) => `    ${k}: ${JSON.stringify(v)},\n`).join('');
        text = text.slice(0, at) + added + text.slice(at);
      }
      return { contents: text, loader: 'js' };
    });
  },
};

const env = serverAndBrowser();
// A build that fails is the tests' failure (a hook that throws would leave the browser open).
const bundles = { error: null };
before(async () => {
  try {
    const common = { bundle: true, format: 'esm', platform: 'browser', target: 'es2022', absWorkingDir: ROOT, write: false, loader: { '.css': 'text' },
      logLevel: 'error', plugins: [addView] };
    const page = await build({ ...common, entryPoints: ['web/src/main.js'] });
    // The element, as a script in dist/ (its worker and the bundled model sit beside it there).
    const element = await build({ ...common, stdin: { contents: "import { defineAttnScopeElement } from './web/embed/element.js';\ndefineAttnScopeElement();",
      resolveDir: ROOT, loader: 'js' } });
    bundles.page = page.outputFiles[0].text;
    bundles.element = element.outputFiles[0].text;
  } catch (e) {
    bundles.error = e;
  }
});

async function withBundles(page) {
  assert.ifError(bundles.error);
  await page.route('**/dist/explorer.js', (r) => r.fulfill({ contentType: 'text/javascript', body: bundles.page }));
  await page.route('**/dist/added-view-element.js', (r) => r.fulfill({ contentType: 'text/javascript', body: bundles.element }));
  await page.route('**/added-view.html', (r) => r.fulfill({ contentType: 'text/html', body: `<!doctype html><meta charset="utf-8">
    <script type="module" src="/dist/added-view-element.js"></script>
    <attn-scope id="a" view="token-count" text="${TEXT}" page-url="https://example.org/attnscope/"></attn-scope>` }));
}

it('the page: a tab, the view, the permalink, the Korean label', async () => {
  const g = await guardedPage(env.browser, env.server.origin);
  await withBundles(g.page);
  await g.page.goto(`${env.server.origin}/?text=${encodeURIComponent(TEXT)}&view=token-count`);
  await waitForRuns(g.page, 1);
  const tab = g.page.locator('[role=tab][data-view="token-count"]');
  assert.equal(await tab.textContent(), 'Token count');
  assert.equal(await tab.getAttribute('aria-selected'), 'true');
  const tokens = await g.page.evaluate(() => window.__attnscope.tokens.length);
  await g.page.waitForFunction((n) => document.querySelector('.view-token-count .token-count')?.textContent === `${n} tokens`, tokens);
  // Another tab and back: the permalink names the view, and the link opens it.
  await g.page.locator('[role=tab][data-view="grid"]').click();
  await g.page.waitForFunction(() => !new URLSearchParams(location.search).has('view'));
  await tab.click();
  await g.page.waitForFunction(() => new URLSearchParams(location.search).get('view') === 'token-count');
  await g.page.locator('[data-lang="ko"]').click();
  await g.page.waitForFunction(() => document.querySelector('[role=tab][data-view="token-count"]').textContent === '토큰 수');
  await g.page.waitForFunction((n) => document.querySelector('.view-token-count .token-count')?.textContent === `토큰 ${n}개`, tokens);
  assert.deepEqual(g.problems, []);
  await g.context.close();
});

it('the element: a view button, the view, its permalink', async () => {
  const g = await guardedPage(env.browser, env.server.origin);
  await withBundles(g.page);
  await g.page.goto(`${env.server.origin}/added-view.html`);
  await g.page.waitForFunction(() => document.querySelector('#a')?.dataset.status === 'ready', null, { timeout: 60000 });
  const seen = await g.page.evaluate(() => {
    const el = document.querySelector('#a');
    const button = el.shadowRoot.querySelector('button[data-view="token-count"]');
    return { button: button?.textContent, pressed: button?.getAttribute('aria-pressed'), view: el.view,
      text: el.shadowRoot.querySelector('.view-token-count .token-count')?.textContent, tokens: el.result.tokens.length,
      link: el.permalink() };
  });
  assert.equal(seen.button, 'Token count');
  assert.equal(seen.pressed, 'true');
  assert.equal(seen.view, 'token-count');
  assert.equal(seen.text, `${seen.tokens} tokens`);
  assert.equal(new URL(seen.link).searchParams.get('view'), 'token-count');
  assert.deepEqual(g.problems, []);
  await g.context.close();
});
