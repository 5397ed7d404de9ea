// <attn-scope model="bundled-causal"> in Debian's Chromium: served under the strict CSP
// and as the single-file build dist/attnscope-embed-causal.html from file:// with the network off.
// Both show the decoder with its causal mask (upper triangle 0 and drawn hatched) and attention
// equal to PyTorch's (tools/train/model_causal.py, float64) on the same model files.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, ensureBuilt, startServer, launchBrowser, guardedPage, waitForElements, elementPage } from './embed-helpers.js';
import { maxAbsDiff } from '../js/helpers/api-reference.js';
import { torchCausal } from './helpers/causal-reference.js';
import { stateFromUrl } from '../../web/src/state/state.js';

const TEXT = 'The river bank was quiet and the water ran slowly.';

async function elementData(page) {
  return page.evaluate(() => {
    const el = document.querySelector('attn-scope');
    const r = el.result;
    return {
      status: el.dataset.status, kind: el.modelInfo?.kind, shape: [...r.shape], ids: Array.from(r.ids),
      tokenTexts: [...r.tokenTexts], attentions: Array.from(r.attentions),
      gridCausal: el.shadowRoot.querySelector('canvas.model-grid')?.dataset.causal ?? null,
    };
  });
}

function assertCausal(s) {
  const [L, H, T] = s.shape;
  for (let m = 0; m < L * H; m++) {
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) assert.equal(s.attentions[(m * T + i) * T + j], 0);
  }
}

let server, browser;
before(async () => {
  await ensureBuilt();
  server = await startServer({ pages: {
    '/causal.html': elementPage(`<attn-scope model="bundled-causal" view="grid" text="${TEXT}"></attn-scope>`),
    '/precisions.html': elementPage(
      `<attn-scope id="half" model="bundled-causal" weight-precision="f16" text="${TEXT}"></attn-scope>` +
      `<attn-scope id="plain" model="bundled-causal" text="${TEXT}"></attn-scope>` +
      `<attn-scope id="odd" model="bundled-causal" weight-precision="f8" text="${TEXT}"></attn-scope>` +
      `<attn-scope id="int8" model="bundled-causal" weight-precision="q8" text="${TEXT}"></attn-scope>`),
  } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

describe('<attn-scope model="bundled-causal">', () => {
  it('runs the bundled decoder under the strict CSP: causal grid, attention = PyTorch', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/causal.html');
    await waitForElements(g.page, 1);
    const s = await elementData(g.page);
    assert.equal(s.status, 'ready');
    assert.equal(s.kind, 'decoder');
    assert.equal(s.gridCausal, '1');
    assert.ok(s.tokenTexts.includes('␣river'));
    assertCausal(s);
    const ref = torchCausal(join(ROOT, 'model-causal'), s.ids);
    const d = maxAbsDiff(s.attentions, ref.attentions);
    console.log(`# element (bundled-causal) attention vs PyTorch: max |diff| ${d.max.toExponential(2)} over ${s.attentions.length} weights`);
    assert.ok(d.max <= 1e-4, `attention differs from PyTorch by ${d.max} at ${d.at}`);
    assert.ok(server.log.some((p) => p.startsWith('/model-causal/')), 'the decoder came from model-causal/');
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });
});

describe('<attn-scope weight-precision>', () => {
  it('f16 and q8 load their own copies of the model (f16: same attention as PyTorch; q8 close); an unknown value falls back to auto', async () => {
    const g = await guardedPage(browser);
    const warnings = [];
    g.page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
    await g.page.goto(server.origin + '/precisions.html');
    await waitForElements(g.page, 4);
    const got = await g.page.evaluate(() => [...document.querySelectorAll('attn-scope')].map((el) => ({
      status: el.dataset.status, property: el.weightPrecision, loaded: el.modelInfo?.weightPrecision,
      ids: Array.from(el.result.ids), attentions: Array.from(el.result.attentions),
    })));
    assert.deepEqual(got.map((e) => [e.status, e.property, e.loaded]),
      [['ready', 'f16', 'f16'], ['ready', 'auto', 'f32'], ['ready', 'auto', 'f32'], ['ready', 'q8', 'q8']]);
    // Three loads: f16, q8, and auto (shared by the default element and the one with an unknown value).
    assert.deepEqual(await g.page.evaluate(() => customElements.get('attn-scope').engineStats().modelLoads), 3);
    assert.ok(warnings.some((w) => /weight-precision="f8"/.test(w)), warnings.join('\n'));
    // model-causal/ is stored in fp16, so keeping its matrices in f16 loses nothing: both match PyTorch.
    const ref = torchCausal(join(ROOT, 'model-causal'), got[0].ids);
    for (const e of got.slice(0, 2)) {
      const d = maxAbsDiff(e.attentions, ref.attentions);
      assert.ok(d.max <= 1e-4, `${e.loaded}: attention differs from PyTorch by ${d.max} at ${d.at}`);
    }
    // q8 (int8 linear layers) is close to PyTorch's f32, not equal (README: accuracy).
    const int8 = maxAbsDiff(got[3].attentions, ref.attentions);
    assert.ok(int8.max > 0 && int8.max <= 0.1, `q8: attention differs from PyTorch by ${int8.max} at ${int8.at}`);
    // The permalink keeps the decoder and the precision; the explorer page restores both.
    const url = await g.page.evaluate(() => {
      const el = document.querySelector('#half');
      el.setAttribute('page-url', 'https://example.org/attnscope/');
      return el.permalink();
    });
    const s = stateFromUrl(new URL(url).search);
    assert.deepEqual([s.model, s.weightPrecision, s.text], ['bundled-causal', 'f16', TEXT]);
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });
});

describe('single-file build with the decoder', () => {
  // model-causal/ is committed: without it (or without the build) this fails, it does not skip.
  it('dist/attnscope-embed-causal.html opens from file:// offline, attention = PyTorch on its own files', async () => {
    const file = join(ROOT, 'dist/attnscope-embed-causal.html');
    const g = await guardedPage(browser, { offline: true });
    const blocked = [];
    await g.context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      blocked.push(url);
      return route.abort();
    });
    const url = pathToFileURL(file);
    url.search = new URLSearchParams({ text: TEXT, view: 'grid' }).toString();
    await g.page.goto(url.href);
    await waitForElements(g.page, 1);
    const s = await elementData(g.page);
    assert.equal(s.status, 'ready');
    assert.equal(s.kind, 'decoder');
    assert.equal(s.gridCausal, '1');
    assertCausal(s);
    // The reference runs on the model files inside the built .html, written back out.
    const html = readFileSync(file, 'utf8');
    const files = JSON.parse(html.match(/<script type="application\/json" id="attnscope-model">([^<]*)<\/script>/)[1]);
    const dir = mkdtempSync(join(tmpdir(), 'embed-causal-'));
    const names = { config: 'config.json', weights: 'model.safetensors', tokenizer: 'tokenizer.json', tokenizerConfig: 'tokenizer_config.json' };
    for (const [key, b64] of Object.entries(files)) writeFileSync(join(dir, names[key]), Buffer.from(b64, 'base64'));
    const ref = torchCausal(dir, s.ids);
    const d = maxAbsDiff(s.attentions, ref.attentions);
    console.log(`# single-file decoder attention vs PyTorch: max |diff| ${d.max.toExponential(2)} over ${s.attentions.length} weights`);
    assert.ok(d.max <= 1e-4, `attention differs from PyTorch by ${d.max} at ${d.at}`);
    assert.deepEqual(blocked, []);
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });
});
