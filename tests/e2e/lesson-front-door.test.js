// The lesson as the page's front door: from `/` a reader sees a way into the guided
// lesson on the first screen, enters it on the sentence they typed, and leaves it to the free
// explorer with that sentence kept. And Next keeps the step on screen: after each Next, at 1280 and
// 390 px, in English and Korean, the step's title, the start of its text and the Next button are
// inside the viewport (steps 7, 10 and 11 used to scroll the page 768–3,328 px down to the block
// view's section, leaving the text and the buttons out of sight).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS } from '../../web/src/lesson/steps.js';
import { guardedPage, keepScreenshot, serverAndBrowser, waitForRuns } from './helpers.js';

const STEPS = LESSONS.attention;
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const env = serverAndBrowser();

/** Waits until step n and its view are drawn (and a block step's section outlined), then two frames. */
async function stepDrawn(page, n) {
  const step = STEPS[n - 1];
  await page.waitForFunction(([n, view, section]) => {
    const lesson = document.getElementById('lesson');
    const panel = document.querySelector(`.view-${view}`);
    return lesson?.dataset.step === String(n) && panel && !panel.hidden && panel.childElementCount > 0 &&
      document.body.dataset.status === 'ready' && (!section || panel.querySelector(`[data-step="${section}"].lesson-focus`));
  }, [n, step.view, step.section ?? null], { timeout: 60000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50)))));
}

/** Where the step's title, text and Next button are, against the viewport's height. */
function inSight(page) {
  return page.evaluate(() => {
    const box = (sel) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      return { top: Math.round(r.top), bottom: Math.round(r.bottom) };
    };
    return { title: box('#lesson .lesson-step-title'), body: box('#lesson .lesson-body'), next: box('#lesson .lesson-next'),
      height: window.innerHeight, scrollY: Math.round(window.scrollY) };
  });
}

for (const lang of ['en', 'ko']) {
  for (const [size, viewport] of Object.entries(SIZES)) {
    // The way in is the same at every size: English at desktop and Korean at phone width suffice
    // (each Next below depends on both, so it keeps all four).
    const wayInCase = (lang === 'en') === (size === 'desktop');
    if (wayInCase) test(`${lang} ${size}: from / the first screen leads into the lesson, which opens on the typed sentence and leaves to the explorer with it`, async () => {
      const { page, context, problems } = await guardedPage(env.browser, env.server.origin, viewport);
      try {
        await page.goto(`${env.server.origin}/?lang=${lang}`);
        await waitForRuns(page, 1);
        const sentence = 'The dog ran to the park because it was happy.';
        const runs = await page.evaluate(() => window.__attnscope.runsDone);
        await page.locator('#text-a').fill(sentence);
        await waitForRuns(page, runs + 1);
        await page.evaluate(() => window.scrollTo(0, 0));
        // The way in: visible on the first screen, in the page's language.
        const door = page.locator('#lesson-start');
        assert.ok(await door.isVisible(), 'no way into the lesson on the page');
        const box = await door.boundingBox();
        assert.ok(box.y >= 0 && box.y + box.height <= viewport.height && box.x >= 0 && box.x + box.width <= viewport.width,
          `the lesson's link is off the first screen: ${JSON.stringify(box)}`);
        const label = await door.textContent();
        assert.match(label, lang === 'ko' ? /수업/ : /lesson/i);
        assert.match(label, new RegExp(String(STEPS.length)));
        assert.match(await door.getAttribute('href'), /lesson=attention/);
        if (size === 'phone') await keepScreenshot(page, `door-${lang}-${size}.png`);
        else await keepScreenshot(page, `door-${lang}-${size}.png`, { clip: { x: 0, y: 0, width: 1280, height: 400 } });

        await door.click();
        await stepDrawn(page, 1);
        assert.match(new URL(page.url()).search, /lesson=attention&step=1/);
        assert.ok(await door.isHidden(), 'the way in stays inside the lesson');
        assert.equal(await page.locator('#text-a').inputValue(), sentence);
        assert.ok((await page.evaluate(() => window.__attnscope.tokens)).includes('park'), 'the lesson ran another sentence');
        // Phones have no arrow keys: the lesson does not tell their readers to press them.
        const keys = await page.locator('#lesson .lesson-keys').innerText();
        if (size === 'phone') assert.doesNotMatch(keys, /Arrow|화살표|←/, `a phone is told: ${keys}`);
        else assert.match(keys, lang === 'ko' ? /화살표/ : /Arrow keys/);
        let sight = await inSight(page);
        assert.ok(sight.title.top >= 0 && sight.next.bottom <= sight.height, `step 1 out of sight after the way in: ${JSON.stringify(sight)}`);
        await page.locator('#lesson .lesson-next').click();
        await stepDrawn(page, 2);

        // The way out: visible with the step, and back to the explorer on the same sentence.
        const leave = page.locator('#lesson .lesson-leave');
        assert.ok(await leave.isVisible(), 'no way out of the lesson');
        assert.match(await leave.textContent(), lang === 'ko' ? /수업 나가기/ : /Leave the lesson/);
        await leave.click();
        await page.waitForFunction(() => document.getElementById('lesson').hidden && !/lesson=/.test(location.search));
        assert.ok(await door.isVisible(), 'the way back into the lesson is gone');
        assert.equal(await page.locator('#text-a').inputValue(), sentence);
        const after = await page.evaluate(() => ({ state: window.__attnscope.state, tokens: window.__attnscope.tokens }));
        assert.equal(after.state.text, sentence);
        assert.equal(after.state.lesson, '');
        assert.ok(after.tokens.includes('park'));
        assert.match(new URL(page.url()).search, /text=The\+dog\+ran/);
        // The lesson's keys are gone with it: → on the page no longer changes anything.
        const view = after.state.view;
        await page.locator('body').click({ position: { x: 2, y: 2 } });
        await page.keyboard.press('ArrowRight');
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
        assert.equal(await page.evaluate(() => window.__attnscope.state.view), view);
        if (size === 'phone') await keepScreenshot(page, `left-${lang}-${size}.png`);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });

    test(`${lang} ${size}: after each Next the step's title, text and Next button are on screen`, async () => {
      const { page, context, problems } = await guardedPage(env.browser, env.server.origin, viewport);
      try {
        await page.goto(`${env.server.origin}/?lesson=attention&step=1&lang=${lang}`);
        await waitForRuns(page, 1);
        await stepDrawn(page, 1);
        const lost = [];
        for (let n = 2; n <= STEPS.length; n++) {
          await page.locator('#lesson .lesson-next').click();   // scrolled to, as a reader would
          await stepDrawn(page, n);
          const s = await inSight(page);
          const ok = s.title.top >= 0 && s.title.bottom <= s.height && s.body.top >= 0 && s.body.top < s.height - 20 &&
            s.next.top >= 0 && s.next.bottom <= s.height;
          if (!ok) lost.push(`step ${n} (${STEPS[n - 1].id}): ${JSON.stringify(s)}`);
          if ([7, 10, 11].includes(n)) await keepScreenshot(page, `next-${lang}-${size}-${n}.png`);
        }
        assert.deepEqual(lost, [], 'steps whose text or Next left the screen after Next');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
}

test('from the T5 the way in opens the lesson on the bundled BERT (its steps are a single stack\'s), the sentence kept', async () => {
  const text = 'I sat by her on the divan.';
  const { page, context, problems } = await guardedPage(env.browser, env.server.origin, SIZES.desktop);
  try {
    await page.goto(`${env.server.origin}/?model=bundled-seq2seq&text=${encodeURIComponent(text)}`);
    await waitForRuns(page, 1);
    assert.doesNotMatch(await page.locator('#lesson-start').getAttribute('href'), /model=/, 'the link opens the T5');
    await page.click('#lesson-start');
    await stepDrawn(page, 1);
    const s = await page.evaluate(() => ({ model: window.__attnscope.state.model, text: window.__attnscope.state.text,
      unavailable: document.querySelectorAll('.view-unavailable').length }));
    assert.deepEqual(s, { model: 'bundled', text, unavailable: 0 });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
