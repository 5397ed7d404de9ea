// The view registry (web/src/views/registry.js) is the one list of views: every entry has its
// file (named by its id, with a default export), its label in every language, URL parameters that
// survive a permalink, and the lists the hosts used to keep by hand are derived from it. (That the
// view ids are written as string literals nowhere else: tests/js/web-src-layout.test.js.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ELEMENT_VIEW_IDS, FAMILIES, RUN_OUTPUTS, VIEW, VIEW_IDS, VIEW_LIST, openView, viewEntry } from '../../web/src/views/registry.js';
import { FIGURE_VIEWS } from '../../js/analysis/snapshot.js';
import { LENS_VIEW } from '../../js/formats/figure-views.js';
import { LANGUAGES, translate } from '../../web/src/i18n/i18n.js';
import { defaultState, PARAM_CHOICES, stateFromUrl, stateToUrl, VIEWS } from '../../web/src/state/state.js';
import { viewUnavailable } from '../../web/src/model/model-family.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const VIEWS_DIR = join(root, 'web/src/views');

test('each view has its file, named by its id, whose default export is the view', () => {
  assert.equal(new Set(VIEW_IDS).size, VIEW_IDS.length, 'ids are unique');
  for (const v of VIEW_LIST) {
    assert.match(v.id, /^[a-z][a-z0-9-]*$/, v.id);
    const file = join(VIEWS_DIR, `${v.id}.js`);
    assert.ok(existsSync(file), `views/${v.id}.js missing`);
    assert.match(readFileSync(file, 'utf8'), /^export default /m, `views/${v.id}.js has no default export`);
    assert.match(v.load.toString(), new RegExp(`import\\(['"]\\./${v.id}\\.js['"]\\)`), `${v.id} loads another file`);
  }
});

test('each view has its label in every language, and declares only known outputs and families', () => {
  for (const v of VIEW_LIST) {
    for (const lang of LANGUAGES) {
      const label = translate(lang, v.label);
      assert.notEqual(label, v.label, `${lang}: no text for ${v.label}`);
      if (lang !== 'en') assert.notEqual(label, translate('en', v.label), `${lang}: ${v.label} is the English text`);
    }
    for (const n of v.needs) assert.ok(RUN_OUTPUTS.includes(n), `${v.id} needs ${n}`);
    for (const f of v.families) assert.ok(FAMILIES.includes(f), `${v.id} family ${f}`);
    assert.notEqual(translate('en', v.unavailable), v.unavailable, `${v.id}: no text for ${v.unavailable}`);
  }
});

test('the URL names exactly the registry\'s views, and opening one sets what its entry says', () => {
  assert.deepEqual([...VIEWS], [...VIEW_IDS]);
  for (const id of VIEW_IDS) {
    const s = stateFromUrl(`?view=${id}`);
    assert.equal(s.view, id);
    for (const [key, value] of Object.entries(viewEntry(id).opens)) assert.equal(s[key], value, `${id} opens ${key}`);
    assert.deepEqual(stateFromUrl(stateToUrl(s)), s, `${id}: the permalink restores the state`);
  }
  assert.equal(stateFromUrl('?view=nonsense').view, defaultState().view);
  // The cross view shows an encoder–decoder's cross-attention whatever kind the link says.
  assert.equal(stateFromUrl('?view=cross&k=enc').kind, 'cross');
  assert.deepEqual(openView(VIEW.cross), { view: 'cross', kind: 'cross' });
});

test('a view\'s own URL parameters survive a permalink', () => {
  const params = VIEW_LIST.flatMap((v) => Object.entries(v.params).map(([name, key]) => ({ view: v.id, name, key })));
  assert.ok(params.length >= 3, 'the positions and layers views own parameters');
  for (const { view, name, key } of params) {
    const d = defaultState();
    // A count, a fraction (the flow view's τ), one of a list (the patching site) or typed text:
    // another valid value than the default.
    const value = typeof d[key] === 'number' ? (Number.isInteger(d[key]) ? 3 : d[key] / 2)
      : PARAM_CHOICES[key]?.at(-1) ?? 'some typed words';
    assert.notEqual(d[key], value);
    const url = stateToUrl({ ...d, view, [key]: value });
    assert.equal(new URLSearchParams(url).get(name), String(value), `${view}: ${key} written as ${name}`);
    assert.equal(stateFromUrl(url)[key], value, `${view}: ${name} read back into ${key}`);
  }
});

test('each URL parameter belongs to one view: the page\'s link and the element\'s attributes are one namespace', () => {
  const owner = new Map();
  for (const v of VIEW_LIST) {
    for (const [name, key] of Object.entries(v.params)) {
      assert.ok(!owner.has(name), `?${name}= is ${owner.get(name)?.view}'s ${owner.get(name)?.key} and ${v.id}'s ${key}`);
      owner.set(name, { view: v.id, key });
    }
  }
});

test('the derived lists: element views, frozen figures, family rules', () => {
  // The element's buttons, in this order, as before the registry.
  assert.deepEqual([...ELEMENT_VIEW_IDS], ['grid', 'head', 'lines', 'formula', 'aggregates', 'block', 'positions', 'flow', 'patching']);
  // A frozen figure draws with no model: the figure format's views, which the element offers (the
  // logit lens only while a figure holds it: a live element shows no predictions).
  assert.deepEqual(VIEW_LIST.filter((v) => v.figure).map((v) => v.id).sort(), [...FIGURE_VIEWS].sort());
  for (const id of FIGURE_VIEWS) assert.ok(ELEMENT_VIEW_IDS.includes(id) || id === LENS_VIEW, id);
  // An encoder–decoder's run gives no q/k/v, value norms, encoder trace, lens, attribution or
  // corpus of single texts: these are the views that read none of those.
  const seq2seq = { kind: 'encoder-decoder' }, gpt2 = { kind: 'decoder', config: { isDecoder: true } }, bert = { config: {} };
  assert.deepEqual(VIEW_IDS.filter((id) => !viewUnavailable(seq2seq, id)).sort(),
    ['block', 'compare', 'cross', 'grid', 'head', 'heads', 'lines', 'patching']);
  for (const info of [gpt2, bert, null]) {
    assert.deepEqual(VIEW_IDS.filter((id) => viewUnavailable(info, id)), ['cross']);
    assert.equal(viewUnavailable(info, 'cross'), 'crossNeedsSeq2Seq');
  }
  assert.equal(viewUnavailable(seq2seq, 'formula'), 'viewNotSeq2Seq');
});
