// Leaving a view or changing the model stops the old view's worker jobs (web/src/host/run-controller.js):
// the head table's corpus job, the query/key map's corpus job and a head-ablation job, started in
// the page's worker, end as aborted (the worker client's task loop stops after the slice in
// progress) once another view is shown or another model is picked. Seen through the test hook's
// viewJobs (each job's kind and how it ended) and the views' own "cancelled" status. And a finished
// corpus belongs to its model: the head table of the next model has no columns of it. In Chromium
// with the bundled models.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';

let server, browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const lastJob = (page, kind) => page.evaluate((k) => window.__attnscope.viewJobs.filter((j) => j.kind === k).at(-1) ?? null, kind);
const jobEnded = (page, kind) => page.waitForFunction((k) => window.__attnscope.viewJobs.filter((j) => j.kind === k).at(-1)?.state !== 'running', kind);

// The page at `query` after its first run, given to `check`; no console error by the end.
async function onPage(query, check) {
  const { page, context, problems } = await guardedPage(browser, server.origin);
  try {
    await page.goto(`${server.origin}/${query}`);
    await waitForRuns(page, 1);
    await check(page);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
}

// Starts `button` in the head table and waits until its job has run at least one slice.
async function startInHeads(page, button, kind) {
  await page.click(button);
  await page.waitForFunction(() => Number(document.querySelector('.heads-bar progress')?.value) > 0);
  assert.deepEqual(await lastJob(page, kind), { kind, state: 'running' }, 'the job ended before the switch: nothing was stopped');
}

test('showing another view aborts the head table\'s corpus and ablation jobs', () => onPage('?view=heads', async (page) => {
  for (const [button, kind] of [['.heads-corpus', 'corpus'], ['.heads-ablate', 'ablation']]) {
    await startInHeads(page, button, kind);
    await page.click('[role=tab][data-view="grid"]');
    await jobEnded(page, kind);
    assert.deepEqual(await lastJob(page, kind), { kind, state: 'aborted' });
    await page.click('[role=tab][data-view="heads"]');
    assert.match(await page.locator('.heads-status').textContent(), /cancel/i);
    assert.equal(await page.locator('.heads-corpus').isDisabled(), false, 'the table still waits for the job');
  }
  // The worker is free for the page's own runs.
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#text-a').fill('a big red tree');
  await waitForRuns(page, runs + 1);
}));

test('picking another model aborts the corpus job of the model it replaces', () => onPage('?view=heads', async (page) => {
  await startInHeads(page, '.heads-corpus', 'corpus');
  await page.locator('#model-select').selectOption('bundled-causal');
  await page.waitForFunction(() => window.__attnscope.info?.kind === 'decoder' && window.__attnscope.status === 'ready');
  assert.deepEqual(await lastJob(page, 'corpus'), { kind: 'corpus', state: 'aborted' });
}));

test('leaving the query/key map aborts the corpus job it started', () => onPage('?view=map', async (page) => {
  await page.waitForFunction(() => Number(document.querySelector('.view-map progress')?.value) > 0);
  assert.deepEqual(await lastJob(page, 'corpus'), { kind: 'corpus', state: 'running' }, 'the job ended before the switch');
  await page.click('[role=tab][data-view="head"]');
  await jobEnded(page, 'corpus');
  assert.deepEqual(await lastJob(page, 'corpus'), { kind: 'corpus', state: 'aborted' });
}));

test('the head table drops the sample\'s columns of the model it replaces', () => onPage('?view=heads', async (page) => {
  await page.click('.heads-corpus');
  await page.waitForFunction(() => window.__attnscope.heads?.rows[0]?.corpus_entropy !== undefined, null, { timeout: 60000 });
  // The bundled decoder has more heads than the bundled BERT: the old columns cannot fit it.
  await page.locator('#model-select').selectOption('bundled-causal');
  await page.waitForFunction(() => window.__attnscope.info?.kind === 'decoder' && window.__attnscope.status === 'ready');
  const [L, H] = await page.evaluate(() => window.__attnscope.shape);
  await page.waitForFunction((n) => window.__attnscope.heads.rows.length === n, L * H);
  assert.equal((await page.evaluate(() => window.__attnscope.heads)).rows.some((r) => 'corpus_entropy' in r), false);
  assert.equal(await page.locator('.heads-table .corpus-col').count(), 0);
}));
