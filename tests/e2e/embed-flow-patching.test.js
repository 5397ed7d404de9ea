// <attn-scope view="flow"> and <attn-scope view="patching">, live and as frozen figures, on one
// page: the live ones take the page's permalink parameters as attributes (tau, q; corrupted,
// answer, wrong, site; an encoder–decoder's prefix and stack) and write a view's changes back;
// the frozen ones draw the figure's graph and grids (the bundled T5's too) with no wasm, and a τ
// below the figure's switches to the model. Desktop (1280) and phone (390), English and Korean
// (the lang attribute), a clean console. With $ATTNSCOPE_SCREENSHOTS set, each element at each of
// the four is saved there — look at them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel, figureData, flowGraph } from '../../js/index.js';
import { encoderRun } from '../../js/analysis/snapshot.js';
import { PATCHING_EXAMPLE, PATCHING_SEQ2SEQ_EXAMPLE as T5 } from '../../web/src/model/patch-suggest.js';
import { ROOT, elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';

const DIR = join(ROOT, 'dist', 'test-flow-patching');
const SHOTS = process.env.ATTNSCOPE_SCREENSHOTS;
const { clean: CLEAN, corrupted: CORRUPTED, answer: ANSWER, wrong: WRONG } = PATCHING_EXAMPLE;
const FLOW_TEXT = 'The cat sat on the mat because it was tired.';
const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const expected = {};
const figureJson = (page, id) => page.evaluate((i) => JSON.stringify(document.getElementById(i).figureData()), id);
let server, browser;

before(async () => {
  await ensureBuilt();
  mkdirSync(DIR, { recursive: true });
  const model = await loadModel('bundled-causal', { threads: 1 });
  try {
    const info = model.info;
    const flowRun = await model.run(FLOW_TEXT, { flow: true, topK: 0, logitLens: 5 });
    expected.flowDoc = JSON.stringify(figureData(flowRun, { model: 'bundled-causal', info, text: FLOW_TEXT,
      view: 'flow', layer: 0, head: 0, position: 6, tau: 0.04 }));
    writeFileSync(join(DIR, 'flow.json'), expected.flowDoc);
    expected.frozenEdges = flowGraph(flowRun.flow, { position: 6, tau: 0.04 }).edges.length;
    expected.liveEdges = flowGraph(flowRun.flow, { position: 3, tau: 0.03 }).edges.length;
    const grid = await model.patch({ clean: CLEAN, corrupted: CORRUPTED, answer: ANSWER, wrong: WRONG, site: 'head' });
    const [cleanRun, corruptedRun] = [await model.run(CLEAN, { topK: 5 }), await model.run(CORRUPTED, { topK: 5 })];
    expected.patchingDoc = JSON.stringify(figureData(cleanRun, { model: 'bundled-causal', info, text: CLEAN,
      view: 'patching', layer: 0, head: 0, patching: { grid, corruptedRun, corruptedText: CORRUPTED, answer: ANSWER, wrong: WRONG } }));
    writeFileSync(join(DIR, 'patching.json'), expected.patchingDoc);
    expected.grid = grid;
  } finally {
    model.dispose();
  }
  // The bundled T5's example as `attnscope snapshot --view patching --target … --stack encoder` writes it.
  const t5 = await loadModel('bundled-seq2seq', { threads: 1 });
  try {
    const targetIds = Array.from(t5.tokenizeTarget(T5.prefix).ids).slice(0, -1);   // the target so far: no </s>
    const run = (text) => t5.run(text, { topK: 5, targetIds });
    const [cleanRun, corrupted] = [await run(T5.clean), await run(T5.corrupted)];
    const options = { clean: T5.clean, corrupted: T5.corrupted, answer: T5.answer, wrong: T5.wrong, target: T5.prefix };
    const grid = await t5.patch({ ...options, stack: T5.stack });
    expected.t5DecoderGrid = await t5.patch({ ...options, stack: 'decoder' });   // the live element's
    const corruptedRun = { ...corrupted, tokens: corrupted.sourceTokens, tokenTexts: t5.tokenize(T5.corrupted).tokenTexts };
    expected.t5Doc = JSON.stringify(figureData(encoderRun(cleanRun, t5.tokenize(T5.clean)), { model: 'bundled-seq2seq', info: t5.info,
      text: T5.clean, view: 'patching', layer: 0, head: 0,
      patching: { grid, corruptedRun, cleanRun, prefix: T5.prefix, corruptedText: T5.corrupted, answer: T5.answer, wrong: T5.wrong } }));
    writeFileSync(join(DIR, 'patching-t5.json'), expected.t5Doc);
    expected.t5Grid = grid;
  } finally {
    t5.dispose();
  }
  const patchAttrs = `corrupted="${attr(CORRUPTED)}" answer="${attr(ANSWER)}" wrong="${attr(WRONG)}"`;
  server = await startServer({ pages: {
    '/live.html': elementPage(`
<attn-scope id="flow" model="bundled-causal" view="flow" tau="0.03" q="3" text="${attr(FLOW_TEXT)}"></attn-scope>
<attn-scope id="patching" model="bundled-causal" view="patching" site="pattern" text="${attr(CLEAN)}" ${patchAttrs}></attn-scope>
<attn-scope id="t5" model="bundled-seq2seq" view="patching" text="${attr(T5.clean)}" corrupted="${attr(T5.corrupted)}"
  prefix="${attr(T5.prefix)}" answer="${T5.answer}" wrong="${T5.wrong}" patch-stack="decoder"></attn-scope>`),
    '/frozen.html': elementPage(`
<attn-scope id="flow" src="/dist/test-flow-patching/flow.json"></attn-scope>
<attn-scope id="patching" src="/dist/test-flow-patching/patching.json"></attn-scope>
<attn-scope id="t5" src="/dist/test-flow-patching/patching-t5.json"></attn-scope>`),
  } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(DIR, { recursive: true, force: true });
});

// What each element shows: status, frozen, the flow graph's data and the patching grid's.
const shown = (page) => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('attn-scope')].map((el) => {
  const root = el.shadowRoot, svg = root.querySelector('svg.flow-graph'), grid = root.querySelector('.patch-grid');
  return [el.id, { status: el.dataset.status, frozen: el.frozen, error: root.querySelector('.status.error')?.textContent ?? null,
    edges: svg && Number(svg.dataset.edges), position: svg && Number(svg.dataset.position), tau: svg && Number(svg.dataset.tau),
    grid: grid && !grid.hidden ? { site: grid.dataset.site, rows: Number(grid.dataset.rows), state: grid.dataset.state } : null,
    lds: root.querySelector('.patch-lds')?.textContent ?? '', brand: root.querySelector('.brand')?.textContent ?? '', route: root.querySelector('.flow-route')?.textContent ?? '',
    different: [...root.querySelectorAll('.patch-align td.is-different')].map((td) => td.textContent) }];
})));

// Desktop and phone, English and Korean: the lang attribute redraws the views (no rerun) at the
// width just set, as a page opened at that width draws them; each element fits the width and
// speaks the language (and is saved as a screenshot when asked).
async function eachScreen(page, name) {
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  for (const [size, width] of [['desktop', 1280], ['phone', 390]]) {
    await page.setViewportSize({ width, height: 900 });
    for (const lang of ['en', 'ko']) {
      await page.evaluate((l) => document.querySelectorAll('attn-scope').forEach((el) => {
        el.setAttribute('lang', l === 'en' ? 'ko' : 'en');
        el.setAttribute('lang', l);
      }), lang);
      // Korean text is fetched on first use: wait until every view's explanation speaks it.
      await page.waitForFunction((l) => [...document.querySelectorAll('attn-scope')].every((el) => {
        const text = el.shadowRoot.querySelector('.view:not([hidden]) .explain')?.textContent ?? '';
        return l === 'ko' ? /[가-힣]/.test(text) : text !== '' && !/[가-힣]/.test(text);
      }), lang, { timeout: 15000 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const widths = await page.evaluate(() => [...document.querySelectorAll('attn-scope')].map((el) => [el.id, el.getBoundingClientRect().width]));
      for (const [id, w] of widths) assert.ok(w <= width, `${id} ${size} ${lang}: ${w} px wide`);
      for (const id of SHOTS ? ['flow', 'patching', 't5'] : []) {
        await page.locator(`#${id}`).screenshot({ path: join(SHOTS, `embed-${id}-${name}-${lang}-${size}.png`) });
      }
    }
  }
  await page.evaluate(() => document.querySelectorAll('attn-scope').forEach((el) => el.setAttribute('lang', 'en')));
}

test('live: the views take their permalink parameters as attributes and write changes back', async () => {
  const { page, check } = await guardedPage(browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${server.origin}/live.html`);
  await waitForElements(page, 3);
  await page.waitForFunction(() => ['patching', 't5'].every((id) => document.getElementById(id).shadowRoot.querySelector('.patch-grid')?.dataset.state === 'done'),
    null, { timeout: 30000 });
  let s = await shown(page);
  assert.deepEqual([s.flow.status, s.flow.frozen, s.flow.position, s.flow.tau, s.flow.edges], ['ready', false, 3, 0.03, expected.liveEdges]);
  assert.deepEqual(s.patching.grid, { site: 'pattern', rows: 8, state: 'done' });
  assert.deepEqual(s.patching.different, ['␣church', '␣school']);
  assert.match(s.patching.lds, /␣church/);
  // The T5's decoder grid (the stack attribute: its 2 layers × the start token and "the man"), read
  // after the prefix attribute: the Node API's grid, and its figure data.
  assert.deepEqual([s.t5.grid, s.t5.different], [{ site: 'resid_pre', rows: 2, state: 'done' }, ['doctor', 'little']]);
  assert.match(s.t5.lds, /next token after “the man”/);
  const t5Doc = JSON.parse(await figureJson(page, 't5'));
  assert.deepEqual([t5Doc.version, t5Doc.kind, t5Doc.patching.seq2seq.stack, t5Doc.patching.seq2seq.prefix], [3, 'enc', 'decoder', T5.prefix]);
  t5Doc.patching.scores.flat().forEach((v, i) => assert.ok(Math.abs(v - expected.t5DecoderGrid.scores.flat()[i]) < 1e-4, `T5 score ${i}`));
  // A click on a token follows its prediction, another site in the picker runs its grid: the
  // attributes say so.
  await page.locator('#flow').locator('text.flow-token[data-position="5"]').click();
  await page.waitForFunction(() => document.getElementById('flow').getAttribute('q') === '5');
  await page.locator('#patching').locator('.patch-site select').selectOption({ index: 3 });   // PATCH_SITES[3], head
  await page.waitForFunction(() => {
    const el = document.getElementById('patching'), g = el.shadowRoot.querySelector('.patch-grid');
    return el.getAttribute('site') === 'head' && g?.dataset.site === 'head' && g.dataset.state === 'done';
  }, null, { timeout: 30000 });
  s = await shown(page);
  assert.equal(s.flow.position, 5);
  assert.match(s.patching.lds, new RegExp(String(Number(expected.grid.clean.toFixed(4)))));
  // Figure data of the live views: the graph at q and τ, the finished grid (the Node API's, to float rounding).
  const flowDoc = JSON.parse(await figureJson(page, 'flow'));
  assert.deepEqual([flowDoc.version, flowDoc.view, flowDoc.flow.position, flowDoc.flow.tau], [2, 'flow', 5, 0.03]);
  const patchDoc = JSON.parse(await figureJson(page, 'patching'));
  assert.deepEqual([patchDoc.patching.site, patchDoc.patching.corruptedText, patchDoc.patching.answer], ['head', CORRUPTED, ANSWER]);
  patchDoc.patching.scores.flat().forEach((v, i) => assert.ok(Math.abs(v - expected.grid.scores.flat()[i]) < 1e-4, `score ${i}`));
  await eachScreen(page, 'live');
  assert.deepEqual(await check(), []);
  await page.context().close();
});

test('frozen: the figures draw the graph and the grid with no wasm; a lower τ runs the model', async () => {
  const { page, check } = await guardedPage(browser, { viewport: { width: 1280, height: 900 } });
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await page.goto(`${server.origin}/frozen.html`);
  await waitForElements(page, 3);
  await page.waitForFunction(() => ['patching', 't5'].every((id) => document.getElementById(id).shadowRoot.querySelector('.patch-grid')?.dataset.state === 'done'));
  let s = await shown(page);
  assert.deepEqual([s.flow.frozen, s.flow.position, s.flow.tau, s.flow.edges], [true, 6, 0.04, expected.frozenEdges]);
  assert.ok(s.flow.route.length > 0, 'the strongest route is named');
  assert.match(s.flow.brand, /a frozen figure: numbers computed by bundled-causal when the figure was saved/);
  assert.equal(s.patching.frozen, true);
  assert.deepEqual(s.patching.grid, { site: 'head', rows: 8, state: 'done' });
  assert.match(s.patching.lds, new RegExp(`${Number(expected.grid.clean.toFixed(4))}.*${Number(expected.grid.corrupted.toFixed(4))}`));
  // The T5's grid over the encoder (3 layers × 7 source positions), read after "the man".
  assert.deepEqual([s.t5.frozen, s.t5.grid, s.t5.different], [true, { site: 'resid_pre', rows: 3, state: 'done' }, ['doctor', 'little']]);
  assert.match(s.t5.lds, new RegExp(`after “the man”.*${Number(expected.t5Grid.clean.toFixed(4))}.*${Number(expected.t5Grid.corrupted.toFixed(4))}`));
  await eachScreen(page, 'frozen');
  // A click on a dot shows what the logit lens read there, from the figure.
  await page.locator('#flow').locator('circle.flow-node[data-level="3"]').first().click();
  await page.waitForFunction(() => document.getElementById('flow').shadowRoot.querySelectorAll('.flow-lens li').length === 5);
  assert.equal((await shown(page)).flow.frozen, true);
  // Saving a frozen figure writes it again, number for number.
  assert.equal(await figureJson(page, 'flow'), expected.flowDoc);
  assert.equal(await figureJson(page, 'patching'), expected.patchingDoc);
  assert.equal(await figureJson(page, 't5'), expected.t5Doc);
  assert.deepEqual(fetched.filter((p) => /\.wasm$|model\.safetensors$/.test(p)), [], 'a frozen figure fetched the model');
  // A higher τ is in the figure; a lower one is the model's.
  await page.evaluate(() => document.getElementById('flow').setAttribute('tau', '0.1'));
  await page.waitForFunction(() => Number(document.getElementById('flow').shadowRoot.querySelector('svg.flow-graph')?.dataset.tau) === 0.1);
  assert.equal((await shown(page)).flow.frozen, true);
  await page.evaluate(() => document.getElementById('flow').setAttribute('tau', '0.02'));
  await page.waitForFunction(() => {
    const el = document.getElementById('flow');
    return !el.frozen && el.dataset.status === 'ready' && Number(el.shadowRoot.querySelector('svg.flow-graph')?.dataset.tau) === 0.02;
  }, null, { timeout: 30000 });
  assert.ok(fetched.some((p) => p.endsWith('.wasm')), 'the live graph ran the model');
  assert.deepEqual(await check(), []);
  await page.context().close();
});
