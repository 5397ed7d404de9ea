// The Flow view (information flow) on the page, on the bundled decoder and the bundled BERT, at
// desktop and phone sizes, in English and Korean: edges are drawn for the routes into the chosen
// prediction, τ's slider changes how many, an edge names its heads' shares, a dot opens the logit
// lens, the link restores τ and the position, and the console stays clean. The shares themselves are
// checked against a float64 reference in tests/js/flow.test.js; the graph's logic in
// tests/js/flow-graph.test.js and tests/js/flow-route.test.js.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
// Each model opens at one size and language, then its link at the other size in the other language.
const CASES = [
  { model: 'bundled-causal', text: 'The river bank was quiet and the water', first: ['desktop', 'en'], then: ['phone', 'ko'] },
  { model: 'bundled', text: 'The bank of the [MASK] was quiet.', first: ['phone', 'en'], then: ['desktop', 'ko'] },
];
let server, browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function open(query, viewport) {
  const g = await guardedPage(browser, server.origin, viewport);
  g.page.on('console', (m) => { if (m.type() === 'warning') g.problems.push(`console.warn: ${m.text()}`); });
  await g.page.goto(`${server.origin}/?${query}`);
  await waitForRuns(g.page, 1);
  await g.page.waitForSelector('svg.flow-graph line.flow-edge');
  return g;
}
const drawn = (page) => page.$eval('svg.flow-graph', (svg) => ({ edges: Number(svg.dataset.edges), lines: svg.querySelectorAll('line.flow-edge').length,
  position: Number(svg.dataset.position), tau: Number(svg.dataset.tau) }));
const setTau = (page, tau) => page.evaluate((v) => {
  const s = document.querySelector('.flow-tau input');
  s.value = String(v);
  s.dispatchEvent(new Event('input', { bubbles: true }));
}, tau);

for (const c of CASES) {
  test(`Flow view, ${c.model} (${c.first.join(', ')}, then its link at ${c.then.join(', ')}): edges, τ, heads, lens`, async () => {
    const model = c.model === 'bundled' ? '' : `model=${c.model}&`;
    const g = await open(`${model}view=flow&lang=${c.first[1]}&text=${encodeURIComponent(c.text)}`, SIZES[c.first[0]]);
    try {
      const [, H, T0] = await g.page.evaluate(() => window.__attnscope.shape);
      let T = T0;
      const first = await drawn(g.page);
      // Opened at the last position's prediction, at the default τ.
      assert.equal(first.position, T - 1);
      assert.equal(first.tau, 0.04);
      assert.ok(first.edges > 0);
      assert.equal(first.lines, first.edges);
      assert.ok((await g.page.textContent('.flow-route')).length > 20);
      // Typing on at the end: the view follows the prediction after the text.
      const longer = await g.page.evaluate(async () => {
        const ta = document.querySelector('#text-a');
        const before = window.__attnscope.runsDone;
        ta.value += ' and';
        ta.dispatchEvent(new Event('input', { bubbles: true }));
        while (window.__attnscope.runsDone === before) await new Promise((r) => setTimeout(r, 5));
        return window.__attnscope.shape[2];
      });
      assert.ok(longer > T);
      await g.page.waitForFunction((p) => document.querySelector('svg.flow-graph').dataset.position === String(p), longer - 1);
      await g.page.waitForFunction((p) => new URLSearchParams(location.search).get('q') === String(p), longer - 1);
      T = longer;
      // A lower τ keeps more edges, a higher one fewer.
      await setTau(g.page, 0.01);
      await g.page.waitForFunction(() => document.querySelector('svg.flow-graph').dataset.tau === '0.01');
      const low = await drawn(g.page);
      await setTau(g.page, 0.2);
      await g.page.waitForFunction(() => document.querySelector('svg.flow-graph').dataset.tau === '0.2');
      const high = await drawn(g.page);
      assert.ok(low.edges > first.edges && first.edges > high.edges, `${low.edges} > ${first.edges} > ${high.edges}`);
      // Another position, chosen at the bottom; an attention edge names each head's share.
      await setTau(g.page, 0.03);
      const q = T - 3;
      await g.page.locator(`.flow-token[data-position="${q}"]`).dispatchEvent('click');
      await g.page.waitForFunction((p) => document.querySelector('svg.flow-graph').dataset.position === String(p), q);
      await g.page.locator('line.flow-edge.is-token').first().dispatchEvent('pointerenter');
      const tip = await g.page.textContent('.flow-edge-detail');
      assert.equal((tip.match(/H\d+ \d\.\d{3}/g) ?? []).length, H, tip);
      // A dot opens what the logit lens reads there.
      await g.page.locator('.flow-node.is-resid[data-level="0"]').first().dispatchEvent('click');
      await g.page.waitForSelector('.flow-lens[data-row="0"] .lens-top li');
      assert.equal(await g.page.locator('.flow-lens .lens-top li').count(), 5);
      // The link restores τ and the position, here at the other size and in the other language.
      const url = new URL(g.page.url());
      assert.equal(url.searchParams.get('tau'), '0.03');
      assert.equal(url.searchParams.get('q'), String(q));
      url.searchParams.set('lang', c.then[1]);
      await g.page.setViewportSize(SIZES[c.then[0]]);
      await g.page.goto(url.href);
      await waitForRuns(g.page, 1);
      await g.page.waitForSelector('svg.flow-graph line.flow-edge');
      const restored = await drawn(g.page);
      assert.equal(restored.tau, 0.03);
      assert.equal(restored.position, q);
      assert.equal(await g.page.getAttribute('html', 'lang'), c.then[1]);
      assert.deepEqual(g.problems, []);
    } finally {
      await g.context.close();
    }
  });
}
