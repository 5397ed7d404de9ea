// Frozen figures of every family: `attnscope snapshot` of the bundled BERT, GPT-2 and T5
// (its encoder, and with --kind dec its decoder) and a Llama-layout folder, in each view a figure holds (head, lines, grid), drawn by
// <attn-scope src> with no wasm, no model file and no worker, and a clean console (no error, no
// warning). The head view's drawn weights (its SVG's cell titles) are the float64 PyTorch forwards
// of tests/fixtures; the footer says the figure was computed when it was saved, not in the browser
// (English and Korean, desktop and phone), and says the browser computes again once the text is
// changed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';
import { readSafetensors } from '../js/helpers/safetensors.js';
import { keepScreenshot } from './helpers.js';

const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const DIR = join(ROOT, 'dist', 'test-figures-families');
const FIXTURES = join(ROOT, 'tests/fixtures');
const VIEWS = ['head', 'lines', 'grid'];
const LAYER = 1, HEAD = 2;
const json = (path) => JSON.parse(readFileSync(path, 'utf8'));
const fixtureCase = (dir, name) => json(join(FIXTURES, dir, 'inputs.json')).cases.find((c) => c.name === name);

// model: the CLI's --model (null: the bundled BERT); reference: the PyTorch fixture of the same text.
const FAMILIES = [
  { name: 'bert', model: null, reference: { dir: 'bundled', case: 'mask_river', tensor: 'attentions' } },
  { name: 'gpt2', model: 'bundled-causal', reference: { dir: 'bundled-causal', case: 'heldout_fiction', tensor: 'attentions' } },
  { name: 't5', model: 'bundled-seq2seq', reference: { dir: 'bundled-seq2seq', case: 'heldout_7', tensor: 'encoder_attentions', text: 'source' } },
  { name: 't5dec', model: 'bundled-seq2seq', reference: { dir: 'bundled-seq2seq', case: 'heldout_7', tensor: 'decoder_attentions', text: 'source' },
    args: ['--kind', 'dec', '--target', fixtureCase('bundled-seq2seq', 'heldout_7').target] },
  { name: 'llama', model: join(FIXTURES, 'llama_page'), text: 'The cat sat on the mat.' },
];
for (const f of FAMILIES) {
  if (!f.reference) continue;
  f.text = fixtureCase(f.reference.dir, f.reference.case)[f.reference.text ?? 'text'];
  f.expected = readSafetensors(join(FIXTURES, f.reference.dir, `${f.reference.case}.safetensors`))[f.reference.tensor];
}
const FIGURES = FAMILIES.flatMap((f) => VIEWS.map((view) => ({ ...f, view, id: `${f.name}-${view}` })));
const src = (id) => `/dist/test-figures-families/${id}.json`;

let server, browser;

before(async () => {
  await ensureBuilt();
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  for (const fig of FIGURES) {   // through the CLI, as a blog author would
    execFileSync(process.execPath, [CLI, 'snapshot', ...(fig.model ? ['--model', fig.model] : []), ...(fig.args ?? []), '--threads', '1',
      '--text', fig.text, '--view', fig.view, '--layer', String(LAYER), '--head', String(HEAD), '--out', join(DIR, `${fig.id}.json`)]);
  }
  const elements = (lang) => FIGURES.map((fig) => `<attn-scope id="${fig.id}" lang="${lang}" src="${src(fig.id)}"></attn-scope>`).join('\n');
  const t5 = fixtureCase('bundled-seq2seq', 'heldout_7');
  const live = ['enc', 'dec', 'cross'].map((kind) => `<attn-scope id="live-${kind}" model="bundled-seq2seq" kind="${kind}" view="head" ` +
    `layer="${LAYER - 1}" head="${HEAD}" text="${t5.source}" target="${t5.target}"></attn-scope>`).join('\n');
  server = await startServer({ pages: { '/families.html': elementPage(elements('en')), '/families-ko.html': elementPage(elements('ko')),
    '/t5-live.html': elementPage(live) } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(DIR, { recursive: true, force: true });
});

// What each element shows: its state, what it drew, its footer, and (head view) the SVG's cells.
function shownFigures(page) {
  return page.evaluate((ids) => ids.map((id) => {
    const el = document.getElementById(id);
    const root = el.shadowRoot;
    const svg = el.view === 'head' ? new DOMParser().parseFromString(el.exportSvg(), 'image/svg+xml') : null;
    return { id, status: el.dataset.status, frozen: el.frozen, view: el.view, shape: el.result && [...el.result.shape],
      drawn: root.querySelectorAll('canvas, svg').length, caption: root.querySelector('.caption').textContent,
      statusText: root.querySelector('.status').textContent, brand: root.querySelector('.brand').textContent,
      cells: svg ? [...svg.querySelectorAll('g[shape-rendering] > rect > title')].map((t) => t.textContent) : null };
  }), FIGURES.map((f) => f.id));
}

// English at desktop width and Korean at phone width (language and width are independent here; the
// other two pairings only add CI time).
for (const [lang, width, height] of [['en', 1280, 800], ['ko', 390, 844]]) {
  test(`every family × head, lines, grid draws from its figure alone (${lang}, ${width} px)`, async () => {
    const { page, workers, check } = await guardedPage(browser, { viewport: { width, height } });
    const warnings = [];
    page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
    server.log.length = 0;
    await page.goto(`${server.origin}/${lang === 'ko' ? 'families-ko' : 'families'}.html`);
    await waitForElements(page, FIGURES.length);
    await page.waitForTimeout(300);   // any late request would show up in the log
    assert.deepEqual(server.log.filter((p) => p.endsWith('.wasm') || p.startsWith('/model')), [], 'no wasm, no model file');
    assert.deepEqual(workers, [], 'no worker');
    const shown = await shownFigures(page);
    for (const fig of FIGURES) {
      const s = shown.find((x) => x.id === fig.id);
      const doc = json(join(DIR, `${fig.id}.json`));
      assert.equal(s.status, 'ready', `${fig.id}: ${s.statusText}`);
      assert.equal(s.frozen, true, fig.id);
      assert.equal(s.view, fig.view, fig.id);
      assert.deepEqual(s.shape, [...doc.shape, doc.shape[2]], fig.id);
      assert.ok(s.drawn > 0, `${fig.id} drew nothing`);
      assert.equal(s.caption, fig.text, fig.id);
      const model = fig.model ?? 'bundled';
      if (lang === 'en') {
        assert.equal(s.brand, `AttnScope — a frozen figure: attention computed by ${model} when the figure was saved, not in your browser`);
      } else {
        assert.match(s.brand, /^AttnScope — 저장된 그림: /, fig.id);
        assert.ok(s.brand.includes(model), s.brand);
        assert.doesNotMatch(s.brand, /브라우저에서 계산한 어텐션/, 'the live claim');
      }
      if (fig.view === 'head' && fig.expected) {
        // The drawn weights ("query → key: weight", four decimals; a decoder's future keys
        // "masked") against PyTorch's float64 forward.
        const T = doc.shape[2], H = doc.shape[1], at = (LAYER * H + HEAD) * T * T;
        assert.equal(s.cells.length, T * T, fig.id);
        s.cells.forEach((title, c) => {
          const weight = title.split(': ').at(-1);
          if (weight === 'masked') {
            assert.ok(c % T > Math.floor(c / T) && fig.expected.data[at + c] === 0, `${fig.id} cell ${c} masked`);
            return;
          }
          const drawn = Number(weight);
          assert.ok(Math.abs(drawn - fig.expected.data[at + c]) <= 1.5e-4, `${fig.id} cell ${c}: ${title} vs ${fig.expected.data[at + c]}`);
        });
      }
    }
    await keepScreenshot(page, `frozen-families-${lang}-${width}.png`, { fullPage: true });
    for (const id of ['t5-head', 'llama-lines']) await keepScreenshot(page.locator(`#${id}`), `frozen-${id}-${lang}-${width}.png`);
    assert.deepEqual(await check(), []);
    assert.deepEqual(warnings, [], 'console warnings');
    await page.context().close();
  });
}

test('a frozen figure turned live says the browser computes it', async () => {
  const { page, check } = await guardedPage(browser);
  await page.goto(`${server.origin}/families.html`);
  await waitForElements(page, FIGURES.length);
  await page.evaluate(() => document.getElementById('bert-head').setAttribute('text', 'A different sentence now.'));
  await page.waitForFunction(() => { const el = document.getElementById('bert-head'); return !el.frozen && el.dataset.status === 'ready' && el.result.tokens.includes('different'); }, null, { timeout: 60000 });
  const brands = await page.evaluate(() => ['bert-head', 'gpt2-head'].map((id) => document.getElementById(id).shadowRoot.querySelector('.brand').textContent));
  assert.equal(brands[0], 'AttnScope — attention computed in your browser');
  assert.match(brands[1], /a frozen figure/);
  assert.deepEqual(await check(), []);
  await page.context().close();
});

// The element's own "Figure data" on the T5 (its kinds): the encoder's and the decoder's
// self-attention make figures with that side's layers and mask (the decoder's causal), matching
// PyTorch's, and draw back frozen; so does the cross-attention (target rows × source columns).
test('the element saves the T5\'s encoder, decoder and cross-attention figures; they draw back frozen', async () => {
  const { page, check } = await guardedPage(browser, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.origin}/t5-live.html`);
  await waitForElements(page, 3);
  const c = fixtureCase('bundled-seq2seq', 'heldout_7');
  const expected = readSafetensors(join(FIXTURES, 'bundled-seq2seq', 'heldout_7.safetensors'));
  const sides = {
    enc: { tokens: c.source_tokens, tensor: 'encoder_attentions', layers: 3, decoder: false },
    dec: { tokens: ['<pad>', ...c.target_tokens], tensor: 'decoder_attentions', layers: 2, decoder: true },
  };
  for (const [kind, side] of Object.entries(sides)) {
    const saved = await page.evaluate((id) => JSON.stringify(document.getElementById(id).figureData()), `live-${kind}`);
    const doc = JSON.parse(saved);
    assert.equal(doc.kind, kind);
    assert.equal(doc.modelInfo.kind, 'encoder-decoder');
    assert.deepEqual(doc.tokens, side.tokens, kind);
    const T = side.tokens.length;
    assert.deepEqual(doc.shape, [side.layers, 4, T]);
    assert.equal(doc.modelInfo.config.numLayers, side.layers);
    assert.equal(doc.modelInfo.config.isDecoder, side.decoder, kind);
    const at = ((LAYER - 1) * 4 + HEAD) * T * T;
    doc.attentions[0].forEach((v, i) => assert.ok(Math.abs(v - expected[side.tensor].data[at + i]) < 1e-4, `${kind} cell ${i}`));
    writeFileSync(join(DIR, `saved-${kind}.json`), saved);
    await page.evaluate(({ id, url }) => {
      const el = document.createElement('attn-scope');
      el.id = id;
      el.setAttribute('src', url);
      document.body.append(el);
    }, { id: `saved-${kind}`, url: src(`saved-${kind}`) });
  }
  await waitForElements(page, 5);
  const back = await page.evaluate(() => ['saved-enc', 'saved-dec'].map((id) => {
    const el = document.getElementById(id);
    const svg = new DOMParser().parseFromString(el.exportSvg(), 'image/svg+xml');
    return { status: el.dataset.status, frozen: el.frozen, tokens: el.result.tokens,
      masked: [...svg.querySelectorAll('g[shape-rendering] > rect > title')].filter((t) => t.textContent.endsWith(': masked')).length };
  }));
  assert.deepEqual(back.map((b) => [b.status, b.frozen]), [['ready', true], ['ready', true]]);
  assert.deepEqual(back.map((b) => b.tokens), [sides.enc.tokens, sides.dec.tokens]);
  const T = sides.dec.tokens.length;
  assert.deepEqual(back.map((b) => b.masked), [0, (T * (T - 1)) / 2], 'the decoder figure draws its causal mask, the encoder\'s none');
  const cross = await page.evaluate(() => {
    const el = document.getElementById('live-cross');
    return { disabled: el.shadowRoot.querySelector('[data-action="figure"]').disabled, saved: JSON.stringify(el.figureData()) };
  });
  assert.equal(cross.disabled, false);
  const doc = JSON.parse(cross.saved);
  const S = c.source_tokens.length;
  assert.deepEqual([doc.kind, doc.shape, doc.tokens, doc.source.tokens], ['cross', [2, 4, T, S], sides.dec.tokens, c.source_tokens]);
  const crossAt = ((LAYER - 1) * 4 + HEAD) * T * S;
  const held = doc.heads.findIndex(([l, h]) => l === LAYER - 1 && h === HEAD);
  doc.attentions[held].forEach((v, i) => assert.ok(Math.abs(v - expected.cross_attentions.data[crossAt + i]) < 1e-4, `cross cell ${i}`));
  writeFileSync(join(DIR, 'saved-cross.json'), cross.saved);
  await page.evaluate((url) => {
    const el = document.createElement('attn-scope');
    el.id = 'saved-cross';
    el.setAttribute('src', url);
    document.body.append(el);
  }, src('saved-cross'));
  await waitForElements(page, 6);
  const crossBack = await page.evaluate(() => {
    const el = document.getElementById('saved-cross');
    return { status: el.dataset.status, frozen: el.frozen, kind: el.kind, rows: el.result.targets.tokens, cols: el.result.sources.tokens };
  });
  assert.deepEqual(crossBack, { status: 'ready', frozen: true, kind: 'cross', rows: sides.dec.tokens, cols: c.source_tokens });
  assert.deepEqual(await check(), []);
  await page.context().close();
});
