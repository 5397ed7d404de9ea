// A RoBERTa-style checkpoint in the page: a local folder with GPT-2's byte-level
// vocabulary in RoBERTa's layout and random RobertaForMaskedLM weights loads through the folder
// input; the page's ids equal @huggingface/tokenizers' (<s> … </s>), the chips show readable
// tokens (no 'Ġ'), each chip's highlight covers the characters its token came from, and <mask>
// gets predictions. No console errors, no request leaves the origin.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';
import { writeRobertaFolder } from '../js/helpers/roberta-model.js';
import { makeBpeOracle } from '../js/helpers/tokenizer-bpe.js';

let server, browser, page, problems, tmp, oracle;
const hook = (fn, arg) => page.evaluate(fn, arg);

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-e2e-roberta-'));
  oracle = makeBpeOracle(writeRobertaFolder(tmp).tokenizer, 'roberta');
  server = await startServer();
  browser = await launchBrowser();
  ({ page, problems } = await guardedPage(browser, server.origin));
  await page.goto(server.origin + '/');
  await waitForRuns(page, 1);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('a RoBERTa folder runs in the page: HF ids, readable chips, right highlights, <mask> predicted', async () => {
  const runs = await hook(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(tmp);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.source === 'files', runs, { timeout: 60000 });
  assert.equal(await hook(() => window.__attnscope.info.config.family), 'roberta');

  const text = "Seoul's café is <mask> 😀 here.";
  const before = await hook(() => window.__attnscope.runsDone);
  await page.locator('#text-a').fill(text);
  await waitForRuns(page, before + 1);   // and its frame: the chips are read below
  const ids = await hook(() => window.__attnscope.ids);
  assert.deepEqual(ids, oracle.encode(text).ids);
  const texts = await hook(() => window.__attnscope.tokenTexts);
  assert.equal(texts[0], '<s>');
  assert.equal(texts.at(-1), '</s>');
  assert.ok(!texts.some((t) => t.includes('Ġ')), texts.join(' '));
  const chips = await page.locator('#chips .chip').allTextContents();
  assert.ok(chips.length >= ids.length - 2, `${chips.length} chips for ${ids.length} tokens`);
  assert.ok(!chips.some((c) => c.includes('Ġ')), chips.join(' '));
  // Offsets: every token's span lies in the text, in order, and holds whole characters (the two
  // byte-level tokens of the emoji both cover it whole, so spans may overlap there).
  const offsets = await hook(() => window.__attnscope.offsets);
  let lastStart = 0, lastEnd = 0;
  for (let t = 1; t < ids.length - 1; t++) {
    const [s, e] = [offsets[2 * t], offsets[2 * t + 1]];
    assert.ok(s >= lastStart && e >= lastEnd && e <= text.length && s <= e, `token ${t} [${s}, ${e})`);
    assert.ok(!/[\uDC00-\uDFFF]/.test(text[s] ?? '') && !/[\uD800-\uDBFF]/.test(text[e - 1] ?? ''), `token ${t} cuts a surrogate pair`);
    [lastStart, lastEnd] = [s, e];
  }
  assert.equal(text.slice(offsets[2 * 4], offsets[2 * 4 + 1]), 'café');  // "␣café": the space trimmed off
  const mask = await hook(() => window.__attnscope.maskPredictions);
  assert.equal(mask?.length, 1);
  assert.equal(oracle.encode(text).tokens[mask[0].position], '<mask>');
  assert.ok(mask[0].top.length > 0);
  assert.deepEqual(problems, []);
});
