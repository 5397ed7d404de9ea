// What a newcomer meets first, in Chromium with the real engine: a link to a
// model that cannot load says so and keeps asking for it; arrowing through the model list
// downloads nothing (Load does); a slow run dims the stale view and says it is running; Korean
// text in the English-only bundled model explains its [UNK]s. Hub requests are answered by
// Playwright from a fixture folder, or refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_WORDS, guardedPage, launchBrowser, startServer, waitForRuns, writeBertFixture, keepScreenshot } from './helpers.js';

const HUB = 'https://huggingface.co/';
let server, browser, tmp;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-first-'));
  writeBertFixture(join(tmp, 'hub'), { layers: 2, heads: 2, hidden: 16, intermediate: 32, maxPositions: 64, seed: 5 });
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// A page whose hub requests are served from the fixture (or all refused with `down`).
async function openPage(query = '', { down = false } = {}) {
  const g = await guardedPage(browser, server.origin, undefined, new Set([HUB]));
  g.hubHits = [];
  await g.context.route(HUB + '**', (route) => {
    g.hubHits.push(new URL(route.request().url()).pathname);
    const headers = { 'access-control-allow-origin': '*' };
    if (down) return route.fulfill({ status: 503, headers, body: 'unavailable' });
    try {
      return route.fulfill({ status: 200, headers, body: readFileSync(join(tmp, 'hub', new URL(route.request().url()).pathname.split('/').pop())) });
    } catch {
      return route.fulfill({ status: 404, headers, body: 'Entry not found' });
    }
  });
  await g.page.goto(`${server.origin}/${query}`);
  await waitForRuns(g.page, 1);
  return g;
}

test('a link to a model that cannot load says so and keeps the model in the URL', async () => {
  const g = await openPage('?model=google-bert%2Fbert-base-uncased&view=head', { down: true });
  try {
    const info = await g.page.evaluate(() => window.__attnscope.info.source);
    assert.equal(info, 'bundled');
    const error = g.page.locator('#model-error');
    assert.ok(await error.isVisible(), 'no message about the model that failed');
    const text = await error.textContent();
    assert.match(text, /google-bert\/bert-base-uncased/);
    assert.match(text, /bundled/i);
    assert.match(new URL(g.page.url()).search, /model=google-bert%2Fbert-base-uncased/, 'the link\'s model left the URL');
    // A state change (another view) keeps it too.
    await g.page.locator('[role=tab][data-view=grid]').click();
    await g.page.waitForFunction(() => window.__attnscope.state.view === 'grid');
    assert.match(new URL(g.page.url()).search, /model=google-bert%2Fbert-base-uncased/);
    assert.ok(g.hubHits.length > 0);
    // The only problems are the hub's 503 answers Chromium logs.
    assert.deepEqual(g.problems.filter((p) => !/status of 503/.test(p)), []);
  } finally {
    await g.context.close();
  }
});

test('arrowing through the model list downloads nothing; Load does', async () => {
  const g = await openPage();
  try {
    // Down the list until a hub model is chosen (other entries, such as bundled models, may
    // come first and load at once: they download nothing).
    const { CURATED } = await import('../../web/src/panels/model-picker.js');
    await g.page.locator('#model-select').focus();
    let chosen = null;
    for (let i = 0; i < 8 && !CURATED.includes(chosen); i++) {
      await g.page.keyboard.press('ArrowDown');
      await g.page.waitForTimeout(150);
      chosen = await g.page.locator('#model-select').inputValue();
      // A bundled model loads at once; wait for it before the next arrow, as a reader would see it
      // (a load that ends after later arrows puts the list back on the model in use).
      if (!CURATED.includes(chosen)) {
        await g.page.waitForFunction((id) => window.__attnscope.state.model === id && document.body.dataset.status === 'ready',
          chosen, { timeout: 60000 });
      }
    }
    assert.ok(CURATED.includes(chosen), `no hub model reached: ${chosen}`);
    await g.page.waitForTimeout(500);
    assert.deepEqual(g.hubHits, [], 'arrow keys started a download');
    assert.notEqual(await g.page.evaluate(() => window.__attnscope.info.source), 'hub');
    assert.match(await g.page.locator('#hub-size').textContent(), new RegExp(`${chosen.replace(/[/.-]/g, '\\$&')}: about \\d+ MB`));
    await g.page.keyboard.press('Enter');
    await g.page.waitForFunction(() => window.__attnscope.info?.source === 'hub' && window.__attnscope.runsDone >= 2);
    assert.ok(g.hubHits.some((p) => p.endsWith('/model.safetensors')));
    assert.equal(await g.page.evaluate(() => window.__attnscope.state.model), chosen);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('after a hub model fails to download, the picker names the model still in use', async () => {
  const g = await openPage('', { down: true });
  try {
    const { CURATED } = await import('../../web/src/panels/model-picker.js');
    const inUse = await g.page.evaluate(() => window.__attnscope.state.model);
    await g.page.locator('#model-select').selectOption(CURATED[0]);
    await g.page.locator('#hub-load').click();
    await g.page.locator('#model-error').waitFor({ state: 'visible' });
    assert.match(await g.page.locator('#model-error').textContent(), new RegExp(CURATED[0]));
    assert.equal(await g.page.evaluate(() => window.__attnscope.state.model), inUse);
    assert.equal(await g.page.locator('#model-select').inputValue(), inUse, 'the picker shows the model that failed');
    // The model in use still runs.
    const runs = await g.page.evaluate(() => window.__attnscope.runsDone);
    await g.page.locator('#text-a').fill('a big red tree');
    await waitForRuns(g.page, runs + 1);
    assert.deepEqual(g.problems.filter((p) => !/status of 503/.test(p)), []);
  } finally {
    await g.context.close();
  }
});

test('a link\'s layer, head and query beyond the model are clamped, and the URL says what is shown', async () => {
  const g = await openPage('?view=head&layer=99&head=99&q=999');
  try {
    const [L, H, T] = await g.page.evaluate(() => window.__attnscope.shape);
    const url = new URL(g.page.url()).searchParams;
    assert.deepEqual([url.get('layer'), url.get('head'), url.get('q')], [String(L - 1), String(H - 1), String(T - 1)]);
    const s = await g.page.evaluate(() => window.__attnscope.state);
    assert.deepEqual([s.layer, s.head, s.query], [L - 1, H - 1, T - 1]);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('a slow run dims the view and says it is running', async () => {
  // Big enough that a 480-token run outlasts the 150 ms before dimming and its 0.2 s fade on a fast
  // CPU (6 layers of 384 finished first on an AMD EPYC): ~1 s of work at ~40 GFLOP/s, one thread.
  const fixture = writeBertFixture(join(tmp, 'slow'), { layers: 12, heads: 8, hidden: 512, intermediate: 2048,
    maxPositions: 512, mlm: false, seed: 9 });
  const g = await openPage();
  try {
    await g.page.locator('#model-select').selectOption('__local');
    await g.page.locator('#folder-input').setInputFiles(fixture.dir);
    await g.page.waitForFunction(() => window.__attnscope.info?.source === 'files' && document.body.dataset.status === 'ready',
      null, { timeout: 30000 });
    const words = Array.from({ length: 480 }, (_, i) => FIXTURE_WORDS[(i * 7) % FIXTURE_WORDS.length]).join(' ');
    await g.page.locator('#text-a').fill(words);
    // While the run is busy (the dimming fades in over 0.2 s): the view dims, the status says so.
    await g.page.waitForFunction(() => 'busy' in document.body.dataset &&
      document.getElementById('run-status').textContent === 'Running…' &&
      Number(getComputedStyle(document.getElementById('view-host')).opacity) < 0.6, null, { timeout: 5000 });
    await g.page.waitForFunction(() => !('busy' in document.body.dataset) && window.__attnscope.tokens?.length > 400,
      null, { timeout: 60000 });
    assert.match(await g.page.locator('#run-status').textContent(), /tokens, \d+ ms/);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('Korean text in the English-only bundled model explains its [UNK]s', async () => {
  const g = await openPage('?lang=ko');
  try {
    assert.match(await g.page.locator('#model-info').textContent(), /영어 전용/);
    const runs = await g.page.evaluate(() => window.__attnscope.runsDone);
    await g.page.locator('#text-a').fill('오늘은 날씨가 좋아서 친구와 공원에 갔다');
    await g.page.waitForFunction((r) => window.__attnscope.runsDone > r && document.body.dataset.status === 'ready', runs);
    const tokens = await g.page.evaluate(() => window.__attnscope.tokens);
    assert.ok(tokens.filter((t) => t === '[UNK]').length >= 2, tokens.join(' '));
    const notice = g.page.locator('#unk-notice');
    // The page repaints in the animation frame after a run: wait for it (a loaded machine is slow).
    await notice.waitFor({ state: 'visible', timeout: 10000 }).catch(() => {});
    assert.ok(await notice.isVisible(), 'no word about the [UNK]s');
    assert.match(await notice.textContent(), /bert-base-multilingual-cased/);
    // English text: no notice.
    await g.page.locator('#text-a').fill('The cat sat on the mat.');
    await g.page.waitForFunction(() => window.__attnscope.tokens?.includes('cat') && document.body.dataset.status === 'ready');
    await notice.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
    assert.ok(await notice.isHidden());
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('the first screen shows the attention, at 1280×800 and 390×844 (EN, KO); the deeper decoder\'s whole grid at 1280×800', async () => {
  const desktop = { width: 1280, height: 800 }, phone = { width: 390, height: 844 };
  const cases = [{ query: '', viewport: desktop }, { query: '', viewport: phone }, { query: '?lang=ko', viewport: phone },
    { query: '?model=bundled-causal', viewport: desktop }];
  for (const { query, viewport } of cases) {
    const g = await guardedPage(browser, server.origin, viewport);
    try {
      await g.page.goto(`${server.origin}/${query}`);
      await waitForRuns(g.page, 1);
      await g.page.waitForFunction(() => {
        const c = document.querySelector('canvas.model-grid');
        return c && Number(c.dataset.rendered) === Number(c.dataset.layers) * Number(c.dataset.heads);
      });
      const box = await g.page.locator('canvas.model-grid').boundingBox();
      // Desktop: the whole grid; phone (it started at 746 px of 844): its top on screen
      // and at least 45% of the screen's height of it (or all of it) visible without scrolling,
      // under the model card, the text box (compacted, not hidden) and the tabs.
      const visible = Math.min(box.y + box.height, viewport.height) - box.y;
      console.log(`# ${query || 'default'} ${viewport.width}×${viewport.height}: grid at ${Math.round(box.y)} px, ${Math.round(visible)} of ${Math.round(box.height)} px on the first screen`);
      const needed = viewport.width >= 1000 ? box.height : Math.min(box.height, 0.45 * viewport.height);
      assert.ok(box.y >= 0 && visible >= needed, `${query} ${viewport.width}×${viewport.height}: the grid starts at ` +
        `${Math.round(box.y)} px (${Math.round(visible)} of ${Math.round(box.height)} px visible)`);
      if (viewport.width < 1000) {
        assert.ok(await g.page.locator('#text-a').isVisible(), 'the text box is hidden');
        const tabHeights = await g.page.locator('[role=tab]:visible').evaluateAll((tabs) => tabs.map((t) => t.getBoundingClientRect().height));
        assert.ok(Math.min(...tabHeights) >= 44, `tabs ${Math.min(...tabHeights)} px tall on a phone (44 px touch targets)`);
        await keepScreenshot(g.page, `first-screen-phone${query ? '-ko' : ''}.png`);
      }
      assert.ok(box.x >= 0 && box.x + box.width <= viewport.width + 0.5, 'the grid is wider than the screen');
      assert.deepEqual(g.problems, []);
    } finally {
      await g.context.close();
    }
  }
});

test('an empty input clears the last run from the screen; typing brings it back', async () => {
  const g = await openPage();
  try {
    // A text longer than the model takes: its truncation warning is on screen.
    await g.page.locator('#text-a').fill('word '.repeat(2000));
    await g.page.waitForFunction(() => window.__attnscope.numTruncated > 0 && !document.getElementById('truncation').hidden);
    await g.page.locator('#text-a').fill('');
    await g.page.locator('#input-error').waitFor({ state: 'visible' });
    // The error is shown at once, the chips, the text copy and the warning cleared on the next frame.
    await g.page.waitForFunction(() => !document.querySelector('#chips .chip') && !document.getElementById('mirror').textContent &&
      document.getElementById('truncation').hidden);
    assert.ok(await g.page.locator('#chips').isHidden(), 'the old chips stay');
    assert.equal(await g.page.locator('#chips .chip').count(), 0, 'the old chips are still there');
    assert.equal(await g.page.locator('#mirror mark').count() + (await g.page.locator('#mirror').textContent()).length, 0, 'the old text copy stays');
    assert.ok(await g.page.locator('#truncation').isHidden(), 'the old run\'s truncation warning stays');
    assert.equal(await g.page.locator('#run-status').textContent(), '', 'the old run\'s status stays');
    assert.equal(await g.page.evaluate(() => window.__attnscope.tokens), null, 'a run is still on screen');
    assert.ok(await g.page.locator('.view-grid').isHidden(), 'the old view stays');
    const runs = await g.page.evaluate(() => window.__attnscope.runsDone);
    await g.page.locator('#text-a').fill('a new sentence');
    await waitForRuns(g.page, runs + 1);
    assert.ok(await g.page.locator('#chips').isVisible());
    assert.ok(await g.page.locator('.view-grid').isVisible());
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('the page has a Copy link that reopens the same text, model and view', async () => {
  const g = await openPage('?view=head&layer=1&head=2');
  try {
    await g.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    await g.page.locator('#text-a').fill('the river bank');
    await g.page.waitForFunction(() => window.__attnscope.tokens?.includes('river'));
    await g.page.locator('#copy-link').click();
    await g.page.waitForFunction(() => /copied/.test(document.getElementById('run-status').textContent));
    const link = await g.page.evaluate(() => navigator.clipboard.readText());
    const second = await guardedPage(browser, server.origin);
    await second.page.goto(link);
    await waitForRuns(second.page, 1);
    const st = await second.page.evaluate(() => window.__attnscope.state);
    assert.deepEqual([st.text, st.view, st.layer, st.head], ['the river bank', 'head', 1, 2]);
    await second.context.close();
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('the page exports what the element exports: the view as a PNG figure (2× or the screen\'s finer resolution), the head as SVG', async () => {
  const g = await openPage('?view=head&layer=1&head=2');
  try {
    const [png] = await Promise.all([g.page.waitForEvent('download'), g.page.locator('#export-png').click()]);
    const bytes = readFileSync(await png.path());
    assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
    const rect = await g.page.evaluate(() => {
      const r = document.querySelector('.view-head').getBoundingClientRect();
      return { width: Math.round(r.width), height: Math.round(r.height) };
    });
    // A figure: the view plus margins, a title band above and (tests/e2e/exports.test.js) a scale.
    assert.ok(bytes.readUInt32BE(16) >= rect.width && bytes.readUInt32BE(20) > rect.height, 'the PNG is smaller than the view');
    assert.equal(png.suggestedFilename(), 'attnscope-head-layer1-head2.png');
    const [svgFile] = await Promise.all([g.page.waitForEvent('download'), g.page.locator('#export-svg').click()]);
    const svg = readFileSync(await svgFile.path(), 'utf8');
    const checked = await g.page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return { errors: doc.getElementsByTagName('parsererror').length, cells: doc.querySelectorAll('g[shape-rendering] > rect').length,
        T: window.__attnscope.tokens.length, title: doc.querySelector('title')?.textContent ?? doc.documentElement.textContent };
    }, svg);
    assert.equal(checked.errors, 0);
    assert.equal(checked.cells, checked.T * checked.T);
    assert.match(checked.title, /Layer 1, head 2/);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('touch: a first tap on a head-view cell shows its weight, a second tap on it selects', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  try {
    await page.goto(`${server.origin}/?view=head`);
    await waitForRuns(page, 1);
    const overlay = page.locator('.view-head .heatmap-overlay');
    await overlay.scrollIntoViewIfNeeded();
    const cell = await overlay.evaluate((c) => {
      const d = c.dataset, r = c.getBoundingClientRect();
      return { x: r.left + Number(d.labelW) + 2.5 * Number(d.cell), y: r.top + Number(d.labelH) + 3.5 * Number(d.cell) };
    });
    const selected = () => page.evaluate(() => window.__attnscope.state.selected);
    assert.deepEqual(await selected(), []);
    await page.touchscreen.tap(cell.x, cell.y);
    await page.locator('.view-head .tooltip').waitFor({ state: 'visible' });
    assert.match(await page.locator('.view-head .tooltip').textContent(), /→ .*: \d\.\d{4}/);
    assert.deepEqual(await selected(), [], 'the first tap selected');
    await page.touchscreen.tap(cell.x, cell.y);
    await page.waitForFunction(() => window.__attnscope.state.selected.length === 1);
    assert.deepEqual(await selected(), [3]);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('errors in the Korean UI: the sentence is Korean, the engine\'s English detail is secondary, a language switch re-words it', async () => {
  const g = await openPage('?model=google-bert%2Fbert-base-uncased&lang=ko', { down: true });
  try {
    const read = () => g.page.evaluate(() => {
      const el = document.getElementById('model-error');
      return { main: el.querySelector('.error-text')?.textContent ?? null, detail: el.querySelector('.error-detail')?.textContent ?? null,
        detailLang: el.querySelector('.error-detail')?.lang ?? null };
    });
    await g.page.locator('#model-error').waitFor({ state: 'visible' });
    const ko = await read();
    assert.ok(ko.main, 'the message has no main sentence apart from the engine\'s detail');
    assert.match(ko.main, /불러오지 못했습니다/);
    assert.match(ko.main, /서버에 연결할 수 없거나|찾을 수 없습니다/);   // E_NETWORK or E_NOT_FOUND, in Korean
    assert.match(ko.detail, /^E_(NETWORK|NOT_FOUND): /);
    assert.equal(ko.detailLang, 'en');
    // The engine's English message is only in the detail line.
    const engine = ko.detail.replace(/^E_\w+: /, '');
    assert.ok(!ko.main.includes(engine), `the main sentence repeats the engine's message: ${ko.main}`);
    assert.equal(await g.page.title(), await g.page.evaluate(() => document.title));
    assert.match(await g.page.title(), /[가-힣]/, 'the page title is not Korean');
    // Switching to English re-words the message on screen (and the title).
    await g.page.locator('[data-lang=en]').click();
    await g.page.waitForFunction(() => document.documentElement.lang === 'en');
    const en = await read();
    assert.match(en.main, /could not be loaded/);
    assert.equal(en.detail, ko.detail);
    assert.doesNotMatch(await g.page.title(), /[가-힣]/);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('a chip click picks the query only; "Select tokens…" (keyboard too) selects for masking; EN and KO labels', async () => {
  const g = await openPage('?view=head');
  const state = () => g.page.evaluate(() => ({ query: window.__attnscope.state.query, selected: window.__attnscope.state.selected }));
  const chip = (i) => g.page.locator(`#chips .chip[data-pos="${i}"]`);
  // The page draws a state change on the next animation frame: wait for what the chip shows, not
  // for the state alone (on a loaded machine the frame can come after the next read).
  const chipShows = (i, attr, value) => g.page.waitForFunction(([i, attr, value]) =>
    document.querySelector(`#chips .chip[data-pos="${i}"]`)?.getAttribute(attr) === value, [i, attr, value]);
  try {
    // Query mode: a click moves the query and selects nothing; the chip is a plain button marked current.
    await chip(3).click();
    await g.page.waitForFunction(() => window.__attnscope.state.query === 3);
    await chipShows(3, 'aria-current', 'true');
    assert.deepEqual((await state()).selected, []);
    assert.equal(await chip(3).getAttribute('aria-current'), 'true');
    assert.equal(await chip(3).getAttribute('aria-pressed'), null, 'a query-mode chip is no toggle');
    assert.ok(await g.page.locator('#mask-btn').isDisabled(), 'Mask is enabled with nothing selected');
    assert.match(await g.page.locator('#chips').getAttribute('aria-label'), /query/);
    // The toggle, from the keyboard: Enter presses it; the chips become toggle buttons.
    const mode = g.page.locator('#select-mode');
    await mode.focus();
    await g.page.keyboard.press('Enter');
    assert.equal(await mode.getAttribute('aria-pressed'), 'true');
    assert.match(await g.page.locator('#chips').getAttribute('aria-label'), /select/i);
    assert.equal(await chip(5).getAttribute('aria-pressed'), 'false');
    await chip(5).focus();
    await g.page.keyboard.press('Space');
    await g.page.waitForFunction(() => window.__attnscope.state.selected.join() === '5');
    await chipShows(5, 'aria-pressed', 'true');
    assert.equal((await state()).query, 3, 'selecting moved the query');
    assert.equal(await chip(5).getAttribute('aria-pressed'), 'true');
    await keepScreenshot(g.page, 'chips-selecting-en.png');
    // Escape on a chip leaves the mode; a click picks the query again and keeps the selection.
    await g.page.keyboard.press('Escape');
    assert.equal(await mode.getAttribute('aria-pressed'), 'false');
    await chip(2).click();
    await g.page.waitForFunction(() => window.__attnscope.state.query === 2);
    await chipShows(2, 'aria-current', 'true');
    assert.deepEqual((await state()).selected, [5]);
    assert.ok(await g.page.locator('#mask-btn').isEnabled());
    // Korean labels.
    await g.page.locator('[data-lang=ko]').click();
    await g.page.waitForFunction(() => document.documentElement.lang === 'ko');
    await g.page.waitForFunction(() => /쿼리/.test(document.getElementById('chips').getAttribute('aria-label')));
    assert.match(await mode.textContent(), /토큰 고르기/);
    await mode.click();
    assert.match(await mode.textContent(), /고르는 중/);
    assert.match(await g.page.locator('#chips').getAttribute('aria-label'), /고르거나/);
    await keepScreenshot(g.page, 'chips-selecting-ko.png');
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});
