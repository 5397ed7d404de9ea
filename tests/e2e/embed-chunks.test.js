// dist/attnscope-element.js fetches what an element shows and nothing more: the chunk of its view,
// the text of its language (an English element never the Korean, a Korean one never the English),
// the lesson's only for a lesson step; a view picked later, or a lang attribute changed later,
// fetches its chunk then and draws in it, with a clean console. Its style sheet is the page's
// rules that its code can use (scripts/element-css.mjs): every class its views and the lesson put
// on screen keeps the rules the page has for it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';
import { ELEMENT_VIEW_IDS, VIEW } from '../../web/src/views/registry.js';
import { selectorNames } from '../../scripts/element-css.mjs';
import { translate } from '../../web/src/i18n/i18n.js';

const TEXT = 'The bank of the river.';
let server, browser;

before(async () => {
  await ensureBuilt();
  server = await startServer({ pages: {
    '/en.html': elementPage(`<attn-scope id="x" text="${TEXT}" view="${VIEW.grid}"></attn-scope>`),
    '/ko.html': elementPage(`<attn-scope id="x" lang="ko" text="${TEXT}" view="${VIEW.grid}"></attn-scope>`),
    '/lesson.html': elementPage(`<attn-scope id="x" lesson="attention" step="3" text="${TEXT}"></attn-scope>`),
  } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

// The named chunks a page fetched since log index `from`: views, text, lesson (not the shared ones).
const namedChunks = (from) => server.log.slice(from).filter((p) => p.startsWith('/dist/attnscope-element-chunks/') && !/\/chunk-/.test(p))
  .map((p) => p.replace(/^.*\/(.*)-\w+\.js$/, '$1')).sort();
const buttonLabels = (page) => page.evaluate(() =>
  [...document.getElementById('x').shadowRoot.querySelectorAll('.views button')].map((b) => b.textContent));

test('an English grid fetches the grid and the English text; switched to Korean, the Korean text, then a view picked, its chunk', async () => {
  const g = await guardedPage(browser);
  try {
    const from = server.log.length;
    await g.page.goto(`${server.origin}/en.html`);
    await waitForElements(g.page, 1);
    assert.deepEqual(namedChunks(from), ['attnscope-embed_strings-en', VIEW.grid]);
    assert.equal((await buttonLabels(g.page))[0], translate('en', `view_${VIEW.grid}`));
    assert.ok(await g.page.evaluate(() => document.getElementById('x').shadowRoot.querySelector('canvas') !== null), 'the grid is drawn');

    await g.page.evaluate(() => document.getElementById('x').setAttribute('lang', 'ko'));
    const korean = translate('ko', `view_${VIEW.grid}`);
    await g.page.waitForFunction((label) => document.getElementById('x').shadowRoot.querySelector('.views button').textContent === label, korean);
    assert.deepEqual(namedChunks(from), ['attnscope-embed_strings-en', 'attnscope-embed_strings-ko', VIEW.grid]);

    await g.page.evaluate((v) => document.getElementById('x').shadowRoot.querySelector(`.views button[data-view="${v}"]`).click(), VIEW.head);
    // The head view's map replaces the grid once its chunk is here.
    await g.page.waitForFunction(() => document.getElementById('x').shadowRoot.querySelector('.view-host .map-host canvas') !== null);
    assert.ok(namedChunks(from).includes(VIEW.head), namedChunks(from).join(' '));
    assert.deepEqual(await g.check(), []);
  } finally {
    await g.context.close();
  }
});

test('a Korean element fetches the Korean text only', async () => {
  const g = await guardedPage(browser);
  try {
    const from = server.log.length;
    await g.page.goto(`${server.origin}/ko.html`);
    await waitForElements(g.page, 1);
    assert.deepEqual(namedChunks(from), ['attnscope-embed_strings-ko', VIEW.grid]);
    assert.equal((await buttonLabels(g.page))[0], translate('ko', `view_${VIEW.grid}`));
    assert.deepEqual(await g.check(), []);
  } finally {
    await g.context.close();
  }
});

// The classes and ids on screen in element x's shadow root, and those its adopted sheet names.
const onScreen = (page) => page.evaluate(() => {
  const root = document.getElementById('x').shadowRoot;
  const names = new Set();
  for (const e of root.querySelectorAll('*')) {
    for (const c of e.classList) names.add(c);
    if (e.id) names.add(e.id);
  }
  return [...names];
});
const sheetText = (page) => page.evaluate(() => {
  // (A style rule has cssRules too, for nesting: its selector is what counts.)
  const text = (rules) => [...rules].map((r) => r.selectorText ?? `${r.conditionText ?? ''}{${text(r.cssRules ?? [])}}`).join('\n');
  return document.getElementById('x').shadowRoot.adoptedStyleSheets.map((s) => text(s.cssRules)).join('\n');
});
const namesOf = (css) => new Set(css.split(/[{}\n]/).flatMap((selector) => selectorNames(selector)));

test('the element\'s style sheet has the page\'s rules for every class its views and the lesson show', async () => {
  const pageCss = readFileSync(join(ROOT, 'web/style.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const styled = new Set([...pageCss.matchAll(/([^{}]+)\{/g)].flatMap((m) => selectorNames(m[1])));
  const g = await guardedPage(browser);
  try {
    const seen = new Set();
    await g.page.goto(`${server.origin}/en.html`);
    await waitForElements(g.page, 1);
    for (const view of ELEMENT_VIEW_IDS) {
      await g.page.evaluate((v) => document.getElementById('x').shadowRoot.querySelector(`.views button[data-view="${v}"]`).click(), view);
      await g.page.waitForFunction((v) => {
        const x = document.getElementById('x');
        const panel = x.shadowRoot.querySelector(`.view-host .view-${v}`);
        return x.dataset.status === 'ready' && panel && !panel.hidden && panel.childElementCount > 0;
      }, view);
      await g.page.waitForTimeout(150);   // what a view draws after its run
      for (const name of await onScreen(g.page)) seen.add(name);
    }
    const sheet = namesOf(await sheetText(g.page));
    await g.page.goto(`${server.origin}/lesson.html`);
    await waitForElements(g.page, 1);
    await g.page.waitForTimeout(150);
    for (const name of await onScreen(g.page)) seen.add(name);
    for (const name of namesOf(await sheetText(g.page))) sheet.add(name);
    assert.ok(seen.size > 60 && seen.has('model-grid'), `only ${seen.size} classes seen`);
    assert.deepEqual([...seen].filter((name) => styled.has(name) && !sheet.has(name)), [],
      'classes on screen whose page rules the element\'s sheet lacks');
    assert.deepEqual(await g.check(), []);
  } finally {
    await g.context.close();
  }
});
