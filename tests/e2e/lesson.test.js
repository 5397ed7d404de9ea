// The guided lesson (?lesson=attention&step=N): every step, in English on the desktop and in Korean
// on the phone, is drawn (its text with the model's own numbers, its figure, the page's view under
// it) with no console error; → and ← walk the steps and the URL follows; each step's link
// restores that step and its view. The figures' numbers are checked against the run's q and k
// (read through the test hook) for the dot-product step, and rows of the softmax figure sum to 1;
// the patching step's button opens the bundled church/school example in the step's view.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS } from '../../web/src/lesson/steps.js';
import { guardedPage, launchBrowser, startServer, waitForRuns, keepScreenshot } from './helpers.js';

const STEPS = LESSONS.attention;
const stepOf = (id) => STEPS.findIndex((s) => s.id === id) + 1;   // 1-based, as in the link
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
let server, browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function stepShown(page, n) {
  const step = STEPS[n - 1];
  await page.waitForFunction(([n, view]) => {
    const lesson = document.getElementById('lesson');
    const panel = document.querySelector(`.view-${view}`);
    return lesson?.dataset.step === String(n) && panel && !panel.hidden && panel.childElementCount > 0 &&
      document.body.dataset.status === 'ready';
  }, [n, step.view], { timeout: 60000 });
  return page.evaluate(([n, view]) => {
    const lesson = document.getElementById('lesson');
    const panel = document.querySelector(`.view-${view}`);
    const box = panel.getBoundingClientRect();
    return { id: lesson.dataset.stepId, title: lesson.querySelector('.lesson-step-title').textContent,
      body: lesson.querySelector('.lesson-body').textContent, figure: lesson.querySelector('.lesson-figure').childElementCount,
      progress: lesson.querySelector('.lesson-progress span').textContent, url: location.search,
      panelWidth: box.width, lessonWidth: lesson.getBoundingClientRect().width, pageWidth: document.documentElement.scrollWidth,
      view: window.__attnscope.state.view };
  }, [n, step.view]);
}

// Two walks cover both languages and both widths (English on the desktop, Korean on the phone):
// each walk loads every step's run, the suite's longest page test when all four ran.
for (const [lang, name, viewport] of [['en', 'desktop', DESKTOP], ['ko', 'phone', PHONE]]) {
  test(`lesson ${lang} ${name}: every step drawn, keyboard walks it, each link restores it`, async () => {
    const { page, problems } = await guardedPage(browser, server.origin, viewport);
    await page.goto(`${server.origin}/?lesson=attention&step=1&lang=${lang}`);
    await waitForRuns(page, 1);
    const links = [];
    for (let n = 1; n <= STEPS.length; n++) {
      const shown = await stepShown(page, n);
      assert.equal(shown.id, STEPS[n - 1].id);
      assert.equal(shown.view, STEPS[n - 1].view);
      assert.match(shown.url, new RegExp(`step=${n}(&|$)`));
      assert.ok(shown.title.startsWith(`${n}. `) && shown.title.length > 4, shown.title);
      assert.ok(shown.body.length > 80 && !/\{\w+\}/.test(shown.body), `step ${n} body: ${shown.body}`);
      assert.match(shown.progress, new RegExp(`${n}\\D+${STEPS.length}|${STEPS.length}\\D+${n}`));
      if (STEPS[n - 1].figure) assert.ok(shown.figure > 0, `step ${n} has its figure`);
      assert.ok(shown.lessonWidth <= viewport.width, `step ${n}: the lesson fits the width`);
      if (lang === 'ko') assert.match(shown.body, /[가-힣]/);
      if (name === 'phone' && STEPS[n - 1].figure) {
        // The step's own figure starts on a 390×844 phone's first screen, wholly or for at
        // least 45% of the screen's height, above the step's text.
        // (A block step scrolls its section into view once drawn: let that happen first.)
        if (STEPS[n - 1].section) await page.waitForSelector('.view-block .lesson-focus');
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await page.evaluate(() => window.scrollTo(0, 0));
        const box = await page.locator('#lesson .lesson-figure').boundingBox();
        const visible = Math.min(box.y + box.height, viewport.height) - box.y;
        assert.ok(box.y >= 0 && visible >= Math.min(box.height, 0.45 * viewport.height) - 0.5,
          `step ${n}: the figure starts at ${Math.round(box.y)} px, ${Math.round(visible)} of ${Math.round(box.height)} px on the first screen`);
      }
      if (name === 'phone' && [1, 4, 9].includes(n)) {
        await keepScreenshot(page.locator('#lesson'), `lesson-${lang}-${name}-${n}.png`);
      }
      links.push(shown.url);
      if (n < STEPS.length) {
        await page.locator('body').click({ position: { x: 2, y: 2 } });   // focus off any control
        await page.keyboard.press('ArrowRight');
      }
    }
    // ← goes back one step.
    await page.keyboard.press('ArrowLeft');
    assert.equal((await stepShown(page, STEPS.length - 1)).id, STEPS[STEPS.length - 2].id);
    // The buttons too.
    await page.click('.lesson-prev');
    assert.equal((await stepShown(page, STEPS.length - 2)).id, STEPS[STEPS.length - 3].id);
    await page.click('.lesson-next');
    assert.equal((await stepShown(page, STEPS.length - 1)).id, STEPS[STEPS.length - 2].id);
    // A step's link, opened fresh, shows that step: in English the first step of each view (and
    // block section; the later formula and head steps open the same way), in Korean four more.
    const firstOfEachView = STEPS.map((s, i) => [`${s.view}/${s.section ?? ''}`, i])
      .filter(([key], i, all) => all.findIndex(([k]) => k === key) === i).map(([, i]) => i);
    const restore = lang === 'en' && name === 'desktop' ? firstOfEachView : [0, 4, 6, 12];
    for (const i of restore) {
      const fresh = await page.context().newPage();
      fresh.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
      fresh.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
      await fresh.goto(`${server.origin}/${links[i]}`);
      const shown = await stepShown(fresh, i + 1);
      assert.equal(shown.id, STEPS[i].id);
      await fresh.close();
    }
    assert.deepEqual(problems, []);
    await page.context().close();
  });
}

test('the dot-product step\'s numbers are the run\'s q·k and cosine; the softmax step\'s α sum to 1', async () => {
  const { page, problems } = await guardedPage(browser, server.origin, DESKTOP);
  await page.goto(`${server.origin}/?lesson=attention&step=4`);
  await waitForRuns(page, 1);
  await stepShown(page, 4);
  const got = await page.evaluate(() => {
    const h = window.__attnscope, s = h.state;
    const T = h.shape[2];
    const q = h.vector('q', s.layer, s.head, s.query);
    const keys = Array.from({ length: T }, (_, j) => h.vector('k', s.layer, s.head, j));
    return { text: document.querySelector('.lesson-real').textContent, q, keys, row: h.raw(s.layer, s.head).slice(s.query * T, (s.query + 1) * T),
      tokens: h.tokenTexts, query: s.query };
  });
  // The strongest key of the query's row, as the figure picks it; its dot product and cosine.
  let best = 0;
  got.row.forEach((v, j) => { if (v > got.row[best]) best = j; });
  const k = got.keys[best];
  const dot = got.q.reduce((s, v, d) => s + v * k[d], 0);
  const cos = dot / (Math.hypot(...got.q) * Math.hypot(...k));
  assert.ok(got.text.includes(`k(${got.tokens[best]}) = ${dot.toFixed(3)}`), `${got.text} vs ${dot.toFixed(3)}`);
  assert.ok(got.text.includes(`cosine ${cos.toFixed(3)}`), `${got.text} vs ${cos.toFixed(3)}`);
  // Dragging a toy arrow changes the toy numbers.
  const before = await page.textContent('.lesson-toy-text');
  const box = await page.locator('.lesson-toy').boundingBox();
  await page.mouse.move(box.x + box.width * 0.9, box.y + box.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.5, { steps: 4 });
  await page.mouse.up();
  assert.notEqual(await page.textContent('.lesson-toy-text'), before);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await stepShown(page, 6);
  const alphas = await page.$$eval('.lesson-table tr td:last-child', (tds) => tds.map((td) => Number(td.textContent)));
  assert.ok(Math.abs(alphas.reduce((a, b) => a + b, 0) - 1) < 1e-3, `α sum ${alphas.reduce((a, b) => a + b, 0)}`);
  // The Add & Norm step outlines the block view's Add section.
  await page.goto(`${server.origin}/?lesson=attention&step=${stepOf('addnorm')}`);
  await stepShown(page, stepOf('addnorm'));
  await page.waitForSelector('.view-block [data-step="blockAdd"].lesson-focus');
  // "I am full": the button runs it; the figure says 5 × the model's width.
  await page.goto(`${server.origin}/?lesson=attention&step=${stepOf('full')}`);
  await stepShown(page, stepOf('full'));
  await page.click('.lesson-try');
  await page.waitForFunction(() => window.__attnscope.tokens?.join(' ') === '[CLS] i am full [SEP]');
  const width = await page.evaluate(() => window.__attnscope.info.config.hiddenSize);
  await page.waitForFunction((w) => document.querySelector('.lesson-figure .lesson-real')?.textContent === `X: 5 × ${w}`, width);
  assert.match(await page.textContent('.lesson-body'), new RegExp(`5 × ${width}`));
  // Asking why: the patching step's button opens the bundled decoder's church/school example in
  // the step's own view, and its grid is drawn there (the lesson stays on the step).
  await page.click('.lesson-next');
  await stepShown(page, stepOf('patching'));
  await page.click('.lesson-figure .lesson-try');
  await page.waitForFunction(() => {
    const h = window.__attnscope, p = h.patching;
    return h.state.model === 'bundled-causal' && p && p.state === 'done' && p.answer === ' church' && p.wrong === ' school';
  }, null, { timeout: 60000 });
  const after = await page.evaluate(() => window.__attnscope.state);
  assert.deepEqual([after.lesson, after.step, after.view], ['attention', stepOf('patching'), 'patching']);
  assert.deepEqual(problems, []);
  await page.context().close();
});
