// Word-level attention in the page: with "Words: pieces merged" on, the head, grid and
// lines views draw one row and column per word, each view says so, and the matrix equals a merge
// computed here from the engine's raw token matrix (words from splitting the text on whitespace;
// columns summed, then rows averaged) with rows summing to 1; hiding [CLS]/[SEP] hides their
// words; switching it off brings the tokens back; the permalink keeps it (w=1); Save figure data
// then writes the words and their matrix.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';

const TEXT = 'The unaffable tokenizer mispronounced embeddings.';
let server, browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

// Token → word by the whitespace chunk its span starts in; special tokens alone.
function referenceGroups(tokens, offsets, text) {
  const chunks = [...text.matchAll(/\S+/gu)].map((m) => [m.index, m.index + m[0].length]);
  const groups = [];
  let lastChunk = -1;
  tokens.forEach((token, t) => {
    const [s, e] = [offsets[2 * t], offsets[2 * t + 1]];
    const chunk = e > s && !/^\[(CLS|SEP)\]$/.test(token) ? chunks.findIndex(([a, b]) => s >= a && s < b) : -1;
    if (chunk >= 0 && chunk === lastChunk) groups.at(-1).push(t);
    else groups.push([t]);
    lastChunk = chunk;
  });
  return groups;
}

function referenceMerge(raw, T, groups) {
  const W = groups.length;
  const out = [];
  for (const rows of groups) {
    for (let b = 0; b < W; b++) {
      let sum = 0;
      for (const i of rows) for (const j of groups[b]) sum += raw[i * T + j];
      out.push(sum / rows.length);
    }
  }
  return out;
}

test('head view: words merged, equal to an independent merge, rows sum to 1; off restores tokens', async () => {
  const { page, problems } = await guardedPage(browser, server.origin);
  await page.goto(`${server.origin}/?view=head&layer=1&head=2&w=1&text=${encodeURIComponent(TEXT)}`);
  await waitForRuns(page, 1);
  const got = await page.evaluate(() => {
    const h = window.__attnscope;
    return { tokens: h.tokens, offsets: h.offsets, raw: h.raw(1, 2), shown: h.shown(1, 2), labels: h.shownLabels(),
      badge: document.querySelector('.view-head .words-badge')?.textContent, checked: document.getElementById('words').checked };
  });
  const groups = referenceGroups(got.tokens, got.offsets, TEXT);
  assert.ok(groups.some((g) => g.length > 1), 'the text has split words');
  assert.ok(got.checked);
  assert.match(got.badge, /Words: pieces merged/);
  assert.deepEqual(got.labels, ['[CLS]', 'The', 'unaffable', 'tokenizer', 'mispronounced', 'embeddings.', '[SEP]']
    .filter((w, i) => i < groups.length));
  assert.equal(got.labels.length, groups.length);
  const want = referenceMerge(got.raw, got.tokens.length, groups);
  const W = groups.length;
  assert.equal(got.shown.length, W * W);
  got.shown.forEach((v, c) => assert.ok(Math.abs(v - want[c]) < 1e-6, `cell ${c}: ${v} vs ${want[c]}`));
  for (let a = 0; a < W; a++) {
    const sum = got.shown.slice(a * W, (a + 1) * W).reduce((x, y) => x + y, 0);
    assert.ok(Math.abs(sum - 1) < 1e-5, `row ${a} sums to ${sum}`);
  }
  // "Save figure data" with words on writes the word spans and the head's word matrix (the frozen
  // figure that <attn-scope src> draws as words, tests/e2e/frozen-figures.test.js).
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-figure')]);
  const figure = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.deepEqual([figure.view, figure.layer, figure.head], ['head', 1, 2]);
  assert.deepEqual(figure.words.map((w) => w.tokens), groups);
  assert.deepEqual(figure.words.map((w) => w.text), got.labels);
  assert.equal(figure.wordAttentions.length, 1);
  figure.wordAttentions[0].forEach((v, c) => assert.ok(Math.abs(v - want[c]) <= 1e-6, `saved word cell ${c}: ${v} vs ${want[c]}`));
  // Hiding [CLS]/[SEP] hides their words; rows renormalised over the words shown.
  await page.check('#hide-special');
  const hidden = await page.evaluate(() => ({ labels: window.__attnscope.shownLabels(), shown: window.__attnscope.shown(1, 2) }));
  assert.deepEqual(hidden.labels, got.labels.slice(1, -1));
  const V = hidden.labels.length;
  for (let a = 0; a < V; a++) {
    const sum = hidden.shown.slice(a * V, (a + 1) * V).reduce((x, y) => x + y, 0);
    assert.ok(Math.abs(sum - 1) < 1e-5, `hidden row ${a} sums to ${sum}`);
  }
  await page.uncheck('#hide-special');
  await page.uncheck('#words');
  // The view drops its badge on the frame after the switch.
  await page.locator('.view-head .words-badge').waitFor({ state: 'detached' });
  const off = await page.evaluate(() => ({ n: window.__attnscope.shownLabels().length, url: location.search,
    badge: document.querySelector('.view-head .words-badge') }));
  assert.equal(off.n, got.tokens.length);
  assert.equal(off.badge, null);
  assert.doesNotMatch(off.url, /w=1/);
  assert.deepEqual(problems, []);
  await page.context().close();
});

for (const view of ['grid', 'lines', 'formula']) {
  test(`${view} view with words on`, async () => {
    const { page, problems } = await guardedPage(browser, server.origin);
    await page.goto(`${server.origin}/?view=${view}&w=1&text=${encodeURIComponent(TEXT)}`);
    await waitForRuns(page, 1);
    const got = await page.evaluate((v) => ({ n: window.__attnscope.shownLabels().length, T: window.__attnscope.tokens.length,
      badge: document.querySelector(`.view-${v} .words-badge`)?.textContent ?? null }), view);
    if (view === 'formula') {   // the formula stays on tokens: no merge, no badge
      assert.equal(got.n, got.T);
      assert.equal(got.badge, null);
    } else {
      assert.ok(got.n < got.T, `${got.n} words < ${got.T} tokens`);
      assert.match(got.badge, /pieces merged/);
    }
    assert.deepEqual(problems, []);
    await page.context().close();
  });
}

test('Korean: the switch and the badge are translated', async () => {
  const { page, problems } = await guardedPage(browser, server.origin);
  await page.goto(`${server.origin}/?view=head&w=1&lang=ko&text=${encodeURIComponent(TEXT)}`);
  await waitForRuns(page, 1);
  const badge = await page.textContent('.view-head .words-badge');
  assert.match(badge, /단어: 조각 합침/);
  assert.deepEqual(problems, []);
  await page.context().close();
});
