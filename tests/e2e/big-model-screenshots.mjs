// Screenshots of the model panel with a bert-large-shaped folder loaded at f16 (the weight
// precision choice and the memory in the status line), desktop 1280×800 and phone 390×844,
// English and Korean, plus the E_TOO_LARGE message: `node tests/e2e/big-model-screenshots.mjs OUT`
// (default build/screenshots/big-model/). Look at them after changing the picker.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForRuns, writeBertFixture } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';
import { writeBertLargeFolder } from './helpers/bert-large-folder.js';

const out = process.argv[2] ?? 'build/screenshots/big-model';
mkdirSync(out, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'attnscope-big-shots-'));
const large = writeBertLargeFolder(join(tmp, 'bert-large'));
const giant = join(tmp, 'giant');
writeBertFixture(giant, { layers: 1, heads: 1, hidden: 8, intermediate: 8, maxPositions: 8 });
writeFileSync(join(giant, 'config.json'), JSON.stringify({ model_type: 'bert', vocab_size: 30522, hidden_size: 1600,
  num_hidden_layers: 32, num_attention_heads: 16, intermediate_size: 6400, max_position_embeddings: 512 }));
let problems;
try {
  problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
    const g = await newPage();
    await g.page.goto(`${origin}/?text=the+cat+sat+on+the+mat.&lang=${lang}`);
    await waitForRuns(g.page, 1);
    const runs = await g.page.evaluate(() => window.__attnscope.runsDone);
    await g.page.locator('#model-select').selectOption('__local');
    await g.page.locator('#folder-input').setInputFiles(large.dir);
    await g.page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.source === 'files', runs, { timeout: 60000 });
    await g.page.waitForFunction(() => {
      const c = document.querySelector('canvas.model-grid');
      return c && Number(c.dataset.rendered) === Number(c.dataset.layers) * Number(c.dataset.heads);
    }, null, { timeout: 60000 });
    await g.page.screenshot({ path: join(out, `bert-large-${lang}-${size}.png`) });
    if (lang === 'en') {
      await g.page.locator('#precision-select').selectOption('f32');
      await g.page.waitForFunction(() => window.__attnscope.info?.weightPrecision === 'f32' && document.body.dataset.status === 'ready', null, { timeout: 60000 });
      await g.page.locator('#model-select').selectOption('__local');
      await g.page.locator('#folder-input').setInputFiles(giant);
      await g.page.locator('#model-error').waitFor({ state: 'visible' });
      await g.page.screenshot({ path: join(out, `too-large-${size}.png`) });
    }
  });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(problems.length ? `problems:\n${problems.join('\n')}` : `no console problems; screenshots in ${out}`);
