// The page with the bundled decoder, in Chromium with the real engine: every cell above
// the diagonal of every head is masked in the data the views draw (and drawn hatched, not white),
// rows sum to 1, the formula view's softmax equals the heatmap row and a recomputation from q·k
// with −∞ on later keys, aggregates and rollout stay causal, the next-token panel names the token
// that follows, Generate streams N tokens whose rows equal a full run over the final ids (KV cache
// vs recomputation, ≤ 1e-5), the same seed writes the same text (also from the permalink), Stop
// stops it, and ?view=compare shows BERT and the decoder side by side. The Steering panel writes the
// prompt plain and steered, the two differ, the plain ids are the API's greedy ones and the steered
// ids (and the steered prompt's own rows) the API's with the direction the panel measured given as
// the vector (so the size it shows is of the engine's v), and the link restores the settings. Throughout: no console
// error, no uncaught error, no request outside the page's origin.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { guardedPage, launchBrowser, startServer, waitForRuns, waitSaying } from './helpers.js';
import { torchCausal } from './helpers/causal-reference.js';
import { maxAbsDiff } from '../js/helpers/api-reference.js';
import { defaultState, stateFromUrl, stateToUrl } from '../../web/src/state/state.js';
import { loadModel } from '../../js/index.js';

const MODEL_DIR = fileURLToPath(new URL('../../model-causal', import.meta.url));

let server, browser, page, problems;
const hook = (fn, arg) => page.evaluate(fn, arg);
const TEXT = 'The river bank was quiet and the water ran slowly';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  ({ page, problems } = await guardedPage(browser, server.origin));
  await page.goto(`${server.origin}/?model=bundled-causal&text=${encodeURIComponent(TEXT)}`);
  await waitForRuns(page, 1);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function showView(view) {
  await page.click(`[role=tab][data-view="${view}"]`);
  await page.waitForFunction((v) => window.__attnscope.state.view === v && document.querySelector(`.view-${v}`) && !document.querySelector(`.view-${v}`).hidden, view);
}

test('?model=bundled-causal opens the decoder: kind shown, readable token texts in the chips', async () => {
  const info = await hook(() => window.__attnscope.info);
  assert.equal(info.kind, 'decoder');
  assert.equal(await page.locator('#model-select').inputValue(), 'bundled-causal');
  assert.equal(await page.locator('#model-info').getAttribute('data-kind'), 'decoder');
  assert.match(await page.locator('#model-info').textContent(), /decoder/);
  const chips = await page.locator('#chips .chip-token').allTextContents();
  const texts = await hook(() => window.__attnscope.tokenTexts);
  assert.deepEqual(chips, texts);
  assert.ok(chips.some((c) => c.startsWith('␣')), 'spaces shown as ␣');
  assert.ok(!chips.join('').includes('Ġ'), 'no byte-level Ġ in the page');
  assert.deepEqual(problems, []);
});

test('the attention the page shows is PyTorch\'s (tools/train/model_causal.py, float64)', async () => {
  const ids = await hook(() => window.__attnscope.ids);
  const [L, H] = await hook(() => window.__attnscope.shape);
  const ref = torchCausal(MODEL_DIR, ids);
  const shown = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) shown.push(...await hook(([a, b]) => window.__attnscope.shown(a, b), [l, h]));
  const d = maxAbsDiff(shown, ref.attentions);
  console.log(`# page (bundled-causal) attention vs PyTorch: max |diff| ${d.max.toExponential(2)} over ${shown.length} weights`);
  assert.ok(d.max <= 1e-4, `differs by ${d.max} at ${d.at}`);
});

test('every head: cells above the diagonal are masked and 0, rows sum to 1, drawn hatched', async () => {
  const [L, H, T] = await hook(() => window.__attnscope.shape);
  const masked = await hook((n) => window.__attnscope.maskedCells(n), T);
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const m = await hook(([a, b]) => window.__attnscope.shown(a, b), [l, h]);
      for (let i = 0; i < T; i++) {
        let sum = 0;
        for (let j = 0; j < T; j++) {
          sum += m[i * T + j];
          assert.equal(masked[i * T + j], j > i, `mask flag (${i}, ${j})`);
          if (j > i) assert.equal(m[i * T + j], 0, `L${l} H${h} (${i}, ${j}) above the diagonal`);
        }
        assert.ok(Math.abs(sum - 1) < 1e-5, `L${l} H${h} row ${i} sums to ${sum}`);
      }
    }
  }
  assert.equal(await page.locator('canvas.model-grid').getAttribute('data-causal'), '1');
  // The head view hatches the upper triangle: a masked cell is grey, not the white of weight 0.
  await showView('head');
  const overlay = page.locator('.view-head .heatmap-overlay');
  assert.equal(await overlay.getAttribute('data-causal'), '1');
  const pixel = await page.evaluate(() => {
    const o = document.querySelector('.view-head .heatmap-overlay');
    const base = o.previousElementSibling;
    const { labelW, labelH, cell, n } = o.dataset;
    const dpr = window.devicePixelRatio || 1;
    const ctx = base.getContext('2d');
    const at = (i, j) => Array.from(ctx.getImageData(Math.round((Number(labelW) + (j + 0.5) * cell) * dpr), Math.round((Number(labelH) + (i + 0.5) * cell) * dpr), 1, 1).data);
    return { masked: at(0, Number(n) - 1), lowest: at(Number(n) - 1, 0) };
  });
  assert.notDeepEqual(pixel.masked.slice(0, 3), [255, 255, 255], 'a masked cell is not drawn as weight 0 (white)');
  assert.ok(pixel.masked[0] < 250 && Math.abs(pixel.masked[0] - pixel.masked[2]) < 40, `masked cell is grey: ${pixel.masked}`);
});

test('lines view: a decoder\'s lines only go back to earlier tokens', async () => {
  await showView('lines');
  const H = (await hook(() => window.__attnscope.shape))[1];
  await page.waitForFunction((h) => Number(document.querySelector('.view-lines canvas.lines')?.dataset.drawn) === h, H);
  const c = page.locator('.view-lines canvas.lines');
  assert.ok(Number(await c.getAttribute('data-links')) > 0, 'lines were drawn');
  assert.equal(await c.getAttribute('data-forward-links'), '0');
});

test('formula view: the mask step hides the later keys; softmax = heatmap row = softmax(q·k/√d_k) with −∞ on later keys', async () => {
  await showView('formula');
  await page.selectOption('.view-formula .query-picker select', '3');
  await page.waitForFunction(() => window.__attnscope.formula?.query === 3);
  const f = await hook(() => window.__attnscope.formula);
  const T = (await hook(() => window.__attnscope.shape))[2];
  assert.equal(f.causal, true);
  assert.deepEqual(f.maskedKeys, Array.from({ length: T - 4 }, (_, k) => 4 + k));
  assert.equal(await page.locator('.view-formula .mask-step').getAttribute('data-hidden'), f.maskedKeys.join(','));
  const row = (await hook(([l, h]) => window.__attnscope.shown(l, h), [f.layer, f.head])).slice(3 * T, 4 * T);
  const q = await hook(([l, h]) => window.__attnscope.vector('q', l, h, 3), [f.layer, f.head]);
  const scores = [];
  for (let j = 0; j < T; j++) {
    const k = await hook(([l, h, t]) => window.__attnscope.vector('k', l, h, t), [f.layer, f.head, j]);
    scores.push(j > 3 ? -Infinity : q.reduce((s, x, d) => s + x * k[d], 0) / Math.sqrt(q.length));
  }
  const max = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - max));
  const total = e.reduce((a, b) => a + b, 0);
  for (let j = 0; j < T; j++) {
    assert.ok(Math.abs(f.softmax[j] - row[j]) <= 1e-5, `formula softmax vs heatmap at ${j}`);
    assert.ok(Math.abs(e[j] / total - row[j]) <= 1e-5, `recomputed softmax vs heatmap at ${j}`);
  }
  // The table marks the masked keys with −∞ in the mask column.
  // (Columns: key, q·k, ‖k‖, cos(q, k), ÷√d_k, + mask, softmax.)
  const maskCells = await page.locator('.view-formula .formula-table tr.causal-masked td:nth-child(6)').allTextContents();
  assert.deepEqual(maskCells, f.maskedKeys.map(() => '−∞'));
});

test('aggregates: mean, max, rollout and raw stay causal', async () => {
  await showView('aggregates');
  await page.waitForFunction(() => document.querySelector('.view-aggregates .agg-panel[data-kind="rollout"]')?.dataset.ready === '1', null, { timeout: 20000 });
  const T = (await hook(() => window.__attnscope.shape))[2];
  for (const kind of ['mean', 'max', 'rollout', 'raw']) {
    const m = await hook((k) => window.__attnscope.aggregate(k), kind);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) assert.equal(m[i * T + j], 0, `${kind} (${i}, ${j})`);
  }
  assert.equal(await page.locator('.view-aggregates .agg-panel[data-kind="rollout"] .heatmap-overlay').getAttribute('data-causal'), '1');
});

test('diff works for the decoder: masking a key and dropping a token keep every matrix causal', async () => {
  await page.click('#select-mode');   // a chip click selects for masking only in this mode
  await page.click('#chips .chip[data-pos="1"]');
  await page.click('#select-mode');
  await page.click('#mask-btn');
  await page.waitForFunction(() => window.__attnscope.edit?.kind === 'mask' && window.__attnscope.diff('edited'));
  const T = (await hook(() => window.__attnscope.shape))[2];
  const edited = await hook(() => window.__attnscope.diff('edited'));
  for (let i = 0; i < T; i++) {
    assert.equal(edited[i * T + 1], 0, `masked key 1 in row ${i}`);
    for (let j = i + 1; j < T; j++) assert.equal(edited[i * T + j], 0);
  }
  assert.equal(await page.locator('.view-diff .agg-panel[data-kind="edited"] .heatmap-overlay').getAttribute('data-causal'), '1');
  await page.click('#restore-btn');
  await page.click('#drop-btn');
  const n = T - 1;
  // Wait for the drop's own run: until it lands, the diff still shows the mask edit's T × T matrix.
  await page.waitForFunction((size) => window.__attnscope.edit?.kind === 'drop' && window.__attnscope.diff('edited')?.length === size, n * n);
  const dropped = await hook(() => window.__attnscope.diff('edited'));
  assert.equal(dropped.length, n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) assert.equal(dropped[i * n + j], 0);
  await page.click('#restore-btn');
  await page.click('#clear-selection');
  await page.waitForFunction(() => !window.__attnscope.edit && window.__attnscope.state.selected.length === 0);
});

test('next-token panel: the selected position shows its top guesses and the token that follows', async () => {
  await page.click('#chips .chip[data-pos="2"]');
  await page.waitForFunction(() => document.getElementById('next-token').dataset.position === '2');
  const entries = await hook(() => window.__attnscope.nextByPosition);
  // Every position's guesses and the following token's rank, against PyTorch's softmax.
  const ref = torchCausal(MODEL_DIR, await hook(() => window.__attnscope.ids));
  for (const r of ref.next_by_position) {
    const e = entries.find((x) => x.position === r.position);
    for (const [k, c] of e.top.entries()) {
      assert.ok(Math.abs(c.prob - r.probs[k]) <= 1e-5, `position ${r.position} guess ${k}: ${c.prob} vs ${r.probs[k]}`);
      if (k + 1 < r.probs.length && r.probs[k] - r.probs[k + 1] > 1e-5 && (k === 0 || r.probs[k - 1] - r.probs[k] > 1e-5)) assert.equal(c.id, r.top[k]);
    }
    if (r.actual === undefined) { assert.equal(e.actual, null); continue; }
    assert.equal(e.actual.id, r.actual);
    assert.equal(e.actual.rank, r.rank, `position ${r.position}: rank of the next token`);
    assert.ok(Math.abs(e.actual.prob - r.actual_prob) <= 1e-5 + 1e-3 * r.actual_prob);
  }
  const texts = await hook(() => window.__attnscope.tokenTexts);
  const entry = entries.find((e) => e.position === 2);
  assert.ok(entry.actual, 'position 2 has a following token');
  assert.equal(entry.actual.text, texts[3]);
  assert.equal(await page.locator('#next-token .next-list li').count(), entry.top.length);
  assert.equal(await page.locator('#next-token .next-actual').getAttribute('data-rank'), String(entry.actual.rank));
  assert.match(await page.locator('#next-token .next-actual').textContent(), new RegExp(`no\\. ${entry.actual.rank + 1}\\b`));
});

// Where a generation stood, for a wait that timed out: the panel's status and buttons, the
// generation without its rows, the page's settled-or-not signs (data-generating is '' while set).
function generationSigns() {
  const g = window.__attnscope.generation;
  return { genStatus: document.getElementById('gen-status').textContent, runStatus: document.getElementById('run-status').textContent,
    start: document.getElementById('gen-start').disabled ? 'disabled' : 'enabled', stop: document.getElementById('gen-stop').disabled ? 'disabled' : 'enabled',
    generation: g && { ...g, steps: g.steps.length, ids: g.ids?.length ?? null }, body: { ...document.body.dataset },
    runsDone: window.__attnscope.runsDone, viewJobs: window.__attnscope.viewJobs };
}
const generationDone = (p) => waitSaying(p, () => window.__attnscope.generation?.done && document.body.dataset.generating === undefined,
  null, { describe: generationSigns });

async function generate() {
  // Start from a settled page: a run still in flight from the previous step would count as shown.
  await waitSaying(page, () => document.body.dataset.status === 'ready' && document.body.dataset.generating === undefined, null,
    { describe: generationSigns });
  await page.waitForTimeout(200);
  const before = await hook(() => window.__attnscope.runsDone);
  await page.click('#gen-start');
  await generationDone(page);
  const gen = await hook(() => window.__attnscope.generation);
  const after = await hook(() => window.__attnscope.runsDone);
  return { gen, shown: after - before };
}

test('Generate streams N tokens; each streamed row equals a full run over the final ids (≤ 1e-5)', async () => {
  await showView('grid');
  await page.fill('#gen-tokens', '12');
  await page.locator('#gen-tokens').dispatchEvent('change');
  await page.fill('#gen-seed', '7');
  await page.locator('#gen-seed').dispatchEvent('change');
  assert.match(await page.evaluate(() => location.search), /gn=12.*gs=7|gs=7.*gn=12/);
  const promptLength = (await hook(() => window.__attnscope.shape))[2];
  const { gen, shown } = await generate();
  assert.equal(gen.error, null);
  assert.ok(gen.stopReason === 'max-new-tokens' ? gen.steps.length === 12 : gen.stopReason === 'eos', `${gen.stopReason}, ${gen.steps.length} steps`);
  // Every step was put on screen as it came (one showRun each), then the full run; a run of the
  // settled text may land in the same window on a loaded machine, never fewer.
  assert.ok(shown >= 1 + gen.steps.length + 1, `${shown} runs shown for ${gen.steps.length} steps`);
  const [L, H, T] = await hook(() => window.__attnscope.shape);
  assert.equal(T, promptLength + gen.steps.length);
  assert.equal(await page.locator('#chips .chip.generated').count(), gen.steps.length);
  let worst = 0;
  for (const step of gen.steps) {
    assert.equal(step.keys, step.position + 1);
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const full = await hook(([a, b]) => window.__attnscope.raw(a, b), [l, h]);
        for (let j = 0; j < T; j++) {
          const streamed = j < step.keys ? step.attention[(l * H + h) * step.keys + j] : 0;
          worst = Math.max(worst, Math.abs(streamed - full[step.position * T + j]));
        }
      }
    }
  }
  // The rows compared above are the full run's (it has q, k, v; the streamed result has none).
  assert.equal((await hook(() => window.__attnscope.vector('q', 0, 0, 0))).length > 0, true);
  console.log(`# ${gen.steps.length} streamed rows (KV cache) vs a full run over the final ids: max |diff| ${worst.toExponential(2)}`);
  assert.ok(worst <= 1e-5, `largest difference ${worst}`);
  // The same prompt and seed write the same tokens again.
  const again = await generate();
  assert.deepEqual(again.gen.ids, gen.ids);
  // And so does the permalink, in a fresh page.
  const url = await page.evaluate(() => location.href);
  const other = await guardedPage(browser, server.origin);
  await other.page.goto(url);
  await waitForRuns(other.page, 1);
  await other.page.click('#gen-start');
  await generationDone(other.page);
  assert.deepEqual(await other.page.evaluate(() => window.__attnscope.generation.ids), gen.ids);
  assert.deepEqual(other.problems, []);
  await other.context.close();
});

test('Stop ends a generation between two steps', async () => {
  await page.fill('#gen-tokens', '200');
  await page.locator('#gen-tokens').dispatchEvent('change');
  await page.fill('#gen-temperature', '0');   // greedy: this text does not end in an end-of-text token
  await page.locator('#gen-temperature').dispatchEvent('change');
  // The tiny model writes 200 tokens in a blink: press Stop the moment the third step arrives.
  await page.evaluate(() => {
    const panel = document.getElementById('generate-panel');
    const onStep = (e) => {
      if (e.detail.index < 2) return;
      panel.removeEventListener('generation-step', onStep);
      document.getElementById('gen-stop').click();
    };
    panel.addEventListener('generation-step', onStep);
  });
  await page.click('#gen-start');
  await generationDone(page);
  const gen = await hook(() => window.__attnscope.generation);
  if (gen.stopReason !== 'eos') {
    assert.equal(gen.stopReason, 'aborted');
    assert.ok(gen.steps.length < 200, `${gen.steps.length} steps`);
  }
  await page.waitForTimeout(300);
  assert.equal((await hook(() => window.__attnscope.generation)).steps.length, gen.steps.length, 'no step after Stop');
  assert.equal(await page.locator('#gen-stop').isDisabled(), true);
  assert.equal((await hook(() => window.__attnscope.shape))[2], (await hook(() => window.__attnscope.generation)).ids.length);
});

test('Stop in a long generation says so at once and stops within a step, not after the paced steps', async () => {
  // The worker writes 150 tokens long before the page has shown them one per pace; Stop must drop
  // the rest at once. Compared within this run: Stop → done against the pace of the steps shown.
  await page.fill('#gen-tokens', '150');
  await page.locator('#gen-tokens').dispatchEvent('change');
  await page.fill('#gen-temperature', '0');
  await page.locator('#gen-temperature').dispatchEvent('change');
  const probe = page.evaluate(() => new Promise((resolve) => {
    const panel = document.getElementById('generate-panel');
    const times = [];
    const onStep = (e) => {
      times.push(performance.now());
      if (e.detail.index < 5) return;
      panel.removeEventListener('generation-step', onStep);
      const stoppedAt = performance.now();
      document.getElementById('gen-stop').click();
      const said = { status: document.getElementById('gen-status').textContent, line: document.getElementById('run-status').textContent,
        disabled: document.getElementById('gen-stop').disabled, shown: window.__attnscope.generation.steps.length };
      const wait = () => (window.__attnscope.generation.done ? resolve({ said, times, stoppedAt, doneAt: performance.now() }) : setTimeout(wait, 5));
      wait();
    };
    panel.addEventListener('generation-step', onStep);
  }));
  await page.click('#gen-start');
  const { said, times, stoppedAt, doneAt } = await probe;
  assert.match(said.status, /^Stopping after 6 token/);
  assert.equal(said.line, said.status, 'the status line under the chips says it too');
  assert.equal(said.disabled, true, 'Stop stays enabled after Stop');
  const pace = (times.at(-1) - times[0]) / (times.length - 1);
  const unshown = 150 - said.shown;
  assert.ok(doneAt - stoppedAt < (unshown * pace) / 4,
    `Stop took ${(doneAt - stoppedAt).toFixed(0)} ms; the ${unshown} steps not shown take ${(unshown * pace).toFixed(0)} ms at the page's pace`);
  const gen = await hook(() => window.__attnscope.generation);
  assert.equal(gen.stopReason, 'aborted');
  assert.equal(gen.steps.length, said.shown, 'no step shown after Stop');
  assert.match(await page.locator('#gen-status').textContent(), /^Stopped after 6 token/);
  assert.equal((await hook(() => window.__attnscope.shape))[2], gen.ids.length);
});

// A page of its own at `query` (a compare view), once both panels are drawn: the page and what
// each panel shows (the test hook's compare()).
async function openCompare(query) {
  const other = await guardedPage(browser, server.origin);
  await other.page.goto(`${server.origin}/${query}`);
  await other.page.waitForFunction(() => {
    const panels = [...document.querySelectorAll('.compare-panel')];
    return panels.length === 2 && panels.every((p) => p.dataset.ready === '1');
  }, null, { timeout: 30000 });
  const enc = await other.page.evaluate(() => window.__attnscope.compare('encoder'));
  const dec = await other.page.evaluate(() => window.__attnscope.compare('decoder'));
  return { other, enc, dec };
}

test('?view=compare offers only the layers both models have and shows both at that one layer, as the URL says', async () => {
  // The decoder has more layers than the bundled BERT: layer 7 is the decoder's last.
  const { other, enc, dec } = await openCompare('?model=bundled-causal&view=compare&layer=7&head=1');
  const layers = await other.page.evaluate(() => [...document.querySelectorAll('.view-compare .layer-picker option')].map((o) => Number(o.value)));
  const encoderLayers = Number(/(\d+) layers/.exec(await other.page.locator('.compare-panel[data-side="encoder"] .hint').first().textContent())[1]);
  assert.equal(Math.max(...layers), encoderLayers - 1, 'the picker offers a layer one of the models does not have');
  assert.deepEqual([enc.layer, enc.head], [dec.layer, dec.head]);
  assert.deepEqual([enc.layer, enc.head], [encoderLayers - 1, 1]);
  const url = new URL(other.page.url()).searchParams;
  assert.equal(url.get('layer'), String(enc.layer), 'the URL keeps a layer that is not shown');
  assert.equal(await other.page.evaluate(() => window.__attnscope.state.layer), enc.layer);
  assert.deepEqual(other.problems, []);
  await other.context.close();
});

test('?view=compare: BERT bidirectional beside the causal decoder, same layer and head, EN and KO text', async () => {
  const { other, enc, dec } = await openCompare(`?view=compare&layer=1&head=2&text=${encodeURIComponent('The river bank was quiet')}`);
  assert.deepEqual([enc.layer, enc.head, dec.layer, dec.head], [1, 2, 1, 2]);
  assert.equal(enc.causal, false);
  assert.equal(dec.causal, true);
  let upperEnc = 0;
  for (let i = 0; i < enc.n; i++) for (let j = i + 1; j < enc.n; j++) upperEnc += enc.matrix[i * enc.n + j];
  assert.ok(upperEnc > 0.1, 'the encoder attends to later tokens');
  for (let i = 0; i < dec.n; i++) for (let j = i + 1; j < dec.n; j++) assert.equal(dec.matrix[i * dec.n + j], 0);
  assert.equal(await other.page.locator('.compare-panel[data-side="decoder"] .heatmap-overlay').getAttribute('data-causal'), '1');
  assert.equal(await other.page.locator('.compare-panel[data-side="encoder"] .heatmap-overlay').getAttribute('data-causal'), '');
  assert.match(await other.page.locator('.compare-panel[data-side="encoder"] .compare-explain').textContent(), /Bidirectional/);
  await other.page.click('[data-lang="ko"]');
  await other.page.waitForFunction(() => document.querySelector('.compare-panel[data-side="decoder"] .compare-explain').textContent.includes('단방향'));
  assert.match(await other.page.locator('.compare-panel[data-side="encoder"] .compare-explain').textContent(), /양방향 어텐션/);
  // The encoder picked for the other views draws lines to later tokens too (the counter works).
  await other.page.click('[role=tab][data-view="lines"]');
  await other.page.waitForFunction(() => Number(document.querySelector('.view-lines canvas.lines')?.dataset.drawn) === 4);
  assert.ok(Number(await other.page.locator('.view-lines canvas.lines').getAttribute('data-forward-links')) > 0);
  assert.deepEqual(other.problems, []);
  await other.context.close();
});

test('the picker offers GPT-2 hub models with their download size and fetches nothing until Load', async () => {
  const options = await page.locator('#model-select option').evaluateAll((os) => os.map((o) => o.value));
  for (const id of ['bundled', 'bundled-causal', 'distilgpt2', 'gpt2']) assert.ok(options.includes(id), id);
  for (const [id, mb] of [['distilgpt2', 353], ['gpt2', 548]]) {
    await page.selectOption('#model-select', id);
    await page.waitForFunction(() => !document.getElementById('hub-size').hidden);
    assert.match(await page.locator('#hub-size').textContent(), new RegExp(`${id}: about ${mb} MB`));
  }
  await page.waitForTimeout(300);
  assert.equal((await hook(() => window.__attnscope.info)).kind, 'decoder', 'still the bundled decoder');
  assert.deepEqual(problems, [], 'no request to the hub');
});

test('/?model=bundled-causal&text=The%20river and /?view=compare load with no console error', async () => {
  for (const [path, ready] of [
    ['/?model=bundled-causal&text=The%20river', () => window.__attnscope?.info?.kind === 'decoder' && window.__attnscope.runsDone >= 1 && document.body.dataset.status === 'ready'],
    ['/?view=compare', () => document.querySelectorAll('.compare-panel[data-ready="1"]').length === 2],
  ]) {
    const other = await guardedPage(browser, server.origin);
    await other.page.goto(server.origin + path);
    await other.page.waitForFunction(ready, null, { timeout: 30000 });
    await other.page.waitForTimeout(300);
    assert.deepEqual(other.problems, [], path);
    await other.context.close();
  }
});

test('Steering: plain and steered side by side, they differ, the size is the engine\'s v, the link restores it', async () => {
  const started = Date.now();
  await showView('grid');
  // Twelve tokens (an earlier test left Generate at 150: four paced writings of those took over
  // the wait beside another test file).
  const settings = { '#gen-tokens': '12', '#steer-from': 'the house', '#steer-to': 'the school', '#steer-layer': '5', '#steer-strength': '2' };
  for (const [field, value] of Object.entries(settings)) {
    await page.fill(field, value);
    await page.locator(field).dispatchEvent('change');
  }
  const params = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
  assert.deepEqual([params.st, params.sl, params.ss], ['the school', '5', '2']);
  const steerDone = (p) => p.waitForFunction(() => { const s = window.__attnscope.steering; return s && !s.running && s.steered; }, null, { timeout: 30000 });
  await page.click('#steer-start');
  await steerDone(page);
  const s = await hook(() => window.__attnscope.steering);
  const n = (await hook(() => window.__attnscope.state)).genTokens;
  assert.equal(s.plain.ids.length, n);
  assert.notDeepEqual(s.steered.ids, s.plain.ids);
  assert.ok(await page.locator('.steer-col[data-which="steered"] mark.is-different').count() > 0);
  assert.match(await page.locator('.steer-parting').textContent(), /leaves the plain one at token \d+/);
  // The views show the steered text's rows: the prompt's and every token it wrote.
  const onScreen = await hook(() => window.__attnscope.ids);
  assert.deepEqual(onScreen.slice(-s.steered.ids.length), s.steered.ids);
  // The API, greedy from the same prompt: plain as the panel's plain; steered with the panel's
  // measured direction as the vector as the panel's steered (the vector is the engine's v).
  const model = await loadModel('bundled-causal');
  try {
    const plain = await model.generate(TEXT, { maxNewTokens: n, temperature: 0 }).result;
    assert.deepEqual(Array.from(plain.ids.slice(plain.promptLength)), s.plain.ids);
    assert.equal(onScreen.length, plain.promptLength + s.steered.ids.length);
    const generation = model.generate(TEXT, { maxNewTokens: n, temperature: 0,
      steer: { layer: 5, strength: 2, vector: s.size.vector } });
    const steered = await generation.result;
    assert.deepEqual(Array.from(steered.ids.slice(steered.promptLength)), s.steered.ids);
    // The prompt's rows on screen are the steered prompt's (the push starts at layer 5, so the
    // last layer's rows differ from the plain run's), as the API's generation holds them.
    const [L, H, T] = generation.prompt.shape, T1 = onScreen.length;
    const shown = await hook(([l, h]) => Array.from(window.__attnscope.raw(l, h)), [L - 1, H - 1]);
    const promptRows = Array.from({ length: T }, (_, i) => shown.slice(i * T1, i * T1 + T)).flat();
    const want = generation.prompt.attentions.subarray(((L - 1) * H + H - 1) * T * T, (L * H) * T * T);
    assert.ok(maxAbsDiff(promptRows, Array.from(want)).max <= 1e-6, 'the steered prompt\'s rows');
    const plainRun = await model.run(TEXT);
    assert.ok(maxAbsDiff(promptRows, Array.from(plainRun.attention(L - 1, H - 1))).max > 1e-3, 'not the plain run\'s rows');
  } finally {
    model.dispose();
  }
  const norm = Math.hypot(...s.size.vector);
  assert.ok(Math.abs(norm - s.size.direction) < 1e-4 * norm && Math.abs(s.size.push - 2 * s.size.direction) < 1e-9);
  assert.match(await page.locator('#steer-size').textContent(), new RegExp(`‖v‖ = ${s.size.direction.toFixed(2)}`));
  // The link: a fresh page has the four settings and writes the same steered text.
  const other = await guardedPage(browser, server.origin);
  await other.page.goto(await page.evaluate(() => location.href));
  await waitForRuns(other.page, 1);
  for (const [field, value] of Object.entries(settings)) assert.equal(await other.page.inputValue(field), value);
  await other.page.click('#steer-start');
  await steerDone(other.page);
  assert.deepEqual((await other.page.evaluate(() => window.__attnscope.steering)).steered.ids, s.steered.ids);
  assert.deepEqual(other.problems, []);
  await other.context.close();
  console.log(`# steering: ${Date.now() - started} ms`);
});

test('steering settings round-trip through the URL; invalid ones fall back to the defaults', () => {
  const s = { ...defaultState(), steerFrom: 'a', steerTo: 'b c', steerLayer: 7, steerStrength: -2.5 };
  assert.deepEqual(stateFromUrl(stateToUrl(s)), s);
  const d = defaultState();
  const bad = stateFromUrl('?sl=x&ss=1e3');
  assert.deepEqual([bad.steerLayer, bad.steerStrength], [d.steerLayer, d.steerStrength]);
  assert.equal(stateFromUrl('?ss=101').steerStrength, d.steerStrength);
});

test('generation settings round-trip through the URL; invalid ones fall back to the defaults', () => {
  const s = { ...defaultState(), model: 'bundled-causal', genTokens: 12, genTemperature: 0.8, genTopK: 0, genSeed: 4242 };
  assert.deepEqual(stateFromUrl(stateToUrl(s)), s);
  assert.match(stateToUrl(s), /gn=12&gt=0\.8&gk=0&gs=4242/);
  const bad = stateFromUrl('?gn=0&gt=-1&gk=x&gs=1e9');
  const d = defaultState();
  assert.deepEqual([bad.genTokens, bad.genTemperature, bad.genTopK, bad.genSeed], [d.genTokens, d.genTemperature, d.genTopK, d.genSeed]);
  assert.equal(stateFromUrl('?gn=201').genTokens, d.genTokens);
  assert.equal(stateFromUrl('?gt=11').genTemperature, d.genTemperature);
});

test('no console error, uncaught error or request outside the origin', () => {
  assert.deepEqual(problems, []);
});
