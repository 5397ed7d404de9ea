// Bundles the explorer for the browser: web/src/main.js → dist/explorer.js and the model worker
// js/worker.js → dist/worker.js. Bundling is needed because the package resolves '#platform'
// through package.json "imports", which browsers do not read. Both files land in dist/ so the
// package's own `new URL('./worker.js' | '../dist/attnscope.wasm' | '../model/…', import.meta.url)`
// resolve to the served files. Usage: node web/build.mjs (also run by scripts/serve.mjs).
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildExplorer({ quiet = false } = {}) {
  const common = {
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: process.env.ATTNSCOPE_NO_MINIFY ? false : true,
    sourcemap: true,
    logLevel: quiet ? 'error' : 'info',
    absWorkingDir: ROOT,
  };
  const entries = [{ in: 'web/src/main.js', out: 'explorer' }];
  // The worker needs the Emscripten module (scripts/build.sh wasm); without it the page still
  // builds and shows the load error.
  if (existsSync(join(ROOT, 'dist/attnscope.mjs'))) entries.push({ in: 'js/worker.js', out: 'worker' });
  else if (!quiet) console.warn('web/build.mjs: dist/attnscope.mjs missing; run scripts/build.sh wasm (worker not bundled)');
  await build({ ...common, entryPoints: entries, outdir: join(ROOT, 'dist') });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildExplorer();
}
