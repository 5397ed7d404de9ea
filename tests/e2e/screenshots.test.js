// Takes the screenshots of every view at desktop and phone size in CI (into build/screenshots/,
// for a developer to look at) and checks they were written with a clean console.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { takeScreenshots } from './screenshots.mjs';

describe('screenshots', () => {
  it('every view at desktop and phone size, no console problems', async () => {
    const out = join(import.meta.dirname, '../../build/screenshots');
    const { files, problems } = await takeScreenshots(out);
    assert.deepEqual(problems, []);
    assert.equal(files.length, 2 * (6 + 1 + 1 + 2));   // 6 views + full page + diff + first screen en/ko, per size
    for (const f of files) assert.ok(statSync(f).size > 5000, `${f} looks empty`);
  });
});
