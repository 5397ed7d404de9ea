// The Block view on the bundled T5: one target token through one decoder layer —
// masked self-attention, cross-attention over the source, feed-forward, each with its Add & Norm.
// The weights are retrained from time to time, so nothing here is a number copied from them: what
// the view shows (each head's weights over the target so far and over the source, ‖added‖ and ‖x‖
// after each sublayer, the largest entries each sublayer added) is compared with the float64
// PyTorch forward of tests/fixtures/make_seq2seq*_fixtures.py run now on model-seq2seq/ (through
// tests/e2e/helpers/seq2seq-torch-reference.py), the ids with Hugging Face's Rust tokenizers, the
// weights shown with the run's own cross_attentions row; every Add & Norm check is ≤ 1e-4. The same
// for a post-norm family (the BART golden fixture opened as a folder). The stack switch walks an
// encoder layer of the same run (?stack=encoder). Also:
// the tab is offered for an encoder–decoder, the permalink keeps layer and token, Korean text,
// no overflow at phone width, a clean console. ATTNSCOPE_SCREENSHOTS=dir keeps EN/KO desktop/phone shots.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from 'tokenizers';

import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';
import { torchSeq2SeqBlock } from './helpers/seq2seq-reference.js';
import { bundledModelFile, loadModel } from '../../js/index.js';
import { SEQ2SEQ_EXAMPLE_SOURCE } from '../../web/src/panels/examples.js';

const MODEL = 'bundled-seq2seq';
const MODEL_DIR = join(bundledModelFile(MODEL, 'config.json'), '..');
const config = JSON.parse(readFileSync(join(MODEL_DIR, 'config.json'), 'utf8'));
const pairs = readFileSync(join(MODEL_DIR, 'heldout.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const PAIR = pairs.find((p) => p.source === SEQ2SEQ_EXAMPLE_SOURCE) ?? pairs[0];
const SHOTS = process.env.ATTNSCOPE_SCREENSHOTS;
const WEIGHT_TOLERANCE = 1e-4;   // the engine's attention tolerance against PyTorch
const NORM_TOLERANCE = 1e-3;     // relative, for lengths of float32 vectors of ~256 numbers

// A post-norm family: the BART golden fixture as a folder (its vocabulary: token names only).
const BART = fileURLToPath(new URL('../fixtures/seq2seq/bart_f32/', import.meta.url));
let server, browser, rust, bartDir;

before(async () => {
  rust = Tokenizer.fromFile(join(MODEL_DIR, 'tokenizer.json'));
  bartDir = mkdtempSync(join(tmpdir(), 'attnscope-e2e-bart-'));
  for (const f of ['config.json', 'model.safetensors']) cpSync(join(BART, f), join(bartDir, f));
  const V = JSON.parse(readFileSync(join(BART, 'config.json'), 'utf8')).vocab_size;
  writeFileSync(join(bartDir, 'vocab.txt'), `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]'][i] ?? `w${i}`).join('\n')}\n`);
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (bartDir) rmSync(bartDir, { recursive: true, force: true });
});

const blockUrl = (extra = {}) => `${server.origin}/?${new URLSearchParams({ model: MODEL, view: 'block', text: PAIR.source, tgt: PAIR.target, ...extra })}`;
const maxDiff = (a, b) => a.flat().reduce((m, x, i) => Math.max(m, Math.abs(x - b.flat()[i])), 0);
const l2 = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

async function open(extra, viewport) {
  const g = await guardedPage(browser, server.origin, viewport);
  await g.page.goto(blockUrl(extra));
  await waitForRuns(g.page, 1);
  return g;
}

// The walk on screen once it shows (layer, token) of a traced run.
function walkOf(page, layer, token) {
  return page.waitForFunction(([l, i]) => {
    const b = window.__attnscope.block;
    return b && b.family === 'seq2seq' && b.layer === l && b.token === i ? b : null;
  }, [layer, token], { timeout: 60000 }).then((h) => h.jsonValue());
}

// What the view shows for (layer, token) against PyTorch's float64 forward, computed now.
function assertAgainstTorch(block, modelDir = MODEL_DIR) {
  const ref = torchSeq2SeqBlock(modelDir, { sourceIds: block.sourceIds, decoderIds: block.targetIds, layer: block.layer, token: block.token });
  const dSelf = maxDiff(block.selfWeights, ref.self), dCross = maxDiff(block.crossWeights, ref.cross);
  assert.ok(dSelf <= WEIGHT_TOLERANCE, `self-attention weights differ from PyTorch by ${dSelf}`);
  assert.ok(dCross <= WEIGHT_TOLERANCE, `cross-attention weights differ from PyTorch by ${dCross}`);
  const want = [
    { key: 'input', added: null, after: ref.input },
    { key: 'selfAttention', added: ref.selfAttentionOutput, after: ref.selfAfter },
    { key: 'crossAttention', added: ref.crossAttentionOutput, after: ref.crossAfter },
    { key: 'ffn', added: ref.ffnOutput, after: ref.output },
  ];
  assert.deepEqual(block.summary.map((s) => s.key), want.map((w) => w.key));
  let worst = 0;
  block.summary.forEach((s, n) => {
    const w = want[n];
    const rel = (got, v) => Math.abs(got - l2(v)) / l2(v);
    worst = Math.max(worst, rel(s.after, w.after));
    assert.ok(rel(s.after, w.after) <= NORM_TOLERANCE, `${s.key}: ‖x‖ after ${s.after} vs ${l2(w.after)}`);
    if (!w.added) return;
    worst = Math.max(worst, rel(s.added, w.added));
    assert.ok(rel(s.added, w.added) <= NORM_TOLERANCE, `${s.key}: ‖added‖ ${s.added} vs ${l2(w.added)}`);
    // The entries named are the reference's largest (up to near-ties) with the reference's values.
    const third = [...w.added].map(Math.abs).sort((a, b) => b - a)[2];
    for (const [d, v] of s.top) {
      assert.ok(Math.abs(v - w.added[d]) <= 1e-3, `${s.key}: entry ${d} is ${v}, PyTorch ${w.added[d]}`);
      assert.ok(Math.abs(w.added[d]) >= third - 1e-3, `${s.key}: entry ${d} is not among PyTorch's largest`);
    }
  });
  return { dSelf, dCross, worst };
}

test('the Block tab walks a target token through a T5 decoder layer; every number against PyTorch', async () => {
  const T0 = (await rust.encode(PAIR.target)).getIds().length + 1;
  const g = await open({ layer: '0', q: String(T0 - 1) });
  const { page } = g;
  assert.equal(await page.locator('nav.tabs [data-view="block"]').isHidden(), false, 'the Block tab is offered');
  const block = await walkOf(page, 0, T0 - 1);
  // The ids the page ran: the Rust tokenizer's, after decoder_start_token_id.
  assert.deepEqual(block.sourceIds, (await rust.encode(PAIR.source)).getIds());
  assert.deepEqual(block.targetIds, [config.decoder_start_token_id, ...(await rust.encode(PAIR.target)).getIds()]);
  assert.equal(block.tokens, T0);
  assert.equal(block.H, config.num_heads);
  assert.equal(block.crossWeights.length, config.num_heads);
  assert.equal(block.crossWeights[0].length, block.sourceIds.length);
  assert.equal(block.selfWeights[0].length, T0, 'the last token reads every target token');
  // The weights shown are the run's own cross_attentions rows.
  for (let h = 0; h < block.H; h++) {
    const row = await page.evaluate(([h, i, S]) => window.__attnscope.cross(0, h).slice(i * S, (i + 1) * S), [h, T0 - 1, block.sourceTokens]);
    assert.deepEqual(block.crossWeights[h], row, `head ${h}`);
  }
  // ... and the numbers in the table are those weights.
  const cells = await page.locator('.view-block section[data-step="blockS2SCross"] table.block-weights tbody tr').evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
  assert.equal(cells.length, block.sourceTokens);
  cells.forEach((row, j) => {
    const values = block.crossWeights.map((w) => w[j]);
    assert.deepEqual(row, [...values, values.reduce((a, b) => a + b, 0) / values.length].map((v) => v.toFixed(2)));
  });
  // T5: pre-norm RMSNorm before each sublayer; all three sublayers with their Add, in order.
  assert.equal(block.preNorm, true);
  assert.deepEqual(block.steps, ['blockS2SEmbeddings', 'blockS2SSelf', 'blockS2SAdd', 'blockS2SCross', 'blockS2SAdd',
    'blockS2SFfn', 'blockS2SAdd', 'blockNext', 'blockS2SSummary']);
  assert.deepEqual(block.checks.map((c) => c.step), ['layers.0.selfAttentionInputNorm', 'layers.0.selfAttentionResidual',
    'layers.0.crossAttentionInputNorm', 'layers.0.crossAttentionResidual', 'layers.0.ffnInputNorm', 'layers.0.ffnIntermediate',
    'layers.0.ffnResidual']);
  assert.ok(block.allChecks.every((c) => c.maxDiff <= 1e-4), JSON.stringify(block.allChecks));
  const first = assertAgainstTorch(block);

  // Another layer and token through the pickers: the last layer ends in T5's final RMSNorm.
  const L = config.num_decoder_layers ?? config.num_layers;
  const token = Math.min(2, T0 - 1);
  await page.locator('.view-block .layer-picker select').selectOption(String(L - 1));
  await page.locator('.view-block .query-picker select').selectOption(String(token));
  const last = await walkOf(page, L - 1, token);
  assert.equal(last.selfWeights[0].length, token + 1, 'later target tokens are masked out');
  assert.equal(last.steps.at(-2), 'blockLast');
  assert.ok(last.checks.some((c) => c.step === 'finalNorm'));
  assert.ok(last.checks.every((c) => c.maxDiff <= 1e-4));
  const second = assertAgainstTorch(last);
  console.log(`# seq2seq Block vs PyTorch: weights ${Math.max(first.dSelf, first.dCross, second.dSelf, second.dCross).toExponential(2)}, ` +
    `norms (relative) ${Math.max(first.worst, second.worst).toExponential(2)}`);
  assert.match(page.url(), new RegExp(`layer=${L - 1}`));
  assert.match(page.url(), new RegExp(`q=${token}`));

  // The stack switch walks the encoder, on the same page: a source token through the last encoder
  // layer. Its weights against PyTorch's encoder_attentions, its final RMSNorm against PyTorch's
  // encoder output, what each sublayer added against the API's encoderTrace of the same ids.
  const Le = config.num_layers, src = Math.min(3, block.sourceIds.length - 1);
  await page.locator('.view-block .stack-switch [data-stack="encoder"]').click();
  await page.waitForFunction(() => window.__attnscope.block?.stack === 'encoder');
  await page.locator('.view-block .layer-picker select').selectOption(String(Le - 1));
  await page.locator('.view-block .query-picker select').selectOption(String(src));
  const enc = await page.waitForFunction(([l, i]) => {
    const b = window.__attnscope.block;
    return b?.stack === 'encoder' && b.layer === l && b.token === i ? b : null;
  }, [Le - 1, src], { timeout: 60000 }).then((h) => h.jsonValue());
  assert.equal(enc.tokens, block.sourceIds.length, 'the query picker offers the source');
  assert.deepEqual(enc.steps, ['blockS2SEncInput', 'blockS2SEncSelf', 'blockS2SAdd', 'blockS2SEncFfn', 'blockS2SAdd', 'blockLast', 'blockS2SSummary']);
  const gated = config.feed_forward_proj.startsWith('gated-');
  assert.deepEqual(enc.checks.map((c) => c.step), ['selfAttentionInputNorm', 'selfAttentionResidual', 'ffnInputNorm',
    ...(gated ? [] : ['ffnIntermediate']), 'ffnResidual'].map((s) => `layers.${Le - 1}.${s}`).concat('finalNorm'));
  assert.ok(enc.allChecks.every((c) => c.maxDiff <= 1e-4), JSON.stringify(enc.allChecks));
  const url = new URL(page.url()).searchParams;
  assert.deepEqual([url.get('stack'), url.get('layer'), url.get('q')], ['encoder', String(Le - 1), String(src)]);
  const torch = torchSeq2SeqBlock(MODEL_DIR, { sourceIds: block.sourceIds, decoderIds: block.targetIds, full: true });
  const wantWeights = torch.encoder_attentions[Le - 1].map((head) => head[src]);
  const dEnc = maxDiff(enc.selfWeights, wantWeights);
  assert.ok(dEnc <= WEIGHT_TOLERANCE, `encoder self-attention weights differ from PyTorch by ${dEnc}`);
  const encCells = await page.locator('.view-block section[data-step="blockS2SEncSelf"] table.block-weights tbody td:not(.mean)')
    .evaluateAll((tds) => tds.map((td) => Number(td.title)));
  assert.equal(encCells.length, block.sourceIds.length * config.num_heads);
  encCells.forEach((v, n) => assert.ok(Math.abs(v - wantWeights[n % config.num_heads][Math.floor(n / config.num_heads)]) <= 1e-4, `cell ${n}`));
  const finalShown = await page.locator('.view-block section[data-step="blockLast"] .vector-row').last().evaluate((r) => Number(r.dataset.norm));
  const finalWant = l2(torch.encoder_hidden[src]);
  assert.ok(Math.abs(finalShown - finalWant) <= NORM_TOLERANCE * finalWant, `encoder final norm ‖·‖ ${finalShown} vs PyTorch ${finalWant}`);
  const model = await loadModel(MODEL);
  try {
    const trace = (await model.runIds(block.sourceIds, { targetIds: block.targetIds.slice(1), trace: true })).encoderTrace;
    const C = config.d_model, rowOf = (a) => Array.from(a.subarray(src * C, (src + 1) * C));
    const layer = trace.layers[Le - 1];
    const want = [['input', null, trace.layers[Le - 2].output], ['selfAttention', layer.selfAttentionOutput, layer.selfAttentionResidual],
      ['ffn', layer.ffnOutput, layer.output]];
    assert.deepEqual(enc.summary.map((s) => s.key), want.map(([key]) => key));
    enc.summary.forEach((s, n) => {
      const [, added, after] = want[n];
      assert.ok(Math.abs(s.after - l2(rowOf(after))) <= 1e-9 * s.after, `${s.key}: ‖x‖ after`);
      if (!added) return;
      assert.ok(Math.abs(s.added - l2(rowOf(added))) <= 1e-9 * s.added, `${s.key}: ‖added‖`);
      const largest = rowOf(added).map((v, d) => [d, v]).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, 3);
      assert.deepEqual(s.top, largest, `${s.key}: largest entries`);
    });
  } finally {
    model.dispose();
  }
  console.log(`# seq2seq Block, encoder walk: weights vs PyTorch ${dEnc.toExponential(2)}, final norm ‖·‖ ${finalShown} vs ${finalWant.toFixed(4)}`);
  assert.deepEqual(g.problems, []);
  await g.context.close();
});

test('Korean, and phone width: the walk fits and reads in the page language', async () => {
  // English at desktop width and Korean at phone width: the other two pairings only add CI time.
  for (const [lang, viewport] of [['en', { width: 1280, height: 900 }], ['ko', { width: 390, height: 844 }]]) {
    const g = await open({ lang, q: '3' }, viewport);
    const block = await walkOf(g.page, 0, 3);
    const titles = await g.page.locator('.view-block .block-step h4').allTextContents();
    assert.equal(titles.length, block.sections);
    if (lang === 'ko') {
      assert.ok(titles.some((t) => t.includes('교차 어텐션')), titles.join(' | '));
      assert.ok(titles.some((t) => t.includes('피드포워드')), titles.join(' | '));
    } else {
      assert.ok(titles.some((t) => t.startsWith('② Cross-attention')), titles.join(' | '));
    }
    const overflow = await g.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${lang} ${viewport.width}px: the page is ${overflow}px wider than the screen`);
    if (SHOTS) {
      await g.page.locator('.view-block section[data-step="blockS2SCross"]').scrollIntoViewIfNeeded();
      await g.page.screenshot({ path: join(SHOTS, `seq2seq-block-${lang}-${viewport.width}.png`), fullPage: viewport.width > 400 });
    }
    assert.deepEqual(g.problems, []);
    await g.context.close();
  }
});

test('a post-norm family (BART): Add, then LayerNorm after each sublayer; numbers against PyTorch', async () => {
  const g = await open({ layer: '1', q: '2' });
  const { page } = g;
  await walkOf(page, 1, 2);
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(bartDir);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.config?.modelType === 'bart', runs, { timeout: 60000 });
  for (const [selector, text] of [['#text-a', 'w5 w6 w7 w8'], ['#target-text', 'w9 w10 w11']]) {
    const n = await page.evaluate(() => window.__attnscope.runsDone);
    await page.locator(selector).fill(text);
    await page.waitForFunction((k) => window.__attnscope.runsDone > k && document.body.dataset.status === 'ready', n);
  }
  await page.locator('.view-block .layer-picker select').selectOption('1');
  await page.locator('.view-block .query-picker select').selectOption('2');
  const block = await page.waitForFunction(() => {
    const b = window.__attnscope.block;
    return b && b.modelType === 'bart' && b.layer === 1 && b.token === 2 && b.targetIds.length > 3 ? b : null;
  }, null, { timeout: 60000 }).then((h) => h.jsonValue());
  assert.equal(block.preNorm, false);
  assert.deepEqual(block.checks.map((c) => c.step), ['layers.1.selfAttentionResidual', 'layers.1.selfAttentionNorm',
    'layers.1.crossAttentionResidual', 'layers.1.crossAttentionNorm', 'layers.1.ffnIntermediate', 'layers.1.ffnResidual', 'layers.1.output']);
  assert.ok(block.allChecks.every((c) => c.maxDiff <= 1e-4), JSON.stringify(block.allChecks));
  const d = assertAgainstTorch(block, bartDir);
  if (SHOTS) await page.locator('.view-block').screenshot({ path: join(SHOTS, 'seq2seq-block-bart-en-1280.png') });
  console.log(`# seq2seq Block (BART) vs PyTorch: weights ${Math.max(d.dSelf, d.dCross).toExponential(2)}, norms (relative) ${d.worst.toExponential(2)}`);
  assert.deepEqual(g.problems, []);
  await g.context.close();
});
