// `attnscope snapshot --view flow|patching` (js/analysis/figure-flow.js, js/analysis/figure-patching.js): the figure
// carries exactly the numbers the API gives for the same inputs — run({ flow: true })'s shares
// (checked against float64 PyTorch in flow.test.js) and patch()'s grid and logit differences
// (patching.test.js) — matches docs/figure.schema.json, and reads back into the graph and grid
// the views draw. A decoder's through the CLI, an encoder's (read at its [MASK]) through the
// CLI's own code in this process (js/cli/snapshot-kinds.js: fewer Node processes to start); an
// encoder–decoder's (version 3) through the CLI, against `attnscope patch`'s numbers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel, flowGraph } from '../../js/index.js';
import { PATCHING_SEQ2SEQ_EXAMPLE as T5 } from '../../web/src/model/patch-suggest.js';
import { figureData, figureResult } from '../../js/analysis/snapshot.js';
import { kindFigureRun } from '../../js/cli/snapshot-kinds.js';
import { schemaErrors } from './helpers/figure-schema.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'js', 'cli', 'cli.js');
const work = mkdtempSync(join(tmpdir(), 'attnscope-kinds-'));

const CAUSAL = 'In the morning he went to church, and in the evening he went to';
// The bundled decoder's example (web/src/model/patch-suggest.js) and a pair of the bundled BERT's.
const CASES = {
  flowCausal: { model: 'bundled-causal', text: CAUSAL, args: ['--view', 'flow', '--position', '9', '--tau', '0.02'], cli: true },
  flowBert: { model: 'bundled', text: 'The river bank was muddy after the rain.', args: ['--view', 'flow'] },
  patchCausal: { model: 'bundled-causal', text: CAUSAL, corrupted: CAUSAL.replace('church', 'school'), answer: ' church', wrong: ' school',
    site: 'head', cli: true },
  patchBert: { model: 'bundled', text: 'He went to the [MASK] to eat.', corrupted: 'He went to the [MASK] to sleep.', answer: 'house', wrong: 'door', site: 'resid_pre' },
  // The bundled T5's example (patch-suggest.js): the encoder's grid, read after the target so far.
  patchT5: { model: 'bundled-seq2seq', text: T5.clean, corrupted: T5.corrupted, answer: T5.answer, wrong: T5.wrong, site: 'resid_pre',
    seq2seq: ['--target', T5.prefix, '--stack', T5.stack], cli: true },
};
for (const c of Object.values(CASES)) {
  if (c.corrupted) c.args = ['--view', 'patching', '--corrupted', c.corrupted, '--answer', c.answer, '--wrong', c.wrong, '--site', c.site, ...c.seq2seq ?? []];
}

function cli(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args, '--threads', '1'], (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

const docs = {};
const models = {};
// The flags as the CLI's parser gives them to kindFigureRun.
const flagValues = (args) => Object.fromEntries(args.flatMap((a, i) => (a.startsWith('--') ? [[a.slice(2), args[i + 1]]] : [])));

before(async () => {
  // The CLI runs while this process loads the same two models.
  const written = Promise.all(Object.entries(CASES).filter(([, c]) => c.cli).map(async ([name, c]) => {
    const out = join(work, `${name}.json`);
    const r = await cli(['snapshot', '--model', c.model, '--text', c.text, ...c.args, '--out', out]);
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    docs[name] = JSON.parse(readFileSync(out, 'utf8'));
  }));
  // The T5's grid as `attnscope patch` writes it for the same flags.
  const c = CASES.patchT5;
  const patched = cli(['patch', '--model', c.model, '--clean', c.text, '--corrupted', c.corrupted, '--answer', c.answer, '--wrong', c.wrong,
    '--site', c.site, ...c.seq2seq]).then((r) => {
    assert.equal(r.code, 0, r.stderr);
    docs.patchT5Cli = JSON.parse(r.stdout);
  });
  for (const m of ['bundled-causal', 'bundled']) models[m] = await loadModel(m, { threads: 1 });
  for (const [name, c] of Object.entries(CASES).filter(([, c]) => !c.cli)) {
    const model = models[c.model];
    const values = { text: c.text, ...flagValues(c.args) };
    const own = await kindFigureRun(model, values);
    docs[name] = JSON.parse(JSON.stringify(figureData(own.result, { model: c.model, info: model.info, text: c.text, view: values.view,
      layer: 0, head: 0, ...own.what })));
  }
  await Promise.all([written, patched]);
});
after(() => {
  for (const m of Object.values(models)) m.dispose();
  rmSync(work, { recursive: true, force: true });
});

// The graph's edges as comparable rows (heads as plain numbers).
const edgeRows = (graph) => graph.edges.map((e) => [e.from, e.to, e.kind, e.share, ...(e.heads ? Array.from(e.heads) : [])].join(' '));

for (const name of ['flowCausal', 'flowBert']) {
  test(`${name}: the figure holds run({ flow: true })'s shares of the graph's edges, exactly, and redraws that graph`, async () => {
    const c = CASES[name], doc = docs[name];
    assert.deepEqual(schemaErrors(doc), []);
    assert.equal(doc.version, 2);
    assert.equal(doc.heads, undefined, 'no attention matrices');
    const r = await models[c.model].run(c.text, { flow: true, topK: 0, logitLens: 5 });
    const { flow } = r;
    const T = r.tokens.length, H = flow.headCount;
    const position = c.args.includes('--position') ? 9 : T - 1;
    const tau = c.args.includes('--tau') ? 0.02 : 0.04;
    assert.deepEqual([doc.flow.position, doc.flow.tau, doc.flow.layers, doc.flow.headCount, doc.flow.queries], [position, tau, flow.layers, H, T]);
    for (const [[l, i, j, share], n] of doc.flow.tokens.map((e, n) => [e, n])) {
      assert.equal(share, flow.tokens[(l * T + i) * T + j], `tokens ${l}/${i}/${j}`);
      doc.flow.heads[n].forEach((v, h) => assert.equal(v, flow.heads[((l * H + h) * T + i) * T + j], `heads ${l}/${h}/${i}/${j}`));
    }
    for (const field of ['residual', 'mlp', 'mlpResidual']) {
      for (const [l, i, share] of doc.flow[field]) assert.equal(share, flow[field][l * T + i], `${field} ${l}/${i}`);
    }
    const live = flowGraph(flow, { position, tau });
    assert.ok(live.edges.length > 5, `a graph worth drawing: ${live.edges.length} edges`);
    // The logit lens at every dot of the graph (the embeddings' row 0, else after the dot's layer).
    const dots = new Set(live.nodes.map((n) => `${n.level === 0 ? 0 : n.layer + 1}:${n.position}`));
    assert.deepEqual(new Set(doc.flow.lens.map(([row, p]) => `${row}:${p}`)), dots);
    for (const [row, p, top] of doc.flow.lens) {
      assert.deepEqual(top, r.logitLens[row][p].top.map(({ id, token, text, prob }) => ({ id, token, text, prob })), `lens ${row}/${p}`);
    }
    const back = figureResult(doc);
    assert.deepEqual(edgeRows(flowGraph(back.fields.flow, { position, tau })), edgeRows(live));
    assert.deepEqual(back.fields.logitLens[doc.flow.lens[0][0]][doc.flow.lens[0][1]].top, doc.flow.lens[0][2]);
    // Every higher τ draws from the figure as from the run; a lower τ or another position is the model's.
    assert.deepEqual(edgeRows(flowGraph(back.fields.flow, { position, tau: 0.1 })), edgeRows(flowGraph(flow, { position, tau: 0.1 })));
    assert.deepEqual(back.state, { query: position, flowTau: tau });
    assert.ok(back.covers('flow', 0, 0, false, { query: position, flowTau: 0.1 }));
    assert.ok(!back.covers('flow', 0, 0, false, { query: position, flowTau: tau / 2 }));
    assert.ok(!back.covers('flow', 0, 0, false, { query: position - 1, flowTau: tau }));
    assert.ok(!back.covers('head', 0, 0, false, { query: position, flowTau: tau }));
  });
}

for (const name of ['patchCausal', 'patchBert']) {
  test(`${name}: the figure holds patch()'s grid and logit differences exactly, and answers the view's jobs with them`, async () => {
    const c = CASES[name], doc = docs[name], model = models[c.model];
    assert.deepEqual(schemaErrors(doc), []);
    assert.equal(doc.version, 2);
    const grid = await model.patch({ clean: c.text, corrupted: c.corrupted, answer: c.answer, wrong: c.wrong, site: c.site });
    const p = doc.patching;
    assert.deepEqual([p.site, p.answer, p.wrong, p.corruptedText, p.position], [c.site, c.answer, c.wrong, c.corrupted, grid.position]);
    assert.equal(p.clean, grid.clean);
    assert.equal(p.corrupted, grid.corrupted);
    assert.deepEqual(p.scores, grid.scores);
    assert.ok(p.clean - p.corrupted > 0.5, `the pair moves the answer: LDs ${p.clean}, ${p.corrupted}`);
    const corrupted = await model.run(c.corrupted, { topK: 5 });
    assert.deepEqual(p.corruptedTokens, corrupted.tokens);
    const clean = await model.run(c.text, { topK: 5 });
    const top = (r) => (c.model === 'bundled' ? r.maskPredictions.find((m) => m.position === grid.position).top : r.next)
      .map(({ id, token, text, prob }) => ({ id, token, text, prob }));
    assert.deepEqual(p.top, { clean: top(clean), corrupted: top(corrupted) });

    const back = figureResult(doc);
    const state = { patchCorrupted: c.corrupted, patchAnswer: c.answer, patchWrong: c.wrong, patchSite: c.site };
    assert.deepEqual(back.state, state);
    assert.ok(back.covers('patching', 0, 0, false, state));
    assert.ok(!back.covers('patching', 0, 0, false, { ...state, patchSite: 'mlp_out' }));
    const rows = [];
    const answered = await back.jobs.patch({ clean: c.text, corrupted: c.corrupted, answer: c.answer, wrong: c.wrong, site: c.site,
      onProgress: (row) => rows.push(row.scores) });
    assert.deepEqual([answered.clean, answered.corrupted, answered.scores], [grid.clean, grid.corrupted, grid.scores]);
    assert.deepEqual(rows, grid.scores);
    assert.deepEqual((await back.jobs.run(c.corrupted)).tokens, corrupted.tokens);
    await assert.rejects(back.jobs.patch({ clean: c.text, corrupted: c.corrupted, answer: c.answer, wrong: c.wrong, site: 'attn_out' }),
      { code: 'E_ABORTED' });
  });
}

test('patchT5: an encoder–decoder\'s figure (version 3) holds `attnscope patch`\'s grid and LDs exactly, and answers the view\'s jobs', () => {
  const c = CASES.patchT5, doc = docs.patchT5, cli = docs.patchT5Cli;
  assert.deepEqual(schemaErrors(doc), []);
  assert.deepEqual([doc.version, doc.kind, doc.modelInfo.kind, doc.shape], [3, 'enc', 'encoder-decoder', [3, 4, 7]]);
  const p = doc.patching;
  assert.deepEqual([p.site, p.seq2seq.stack, p.position, p.clean, p.corrupted, p.scores], [cli.site, cli.stack, cli.position, cli.clean, cli.corrupted, cli.scores]);
  // The decoder read its start token, then "the man" (no </s>): the answer is the word after it.
  assert.deepEqual([p.seq2seq.targetTokens, p.seq2seq.prefix, p.seq2seq.encoderShape, p.seq2seq.decoderShape],
    [['<pad>', 'the', 'man'], T5.prefix, [3, 4], [2, 4]]);
  assert.deepEqual([p.top.clean[0].token, p.top.corrupted[0].token], [c.answer, c.wrong]);
  assert.deepEqual(p.corruptedTokens, ['the', 'man', 'was', 'a', 'little', '.', '</s>']);

  const back = figureResult(doc);
  const state = { patchCorrupted: c.corrupted, patchAnswer: c.answer, patchWrong: c.wrong, patchSite: c.site, patchPrefix: T5.prefix, patchStack: T5.stack };
  assert.deepEqual([back.state, back.info.kind, back.seq2seq.targetTokens, back.seq2seq.next], [state, 'encoder-decoder', p.seq2seq.targetTokens, p.top.clean]);
  assert.ok(back.covers('patching', 0, 0, false, state));
  assert.ok(!back.covers('patching', 0, 0, false, { ...state, patchStack: 'decoder' }));
  assert.ok(!back.covers('patching', 0, 0, false, { ...state, patchPrefix: 'The' }));
  const options = { clean: c.text, corrupted: c.corrupted, answer: c.answer, wrong: c.wrong, site: c.site, stack: T5.stack, targetIds: p.seq2seq.targetIds.slice(1) };
  return Promise.all([
    back.jobs.patch(options).then((answered) => assert.deepEqual(answered.scores, cli.scores)),
    back.jobs.run(c.text).then((r) => assert.deepEqual(r.next, p.top.clean)),
    assert.rejects(back.jobs.patch({ ...options, stack: 'decoder' }), { code: 'E_ABORTED' }),
    assert.rejects(back.jobs.patch({ ...options, targetIds: [] }), { code: 'E_ABORTED' }),
  ]);
});

test('bad snapshot flags for the two kinds fail in one clear line', async () => {
  const base = ['snapshot', '--model', 'bundled-causal', '--text', CAUSAL, '--out', join(work, 'bad.json')];
  const cases = [
    [['--view', 'flow', '--corrupted', 'x'], /--corrupted goes with --view patching/],
    [['--view', 'flow', '--tau', '2'], /--tau must be a number >= 0 and <= 1/],
    [['--view', 'patching', '--corrupted', CAUSAL], /--view patching needs --answer/],
    [['--view', 'patching', '--corrupted', CAUSAL, '--answer', ' church', '--wrong', ' school', '--stack', 'encoder'], /--stack is for encoder-decoder models/],
  ];
  const results = await Promise.all(cases.map(([args]) => cli([...base, ...args])));
  results.forEach((r, i) => {
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, cases[i][1]);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });
});

test('a version 3 reader still reads version 1 figures and refuses a flow view in version 1', () => {
  const v1 = { format: 'attnscope-figure', version: 1, model: 'm', modelInfo: { kind: 'encoder', config: { numLayers: 1, numHeads: 1, isDecoder: false } },
    text: 'a', view: 'head', layer: 0, head: 0, tokens: ['a'], tokenTexts: ['a'], specialTokensMask: [0], offsets: [0, 1],
    shape: [1, 1, 1], heads: [[0, 0]], attentions: [[1]] };
  assert.ok(figureResult(v1).covers('head', 0, 0));
  assert.throws(() => figureResult({ ...docs.flowCausal, version: 1 }), { code: 'E_INPUT', message: /view "flow" in version 1/ });
  assert.throws(() => figureResult({ ...docs.flowCausal, version: 4 }), { code: 'E_INPUT', message: /version 4/ });
  // An encoder–decoder's patching grid came with version 3.
  assert.throws(() => figureResult({ ...docs.patchT5, version: 2 }), { code: 'E_INPUT', message: /view "patching" in version 2/ });
  const broken = structuredClone(docs.patchCausal);
  broken.patching.scores.pop();
  assert.throws(() => figureResult(broken), { code: 'E_INPUT', message: /patching scores must be 8 rows/ });
});
