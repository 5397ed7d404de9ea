// Frozen figures: five <attn-scope src="fig.json"> on one page draw from their JSON
// alone — no .wasm, no model file, no worker — and the bytes and requests that costs are counted
// (and printed). Each figure's matrices equal the Node API's run of the same text (rounded to
// six decimals as the format says); the figure was written by the `attnscope snapshot` CLI for
// one of them and by figureData for the others. Changing one element's text switches it to a live
// run (the wasm and the model are fetched then, and its tokens are the new text's).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel, figureData } from '../../js/index.js';
import { ROOT, elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';
import { keepScreenshot } from './helpers.js';

const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const DIR = join(ROOT, 'dist', 'test-figures');
const FIGURES = [
  { name: 'a', model: 'bundled', text: 'The unaffable cat sat on the mat.', view: 'head', layer: 1, head: 2 },
  { name: 'b', model: 'bundled', text: 'The river bank was muddy.', view: 'lines', layer: 0, head: 0 },
  { name: 'c', model: 'bundled', text: 'Attention is all you need.', view: 'grid', layer: 0, head: 0 },
  { name: 'd', model: 'bundled-causal', text: 'Once upon a time there was a prince.', view: 'head', layer: 0, head: 1 },
  { name: 'e', model: 'bundled-causal', text: 'The cat sat.', view: 'lines', layer: 1, head: 0 },
];
const expected = {};   // name → { tokens, matrices: {"l/h": number[]} } from the Node API
// A figure saved with words (snapshot --words): a text whose words split into pieces.
const WORDS_FIGURE = { name: 'w', text: 'The unaffable tokenizer mispronounced embeddings.', layer: 1, head: 2 };
let server, browser;

before(async () => {
  await ensureBuilt();
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  for (const f of FIGURES) {
    const model = await loadModel(f.model, { threads: 1 });
    try {
      const r = await model.run(f.text, { topK: 0 });
      const [L, H] = r.shape;
      const matrices = {};
      for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) matrices[`${l}/${h}`] = Array.from(r.attention(l, h));
      expected[f.name] = { tokens: r.tokenTexts, matrices };
      if (f.name === 'a') {   // through the CLI, as a blog author would
        execFileSync(process.execPath, [CLI, 'snapshot', '--threads', '1', '--text', f.text, '--view', f.view,
          '--layer', String(f.layer), '--head', String(f.head), '--out', join(DIR, 'a.json')]);
      } else {
        writeFileSync(join(DIR, `${f.name}.json`), JSON.stringify(figureData(r, { model: f.model, info: model.info, ...f })));
      }
    } finally {
      model.dispose();
    }
  }
  {
    const model = await loadModel('bundled', { threads: 1 });
    try {
      const r = await model.run(WORDS_FIGURE.text, { topK: 0 });
      expected.w = { tokens: r.tokens, offsets: Array.from(r.offsets), T: r.shape[2],
        matrix: Array.from(r.attention(WORDS_FIGURE.layer, WORDS_FIGURE.head)) };
    } finally {
      model.dispose();
    }
    execFileSync(process.execPath, [CLI, 'snapshot', '--threads', '1', '--text', WORDS_FIGURE.text, '--view', 'head',
      '--layer', String(WORDS_FIGURE.layer), '--head', String(WORDS_FIGURE.head), '--words', '--out', join(DIR, 'w.json')]);
  }
  server = await startServer({ pages: {
    '/five.html': elementPage(FIGURES.map((f) => `<attn-scope id="${f.name}" src="/dist/test-figures/${f.name}.json"></attn-scope>`).join('\n')),
    '/words.html': elementPage('<attn-scope id="w" src="/dist/test-figures/w.json"></attn-scope>'),
  } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(DIR, { recursive: true, force: true });
});

test('five frozen figures: no wasm, no model, no worker; their matrices are the run\'s', async () => {
  const { page, workers, check } = await guardedPage(browser, { viewport: { width: 1280, height: 800 } });
  const transferred = [];
  page.on('response', async (response) => {
    const body = await response.body().catch(() => Buffer.alloc(0));
    transferred.push({ url: new URL(response.url()).pathname, bytes: body.length });
  });
  server.log.length = 0;
  await page.goto(`${server.origin}/five.html`);
  await waitForElements(page, 5);
  await page.waitForTimeout(300);   // any late request would show up in the log
  const paths = [...server.log];
  const bytes = transferred.reduce((sum, r) => sum + r.bytes, 0);
  console.log(`five frozen figures: ${paths.length} requests, ${bytes} bytes (${transferred.map((r) => `${r.url} ${r.bytes}`).join(', ')})`);
  assert.equal(paths.filter((p) => p.endsWith('.wasm')).length, 0, 'no wasm');
  assert.equal(paths.filter((p) => p.startsWith('/model')).length, 0, 'no model file');
  assert.deepEqual(workers, [], 'no worker');
  // The element's script fetches the chunks of the views and text it shows; nothing else is code.
  const scripts = paths.filter((p) => p.endsWith('.js'));
  assert.ok(scripts.every((p) => /^\/dist\/attnscope-element(-chunks\/[\w-]+)?\.js$/.test(p)), `only the element's chunks: ${scripts.join(' ')}`);
  assert.equal(paths.length - scripts.length, 6, `the page and five figures: ${paths.join(' ')}`);
  for (const f of FIGURES) {
    const shown = await page.evaluate(({ name, heads }) => {
      const el = document.getElementById(name);
      return { status: el.dataset.status, frozen: el.frozen, tokens: el.result.tokenTexts,
        matrices: heads.map(([l, h]) => Array.from(el.result.attention(l, h))),
        canvases: el.shadowRoot.querySelectorAll('canvas').length, caption: el.shadowRoot.querySelector('.caption').textContent,
        status2: el.shadowRoot.querySelector('.status').textContent };
    }, { name: f.name, heads: JSON.parse(readFileSync(join(DIR, `${f.name}.json`))).heads });
    assert.equal(shown.status, 'ready', f.name);
    assert.equal(shown.frozen, true, f.name);
    assert.equal(shown.caption, f.text);
    assert.match(shown.status2, /no model loaded/);
    assert.ok(shown.canvases > 0, `${f.name} drew`);
    assert.deepEqual(shown.tokens, expected[f.name].tokens);
    const { heads } = JSON.parse(readFileSync(join(DIR, `${f.name}.json`)));
    heads.forEach(([l, h], i) => {
      const want = expected[f.name].matrices[`${l}/${h}`];
      shown.matrices[i].forEach((v, c) => assert.ok(Math.abs(v - want[c]) <= 6e-7, `${f.name} ${l}/${h} cell ${c}: ${v} vs ${want[c]}`));
    });
  }
  await keepScreenshot(page, 'frozen-desktop.png', { fullPage: false });
  assert.deepEqual(await check(), []);
  await page.context().close();
});

test('a new text switches a frozen figure to a live run', async () => {
  const { page, check } = await guardedPage(browser);
  await page.goto(`${server.origin}/five.html`);
  await waitForElements(page, 5);
  server.log.length = 0;
  await page.evaluate(() => document.getElementById('a').setAttribute('text', 'A different sentence now.'));
  await page.waitForFunction(() => { const el = document.getElementById('a'); return !el.frozen && el.dataset.status === 'ready' && el.result.tokens.includes('different'); }, null, { timeout: 60000 });
  assert.ok(server.log.some((p) => p.endsWith('.wasm')), 'the live run fetched the wasm');
  assert.ok(server.log.some((p) => p.startsWith('/model/')), 'and the model');
  const others = await page.evaluate(() => ['b', 'c', 'd', 'e'].map((n) => document.getElementById(n).frozen));
  assert.deepEqual(others, [true, true, true, true]);
  assert.deepEqual(await check(), []);
  await page.context().close();
});

test('the single-file embed draws a frozen figure from ?src= with no wasm of its own started', async () => {
  const loose = await startServer({ csp: '' });   // the single file's scripts are inline
  try {
    const { page, workers, check } = await guardedPage(browser);
    // The figure arrives late (as on a loaded machine, where CI once saw the element give up on
    // an empty text before it came): the element must wait for it, not run anything meanwhile.
    await page.route('**/test-figures/c.json', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await page.goto(`${loose.origin}/dist/attnscope-embed.html?src=/dist/test-figures/c.json`);
    await waitForElements(page, 1);
    const got = await page.evaluate(() => {
      const el = document.querySelector('attn-scope');
      return { frozen: el.frozen, view: el.view, caption: el.shadowRoot.querySelector('.caption').textContent };
    });
    assert.deepEqual(got, { frozen: true, view: 'grid', caption: 'Attention is all you need.' });
    assert.deepEqual(workers, [], 'no worker: the inlined wasm is never decoded');
    assert.deepEqual(await check(), []);
    await page.context().close();
  } finally {
    await loose.close();
  }
});

test('a figure whose attributes ask for another text runs live', async () => {
  const { page, check } = await guardedPage(browser);
  await page.goto(`${server.origin}/five.html`);
  await waitForElements(page, 5);
  await page.evaluate(() => {
    const el = document.createElement('attn-scope');
    el.id = 'other';
    el.setAttribute('text', 'Not the figure text.');
    el.setAttribute('src', '/dist/test-figures/a.json');
    document.body.append(el);
  });
  await page.waitForFunction(() => { const el = document.getElementById('other'); return el.dataset.status === 'ready' && !el.frozen && el.result?.tokens.includes('figure'); }, null, { timeout: 60000 });
  assert.deepEqual(await check(), []);
  await page.context().close();
});

// The reference for the words figure, computed here apart from js/analysis/words.js: a token belongs to the
// whitespace chunk its span starts in ([CLS]/[SEP] alone); to a word = the sum over its pieces'
// columns, from it = the mean of its pieces' rows.
function referenceWords({ tokens, offsets, matrix, T }, text) {
  const chunks = [...text.matchAll(/\S+/gu)].map((m) => [m.index, m.index + m[0].length]);
  const groups = [];
  let last = -1;
  tokens.forEach((token, t) => {
    const [s, e] = [offsets[2 * t], offsets[2 * t + 1]];
    const chunk = e > s && !/^\[(CLS|SEP)\]$/.test(token) ? chunks.findIndex(([a, b]) => s >= a && s < b) : -1;
    if (chunk >= 0 && chunk === last) groups.at(-1).push(t);
    else groups.push([t]);
    last = chunk;
  });
  const merged = [];
  for (const rows of groups) {
    for (const cols of groups) {
      let sum = 0;
      for (const i of rows) for (const j of cols) sum += matrix[i * T + j];
      merged.push(sum / rows.length);
    }
  }
  return { groups, merged };
}

test('snapshot --words: the file holds the word spans and word matrix; the element draws words with no wasm and no model', async () => {
  const doc = JSON.parse(readFileSync(join(DIR, 'w.json'), 'utf8'));
  const ref = referenceWords(expected.w, WORDS_FIGURE.text);
  assert.ok(ref.groups.some((g) => g.length > 1), 'the text has split words');
  assert.deepEqual(doc.words.map((w) => w.tokens), ref.groups);
  assert.deepEqual(doc.words.slice(1, -1).map((w) => WORDS_FIGURE.text.slice(w.start, w.end)), WORDS_FIGURE.text.split(' '));
  assert.equal(doc.wordAttentions.length, 1);
  const W = ref.groups.length;
  doc.wordAttentions[0].forEach((v, c) => assert.ok(Math.abs(v - ref.merged[c]) <= 1e-6, `word cell ${c}: ${v} vs ${ref.merged[c]}`));
  for (let a = 0; a < W; a++) {
    const sum = doc.wordAttentions[0].slice(a * W, (a + 1) * W).reduce((x, y) => x + y, 0);
    assert.ok(Math.abs(sum - 1) < 1e-5, `word row ${a} sums to ${sum}`);
  }

  const { page, workers, check } = await guardedPage(browser, { viewport: { width: 1280, height: 800 } });
  server.log.length = 0;
  await page.goto(`${server.origin}/words.html`);
  await waitForElements(page, 1);
  await page.waitForTimeout(300);
  const paths = [...server.log];
  assert.equal(paths.filter((p) => p.endsWith('.wasm')).length, 0, 'no wasm');
  assert.equal(paths.filter((p) => p.startsWith('/model')).length, 0, 'no model file');
  assert.deepEqual(workers, [], 'no worker');
  const shown = await page.evaluate(() => {
    const el = document.getElementById('w');
    const svg = new DOMParser().parseFromString(el.exportSvg(), 'image/svg+xml');
    return { frozen: el.frozen, badge: el.shadowRoot.querySelector('.words-badge')?.textContent ?? null,
      cells: [...svg.querySelectorAll('g[shape-rendering] > rect > title')].map((t) => t.textContent) };
  });
  assert.equal(shown.frozen, true);
  assert.match(shown.badge ?? '', /^Words: pieces merged/, 'the figure does not say it shows words');
  // The drawn matrix (the SVG's cell titles, "word → word: weight"): W × W, named by words.
  assert.equal(shown.cells.length, W * W);
  const words = doc.words.map((w) => w.text);
  assert.ok(words.includes('unaffable') && words.includes('embeddings.'), words.join(' '));
  shown.cells.forEach((title, c) => {
    const [a, b] = [Math.floor(c / W), c % W];
    assert.ok(title.startsWith(`${words[a]} → ${words[b]}: `), title);
    assert.ok(Math.abs(Number(title.split(': ').at(-1)) - ref.merged[c]) <= 5e-5, `${title} vs ${ref.merged[c]}`);
  });
  await keepScreenshot(page.locator('#w'), 'frozen-words.png');
  assert.deepEqual(await check(), []);
  await page.context().close();
});
