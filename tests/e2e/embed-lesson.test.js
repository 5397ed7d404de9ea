// <attn-scope lesson="attention" step="N">: one step of the guided lesson inside the
// element — its text with the model's numbers and its figure over the element's view — for every
// step, English and Korean, desktop and phone, under the strict CSP, no console error; a step
// attribute change shows that step.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS } from '../../web/src/lesson/steps.js';
import { elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';
import { keepScreenshot } from './helpers.js';

const STEPS = LESSONS.attention;
let server, browser;

before(async () => {
  await ensureBuilt();
  const pages = {};
  for (const lang of ['en', 'ko']) {
    pages[`/lesson-${lang}.html`] = elementPage(STEPS.map((s, i) =>
      `<attn-scope id="s${i + 1}" lang="${lang}" lesson="attention" step="${i + 1}" text="The cat sat on the mat."></attn-scope>`).join('\n'));
  }
  server = await startServer({ pages });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

for (const lang of ['en', 'ko']) {
  for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
    test(`every lesson step as an element, ${lang} ${name}`, async () => {
      const { page, check } = await guardedPage(browser, { viewport });
      await page.goto(`${server.origin}/lesson-${lang}.html`);
      await waitForElements(page, STEPS.length, 120000);
      for (let n = 1; n <= STEPS.length; n++) {
        const got = await page.evaluate((n) => {
          const el = document.getElementById(`s${n}`);
          const lesson = el.shadowRoot.querySelector('.lesson');
          const offered = [...el.shadowRoot.querySelectorAll('.views button')].map((b) => b.dataset.view);
          return { offered, status: el.dataset.status, statusText: el.shadowRoot.querySelector('.status')?.textContent, hidden: lesson.hidden, step: lesson.dataset.step, view: el.view,
            title: lesson.querySelector('.lesson-step-title').textContent, body: lesson.querySelector('.lesson-body').textContent,
            figure: lesson.querySelector('.lesson-figure').childElementCount, width: el.getBoundingClientRect().width };
        }, n);
        const step = STEPS[n - 1];
        assert.equal(got.status, 'ready', `step ${n}: ${got.statusText}`);
        assert.equal(got.hidden, false);
        assert.equal(got.step, String(n));
        assert.equal(got.view, got.offered.includes(step.view) ? step.view : 'head');   // the element's nearest view
        assert.ok(got.title.startsWith(`${n}. `));
        assert.ok(got.body.length > 80 && !/\{\w+\}/.test(got.body), got.body);
        if (lang === 'ko') assert.match(got.body, /[가-힣]/);
        if (step.figure) assert.ok(got.figure > 0, `step ${n} figure`);
        assert.ok(got.width <= viewport.width);
      }
      if (name === 'phone') await keepScreenshot(page.locator('#s5'), `element-step5-${lang}-phone.png`);
      await page.evaluate(() => document.getElementById('s1').setAttribute('step', '3'));
      await page.waitForFunction(() => document.getElementById('s1').shadowRoot.querySelector('.lesson').dataset.step === '3');
      assert.deepEqual(await check(), []);
      await page.context().close();
    });
  }
}
