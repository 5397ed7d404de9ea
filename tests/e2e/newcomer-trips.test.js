// What a newcomer still tripped on, each checked in the page: the BERT
// example's query on "it"; a link to the encoder–decoder's cross view opening on its own example
// with the target written; one layer numbering (L0…, as the grid) in the logit lens and the
// contributions; the lens's last column in sight at 1,280 px; a decoder opening on its last
// token; controls shown only for the models they apply to; what f16 and q8 do, said in the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardedPage, serverAndBrowser, waitForRuns, keepScreenshot } from './helpers.js';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const env = serverAndBrowser();

async function open(query, viewport = DESKTOP) {
  const g = await guardedPage(env.browser, env.server.origin, viewport);
  await g.page.goto(`${env.server.origin}/${query}`);
  await waitForRuns(g.page, 1);
  return g;
}

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test('"BERT: what does “it” look at?" puts the query (and the head view\'s row) on "it"', async () => {
  const g = await open('?model=bundled-causal');
  try {
    const runs = await g.page.evaluate(() => window.__attnscope.runsDone);
    await g.page.click('[data-example=bert]');
    await waitForRuns(g.page, runs + 2);   // the model's first run, then the example's
    await g.page.waitForFunction(() => window.__attnscope.state.model === 'bundled' && window.__attnscope.tokens?.includes('it'));
    await frames(g.page);
    const s = await g.page.evaluate(() => ({ tokens: window.__attnscope.tokens, query: window.__attnscope.state.query,
      selected: window.__attnscope.state.selected, chip: document.querySelector('#chips .chip.query .chip-token')?.textContent }));
    assert.equal(s.tokens[s.query], 'it', `the query is on "${s.tokens[s.query]}"`);
    assert.deepEqual(s.selected, [s.query]);
    assert.equal(s.chip, 'it');
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('a link to the encoder–decoder\'s cross view opens on its own example, the target written', async () => {
  const g = await open('?model=bundled-seq2seq&view=cross');
  try {
    await g.page.waitForFunction(() => {
      const s = window.__attnscope.seq2seq;
      return s && s.generated && !window.__attnscope.streamed && document.body.dataset.status === 'ready';
    }, null, { timeout: 60000 });
    const s = await g.page.evaluate(() => ({ text: window.__attnscope.state.text, seq: window.__attnscope.seq2seq, view: window.__attnscope.state.view }));
    assert.notEqual(s.text, 'The cat sat on the mat because it was tired.', 'still the BERT sentence');
    assert.equal(s.view, 'cross');
    assert.ok(s.seq.targetTokens.length > 3, `target rows: ${s.seq.targetTokens.join(' ')}`);
    assert.ok(s.seq.heldout > 0);
    await keepScreenshot(g.page, 'seq2seq-cross-link.png');
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('one layer numbering: the lens rows and the contributions name layers from 0, as the grid (L0…)', async () => {
  const g = await open('?model=bundled-causal&view=layers');
  try {
    await g.page.waitForSelector('.lens-grid');
    const L = await g.page.evaluate(() => window.__attnscope.info.config.numLayers);
    const rows = await g.page.$$eval('.lens-grid tbody th', (ths) => ths.map((th) => th.textContent));
    assert.deepEqual(rows.slice(1), Array.from({ length: L }, (_, l) => `L${l}`));
    const grid = await (async () => {
      await g.page.click('[role=tab][data-view=grid]');
      await g.page.waitForSelector('canvas.model-grid');
      return g.page.evaluate(() => document.querySelector('canvas.model-grid').getAttribute('aria-label') ?? '');
    })();
    await g.page.click('[role=tab][data-view=contributions]');
    await g.page.waitForSelector('.contrib-list li');
    const names = await g.page.$$eval('.contrib-list li', (lis) => lis.map((li) => ({ kind: li.dataset.kind, layer: li.dataset.layer,
      head: li.dataset.head, name: li.querySelector('.contrib-name').textContent })));
    for (const n of names) {
      assert.equal(n.name, n.kind === 'head' ? `L${n.layer} H${n.head}` : `L${n.layer} MLP`);
      assert.ok(Number(n.layer) < L);
    }
    assert.ok(names.some((n) => n.kind === 'mlp' || n.kind === 'head'), grid);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('the logit lens at 1,280 px shows its last column, the prediction after the text', async () => {
  const g = await open('?model=bundled-causal&view=layers');
  try {
    await g.page.waitForSelector('.lens-grid');
    await frames(g.page);
    const fit = await g.page.evaluate(() => {
      const box = document.querySelector('.lens-scroll').getBoundingClientRect();
      const last = document.querySelector('.lens-grid tbody tr:last-child td:last-child').getBoundingClientRect();
      return { boxRight: box.right, lastLeft: last.left, lastRight: last.right };
    });
    assert.ok(fit.lastLeft >= 0 && fit.lastRight <= fit.boxRight + 0.5, `the last column at ${JSON.stringify(fit)}`);
    await keepScreenshot(g.page, 'lens-1280.png');
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('a decoder opens on its last token: the next-token panel says what follows the text', async () => {
  const g = await open('?model=bundled-causal');
  try {
    await g.page.waitForSelector('#next-token:not([hidden])');
    const s = await g.page.evaluate(() => ({ T: window.__attnscope.tokens.length, query: window.__attnscope.state.query,
      panel: document.getElementById('next-token').dataset.position }));
    assert.equal(s.query, s.T - 1);
    assert.equal(s.panel, String(s.T - 1));
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
  // A link's own token is kept.
  const h = await open('?model=bundled-causal&q=2');
  try {
    await h.page.waitForSelector('#next-token:not([hidden])');
    assert.equal(await h.page.evaluate(() => window.__attnscope.state.query), 2);
  } finally {
    await h.context.close();
  }
});

test('"Hide special tokens" and "Second sentence" show only for the models they apply to', async () => {
  const cases = [
    { query: '', hide: true, pair: true, label: /\[CLS\], \[SEP\]/ },
    { query: '?model=bundled-causal', hide: false, pair: false },
    { query: '?model=bundled-seq2seq', hide: false, pair: false },
  ];
  for (const c of cases) {
    const g = await open(c.query);
    try {
      await frames(g.page);
      assert.equal(await g.page.locator('#hide-special').isVisible(), c.hide, `${c.query}: hide special`);
      assert.equal(await g.page.locator('#pair-on').isVisible(), c.pair, `${c.query}: pair`);
      if (c.label) assert.match(await g.page.locator('#hide-special-label').textContent(), c.label);
      assert.deepEqual(g.problems, []);
    } finally {
      await g.context.close();
    }
  }
});

test('f16 on the bundled model (stored in f16) says it changes nothing, and the attention is the same; q8 is explained in the page', async () => {
  const f32 = await open('?wp=f32', PHONE);
  const f16 = await open('?wp=f16', PHONE);
  const q8 = await open('?wp=q8', PHONE);
  try {
    assert.ok(await f32.page.locator('#precision-note').isHidden());
    const note16 = await f16.page.locator('#precision-note');
    assert.ok(await note16.isVisible());
    assert.match(await note16.textContent(), /stored in f16.*same/);
    const a = await f32.page.evaluate(() => window.__attnscope.raw(1, 2));
    const b = await f16.page.evaluate(() => window.__attnscope.raw(1, 2));
    const diff = Math.max(...Object.keys(a).map((k) => Math.abs(a[k] - b[k])));
    assert.ok(diff < 1e-6, `f16 vs f32 attention differs by ${diff}`);
    assert.match(await q8.page.locator('#precision-note').textContent(), /8-bit integers/);
    await keepScreenshot(q8.page, 'q8-phone.png', { clip: { x: 0, y: 0, width: 390, height: 300 } });
    for (const g of [f32, f16, q8]) assert.deepEqual(g.problems, []);
  } finally {
    for (const g of [f32, f16, q8]) await g.context.close();
  }
});

test('lesson step 9 colours each head as the Lines view under it does', async () => {
  const g = await open('?lesson=attention&step=9');
  try {
    await g.page.waitForSelector('.lesson-width-head');
    await g.page.waitForSelector('.view-lines .head-toggle');
    const got = await g.page.evaluate(() => ({
      lesson: [...document.querySelectorAll('.lesson-width-head')].map((e) => getComputedStyle(e).backgroundColor),
      lines: [...document.querySelectorAll('.view-lines .head-toggle')].map((e) => getComputedStyle(e, '::before').backgroundColor),
    }));
    assert.ok(got.lesson.length > 1);
    assert.deepEqual(got.lesson, got.lines);
    await keepScreenshot(g.page.locator('#lesson'), 'step9-colours.png');
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('phone: the lesson\'s bar figures (steps 5, 8) fit or say they scroll; the formula\'s softmax column is on screen', async () => {
  const long = 'The old river ran past the quiet mill and the bank where the children sat and watched the water all day long';
  // Each figure once: step 5 with the example sentence (fits), step 8 with a long one (scrolls, says so).
  for (const [step, text] of [[5, null], [8, long]]) {
    const g = await open(`?lesson=attention&step=${step}${text ? `&text=${encodeURIComponent(text)}` : ''}`, PHONE);
    try {
      await g.page.waitForSelector('.lesson-bars-row');
      await frames(g.page);
      const rows = await g.page.$$eval('.lesson-bars-row', (els) => els.map((e) => ({ wider: e.scrollWidth > e.clientWidth + 1,
        right: e.getBoundingClientRect().right, more: e.hasAttribute('data-more'),
        hint: !e.parentElement.querySelector('.scroll-hint').hidden })));
      for (const r of rows) {
        assert.ok(r.right <= PHONE.width, `step ${step}: the bars pass the screen's edge`);
        if (text) assert.ok(r.wider && r.more && r.hint, `step ${step}, a long sentence: no scroll cue ${JSON.stringify(r)}`);
        else assert.ok(!r.wider, `step ${step}: the sentence's bars should fit a phone`);
      }
      if (text) await keepScreenshot(g.page.locator('#lesson .lesson-figure'), `bars-cue-step${step}.png`);
      assert.deepEqual(g.problems, []);
    } finally {
      await g.context.close();
    }
  }
  for (const query of ['?view=formula', '?view=formula&model=bundled-causal&lang=ko']) {
    const g = await open(query, PHONE);
    try {
      await g.page.waitForSelector('.formula-table');
      const cols = await g.page.$$eval('.formula-table thead th', (ths) => ths.map((th) => {
        const r = th.getBoundingClientRect();
        return { left: r.left, right: r.right };
      }));
      const [first, last] = [cols[0], cols.at(-1)];
      assert.ok(first.left >= 0 && last.right <= PHONE.width && last.left >= first.right - 0.5,
        `${query}: key ${JSON.stringify(first)} and softmax ${JSON.stringify(last)} columns on screen`);
      await keepScreenshot(g.page.locator('.table-scroll:has(.formula-table)'), `formula-phone${query.includes('causal') ? '-causal' : ''}.png`);
      assert.deepEqual(g.problems, []);
    } finally {
      await g.context.close();
    }
  }
});

test('a Temperature or Top-p out of range says why instead of snapping back silently (EN, KO)', async () => {
  for (const lang of ['en', 'ko']) {
    const g = await open(`?model=bundled-causal&lang=${lang}`);
    try {
      await g.page.waitForSelector('#gen-temperature');
      const kept = await g.page.evaluate(() => window.__attnscope.state.genTemperature);
      await g.page.fill('#gen-temperature', '-3');
      await g.page.locator('#gen-temperature').dispatchEvent('change');
      const why = g.page.locator('.gen-field-error');
      await why.waitFor({ state: 'visible' });
      assert.equal(await g.page.locator('#gen-temperature').inputValue(), String(kept));
      const said = await why.textContent();
      assert.match(said, lang === 'ko' ? /온도는 0부터 10까지/ : /Temperature takes 0 to 10/);
      assert.ok(said.includes('-3') && said.includes(String(kept)), said);
      await keepScreenshot(g.page.locator('#generate-panel'), `bad-temperature-${lang}.png`);
      // The sampling preview's own fields say it too.
      await g.page.waitForSelector('#sampling-topp');
      await g.page.fill('#sampling-topp', '5');
      await g.page.locator('#sampling-topp').dispatchEvent('change');
      await g.page.waitForSelector('.sampling-error');
      assert.match(await g.page.locator('.sampling-error').textContent(), lang === 'ko' ? /Top-p는 0보다 크고 1 이하/ : /Top-p takes .* above 0 and at most 1.*5/);
      // A value in range is taken and the reason goes.
      await g.page.fill('#gen-temperature', '0.5');
      await g.page.locator('#gen-temperature').dispatchEvent('change');
      await why.waitFor({ state: 'hidden' });
      assert.equal(await g.page.evaluate(() => window.__attnscope.state.genTemperature), 0.5);
      assert.deepEqual(g.problems, []);
    } finally {
      await g.context.close();
    }
  }
});

test('desktop: while Generate writes, its panel and the heatmaps are on screen together', async () => {
  const g = await open(`?model=bundled-causal&gn=40&gt=0&text=${encodeURIComponent('Once upon a time')}`);
  try {
    const start = g.page.locator('#gen-start');
    await start.scrollIntoViewIfNeeded();   // where a reader goes to press it
    await start.click();
    await g.page.waitForFunction(() => 'generating' in document.body.dataset);
    const seen = async () => g.page.evaluate(() => {
      const box = (e) => { const r = e.getBoundingClientRect(); return { top: Math.round(r.top), bottom: Math.round(r.bottom) }; };
      return { panel: box(document.getElementById('gen-stop')), grid: box(document.querySelector('canvas.model-grid')), height: window.innerHeight };
    });
    // Most of each in sight (the page moves a little as the panels above grow and shrink).
    const inside = (b, h) => Math.min(b.bottom, h) - Math.max(b.top, 0) >= 0.6 * (b.bottom - b.top);
    const during = await seen();
    assert.ok(inside(during.panel, during.height) && inside(during.grid, during.height), `while writing: ${JSON.stringify(during)}`);
    await g.page.waitForFunction(() => !('generating' in document.body.dataset), null, { timeout: 60000 });
    await keepScreenshot(g.page, 'generate-desktop.png');
    const after = await seen();
    assert.ok(inside(after.panel, after.height) && inside(after.grid, after.height), `after: ${JSON.stringify(after)}`);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});
