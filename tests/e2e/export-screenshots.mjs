// Screenshots of the page's exports: every view's PNG and SVG download, desktop
// (1280×800, devicePixelRatio 1) and phone (390×844, devicePixelRatio 2), English and Korean,
// with the bundled model. The downloads themselves are laid out on one contact sheet per
// size, language and format (the SVGs rendered by Chromium through <img>), written to
// docs/screenshots/exports-{lang}-{size}-{png|svg}.jpg; the English desktop downloads of the
// head, lines and grid views are kept as files too (docs/screenshots/exports/), with the PNG of
// examples/embed.html's first <attn-scope> at devicePixelRatio 2 (embed-head.png). `node tests/e2e/export-screenshots.mjs` — then look.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';

const OUT = join(import.meta.dirname, '../../docs/screenshots');
const SIZES = { desktop: { viewport: { width: 1280, height: 800 }, dpr: 1 }, phone: { viewport: { width: 390, height: 844 }, dpr: 2 } };
const TEXT = 'The cat sat on the mat because it was tired.';
const KEPT = new Set(['grid', 'head', 'lines']);   // raw downloads committed (the sheets show the rest)
// Each view, the query that opens it in a state worth exporting, and what to wait for after the run.
const VIEWS = [
  ['grid', 'view=grid'],
  ['head', 'view=head&layer=1&head=0&sel=2,3'],
  ['lines', 'view=lines&layer=1'],
  ['formula', 'view=formula&layer=1&head=0&q=2'],
  ['aggregates', 'view=aggregates&layer=1&head=0'],
  ['diff', 'view=diff&layer=1&head=2&off=0:1', () => window.__attnscope.edit?.kind === 'heads'],
  ['compare', 'view=compare&layer=1&head=0', () => window.__attnscope.compare('decoder') && window.__attnscope.compare('encoder')],
  ['block', 'view=block&layer=1&head=0', () => window.__attnscope.block],
  ['positions', 'view=positions&layer=1&head=0', () => window.__attnscope.positions],
  ['heads', 'view=heads'],
  ['map', 'view=map&layer=0&head=1', () => window.__attnscope.qkMap?.points > 0],
];

async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.locator(selector).click()]);
  return readFileSync(await file.path());
}

// One page showing the downloads side by side, each under its view's name and pixel size.
async function contactSheet(browser, items, path, columnWidth) {
  const context = await browser.newContext({ viewport: { width: Math.min(2400, 3 * columnWidth + 80), height: 800 } });
  const page = await context.newPage();
  const cells = items.map(({ name, mime, bytes, size }) => `<figure><figcaption>${name} · ${size}</figcaption>` +
    `<img src="data:${mime};base64,${bytes.toString('base64')}"></figure>`).join('');
  await page.setContent(`<style>body{margin:16px;font:13px system-ui;background:#e9ebef;display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
    figure{margin:0;width:${columnWidth}px}img{width:100%;display:block;box-shadow:0 0 0 1px #bbb;background:#fff}
    figcaption{margin-bottom:4px;color:#333}</style>${cells}`);
  await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
  await page.screenshot({ path, fullPage: true, type: 'jpeg', quality: 80 });   // sheets of pictures: JPEG keeps them small
  await context.close();
}

const pngSize = (b) => `${b.readUInt32BE(16)}×${b.readUInt32BE(20)} px`;
const svgSize = (b) => { const m = /<svg[^>]*width="([\d.]+)"[^>]*height="([\d.]+)"/.exec(b.toString('utf8')); return m ? `${m[1]}×${m[2]} SVG` : 'SVG'; };

mkdirSync(join(OUT, 'exports'), { recursive: true });
const server = await startServer();
const browser = await launchBrowser();
const problems = [];
try {
  for (const [size, { viewport, dpr }] of Object.entries(SIZES)) {
    for (const lang of ['en', 'ko']) {
      const pngs = [], svgs = [];
      for (const [name, query, ready] of VIEWS) {
        const g = await guardedPage(browser, server.origin, viewport);
        // guardedPage makes its own context at DPR 1: the phone runs need a DPR-2 context.
        if (dpr !== 1) {
          await g.context.close();
          const ctx = await browser.newContext({ viewport, deviceScaleFactor: dpr });
          g.context = ctx;
          g.page = await ctx.newPage();
          g.page.on('console', (m) => { if (m.type() === 'error') g.problems.push(`console.error: ${m.text()}`); });
          g.page.on('pageerror', (e) => g.problems.push(`uncaught: ${e.message}`));
        }
        await g.page.goto(`${server.origin}/?text=${encodeURIComponent(TEXT)}&${query}&lang=${lang}`);
        await waitForRuns(g.page, 1);
        if (ready) await g.page.waitForFunction(ready, null, { timeout: 120000 });
        await g.page.waitForTimeout(800);   // chunked drawing, rollout worker (a picture, not a test)
        const png = await download(g.page, '#export-png');
        const svg = await download(g.page, '#export-svg');
        pngs.push({ name, mime: 'image/png', bytes: png, size: pngSize(png) });
        svgs.push({ name, mime: 'image/svg+xml', bytes: svg, size: svgSize(svg) });
        if (size === 'desktop' && lang === 'en' && KEPT.has(name)) {
          writeFileSync(join(OUT, 'exports', `${name}.png`), png);
          writeFileSync(join(OUT, 'exports', `${name}.svg`), svg);
        }
        problems.push(...g.problems.map((p) => `${lang}-${size} ${name}: ${p}`));
        await g.context.close();
      }
      const column = size === 'desktop' ? 640 : 390;
      await contactSheet(browser, pngs, join(OUT, `exports-${lang}-${size}-png.jpg`), column);
      await contactSheet(browser, svgs, join(OUT, `exports-${lang}-${size}-svg.jpg`), column);
      console.log(`${lang}-${size}: ${pngs.length} views exported`);
    }
  }
  // <attn-scope>'s PNG (the README example's first figure) at devicePixelRatio 2, as a blog reader gets it.
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  await page.goto(`${server.origin}/examples/embed.html`);
  await page.waitForFunction(() => [...document.querySelectorAll('attn-scope')].every((el) => el.result), null, { timeout: 60000 });
  writeFileSync(join(OUT, 'exports', 'embed-head.png'), await download(page, 'attn-scope >> button[data-action="png"] >> nth=0'));
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
if (problems.length) console.error(problems.join('\n'));
