// The view model (web/src/state/view-model.js) declares everything views read: the object is sealed,
// so a host or panel that hangs a new property on it fails at once instead of leaving a field
// that only some hosts set (the generation in progress was once such a field).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createViewModel } from '../../web/src/state/view-model.js';
import { defaultState } from '../../web/src/state/state.js';

test('the view model is sealed, with the hosts\' and panels\' fields declared', () => {
  const patches = [];
  const app = createViewModel({ state: defaultState(), onSet: (patch) => patches.push(patch) });
  for (const key of ['generation', 'generated', 'heldout', 'lessonVars', 'openText', 'openPair', 'loadModel', 'jobs', 'info']) {
    assert.ok(Object.hasOwn(app, key), key);
  }
  assert.ok(Object.isSealed(app));
  assert.throws(() => { app.undeclared = 1; }, TypeError);
  app.generation = { prompt: 'x', steps: [], done: false };   // declared: a panel may set it
  assert.equal(app.generation.prompt, 'x');
  app.set({ layer: 0 });
  assert.deepEqual(patches, [{ layer: 0 }]);
});
