// Screenshots of <attn-scope> as dist/attnscope-element.js draws it from its chunks (the view, the
// language's text and the lesson fetched on demand): a BERT grid, a lesson step, and an English
// element switched to Korean, desktop 1280 and phone 390 wide, English and Korean:
// `node tests/e2e/embed-chunks-screenshots.mjs OUT` (default build/screenshots/embed-chunks/).
// Prints the console's errors and warnings and the chunks each page fetched.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';

const out = process.argv[2] ?? 'build/screenshots/embed-chunks';
mkdirSync(out, { recursive: true });
const PAGES = {
  grid: (lang) => `<attn-scope lang="${lang}" text="The bank of the river." view="grid"></attn-scope>`,
  lesson: (lang) => `<attn-scope lang="${lang}" lesson="attention" step="2" text="The cat sat on the mat."></attn-scope>`,
  switched: () => '<attn-scope id="s" text="The bank of the river." view="head"></attn-scope>',
};
await ensureBuilt();
const pages = {};
for (const [name, body] of Object.entries(PAGES)) for (const lang of ['en', 'ko']) pages[`/${name}-${lang}.html`] = elementPage(body(lang));
const server = await startServer({ pages });
const browser = await launchBrowser();
try {
  for (const [size, width] of [['desktop', 1280], ['phone', 390]]) {
    for (const path of Object.keys(pages)) {
      const g = await guardedPage(browser, { viewport: { width, height: 900 } });
      const warnings = [];
      g.page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
      const from = server.log.length;
      await g.page.goto(server.origin + path);
      await waitForElements(g.page, 1);
      if (path.startsWith('/switched-ko')) {   // an English element told to speak Korean
        await g.page.evaluate(() => document.getElementById('s').setAttribute('lang', 'ko'));
        await g.page.waitForFunction(() => document.getElementById('s').shadowRoot.querySelector('.views button').textContent !== 'Grid');
      }
      await g.page.waitForTimeout(400);
      const name = `${path.slice(1, -5)}-${size}.png`;
      await g.page.screenshot({ path: join(out, name), fullPage: true });
      const scripts = server.log.slice(from).filter((p) => p.endsWith('.js'));
      // The named chunks (views, text, lesson); the shared ones are only counted.
      const chunks = scripts.filter((p) => !/\/chunk-/.test(p)).map((p) => p.replace(/^.*\//, '')).join(' ') + ` + ${scripts.filter((p) => /\/chunk-/.test(p)).length} shared`;
      console.log(name, 'problems:', [...await g.check(), ...warnings], 'scripts:', chunks);
      await g.context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
