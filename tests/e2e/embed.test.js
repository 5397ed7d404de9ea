// <attn-scope> in a real browser (Debian's Chromium): renders under the strict CSP with no
// violations, two elements share one worker (the package's js/worker.js) and one model load of
// the relaxed-SIMD wasm, the single-file build works
// from file:// with the network off and its attention matches PyTorch, PNG / SVG / BertViz
// exports are right, and hostile text, attributes and URL parameters stay text.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { bertTokenizerJson } from '../js/helpers/tokenizer-hf.js';
import { torchReference, maxAbsDiff } from '../js/helpers/api-reference.js';
import { stateFromUrl } from '../../web/src/state/state.js';
import { ROOT, ensureBuilt, startServer, launchBrowser, guardedPage, waitForElements, elementPage } from './embed-helpers.js';
import { measureSizes } from '../../scripts/build-embed.mjs';
import { checkFigureInPage } from './helpers/figure-check.js';

const SHOTS = process.env.EMBED_SCREENSHOTS ? join(ROOT, 'docs/screenshots') : mkdtempSync(join(tmpdir(), 'embed-shots-'));
const esc = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const HOSTILE_TEXT = `<img src=x onerror="window.__pwned='img'"> "><script>window.__pwned='script'</script> & 'q'`;

// The bundled model's tokenizer, rebuilt by @huggingface/tokenizers from model/vocab.txt.
function hfTokens(text, pair, modelDir = join(ROOT, 'model')) {
  const vocab = readFileSync(join(modelDir, 'vocab.txt'), 'utf8');
  const tok = new Tokenizer(bertTokenizerJson(vocab, { lowercase: true, strip_accents: null, handle_chinese_chars: true }), { do_lower_case: true });
  return tok.encode(text, { text_pair: pair ?? null, return_token_type_ids: true });
}

// The bundled model as dist/attnscope-embed.html carries it, written to a temporary folder.
function modelFromSingleFile() {
  const html = readFileSync(join(ROOT, 'dist/attnscope-embed.html'), 'utf8');
  const block = html.match(/<script type="application\/json" id="attnscope-model">([^<]*)<\/script>/);
  assert.ok(block, 'no model data block in the single file');
  const files = JSON.parse(block[1]);
  const dir = mkdtempSync(join(tmpdir(), 'embed-model-'));
  const names = { config: 'config.json', weights: 'model.safetensors', vocab: 'vocab.txt', tokenizerConfig: 'tokenizer_config.json' };
  for (const [key, b64] of Object.entries(files)) writeFileSync(join(dir, names[key]), Buffer.from(b64, 'base64'));
  return dir;
}

// Width and height from a PNG's IHDR chunk.
function pngSize(bytes) {
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', 'not a PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function elementState(page, index = 0) {
  return page.evaluate((i) => {
    const el = document.querySelectorAll('attn-scope')[i];
    const r = el.result;
    return { status: el.dataset.status, statusText: el.shadowRoot.querySelector('.status').textContent,
      tokens: r ? [...r.tokens] : null, ids: r ? [...r.ids] : null, typeIds: r ? [...r.typeIds] : null,
      shape: r ? [...r.shape] : null, attentions: r ? [...r.attentions] : null,
      view: el.view, layer: el.layer, head: el.head };
  }, index);
}

let server, browser;
before(async () => {
  await ensureBuilt();
  server = await startServer({
    pages: {
      '/two.html': elementPage(
        '<attn-scope id="a" text="The bank of the river." view="head" layer="3" head="5"></attn-scope>' +
        '<attn-scope id="b" text="Money goes into the bank." text-pair="It flows." view="grid" theme="dark" lang="ko"></attn-scope>'),
      '/hostile.html': elementPage(
        `<attn-scope id="h1" text="${esc(HOSTILE_TEXT)}" text-pair="${esc('"><svg onload="window.__pwned=1">')}"
          view="${esc('"><img src=x onerror=alert(1)>')}" layer="1e9" head="${esc('<b>2</b>')}"
          height="${esc('1px;background:url(javascript:alert(1))')}" theme="${esc('"><script>')}" lang="xx"
          page-url="javascript:alert(1)"></attn-scope>` +
        `<attn-scope id="h2" text="x" model="${esc('javascript:alert(1)')}"></attn-scope>` +
        `<attn-scope id="h3" text="${'a<b>&amp;c '.repeat(10000)}" view="formula"></attn-scope>`),
      '/control.html': '<!doctype html><html><head><title>c</title></head><body><script>window.__pwned = "inline";</script></body></html>',
    },
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

describe('<attn-scope> under a strict CSP', () => {
  it('the violation detector itself works (an inline script is reported and blocked)', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/control.html');
    await g.page.waitForTimeout(100);
    const problems = await g.check();
    assert.ok(problems.some((p) => p.startsWith('CSP violation: script-src')), problems.join('\n'));
    assert.ok(!problems.some((p) => p.startsWith('script ran')), 'the inline script ran despite the CSP');
    await g.context.close();
  });

  it('two elements render with no CSP violation, sharing one worker and one model load', async () => {
    const g = await guardedPage(browser);
    const before = server.log.length;
    await g.page.goto(server.origin + '/two.html');
    await waitForElements(g.page, 2);
    const a = await elementState(g.page, 0), b = await elementState(g.page, 1);
    assert.equal(a.status, 'ready', a.statusText);
    assert.equal(b.status, 'ready', b.statusText);
    // layer 3 exists in the 4-layer bundled model; head 5 does not and is clamped to 3.
    assert.deepEqual([a.view, a.layer, a.head], ['head', 3, 3]);
    assert.deepEqual(a.tokens, hfTokens('The bank of the river.').tokens);
    const hfB = hfTokens('Money goes into the bank.', 'It flows.');
    assert.deepEqual(b.tokens, hfB.tokens);
    assert.deepEqual(b.typeIds, hfB.token_type_ids);
    // Both ran on the encoder build (below): the pair's attention (token types reach the
    // embeddings) is PyTorch's, computed from the definition on the served model's files.
    const ref = torchReference(join(ROOT, 'model'), { ids: b.ids, tokenTypes: b.typeIds });
    const d = maxAbsDiff(b.attentions, ref.attentions);
    assert.ok(d.max <= 1e-4, `encoder build: attention differs from PyTorch by ${d.max} at ${d.at}`);
    const requests = server.log.slice(before);
    const count = (p) => requests.filter((r) => r === p).length;
    assert.equal(count('/model/model.safetensors'), 1, requests.join(' '));
    // The page's rule (js/api/wasm.js): a BERT loads the encoder build, which has no relaxed twin, and
    // nothing else.
    assert.equal(count('/dist/attnscope-encoder.wasm'), 1, requests.join(' '));
    for (const other of ['attnscope.wasm', 'attnscope-relaxed.wasm', 'attnscope-core.wasm', 'attnscope-core-relaxed.wasm']) {
      assert.equal(count(`/dist/${other}`), 0, requests.join(' '));
    }
    assert.equal(g.workers.length, 1, `workers: ${g.workers.join(', ')}`);
    assert.deepEqual(await g.page.evaluate(() => {
      const s = customElements.get('attn-scope').engineStats();
      return [s.workers, s.modelLoads];
    }), [1, 1]);
    // Styles live in the shadow root only: nothing was added to the document.
    assert.equal(await g.page.evaluate(() => document.styleSheets.length + document.adoptedStyleSheets.length), 0);
    // The head view drew a heatmap whose geometry matches the token count.
    const n = await g.page.evaluate(() => document.querySelector('#a').shadowRoot.querySelector('.heatmap-overlay').dataset.n);
    assert.equal(Number(n), a.tokens.length);
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });

  it('properties mirror attributes, pickers reflect back, events fire', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/two.html');
    await waitForElements(g.page, 2);
    const got = await g.page.evaluate(async () => {
      const el = document.querySelector('#a');
      const changes = [];
      el.addEventListener('attnscope-change', (e) => changes.push(e.detail));
      el.layer = 1;
      const attr = el.getAttribute('layer');
      const select = el.shadowRoot.querySelector('.head-picker select');
      select.value = '2';
      select.dispatchEvent(new Event('change'));
      const ready = new Promise((r) => el.addEventListener('attnscope-ready', (e) => r(e.detail), { once: true }));
      el.text = 'A new sentence.';
      const detail = await ready;
      el.height = '300';
      el.view = 'aggregate';   // alias of the page's "aggregates"
      // The page's own aggregates view: five panels, rollout from its worker.
      const allReady = () => {
        const shown = [...el.shadowRoot.querySelectorAll('.view-aggregates .agg-panel')];
        return shown.length === 5 && shown.every((p) => p.dataset.ready === '1');
      };
      for (let i = 0; i < 200 && !allReady(); i++) await new Promise((r) => setTimeout(r, 25));
      const panels = [...el.shadowRoot.querySelectorAll('.view-aggregates .agg-panel')].filter((p) => !p.hidden);
      return { attr, headAttr: el.getAttribute('head'), head: el.head, layer: el.layer, changes, tokens: detail.tokens,
        height: el.shadowRoot.querySelector('.body').style.height, view: el.view,
        aggregates: panels.map((p) => [p.dataset.kind, Number(p.querySelector('.heatmap-overlay').dataset.n)]) };
    });
    assert.equal(got.attr, '1');
    assert.equal(got.layer, 1);
    assert.equal(got.head, 2);
    assert.equal(got.headAttr, '2');
    assert.equal(got.changes.at(-1).head, 2);
    assert.deepEqual(got.tokens, hfTokens('A new sentence.').tokens);
    assert.equal(got.height, '300px');
    assert.equal(got.view, 'aggregates');
    const T = got.tokens.length;
    assert.deepEqual(got.aggregates, ['mean', 'max', 'rollout', 'raw', 'normWeighted'].map((k) => [k, T]));
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });

  it('hostile text, attributes and a 100k-character text render as text and run nothing', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/hostile.html');
    await waitForElements(g.page, 3);
    await g.page.waitForTimeout(300);
    const info = await g.page.evaluate(() => [...document.querySelectorAll('attn-scope')].map((el) => ({
      status: el.dataset.status,
      statusText: el.shadowRoot.querySelector('.status').textContent,
      caption: el.shadowRoot.querySelector('.caption').textContent,
      injected: el.shadowRoot.querySelectorAll('img, script, svg, b, iframe').length,
      view: el.view, layer: el.layer, head: el.head, height: el.shadowRoot.querySelector('.body').style.height,
      theme: el.theme, lang: el.lang,
    })));
    const [h1, h2, h3] = info;
    assert.equal(h1.status, 'ready', h1.statusText);
    assert.equal(h1.caption, HOSTILE_TEXT + ' ‖ "><svg onload="window.__pwned=1">');
    assert.deepEqual([h1.view, h1.layer, h1.head, h1.height, h1.theme, h1.lang], ['head', 0, 0, '', 'light', 'en']);
    assert.equal(h2.status, 'error');
    assert.match(h2.statusText, /E_INPUT/);
    const events = await g.page.evaluate(() => window.__attnscopeErrors);
    assert.deepEqual(events.map((e) => e.code), ['E_INPUT'], JSON.stringify(events));
    assert.equal(h3.status, 'ready', h3.statusText);
    assert.equal(h3.caption.length, 20000, 'a 100k-character text is cut to the page limit');
    assert.match(h3.statusText, /shortened/);
    for (const el of info) assert.equal(el.injected, 0);
    // The element's own token labels: the hostile token strings are shown verbatim.
    const tokens = await g.page.evaluate(() => [...document.querySelector('#h1').result.tokens]);
    assert.ok(tokens.includes('<') && tokens.includes('>'), tokens.join(' '));
    // A javascript: page-url gives an error, not a link.
    const link = await g.page.evaluate(() => { try { return document.querySelector('#h1').permalink(); } catch (e) { return e.code; } });
    assert.equal(link, 'E_INPUT');
    const problems = await g.check();
    assert.deepEqual(problems, []);
    await g.context.close();
  });

  it('a CSP that forbids blob: workers gives a clear error, not a crash', async () => {
    const strict = await startServer({ csp: "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:",
      pages: { '/t.html': elementPage('<attn-scope text="x"></attn-scope>') } });
    const g = await guardedPage(browser);
    try {
      await g.page.goto(strict.origin + '/t.html');
      await waitForElements(g.page, 1, 20000);
      const s = await elementState(g.page);
      assert.equal(s.status, 'error');
      assert.match(s.statusText, /worker-src blob:/);
      const problems = await g.check();
      // Only the refused worker itself: its violation and Chromium's console report of it.
      assert.ok(problems.some((p) => p.startsWith('CSP violation: worker-src')), problems.join('\n'));
      assert.deepEqual(problems.filter((p) => !p.startsWith('CSP violation: worker-src') &&
        !/console\.error: .*Content Security Policy.*worker-src/.test(p)), []);
    } finally {
      await g.context.close();
      await strict.close();
    }
  });

  it('"Copy link" shows only where page-url says where the explorer is', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/two.html');
    await waitForElements(g.page, 2);
    const link = () => g.page.evaluate(() => {
      const el = document.querySelector('#a');
      let url;
      try { url = el.permalink(); } catch (e) { url = e.code; }
      return { hidden: el.shadowRoot.querySelector('button[data-action="link"]').hidden, url };
    });
    assert.deepEqual(await link(), { hidden: true, url: 'E_INPUT' });
    await g.page.evaluate(() => document.querySelector('#a').setAttribute('page-url', 'https://example.org/explorer/'));
    await g.page.waitForFunction(() => !document.querySelector('#a').shadowRoot.querySelector('button[data-action="link"]').hidden);
    assert.match((await link()).url, /^https:\/\/example\.org\/explorer\/\?text=/);
    await g.context.close();
  });

  it('permalink carries validated parameters the explorer page restores', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/two.html');
    await waitForElements(g.page, 2);
    const url = await g.page.evaluate(() => {
      const el = document.querySelector('#b');
      el.setAttribute('page-url', 'https://example.org/attnscope/?junk=1#x');
      el.layer = 2;
      el.head = 1;
      return el.permalink();
    });
    const u = new URL(url);
    assert.equal(u.origin + u.pathname, 'https://example.org/attnscope/');
    assert.equal(u.searchParams.get('junk'), null);
    const s = stateFromUrl(u.search);
    assert.deepEqual([s.text, s.pair, s.pairOn, s.view, s.layer, s.head, s.lang, s.model],
      ['Money goes into the bank.', 'It flows.', true, 'grid', 2, 1, 'ko', 'bundled']);
    await g.context.close();
  });
});

describe('exports', () => {
  it('PNG is the view as a figure at devicePixelRatio: title, the heatmap pixel for pixel, labelled legend, no blank band', async () => {
    const g = await guardedPage(browser, { deviceScaleFactor: 2 });
    await g.page.goto(server.origin + '/two.html');
    await waitForElements(g.page, 2);
    const shadow = g.page.locator('#a');
    const [download] = await Promise.all([g.page.waitForEvent('download'), shadow.locator('button[data-action="png"]').click()]);
    const bytes = readFileSync(await download.path());
    pngSize(bytes);
    assert.match(download.suggestedFilename(), /^attnscope-head-layer3-head3\.png$/);
    // The heatmap is found in the PNG by its pixels at 2 px per CSS px; the hint and the legend's
    // numbers and caption (HTML in the view, blank in the old export) have ink where they stand.
    const check = await g.page.evaluate(checkFigureInPage, {
      b64: bytes.toString('base64'), root: '#a', panelSelector: '.view-head', canvasSelector: '.heatmap canvas', dpr: 2,
      textSelectors: ['.hint', '.legend span:first-child', '.legend span:nth-of-type(2)', '.legend-caption'],
    });
    assert.ok(check.found, `the heatmap's pixels are not in the PNG (${JSON.stringify(check.size)})`);
    assert.ok(check.firstY >= 30 && check.titleInk > 200, 'no title band above the view');
    for (const t of check.texts) assert.ok(t.ink > 0, `"${t.text}" (${t.sel}) is blank in the PNG`);
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });

  it('SVG parses as XML, escapes token text and has one cell per weight', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/hostile.html');
    await waitForElements(g.page, 3);
    const [download] = await Promise.all([g.page.waitForEvent('download'),
      g.page.locator('#h1').locator('button[data-action="svg"]').click()]);
    const svg = readFileSync(await download.path(), 'utf8');
    const checked = await g.page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const el = document.querySelector('#h1');
      const T = el.result.shape[2];
      return {
        parserErrors: doc.getElementsByTagName('parsererror').length,
        root: doc.documentElement.localName,
        cells: doc.querySelectorAll('g[shape-rendering] > rect').length,   // the colour scale's steps are not cells
        T,
        labels: [...doc.querySelectorAll('text')].map((t) => t.textContent),
        tokens: [...el.result.tokens],
        scripts: doc.querySelectorAll('script').length,
      };
    }, svg);
    assert.equal(checked.parserErrors, 0);
    assert.equal(checked.root, 'svg');
    assert.equal(checked.scripts, 0);
    assert.equal(checked.cells, checked.T * checked.T);
    for (const t of checked.tokens) assert.ok(checked.labels.includes(t), `label ${t} missing`);
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });

  it('BertViz JSON is head_view\'s input, the same document the CLI writes', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/two.html');
    await waitForElements(g.page, 2);
    const [download] = await Promise.all([g.page.waitForEvent('download'),
      g.page.locator('#b').locator('button[data-action="json"]').click()]);
    const text = readFileSync(await download.path(), 'utf8');
    const params = JSON.parse(text);
    const b = await elementState(g.page, 1);
    const [L, H, T] = b.shape;
    // head_view(attention, tokens, sentence_b_start): one (batch=1, heads, T, T) tensor per layer.
    assert.deepEqual(Object.keys(params), ['attention', 'tokens', 'sentence_b_start']);
    assert.deepEqual(params.tokens, b.tokens);
    assert.equal(params.sentence_b_start, b.typeIds.indexOf(1));
    assert.equal(params.attention.length, L);
    let worst = 0;
    for (let l = 0; l < L; l++) {
      assert.equal(params.attention[l].length, 1);
      assert.equal(params.attention[l][0].length, H);
      for (let h = 0; h < H; h++) {
        assert.equal(params.attention[l][0][h].length, T);
        for (let i = 0; i < T; i++) {
          for (let j = 0; j < T; j++) worst = Math.max(worst, Math.abs(params.attention[l][0][h][i][j] - b.attentions[((l * H + h) * T + i) * T + j]));
        }
      }
    }
    assert.ok(worst <= 1e-8, `values differ by ${worst}`);
    // Byte for byte what the CLI writes for the same result (js/formats/bertviz.js serves both).
    const { bertvizJson } = await import('../../js/formats/bertviz.js');
    const cli = [...bertvizJson({ shape: b.shape, typeIds: b.typeIds, tokens: b.tokens, attentions: Float32Array.from(b.attentions) })].join('');
    assert.equal(text, cli);
    await g.context.close();
  });
});

describe('single-file build', () => {
  it('opens from file:// with the network off and matches PyTorch', async () => {
    const sizes = measureSizes();
    console.log(`# single file ${(sizes.singleFile / 1024 ** 2).toFixed(2)} MB; element + wasm ${(sizes.elementGzip / 1024).toFixed(1)} KB gzip`);
    assert.ok(sizes.singleFile <= 16 * 1024 ** 2, `single file is ${sizes.singleFile} bytes`);
    // What a page with one BERT grid element fetches (296.0 KB: the element's script, its chunks
    // and the encoder wasm; tests/e2e/embed-size.test.js weighs each case and says what is in it).
    assert.ok(sizes.elementGzip <= 298 * 1024, `a BERT grid's scripts + encoder wasm are ${sizes.elementGzip} bytes gzipped`);
    // Nothing that a CSP without 'unsafe-eval' would refuse (the served tests check it at run time).
    for (const file of ['dist/attnscope-element.js', 'dist/attnscope-embed.html']) {
      assert.doesNotMatch(readFileSync(join(ROOT, file), 'utf8'), /new Function\s*\(|[^.\w$]eval\s*\(/, file);
    }
    const g = await guardedPage(browser, { offline: true });
    const blocked = [];
    await g.context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      blocked.push(url);
      return route.abort();
    });
    const text = 'The jury said it did find that many of the laws are outmoded.';
    const pair = 'It recommended that the [MASK] be changed.';
    const url = pathToFileURL(join(ROOT, 'dist/attnscope-embed.html'));
    url.search = new URLSearchParams({ text, pair, view: 'formula', layer: '2', head: '1' }).toString();
    const started = Date.now();
    await g.page.goto(url.href);
    await waitForElements(g.page, 1);
    console.log(`# single file ready after ${Date.now() - started} ms (file://, offline)`);
    const s = await elementState(g.page);
    assert.equal(s.status, 'ready', s.statusText);
    assert.deepEqual([s.view, s.layer, s.head], ['formula', 2, 1]);
    const modelDir = modelFromSingleFile();
    const hf = hfTokens(text, pair, modelDir);
    assert.deepEqual(s.tokens, hf.tokens);
    assert.deepEqual(s.ids, hf.ids);
    // The reference runs on the model files inside the built .html (model/ may have been
    // retrained since the build), written back out of the file's data block.
    const ref = torchReference(modelDir, { ids: s.ids, tokenTypes: s.typeIds });
    const d = maxAbsDiff(s.attentions, ref.attentions);
    console.log(`# single-file attention vs PyTorch: max |diff| ${d.max.toExponential(2)} over ${s.attentions.length} weights`);
    assert.ok(d.max <= 1e-4, `attention differs from PyTorch by ${d.max} at ${d.at}`);
    // The formula view checked its recomputation against the engine row.
    const check = await g.page.evaluate(() => document.querySelector('attn-scope').shadowRoot.querySelector('.step.check')?.dataset.maxError);
    assert.ok(Number(check) < 1e-4, `formula check ${check}`);
    assert.deepEqual(blocked, []);
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });

  it('treats hostile URL parameters as text', async () => {
    const g = await guardedPage(browser, { offline: true });
    const url = pathToFileURL(join(ROOT, 'dist/attnscope-embed.html'));
    url.search = new URLSearchParams({ text: HOSTILE_TEXT, view: '"><img src=x onerror=alert(1)>', layer: '-1',
      height: 'expression(alert(1))', theme: 'dark', model: 'javascript:alert(1)//' }).toString();
    await g.page.goto(url.href);
    await waitForElements(g.page, 1);
    const s = await g.page.evaluate(() => {
      const el = document.querySelector('attn-scope');
      return { status: el.dataset.status, text: el.shadowRoot.querySelector('.status').textContent,
        injected: el.shadowRoot.querySelectorAll('img, script').length + document.querySelectorAll('img, script:not([type])').length };
    });
    assert.equal(s.status, 'error');
    assert.match(s.text, /E_INPUT/);
    assert.equal(s.injected, 0);
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });
});

describe('examples/embed.html', () => {
  for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
    it(`renders under the strict CSP (${name}) and keeps the blog's CSS out`, async () => {
      const g = await guardedPage(browser, { viewport, deviceScaleFactor: name === 'phone' ? 2 : 1 });
      await g.page.goto(server.origin + '/examples/embed.html');
      await waitForElements(g.page, 2);
      const s = await g.page.evaluate(() => [...document.querySelectorAll('attn-scope')].map((el) => {
        const button = el.shadowRoot.querySelector('button');
        const canvas = el.shadowRoot.querySelector('canvas');
        return { status: el.dataset.status, bg: getComputedStyle(button).backgroundColor,
          border: getComputedStyle(canvas).borderTopStyle, overflow: el.getBoundingClientRect().right <= window.innerWidth + 0.5 };
      }));
      for (const el of s) {
        assert.equal(el.status, 'ready');
        assert.notEqual(el.bg, 'rgb(255, 105, 180)', 'the blog\'s hotpink button rule reached into the element');
        assert.notEqual(el.border, 'dashed', 'the blog\'s canvas rule reached into the element');
        assert.ok(el.overflow, 'the element is wider than the viewport');
      }
      if (name === 'phone') await g.page.locator('attn-scope').first().scrollIntoViewIfNeeded();
      await g.page.screenshot({ path: join(SHOTS, `embed-${name}.png`), fullPage: name === 'desktop' });
      assert.deepEqual(await g.check(), []);
      await g.context.close();
    });
  }
});
