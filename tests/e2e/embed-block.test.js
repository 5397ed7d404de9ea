// <attn-scope view="block"> and view="positions": the element shares the page's block
// walk-through and positions views. Under the strict CSP, the block view draws every self-check
// (each ≤ 1e-4) and the positions view both sentences' matrices, with no console error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';

let server, browser;
before(async () => {
  await ensureBuilt();
  server = await startServer({ pages: {
    '/block.html': elementPage('<attn-scope view="block" layer="1" text="There is a prince"></attn-scope>' +
      '<attn-scope view="positions" text="There is a prince"></attn-scope>'),
  } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

describe('<attn-scope view="block"> and view="positions"', () => {
  it('draws the block walk-through with its self-checks and the positions view', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/block.html');
    await waitForElements(g.page, 2);
    const checks = await g.page.waitForFunction(() => {
      const root = document.querySelectorAll('attn-scope')[0].shadowRoot;
      const found = [...root.querySelectorAll('.view-block .step.check')].map((p) => [p.dataset.step, Number(p.dataset.maxError)]);
      return found.length ? found : null;
    }, null, { timeout: 60000 }).then((h) => h.jsonValue());
    assert.deepEqual(checks.map(([step]) => step), ['layers.1.attentionResidual', 'layers.1.attentionNorm', 'layers.1.ffnIntermediate', 'layers.1.ffnResidual',
      'layers.1.output']);
    for (const [step, d] of checks) assert.ok(d <= 1e-4, `${step}: ${d}`);
    await g.page.waitForFunction(() => document.querySelectorAll('attn-scope')[1].shadowRoot.querySelector('.view-positions')?.dataset.ready === '1',
      null, { timeout: 60000 });
    const maps = await g.page.evaluate(() => document.querySelectorAll('attn-scope')[1].shadowRoot.querySelectorAll('.view-positions canvas').length);
    assert.ok(maps >= 4, `${maps} canvases`);
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });
});
