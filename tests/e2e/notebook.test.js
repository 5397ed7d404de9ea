// The Python package in a notebook: examples/notebook.ipynb executed headless by
// Debian's Jupyter (nbconvert --execute, the package from python/ on the kernel's path), exported
// as HTML in the light and the dark theme, opened from file:// in Chromium. Each view the notebook
// shows must be drawn by <attn-scope> from its inline figure, frozen, with the notebook's tokens;
// the page must make no request (only data: URLs, the figures), start no worker, log no console
// error or warning; the renderer must be in the page once, and the dark export's views dark.
// The same outputs are also put in a page the way JupyterLab (and Notebook 7) insert HTML
// output: innerHTML, then every script re-created with its attributes, output by output, and
// once more (a re-run, or a reload running the scripts again). And a figure Python makes from the
// CLI's run of a text draws the same pixels as the figure `attnscope snapshot` writes for it (an
// encoder's grid, head and lines; the bundled T5's cross-attention).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { launchBrowser, nextFrame } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NOTEBOOK = join(ROOT, 'examples', 'notebook.ipynb');
// What the notebook shows, in order: head_view, model_view, show(view="lines"), an encoder–decoder's
// head_view (three elements: its encoder's, its decoder's and its cross-attention, whose rows are
// the target's tokens as the cross view labels them) and show(view="lens") (the Layers view: a
// table of the bundled GPT-2's 8 layers + the embeddings over 10 tokens, no canvas; its tokens
// labelled as its cells label what they read, a space as ␣).
const SOURCE = [' The', ' cat', ' chased', ' the', ' dog', '.', '</s>'];
const TARGET = ['<pad>', ' the', ' cat', ' the', ' dog', ' chased'];
const VIEWS = [
  { view: 'head', layer: 1, head: 2, tokens: ['[CLS]', 'the', 'cat', 'sat', 'on', 'the', 'mat', '.', '[SEP]'], kind: 'encoder' },
  { view: 'grid', layer: 0, head: 0, tokens: ['[CLS]', 'the', 'cat', 'sat', 'on', 'the', 'mat', '.', '[SEP]'], kind: 'encoder', theme: 'light' },
  { view: 'lines', layer: 1, head: 0, tokens: ['Once', ' upon', ' a', ' time', ' there', ' was', ' a', ' prince'], kind: 'decoder' },
  { view: 'head', layer: 1, head: 0, tokens: SOURCE, kind: 'encoder' },
  { view: 'head', layer: 1, head: 0, tokens: TARGET, kind: 'decoder' },
  { view: 'head', layer: 1, head: 0, tokens: TARGET.map((t) => t.replace(/^ /, '\u2423')), kind: 'encoder-decoder', cross: [6, 7] },
  { view: 'layers', layer: 0, head: 0, tokens: ['He', '␣put', '␣in', '␣a', '␣call', '␣to', '␣his', '␣hotel', '␣room', '.'], kind: 'decoder',
    lens: [9, 10] },
];
let dir, browser;

function nbconvert(...args) {
  // Debian's nbconvert template loads require.js and MathJax from files Debian does not install
  // with it: empty scripts stand in, so what the page loads and logs is the notebook's own.
  execFileSync('/usr/bin/jupyter-nbconvert', [...args, '--HTMLExporter.require_js_url=data:text/javascript,',
    '--HTMLExporter.mathjax_url=data:text/javascript,'], {
    cwd: ROOT, stdio: 'pipe', timeout: 240000,
    env: { ...process.env, PYTHONPATH: join(ROOT, 'python'), PYDEVD_DISABLE_FILE_VALIDATION: '1' },
  });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'attnscope-notebook-'));
  nbconvert('--to', 'notebook', '--execute', NOTEBOOK, '--output-dir', dir, '--output', 'executed');
  nbconvert('--to', 'html', join(dir, 'executed.ipynb'), '--output-dir', dir, '--output', 'light');
  nbconvert('--to', 'html', '--HTMLExporter.theme=dark', join(dir, 'executed.ipynb'), '--output-dir', dir, '--output', 'dark');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openNotebook(name) {
  const file = join(dir, `${name}.html`);
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const problems = [], workers = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('worker', (w) => workers.push(w.url()));
  page.on('request', (r) => {
    const url = r.url();
    if (url !== pathToFileURL(file).href && !url.startsWith('data:')) problems.push(`request: ${url.slice(0, 120)}`);
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction((n) => {
    const all = [...document.querySelectorAll('attn-scope')];
    return all.length === n && all.every((el) => el.dataset.status === 'ready' || el.dataset.status === 'error');
  }, VIEWS.length, { timeout: 60000 });
  await page.waitForTimeout(300);   // a late request or message would show up
  return { page, problems, workers, html: readFileSync(file, 'utf8') };
}

// Per element: status, frozen, view, tokens shown, kind, theme, and the share of the largest
// canvas's pixels that differ from its top-left pixel (the background): a drawn view has many.
function shown(page) {
  return page.evaluate(() => [...document.querySelectorAll('attn-scope')].map((el) => {
    const canvases = [...el.shadowRoot.querySelectorAll('canvas')].filter((c) => c.width * c.height > 0);
    const big = canvases.sort((a, b) => b.width * b.height - a.width * a.height)[0];
    let inked = 0;
    if (big) {
      const { data } = big.getContext('2d').getImageData(0, 0, big.width, big.height);
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - data[0]) + Math.abs(data[i + 1] - data[1]) + Math.abs(data[i + 2] - data[2]) > 30) inked++;
      }
      inked /= data.length / 4;
    }
    const root = el.shadowRoot;
    return { status: el.dataset.status, frozen: el.frozen, view: el.view, layer: el.layer, head: el.head,
      tokens: el.result ? [...el.result.tokenTexts] : null, kind: el.modelInfo?.kind, theme: el.getAttribute('theme'),
      canvases: canvases.length, inked, width: el.getBoundingClientRect().width,
      // The cross view: [rows, columns] of its heatmap, and its lines; the lens: [rows, positions] of its table.
      cross: root.querySelector('.cross-lines') ? [...root.querySelectorAll('.cross-lines text')].length : null,
      crossLines: root.querySelectorAll('.cross-lines line.weight').length,
      lens: root.querySelector('.lens-grid') ? [root.querySelectorAll('.lens-grid tbody tr').length,
        root.querySelectorAll('.lens-grid tbody tr:first-child .lens-cell').length] : null,
      lensTop: root.querySelector('.lens-grid tbody tr:last-child .lens-cell')?.textContent ?? null,
      cell: el.closest('.jp-OutputArea-output, .output_area, body').getBoundingClientRect().width };
  }));
}

test('the executed notebook draws its views from inline figures, offline, with a clean console', async () => {
  const { page, problems, workers, html } = await openNotebook('light');
  try {
    const views = await shown(page);
    VIEWS.forEach((want, i) => {
      const got = views[i];
      assert.equal(got.status, 'ready', `view ${i}`);
      assert.equal(got.frozen, true, `view ${i} draws from its figure`);
      assert.deepEqual([got.view, got.layer, got.head], [want.view, want.layer, want.head], `view ${i}`);
      assert.deepEqual(got.tokens, want.tokens, `view ${i} tokens`);
      assert.equal(got.kind, want.kind, `view ${i}`);
      assert.equal(got.theme, want.theme ?? null, `view ${i} theme (light notebook)`);
      if (want.lens) {
        assert.deepEqual(got.lens, want.lens, `view ${i}: the lens's rows and positions`);
        assert.ok(got.lensTop && got.lensTop !== '[?]', `view ${i}: the last row names its token (${got.lensTop})`);
      } else {
        assert.ok(got.canvases > 0 && got.inked > 0.01, `view ${i} drew (${got.canvases} canvases, ${(got.inked * 100).toFixed(1)}% inked)`);
      }
      if (want.cross) {
        assert.equal(got.cross, want.cross[0] + want.cross[1], `view ${i}: a label per target row and source token`);
        assert.ok(got.crossLines > 0, `view ${i}: lines from the target's rows to the source`);
      }
      assert.ok(got.width <= got.cell + 1, `view ${i} fits its cell (${got.width} > ${got.cell})`);
    });
    assert.equal(html.split('customElements.define(').length - 1, 1, 'the renderer is in the page once');
    assert.deepEqual(workers, [], 'no worker: nothing runs a model');
    assert.deepEqual(problems, []);
    await page.screenshot({ path: join(tmpdir(), 'attnscope-notebook-light.png'), fullPage: true });
    // A view no figure holds (formula needs q, k, v) would run the model live: the notebook's
    // figure names no model the element could fetch, so it says so in place and fetches nothing.
    await page.evaluate(() => document.querySelector('attn-scope').shadowRoot.querySelector('button[data-view="formula"]').click());
    await page.waitForFunction(() => document.querySelector('attn-scope').dataset.status === 'error', null, { timeout: 10000 });
    const status = await page.evaluate(() => document.querySelector('attn-scope').shadowRoot.querySelector('.status').textContent);
    assert.match(status, /your model/);
    await page.waitForTimeout(300);
    assert.deepEqual(problems, [], 'nothing fetched for a view the figure lacks');
  } finally {
    await page.close();
  }
});

test('in the dark notebook theme the views are dark (model_view keeps its display_mode)', async () => {
  const { page, problems } = await openNotebook('dark');
  try {
    const views = await shown(page);
    assert.deepEqual(views.map((v) => v.theme), ['dark', 'light', 'dark', 'dark', 'dark', 'dark', 'dark']);
    assert.ok(views.every((v) => v.status === 'ready' && v.frozen));
    assert.deepEqual(problems, []);
    await page.screenshot({ path: join(tmpdir(), 'attnscope-notebook-dark.png'), fullPage: true });
  } finally {
    await page.close();
  }
});

// JupyterLab's rendermime (renderHTML): host.innerHTML = the output's HTML, then each script is
// replaced by a new one with the same attributes and text, so that it runs.
function labPage(outputs) {
  return `<!doctype html><html><head><meta charset="utf-8"></head>
<body data-jp-theme-light="false"><main id="cells"></main>
<script id="outputs" type="application/json">${JSON.stringify(outputs).replace(/</g, '\\u003c')}</script>
<script>
function insertOutput(html) {
  const host = document.createElement('div');
  host.className = 'jp-OutputArea-output';
  host.innerHTML = html;
  document.getElementById('cells').append(host);
  for (const script of [...host.getElementsByTagName('script')]) {
    const clone = document.createElement('script');
    for (const { name, value } of script.attributes) clone.setAttribute(name, value);
    clone.textContent = script.textContent;
    script.parentNode.replaceChild(clone, script);
  }
}
for (const html of JSON.parse(document.getElementById('outputs').textContent)) insertOutput(html);
</script></body></html>`;
}

test('outputs inserted as JupyterLab inserts them draw, in its dark theme, and again when re-run', async () => {
  const executed = JSON.parse(readFileSync(join(dir, 'executed.ipynb'), 'utf8'));
  const outputs = executed.cells.flatMap((c) => c.outputs ?? []).map((o) => o.data?.['text/html']).filter(Boolean)
    .map((h) => (Array.isArray(h) ? h.join('') : h));
  assert.equal(outputs.join('').split('<attn-scope src="data:').length - 1, VIEWS.length);
  writeFileSync(join(dir, 'lab.html'), labPage(outputs));
  const { page, problems, workers } = await openNotebook('lab');
  try {
    const first = await shown(page);
    assert.deepEqual(first.map((v) => [v.status, v.frozen, v.view, v.theme]),
      VIEWS.map((v) => ['ready', true, v.view, v.theme ?? 'dark']));
    assert.ok(first.every((v, i) => (VIEWS[i].lens ? v.lens[0] > 0 : v.inked > 0.01)));
    // Re-run: the same outputs again (the first still carries the renderer).
    await page.evaluate((html) => html.forEach((h) => window.insertOutput(h)), outputs);
    await page.waitForFunction((n) => [...document.querySelectorAll('attn-scope')].length === n &&
      [...document.querySelectorAll('attn-scope')].every((el) => el.dataset.status === 'ready'), 2 * VIEWS.length, { timeout: 30000 });
    assert.deepEqual(workers, []);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a figure made in Python and the one attnscope snapshot writes draw the same pixels', async () => {
  const text = 'The unaffable cat sat on the mat.';
  const cli = (...args) => execFileSync(process.execPath, [join(ROOT, 'js', 'cli', 'cli.js'), ...args, '--threads', '1'], { cwd: ROOT });
  cli('snapshot', '--text', text, '--view', 'grid', '--words', '--out', join(dir, 'cli.json'));
  cli('run', '--text', text, '--format', 'json', '--out', join(dir, 'run.json'));
  const tokenTexts = JSON.parse(cli('tokenize', '--text', text)).token_texts;
  // The CLI's offsets are UTF-16, as Python's string indices are for this (ASCII) text.
  const script = `import json, sys, attnscope
run = json.load(open(sys.argv[1]))
attnscope.figure(run["attentions"], run["tokens"], view="grid", text=sys.argv[2], token_texts=json.loads(sys.argv[3]),
                 offsets=run["offsets"], words=True, model="bundled", config=json.load(open(sys.argv[4])), path=sys.argv[5])`;
  execFileSync('/usr/bin/python3', ['-c', script, join(dir, 'run.json'), text, JSON.stringify(tokenTexts),
    join(ROOT, 'model', 'config.json'), join(dir, 'python.json')], { env: { ...process.env, PYTHONPATH: join(ROOT, 'python') } });
  // The bundled T5's cross-attention: `snapshot --kind cross` against figure(kind="cross") of the
  // run's cross_attentions (target rows; the source's tokens as its columns).
  const source = 'The cat chased the unaffable dog.', target = 'the cat the dog chased';
  const t5 = ['--model', 'bundled-seq2seq', '--text', source];
  cli('snapshot', ...t5, '--kind', 'cross', '--target', target, '--view', 'grid', '--out', join(dir, 'cli-cross.json'));
  cli('run', ...t5, '--target', target, '--format', 'json', '--out', join(dir, 'run-cross.json'));
  const crossScript = `import json, sys, attnscope
run = json.load(open(sys.argv[1]))
attnscope.figure(run["cross_attentions"], run["target_tokens"], view="grid", kind="cross", text=sys.argv[2],
                 source_tokens=run["source_tokens"], model="bundled-seq2seq", path=sys.argv[3])`;
  execFileSync('/usr/bin/python3', ['-c', crossScript, join(dir, 'run-cross.json'), source, join(dir, 'python-cross.json')],
    { env: { ...process.env, PYTHONPATH: join(ROOT, 'python') } });
  const element = (name, view) => `<attn-scope id="${name}" view="${view}" src="data:application/json;base64,${
    readFileSync(join(dir, `${name}.json`)).toString('base64')}"></attn-scope>`;
  const renderer = readFileSync(join(ROOT, 'dist', 'attnscope-element-inline.js'), 'utf8').replace(/<\/script/gi, '<\\/script');
  const pairs = [['', 'grid'], ['', 'head'], ['', 'lines'], ['-cross', 'head']];
  for (const [suffix, view] of pairs) {
    const ids = [`cli${suffix}`, `python${suffix}`];
    writeFileSync(join(dir, `pair-${view}.html`), `<!doctype html><meta charset="utf-8"><body style="margin:0">
<script type="module">${renderer}</script>
<div style="display:flex"><div style="width:540px">${element(ids[0], view)}</div><div style="width:540px">${element(ids[1], view)}</div></div>`);
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    try {
      await page.goto(pathToFileURL(join(dir, `pair-${view}.html`)).href);
      await page.waitForFunction((both) => both.every((id) => document.getElementById(id).dataset.status === 'ready'),
        ids, { timeout: 30000 });
      // Ready comes before the lines view has drawn: it draws one head per task and paints on the
      // next frame. Compare once both have drawn every head and that frame has come.
      await page.waitForFunction((both) => both.every((id) => {
        const el = document.getElementById(id), lines = el.shadowRoot.querySelector('canvas.lines');
        return !lines || Number(lines.dataset.drawn) === el.result.shape[1];
      }), ids, { timeout: 30000 });
      await nextFrame(page);
      const pixels = await page.evaluate((both) => both.map((id) => {
        const el = document.getElementById(id);
        return { frozen: el.frozen, kind: el.kind, canvases: [...el.shadowRoot.querySelectorAll('canvas')].map((c) => c.toDataURL()),
          lines: el.shadowRoot.querySelector('.cross-lines')?.innerHTML ?? '' };
      }), ids);
      const what = `${view}${suffix}`;
      assert.ok(pixels[0].frozen && pixels[1].frozen, what);
      assert.ok(pixels[0].canvases.length > 0, what);
      if (suffix) assert.deepEqual([pixels[0].kind, pixels[1].kind], ['cross', 'cross'], what);
      assert.deepEqual(pixels[1].canvases, pixels[0].canvases, `${what}: the same pixels`);
      assert.equal(pixels[1].lines, pixels[0].lines, `${what}: the same lines`);
    } finally {
      await page.close();
    }
  }
});
