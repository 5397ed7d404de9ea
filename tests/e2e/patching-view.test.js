// The Patching view on the bundled decoder: the example list opens the church/school example, its
// grid is drawn row by row and the head grid finds layer 3 head 3 (README, "Asking why"); a head
// cell opens that head; the link restores the view; without a corrupted prompt or answers the view
// suggests them. On the bundled T5: its example's encoder grid, the stack switch, and a link to a
// decoder head grid. Desktop in English, phone in Korean; the console stays clean.
import { it } from 'node:test';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { guardedPage, nextFrame, serverAndBrowser, waitForRuns } from './helpers.js';
import { PATCHING_EXAMPLE, PATCHING_SEQ2SEQ_EXAMPLE as T5 } from '../../web/src/model/patch-suggest.js';

const env = serverAndBrowser();
const PHONE = { width: 390, height: 844 };

const gridDone = (page, site, stack = null) => page.waitForFunction(([s, k]) => {
  const p = window.__attnscope.patching;
  return p && p.site === s && p.stack === k && p.state === 'done';
}, [site, stack], { timeout: 60000 });
// Layer 0's residual stream is the tokens' embeddings (T5 adds no position embeddings): patching it
// at the one position that differs gives the clean run (1), anywhere else changes nothing (0).
const near = (row, expected) => row.length === expected.length && row.every((v, i) => Math.abs(v - expected[i]) < 1e-5);
const param = (page, name) => page.evaluate((n) => new URLSearchParams(location.search).get(n), name);

it('desktop, English: the example opens the grid; the head grid finds layer 3 head 3; a cell opens it', async () => {
  const g = await guardedPage(env.browser, env.server.origin);
  const { page } = g;
  await page.goto(env.server.origin + '/');
  await waitForRuns(page, 1);
  await page.click('[data-example="patching"]');
  await gridDone(page, 'resid_pre');
  let p = await page.evaluate(() => window.__attnscope.patching);
  assert.equal(p.rows, 8);
  assert.equal(p.scores[0].length, await page.evaluate(() => window.__attnscope.tokens.length));
  assert.ok(p.clean > 0 && p.corruptedLd < 0, `LDs ${p.clean}, ${p.corruptedLd}`);
  // The one differing token is marked in both rows of the alignment.
  assert.deepEqual(await page.locator('.patch-align td.is-different').allTextContents(), ['␣church', '␣school']);
  assert.equal(await param(page, 'corrupted'), PATCHING_EXAMPLE.corrupted);
  assert.equal(await param(page, 'answer'), ' church');
  assert.match(await page.locator('.patch-meaning').textContent(), /1 .*restores the clean answer/);

  await page.locator('.patch-site select').selectOption({ label: 'Each head’s output (layer × head)' });
  await gridDone(page, 'head');
  p = await page.evaluate(() => window.__attnscope.patching);
  const cells = p.scores.flatMap((row, l) => row.map((v, h) => ({ l, h, v })));
  const best = cells.reduce((a, b) => (b.v > a.v ? b : a));
  assert.deepEqual([best.l, best.h], [3, 3]);
  assert.ok(Math.abs(best.v - 0.62) < 0.03, `layer 3 head 3 restores ${best.v}`);
  assert.equal(await param(page, 'site'), 'head');

  const box = await page.locator('.patch-grid .heatmap-overlay').boundingBox();
  const geo = await page.locator('.patch-grid .heatmap-overlay').evaluate((c) => ({ ...c.dataset }));
  assert.deepEqual([geo.n, geo.cols], ['8', '4']);
  await page.mouse.click(box.x + Number(geo.labelW) + 3.5 * Number(geo.cell), box.y + Number(geo.labelH) + 3.5 * Number(geo.cell));
  await page.waitForFunction(() => window.__attnscope.state.view === 'head');
  const s = await page.evaluate(() => window.__attnscope.state);
  assert.deepEqual([s.layer, s.head], [3, 3]);

  // The bundled T5's example: two sources, the target so far "the man"; the encoder's grid.
  // Loading the T5 first runs the old text, and the view computes this same grid on that run; once
  // the example's own run is drawn it starts over, its alignment table cleared meanwhile.
  await page.click('[data-example="patchingSeq2Seq"]');
  await page.waitForFunction((clean) => window.__attnscope.runText === clean && window.__attnscope.status === 'ready',
    T5.clean, { timeout: 60000 });
  await nextFrame(page);   // the example's run drawn: the view has started over on it
  await gridDone(page, 'resid_pre', 'encoder');
  p = await page.evaluate(() => window.__attnscope.patching);
  assert.equal(p.rows, 3);
  assert.ok(near(p.scores[0], [0, 0, 0, 0, 1, 0, 0]), `layer 0: ${p.scores[0]}`);
  assert.ok(p.clean > 0 && p.corruptedLd < 0, `LDs ${p.clean}, ${p.corruptedLd}`);
  assert.deepEqual(await page.locator('.patch-align td.is-different').allTextContents(), ['doctor', 'little']);
  assert.match(await page.locator('.patch-prefix-line').textContent(), /The decoder has written “the man”.*a noun follows/);
  assert.deepEqual([await param(page, 'prefix'), await param(page, 'patch-stack')], [T5.prefix, null], 'the encoder is the page\'s default');
  // Figure data: the grid as a version-3 figure of the encoder over the clean source.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-figure')]);
  const doc = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.deepEqual([doc.version, doc.kind, doc.patching.seq2seq.stack, doc.patching.seq2seq.targetTokens, doc.patching.scores],
    [3, 'enc', 'encoder', ['<pad>', 'the', 'man'], p.scores]);
  // The decoder's: its 2 layers × the start token and "the man", the same for both sources at layer 0.
  await page.locator('.patch-stack select').selectOption({ label: 'Decoder (target positions)' });
  await gridDone(page, 'resid_pre', 'decoder');
  p = await page.evaluate(() => window.__attnscope.patching);
  assert.equal(p.rows, 2);
  assert.ok(near(p.scores[0], [0, 0, 0]), `decoder layer 0: ${p.scores[0]}`);
  assert.equal(await param(page, 'patch-stack'), 'decoder');
  assert.deepEqual(g.problems, []);
  await g.context.close();
});

it('phone, Korean: the link restores the grid; without a corrupted prompt the view suggests one', async () => {
  const g = await guardedPage(env.browser, env.server.origin, PHONE);
  const { page } = g;
  const link = `/?model=bundled-causal&view=patching&lang=ko&site=head&text=${encodeURIComponent(PATCHING_EXAMPLE.clean)}` +
    `&corrupted=${encodeURIComponent(PATCHING_EXAMPLE.corrupted)}&answer=%20church&wrong=%20school`;
  await page.goto(env.server.origin + link);
  await waitForRuns(page, 1);
  await gridDone(page, 'head');
  const p = await page.evaluate(() => window.__attnscope.patching);
  assert.ok(p.scores[3][3] > 0.55, `layer 3 head 3: ${p.scores[3][3]}`);
  assert.deepEqual([p.answer, p.wrong, p.corrupted], [' church', ' school', PATCHING_EXAMPLE.corrupted]);
  assert.equal(await page.locator('[role=tab][data-view="patching"]').textContent(), '패칭');
  assert.match(await page.locator('.patch-meaning').textContent(), /점수 1/);
  assert.match(await page.locator('.patch-lds').textContent(), /로짓 차이/);
  const state = await page.evaluate(() => window.__attnscope.state);
  assert.deepEqual([state.patchSite, state.patchCorrupted, state.patchAnswer, state.patchWrong],
    ['head', PATCHING_EXAMPLE.corrupted, ' church', ' school']);

  // The clean prompt alone: the example's corruption suggested, the two runs' top tokens compared.
  await page.goto(`${env.server.origin}/?model=bundled-causal&view=patching&lang=ko&text=${encodeURIComponent(PATCHING_EXAMPLE.clean)}`);
  await waitForRuns(page, 1);
  await gridDone(page, 'resid_pre');
  const q = await page.evaluate(() => window.__attnscope.patching);
  assert.equal(q.suggested, true);
  assert.equal(q.corrupted, PATCHING_EXAMPLE.corrupted);
  assert.notEqual(q.answer, q.wrong);
  assert.match(await page.locator('.patch-note').textContent(), /내장 예제/);
  assert.equal(await param(page, 'corrupted'), null, 'a suggestion stays out of the link');

  // The bundled T5: a link to the decoder's head grid of its example.
  const t5 = new URLSearchParams({ model: 'bundled-seq2seq', view: 'patching', lang: 'ko', site: 'head', 'patch-stack': 'decoder',
    text: T5.clean, corrupted: T5.corrupted, prefix: T5.prefix, answer: T5.answer, wrong: T5.wrong });
  await page.goto(`${env.server.origin}/?${t5}`);
  await waitForRuns(page, 1);
  await gridDone(page, 'head', 'decoder');
  const r = await page.evaluate(() => window.__attnscope.patching);
  assert.deepEqual([r.rows, r.scores[0].length, r.answer, r.wrong, r.corrupted], [2, 4, T5.answer, T5.wrong, T5.corrupted]);
  assert.match(await page.locator('.patch-prefix-line').textContent(), /디코더가 “the man”까지/);
  assert.match(await page.locator('.patch-stack').textContent(), /스택.*디코더/);
  assert.deepEqual(g.problems, []);
  await g.context.close();
});
