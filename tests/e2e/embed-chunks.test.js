// dist/attnscope-element.js fetches what an element shows and nothing more: the chunk of its view,
// the text of its language (an English element never the Korean, a Korean one never the English),
// the lesson's only for a lesson step; a view picked later, or a lang attribute changed later,
// fetches its chunk then and draws in it, with a clean console.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';
import { VIEW } from '../../web/src/views/registry.js';
import { translate } from '../../web/src/i18n/i18n.js';

const TEXT = 'The bank of the river.';
let server, browser;

before(async () => {
  await ensureBuilt();
  server = await startServer({ pages: {
    '/en.html': elementPage(`<attn-scope id="x" text="${TEXT}" view="${VIEW.grid}"></attn-scope>`),
    '/ko.html': elementPage(`<attn-scope id="x" lang="ko" text="${TEXT}" view="${VIEW.grid}"></attn-scope>`),
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
