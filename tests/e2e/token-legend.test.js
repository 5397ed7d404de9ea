// The token chips' legend (found in a newcomer pass): Korean typed into the bundled GPT-2
// becomes one chip per UTF-8 byte, and the page now says so (the count equals the byte tokens
// counted here from the run's tokens); "##", "␣" and bytes are explained only when present.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { guardedPage, launchBrowser, startServer, waitForRuns, keepScreenshot } from './helpers.js';

let server, browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function open(query, viewport) {
  const g = await guardedPage(browser, server.origin, viewport);
  await g.page.goto(`${server.origin}/${query}`);
  await waitForRuns(g.page, 1);
  const got = await g.page.evaluate(() => ({
    texts: window.__attnscope.tokenTexts,
    legend: document.getElementById('token-legend').hidden ? null : document.getElementById('token-legend').textContent,
    notice: document.getElementById('unk-notice').hidden ? null : document.getElementById('unk-notice').textContent,
  }));
  return { ...g, got };
}

test('Korean in the bundled GPT-2: a notice counts the byte chips; the legend explains bytes', async () => {
  for (const lang of ['en', 'ko']) {
    const { page, problems, got } = await open(`?model=bundled-causal&lang=${lang}&text=${encodeURIComponent('안녕하세요 the cat')}`, { width: 390, height: 844 });
    const bytes = got.texts.filter((s) => /^<0x[0-9A-F]{2}>$/i.test(s)).length;
    assert.equal(bytes, 15, 'five Hangul syllables, three UTF-8 bytes each');
    assert.ok(got.notice.includes(String(bytes)) && got.notice.includes(String(got.texts.length)), got.notice);
    assert.ok(got.legend.includes('<0xEB>') && got.legend.includes('␣'), got.legend);
    if (lang === 'ko') assert.match(got.notice, /바이트/);
    else assert.match(got.notice, /English/);
    await keepScreenshot(page, `legend-bytes-${lang}.png`);
    assert.deepEqual(problems, []);
    await page.context().close();
  }
});

test('the legend shows only the marks present', async () => {
  const split = await open(`?text=${encodeURIComponent('The unaffable tokenizer.')}`);
  assert.match(split.got.legend, /“##”/);
  assert.doesNotMatch(split.got.legend, /␣|<0x/);
  assert.equal(split.got.notice, null);
  await split.page.context().close();
  const plain = await open(`?text=${encodeURIComponent('The cat sat.')}`);
  assert.equal(plain.got.legend, null, 'no marks, no legend');
  assert.deepEqual(plain.problems, []);
  await plain.page.context().close();
});
