// Exports: every view downloads as a figure — PNG at devicePixelRatio with a title
// band, the view's own pixels, its token labels and a labelled colour scale; SVG with the same
// words as <text> — in the UI's language. The figure's layout is not trusted: the heatmap is
// found in the PNG by its pixels, and the places where the page shows HTML text must have ink.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { serverAndBrowser, waitForRuns } from './helpers.js';
import { checkFigureInPage } from './helpers/figure-check.js';

const TEXT = 'The cat sat on the mat because it was tired.';
const env = serverAndBrowser();

async function openPage(query, { dpr = 1, viewport = { width: 1280, height: 800 } } = {}) {
  const context = await env.browser.newContext({ viewport, deviceScaleFactor: dpr });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  await page.goto(`${env.server.origin}/?text=${encodeURIComponent(TEXT)}&${query}`);
  await waitForRuns(page, 1);
  return { page, context, problems };
}

async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.locator(selector).click()]);
  return { bytes: readFileSync(await file.path()), name: file.suggestedFilename() };
}

// The SVG parsed in the page: its texts, images and the heatmap's cells.
function readSvg(page, text) {
  return page.evaluate((svg) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    return {
      errors: doc.getElementsByTagName('parsererror').length,
      title: doc.querySelector('title')?.textContent ?? '',
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      images: doc.querySelectorAll('image').length,
      cells: doc.querySelectorAll('g[shape-rendering] > rect').length,
    };
  }, text);
}

test('the head view PNG at devicePixelRatio 2: title band, the heatmap pixel for pixel, hint and legend inked', async () => {
  const g = await openPage('view=head&layer=1&head=2', { dpr: 2 });
  try {
    const png = await download(g.page, '#export-png');
    assert.equal(png.name, 'attnscope-head-layer1-head2.png');
    const check = await g.page.evaluate(checkFigureInPage, {
      b64: png.bytes.toString('base64'), panelSelector: '.view-head', canvasSelector: '.heatmap canvas', dpr: 2,
      textSelectors: ['.hint', '.legend span:first-child', '.legend-caption'],
    });
    assert.ok(check.distinct >= 3, 'the sampled heatmap row is not uniform');
    assert.ok(check.found, `the heatmap's pixels are not in the PNG at 2 px per CSS px (PNG ${JSON.stringify(check.size)})`);
    assert.ok(check.firstY >= 30, `no title band above the view (view at y=${check.firstY})`);
    assert.ok(check.titleInk > 200, 'the title band is blank');
    for (const t of check.texts) assert.ok(t.ink > 0, `"${t.text}" (${t.sel}) is blank in the PNG`);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('the head view SVG: one rect per cell, token labels and a labelled colour scale', async () => {
  const g = await openPage('view=head&layer=1&head=2');
  try {
    const svg = await download(g.page, '#export-svg');
    assert.equal(svg.name, 'attnscope-head-layer1-head2.svg');
    const doc = await readSvg(g.page, svg.bytes.toString('utf8'));
    const tokens = await g.page.evaluate(() => window.__attnscope.tokens);
    assert.equal(doc.errors, 0);
    assert.equal(doc.cells, tokens.length * tokens.length);
    assert.match(doc.title, /Layer 1, head 2/);
    for (const tok of tokens) assert.ok(doc.texts.includes(tok), `no label ${tok}`);
    assert.ok(doc.texts.includes('0') && doc.texts.includes('attention weight'), 'the colour scale has no labels');
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('every other view exports a titled SVG figure in the UI language, with its legend text (Korean)', async () => {
  const g = await openPage('view=aggregates&layer=1&head=0&lang=ko');
  try {
    const expect = {
      aggregates: { caption: '어텐션 가중치' },
      lines: { caption: '선의 진하기 = 어텐션 가중치, 색 = 헤드' },
      formula: { caption: '어텐션 가중치' },
      grid: {},
    };
    for (const [view, { caption }] of Object.entries(expect)) {
      await g.page.locator(`[role=tab][data-view="${view}"]`).click();
      await g.page.waitForFunction((v) => window.__attnscope.state.view === v, view);
      const tab = (await g.page.locator(`[role=tab][data-view="${view}"]`).textContent()).trim();
      const svg = await download(g.page, '#export-svg');
      assert.equal(svg.name, `attnscope-${view}-layer1-head0.svg`);
      const doc = await readSvg(g.page, svg.bytes.toString('utf8'));
      assert.equal(doc.errors, 0, view);
      assert.ok(doc.texts[0].startsWith(`AttnScope · ${tab}`), `${view}: title "${doc.texts[0]}" does not name "${tab}"`);
      assert.ok(doc.texts.some((t) => t.includes('내장 모델')), `${view}: no model name`);
      assert.ok(doc.images >= 1, `${view}: the view's canvases are missing`);
      if (caption) assert.ok(doc.texts.some((t) => t.includes(caption)), `${view}: no "${caption}"`);
      const png = await download(g.page, '#export-png');
      assert.equal(png.bytes.subarray(1, 4).toString('latin1'), 'PNG', view);
    }
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('on a 1× screen the PNG is 2×; figures leave out how-to text and inputs; the head view\'s own Save PNG is the titled figure with its scale', async () => {
  const g = await openPage('view=grid&layer=1&head=0', { dpr: 1 });
  try {
    const howTo = { grid: 'use the arrow keys and Enter', lines: 'Hover a token to follow', formula: null };
    for (const [view, words] of Object.entries(howTo)) {
      await g.page.locator(`[role=tab][data-view="${view}"]`).click();
      await g.page.waitForFunction((v) => window.__attnscope.state.view === v, view);
      await g.page.waitForTimeout(300);
      // The same display list makes the SVG and the PNG: its words are the PNG's.
      const svg = await download(g.page, '#export-svg');
      const doc = await g.page.evaluate((text) => {
        const root = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
        return { width: Number(root.getAttribute('width')), texts: [...root.querySelectorAll('text')].map((t) => t.textContent) };
      }, svg.bytes.toString('utf8'));
      if (words) {
        assert.ok(await g.page.locator(`.view-${view} .how-to`).isVisible(), `${view}: the page lost its how-to`);
        assert.doesNotMatch(doc.texts.join(' '), new RegExp(words), `${view}: the figure carries the how-to`);
      }
      // The pickers' labels ("Layer", "Head", "Query token" beside their lists) stay on the page.
      const labels = await g.page.locator(`.view-${view} label:has(select) > span`).allTextContents();
      if (view !== 'grid') assert.ok(labels.length > 0, `${view} has no pickers to leave out`);
      for (const label of labels) assert.ok(!doc.texts.includes(label.trim()), `${view}: the picker "${label}" is in the figure`);
      const png = await download(g.page, '#export-png');
      assert.equal(png.bytes.readUInt32BE(16), Math.round(doc.width * 2), `${view}: the PNG is not 2× the figure's ${doc.width} px`);
    }
    // The head view's own button: the same titled figure (with its colour scale) as the page's PNG.
    await g.page.locator('[role=tab][data-view="head"]').click();
    await g.page.waitForFunction(() => window.__attnscope.state.view === 'head');
    const own = await download(g.page, '.view-head .save-png');
    const page = await download(g.page, '#export-png');
    assert.equal(own.name, 'attnscope-head-layer1-head0.png');
    assert.ok(own.bytes.equals(page.bytes), 'the head view\'s Save PNG differs from the titled figure');
    // (That figure's title band, heatmap and inked scale: the first test, at devicePixelRatio 2.)
    const viewWidth = await g.page.evaluate(() => document.querySelector('.view-head').getBoundingClientRect().width);
    assert.ok(own.bytes.readUInt32BE(16) >= 2 * viewWidth, `the head PNG is ${own.bytes.readUInt32BE(16)} px for a ${viewWidth}-px view`);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});
