// <attn-scope> with a Llama-layout model: tests/fixtures/llama_page given as a model
// URL. view="block" walks the Llama layer (RMSNorm, rotation, grouped K/V, SwiGLU; every self-check
// ≤ 1e-4); view="positions" draws the rotary view (its curve
// and one dial per frequency pair of the config's head_dim); no CSP violation, no console error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';

const config = JSON.parse(readFileSync(new URL('../fixtures/llama_page/config.json', import.meta.url), 'utf8'));
let server, browser;
const pages = {};
before(async () => {
  await ensureBuilt();
  server = await startServer({ pages });
  const model = `${server.origin}/tests/fixtures/llama_page/`;
  pages['/llama.html'] = elementPage(`<attn-scope view="block" model="${model}" text="There is a prince"></attn-scope>` +
    `<attn-scope view="positions" model="${model}" text="There is a prince" head="5"></attn-scope>`);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

describe('<attn-scope> with a Llama-layout model', () => {
  it('block walks the Llama layer; positions is the rotary view', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/llama.html');
    await waitForElements(g.page, 2);
    const walk = await g.page.waitForFunction(() => {
      const root = document.querySelectorAll('attn-scope')[0].shadowRoot;
      const titles = [...root.querySelectorAll('.view-block .block-step h4')].map((h) => h.textContent);
      const checks = [...root.querySelectorAll('.view-block .step.check')].map((p) => Number(p.dataset.maxError));
      return titles.length ? { titles, checks } : null;
    }, null, { timeout: 60000 }).then((h) => h.jsonValue());
    assert.ok(walk.titles.some((x) => x.startsWith('RMSNorm')) && walk.titles.some((x) => x.startsWith('Rotary positions'))
      && walk.titles.some((x) => x.startsWith('SwiGLU')), walk.titles.join(' | '));
    assert.ok(walk.checks.length >= 9 && walk.checks.every((d) => d <= 1e-4), walk.checks.join(','));
    await g.page.waitForFunction(() => document.querySelectorAll('attn-scope')[1].shadowRoot.querySelector('.view-positions')?.dataset.ready === '1',
      null, { timeout: 60000 });
    const drawn = await g.page.evaluate(() => {
      const root = document.querySelectorAll('attn-scope')[1].shadowRoot;
      return { dials: root.querySelectorAll('.rotary-dials figure').length, curve: root.querySelectorAll('.rotary-chart polyline').length,
        kv: root.querySelector('.kv-note')?.textContent ?? null };
    });
    const dh = config.hidden_size / config.num_attention_heads, perKv = config.num_attention_heads / config.num_key_value_heads;
    assert.deepEqual(drawn, { dials: dh / 2, curve: 1, kv: `K/V head ${Math.floor(5 / perKv)} (shared by heads ${perKv}–${2 * perKv - 1})` });
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });
});
