// js/, the npm package, is in folders by layer (js/README.md): each folder's README.md says what it
// may import ("- May import: a/, b/"), no file imports past that, and the rules have no cycle. The
// entries at the top (index.js, worker.js, the platform files) may import any folder; no folder
// imports them but through '#platform' (a bare specifier, package.json's import map) and cli/,
// which uses the package's entry as any user would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

import { foldersNamed, importsOf, mayImportLine } from './import-specifiers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PKG = 'js';
// The top's files: entries, and the platform files whose URLs need them one folder below the root.
const TOP = ['index.js', 'index.d.ts', 'worker.js', 'platform-browser.js', 'platform-node.js', 'node-pthread-worker.js', 'README.md'];
// cli/ may also import the package's entry.
const ENTRY_FOR = { cli: new Set(['js/index.js']) };

const folders = () => readdirSync(join(root, PKG)).filter((e) => statSync(join(root, PKG, e)).isDirectory());

function readRules() {
  const rules = new Map();
  for (const folder of folders()) {
    const readme = join(root, PKG, folder, 'README.md');
    assert.ok(existsSync(readme), `js/${folder}/ has no README.md saying what it holds and may import`);
    const line = mayImportLine(readFileSync(readme, 'utf8'));
    assert.ok(line, `js/${folder}/README.md has no "- May import:" line`);
    rules.set(folder, foldersNamed(line));
  }
  return rules;
}

test('js/ holds its entries and the platform files at the top, everything else in folders', () => {
  const loose = readdirSync(join(root, PKG)).filter((e) => !statSync(join(root, PKG, e)).isDirectory() && !TOP.includes(e));
  assert.deepEqual(loose, [], 'a file at js/\'s top that belongs in a folder');
  assert.ok(folders().length >= 5);
});

test('no import in js/ runs up a layer: each file imports only what its folder\'s README allows', () => {
  const rules = readRules();
  const wrong = [];
  let scanned = 0;
  for (const folder of folders()) {
    for (const name of readdirSync(join(root, PKG, folder)).filter((n) => n.endsWith('.js'))) {
      const file = posix.join(PKG, folder, name);
      scanned++;
      for (const { spec } of importsOf(readFileSync(join(root, file), 'utf8'))) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec));
        if (target.startsWith('dist/')) continue;   // the Emscripten glue the build writes: no layer of js/
        if (!existsSync(join(root, target))) { wrong.push(`${file}: ${spec} does not exist`); continue; }
        const into = posix.relative(PKG, target).split('/');
        if (into.length === 2 && (into[0] === folder || rules.get(folder).has(into[0]))) continue;
        if (ENTRY_FOR[folder]?.has(target)) continue;
        wrong.push(`${file} imports ${target}: js/${folder}/README.md allows ${[...rules.get(folder)].join(', ') || 'nothing outside it'}`);
      }
    }
  }
  assert.ok(scanned > 40, `scanned ${scanned} files: the scan is broken`);
  assert.deepEqual(wrong, []);
});

test('the js/ folders\' rules are layers: no folder may import one that may import it back', () => {
  const rules = readRules();
  const state = new Map();
  const walk = (folder, path) => {
    if (state.get(folder) === 'done') return;
    assert.notEqual(state.get(folder), 'open', `a cycle: ${[...path, folder].join(' → ')}`);
    state.set(folder, 'open');
    for (const next of rules.get(folder)) {
      assert.ok(rules.has(next), `js/${folder}/README.md names ${next}/, which is not a folder of js/`);
      walk(next, [...path, folder]);
    }
    state.set(folder, 'done');
  };
  for (const folder of rules.keys()) walk(folder, []);
});
