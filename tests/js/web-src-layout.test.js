// web/src/ is in folders by layer, and the views are named in one place. Checked here from the
// files themselves, with no browser:
//  - its top holds at most a dozen entries, and each folder's README.md says what it may import
//    ("- May import: a/, b/ (…)"); no file imports past that, the folders' rules have no cycle
//    (so they are layers), and every relative import names a file that exists;
//  - a view id is written as a string literal only in the registry (web/src/views/registry.js),
//    in the package's list of the views a frozen figure draws (js/formats/figure-views.js FIGURE_VIEW: the
//    package cannot import the page) and in the string tables; code elsewhere says VIEW.<id>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { VIEW_IDS } from '../../web/src/views/registry.js';
import { FIGURE_VIEW } from '../../js/formats/figure-views.js';
import { foldersNamed, importsOf, mayImportLine } from './import-specifiers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SRC = 'web/src';
const MAX_TOP_ENTRIES = 12;

const jsFiles = (dir) => readdirSync(join(root, dir), { recursive: true })
  .filter((name) => /\.m?js$/.test(name)).map((name) => posix.join(dir, name.split('\\').join('/')));
const folders = () => readdirSync(join(root, SRC)).filter((e) => statSync(join(root, SRC, e)).isDirectory());

/** Each folder's rules, read from its README.md: the folders it may import, the files outside
 *  web/src it may import besides the package (js/), and its facts (files any folder may import). */
function readRules() {
  const rules = new Map();
  for (const folder of folders()) {
    const readme = join(root, SRC, folder, 'README.md');
    assert.ok(existsSync(readme), `web/src/${folder}/ has no README.md saying what it holds and may import`);
    const text = readFileSync(readme, 'utf8');
    const line = mayImportLine(text);
    assert.ok(line, `web/src/${folder}/README.md has no "- May import:" line`);
    const facts = text.split('\n').find((l) => l.startsWith('- Facts'))?.split(':').at(-1).split(',').map((f) => f.trim()) ?? [];
    rules.set(folder, {
      folders: foldersNamed(line),
      files: new Set([...line.matchAll(/web\/embed\/[\w-]+\.js/g)].map((m) => m[0])),
      facts: facts.filter(Boolean).map((f) => `${folder}/${f}`),
    });
  }
  return rules;
}

test('web/src shows folders by role, at most a dozen entries at its top', () => {
  const entries = readdirSync(join(root, SRC));
  assert.ok(entries.length <= MAX_TOP_ENTRIES, `web/src has ${entries.length} entries: ${entries.join(' ')}`);
  assert.ok(folders().length >= 5, 'web/src is in folders');
});

test('no import runs up a layer: each file imports only what its folder\'s README allows', () => {
  const rules = readRules();
  const facts = new Set([...rules.values()].flatMap((r) => r.facts));
  for (const f of facts) assert.ok(existsSync(join(root, SRC, f)), `fact ${f} named in a README does not exist`);
  const wrong = [];
  const files = jsFiles(SRC);
  assert.ok(files.length > 80, `found ${files.length} files: the scan is broken`);
  for (const file of files) {
    const from = posix.relative(SRC, file);
    const folder = from.includes('/') ? from.split('/')[0] : null;   // null: main.js, the page's entry
    for (const { spec, dynamic } of importsOf(readFileSync(join(root, file), 'utf8'))) {
      const target = posix.normalize(posix.join(posix.dirname(file), spec));
      if (!existsSync(join(root, target))) { wrong.push(`${file}: ${spec} does not exist`); continue; }
      if (target.startsWith('js/')) continue;   // the package: below every folder
      const inSrc = posix.relative(SRC, target);
      const into = inSrc.startsWith('..') ? null : inSrc.split('/')[0];
      if (facts.has(from)) {
        // A fact loads nothing with it: the registry's views are fetched when a host first shows one.
        if (!facts.has(inSrc) && !(dynamic && into === folder)) wrong.push(`${file} is a fact but imports ${target}`);
        continue;
      }
      if (folder === null || into === folder || facts.has(inSrc)) continue;
      const rule = rules.get(folder);
      if (into === null ? !rule.files.has(target) : !rule.folders.has(into)) {
        wrong.push(`${file} imports ${target}: ${folder}/README.md allows ${[...rule.folders, ...rule.files].join(', ') || 'nothing in web/src'}`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test('the folders\' rules are layers: no folder may import one that may import it back', () => {
  const rules = readRules();
  for (const [folder, rule] of rules) {
    for (const f of rule.folders) assert.ok(rules.has(f), `${folder}/README.md names ${f}/, which is not a folder of web/src`);
  }
  const state = new Map();   // folder → 'open' while its imports are being walked, 'done' after
  const walk = (folder, path) => {
    if (state.get(folder) === 'done') return;
    assert.notEqual(state.get(folder), 'open', `a cycle: ${[...path, folder].join(' → ')}`);
    state.set(folder, 'open');
    for (const next of rules.get(folder).folders) walk(next, [...path, folder]);
    state.set(folder, 'done');
  };
  for (const folder of rules.keys()) walk(folder, []);
});

// Where a literal names a view: compared with or given to a view (view === 'grid', { view:
// 'head' }, openView('cross'), setAttribute('view', …), ?view=map, data-view="…"), or a list
// of views (['flow', 'patching']). Strings that are not view ids but read alike (a matrix kind
// 'cross', a state key 'head', a role 'grid', a run output 'flow') do not sit in those places.
const ids = VIEW_IDS.join('|');
const lit = (n) => `(['"\`])(?:${ids})\\${n}`;
const NAMING = [
  new RegExp(`view\\w*\\s*(?:===?|!==?|:|=(?!>)|\\?\\?=?)\\s*${lit(1)}`, 'i'),
  new RegExp(`${lit(1)}\\s*(?:===?|!==?)\\s*[\\w.?]*view`, 'i'),
  new RegExp(`\\b(?:viewEntry|openView|loadView|loadedView|viewNeeds|showView|setView)\\(\\s*${lit(1)}`),
  new RegExp(`\\bviewUnavailable\\([^,()]*,\\s*${lit(1)}`),
  new RegExp(`['"]view['"]\\s*,\\s*${lit(1)}`),
  new RegExp(`view\\w*\\.(?:includes|has|indexOf)\\(\\s*${lit(1)}`, 'i'),
  new RegExp(`view=\\\\?["']?(?:${ids})\\b`, 'i'),
  new RegExp(`${lit(1)}\\s*,\\s*${lit(2)}`),
  new RegExp(`new Set\\(\\[\\s*${lit(1)}`),
];
const namesView = (line) => NAMING.some((re) => re.test(line));
// Comments may name a view as the reader knows it (?view=cross); code may not.
const code = (line) => (/^\s*(\/\/|\*|\/\*|<!--)/.test(line) ? '' : line.replace(/(^|\s)\/\/.*$/, ''));

test('the scan finds a view id written where a view is named, and nothing else', () => {
  for (const bad of ["if (state.view === 'grid') draw();", "app.set({ layer: 0, view: 'head' });", "openView('cross')",
    "el.setAttribute('view', 'lines');", "const FRAMES = ['flow', 'patching'];", "'map' !== app.state.view",
    "location.search = '?view=positions';", '<button data-view="formula">', "if (viewUnavailable(info, 'block')) return;",
    "const PAGE_ONLY = new Set(['compare']);", "views.includes('diff')"]) {
    assert.ok(namesView(code(bad)), `missed: ${bad}`);
  }
  for (const good of ["app.set({ view: VIEW.cross, kind: 'cross' });", "canvas.setAttribute('role', 'grid');",
    "if (p.kind === 'head') li.dataset.head = String(p.head);", "viewNeeds(view, 'flow')", "viewJob('map', run)",
    "// The cross-attention view (?view=cross): the decoder reading the source.", "canvas.className = 'lines';"]) {
    assert.ok(!namesView(code(good)), `flagged: ${good}`);
  }
});

test('view ids appear as string literals only in the registry (and the string tables)', () => {
  const allowed = new Set(['web/src/views/registry.js', 'js/formats/figure-views.js']);
  const isTable = (file) => /^web\/src\/i18n\/i18n[\w-]*\.js$/.test(file);
  const files = [...jsFiles(SRC), ...jsFiles('web/embed'), ...jsFiles('js'), 'web/index.html']
    .filter((f) => !allowed.has(f) && !isTable(f));
  assert.ok(files.length > 120, `found ${files.length} files: the scan is broken`);
  const found = [];
  for (const file of files) {
    for (const [n, line] of readFileSync(join(root, file), 'utf8').split('\n').entries()) {
      if (namesView(code(line))) found.push(`${file}:${n + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(found, []);
  // The package's own names are the registry's ids, each named as itself.
  for (const [name, id] of Object.entries(FIGURE_VIEW)) {
    assert.equal(name, id);
    assert.ok(VIEW_IDS.includes(id), `js/formats/figure-views.js names ${id}, which the registry has not`);
  }
});
