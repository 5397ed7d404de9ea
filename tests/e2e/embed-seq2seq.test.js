// <attn-scope model="bundled-seq2seq">: the kind attribute (the page's k: enc | dec |
// cross) chooses which of the T5's attentions the grid, head and lines views draw, over the source
// (text) and the target (target). Served under the strict CSP, and as the single file
// dist/attnscope-embed-seq2seq.html from file:// with the network off. The attention drawn is
// compared with the float64 PyTorch forward of model-seq2seq/ computed now
// (helpers/seq2seq-torch-reference.py; the weights are retrained, so no number is copied from
// them), the ids with Hugging Face's Rust tokenizers. view="block" walks a decoder layer with every
// check ≤ 1e-4. ATTNSCOPE_SCREENSHOTS=dir keeps EN/KO desktop/phone shots.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Tokenizer } from 'tokenizers';

import { ROOT, elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';
import { torchSeq2SeqBlock } from './helpers/seq2seq-reference.js';
import { SEQ2SEQ_EXAMPLE_SOURCE } from '../../web/src/panels/examples.js';

const MODEL_DIR = join(ROOT, 'model-seq2seq');
const config = JSON.parse(readFileSync(join(MODEL_DIR, 'config.json'), 'utf8'));
const pairs = readFileSync(join(MODEL_DIR, 'heldout.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const PAIR = pairs.find((p) => p.source === SEQ2SEQ_EXAMPLE_SOURCE) ?? pairs[0];
const SHOTS = process.env.ATTNSCOPE_SCREENSHOTS;
const attr = (v) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
const element = (extra) => `<attn-scope model="bundled-seq2seq" text="${attr(PAIR.source)}" target="${attr(PAIR.target)}" ${extra}></attn-scope>`;

let server, browser, rust, ref;
before(async () => {
  await ensureBuilt();
  rust = Tokenizer.fromFile(join(MODEL_DIR, 'tokenizer.json'));
  const sourceIds = (await rust.encode(PAIR.source)).getIds();
  const decoderIds = [config.decoder_start_token_id, ...(await rust.encode(PAIR.target)).getIds()];
  ref = { sourceIds, decoderIds, ...torchSeq2SeqBlock(MODEL_DIR, { sourceIds, decoderIds, full: true }) };
  server = await startServer({ pages: {
    '/kinds.html': elementPage(element('kind="cross" view="head" layer="1" head="2"') + element('kind="dec" view="grid"') +
      element('view="grid"') + element('kind="sideways" view="grid"')),
    '/block.html': elementPage(element('view="block" layer="1"')),
    '/one.html': elementPage(element('kind="cross" view="head"')),
  } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

// Each element's run: the kind shown, its shape, ids and the head's matrix.
function elements(page) {
  return page.evaluate(() => [...document.querySelectorAll('attn-scope')].map((el) => {
    const r = el.result;
    return { status: el.dataset.status, kind: el.kind, attrKind: el.getAttribute('kind'), resultKind: r?.kind, shape: r && [...r.shape],
      sourceIds: r && Array.from(r.seq2seq.sourceIds), targetIds: r && Array.from(r.seq2seq.targetIds),
      matrix: r && Array.from(r.attention(el.layer, el.head)), layer: el.layer, head: el.head,
      heatmap: el.shadowRoot.querySelector('.view-host .heatmap-overlay')?.dataset ?? null,
      crossGrid: Boolean(el.shadowRoot.querySelector('canvas.cross-grid:not([hidden])')),
      causal: el.shadowRoot.querySelector('canvas.model-grid')?.dataset.causal ?? null,
      kindSwitch: [...el.shadowRoot.querySelectorAll('.kind-switch button')].map((b) => [b.dataset.kind, b.getAttribute('aria-checked')]) };
  }).map((e) => ({ ...e, heatmap: e.heatmap && { n: Number(e.heatmap.n), cols: Number(e.heatmap.cols) } })));
}

const flatHead = (nested, l, h) => nested[l][h].flat();
const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe('<attn-scope model="bundled-seq2seq" kind>', () => {
  it('kind="cross" draws the target × source cross-attention, "dec" the causal decoder, none the encoder; each = PyTorch', async () => {
    const g = await guardedPage(browser);
    const warnings = [];
    g.page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
    await g.page.goto(server.origin + '/kinds.html');
    await waitForElements(g.page, 4);
    await g.page.waitForFunction(() => document.querySelector('attn-scope').shadowRoot.querySelector('.view-head[data-ready="1"] .heatmap-overlay'),
      null, { timeout: 60000 });
    const [cross, dec, enc, odd] = await elements(g.page);
    const S = ref.sourceIds.length, T = ref.decoderIds.length;
    const L = config.num_decoder_layers ?? config.num_layers, H = config.num_heads;
    for (const e of [cross, dec, enc, odd]) {
      assert.equal(e.status, 'ready');
      assert.deepEqual(e.sourceIds, ref.sourceIds, 'source ids: the Rust tokenizer\'s');
      assert.deepEqual(e.targetIds, ref.decoderIds, 'target ids: decoder_start_token_id, then the Rust tokenizer\'s');
    }
    assert.equal(cross.resultKind, 'cross');
    assert.deepEqual(cross.shape, [L, H, T, S]);
    assert.deepEqual(cross.heatmap, { n: T, cols: S }, 'the head view is the cross view: target rows, source columns');
    assert.deepEqual(cross.kindSwitch.find(([, on]) => on === 'true'), ['cross', 'true']);
    const dCross = maxDiff(cross.matrix, flatHead(ref.cross_attentions, 1, 2));
    assert.ok(dCross <= 1e-4, `cross-attention differs from PyTorch by ${dCross}`);
    assert.equal(dec.resultKind, 'dec');
    assert.deepEqual(dec.shape, [L, H, T, T]);
    assert.equal(dec.causal, '1');
    const dDec = maxDiff(dec.matrix, flatHead(ref.decoder_attentions, 0, 0));
    assert.ok(dDec <= 1e-4, `decoder self-attention differs from PyTorch by ${dDec}`);
    assert.equal(enc.resultKind, 'enc');
    assert.equal(enc.attrKind, 'enc', 'an encoder–decoder reflects its kind');
    assert.deepEqual(enc.shape, [config.num_layers, H, S, S]);
    const dEnc = maxDiff(enc.matrix, flatHead(ref.encoder_attentions, 0, 0));
    assert.ok(dEnc <= 1e-4, `encoder self-attention differs from PyTorch by ${dEnc}`);
    assert.equal(odd.resultKind, 'enc', 'an unknown kind falls back to the encoder');
    assert.ok(warnings.some((w) => /ignoring kind=/.test(w)), warnings.join('\n'));
    console.log(`# element (bundled-seq2seq) vs PyTorch: cross ${dCross.toExponential(2)}, decoder ${dDec.toExponential(2)}, encoder ${dEnc.toExponential(2)}`);

    // Setting kind (the property, as the attribute) redraws without a new run; the grid turns into the cross grid.
    const runs = await g.page.evaluate(() => customElements.get('attn-scope').engineStats().runs);
    await g.page.evaluate(() => { document.querySelectorAll('attn-scope')[2].kind = 'cross'; });
    await g.page.waitForFunction(() => document.querySelectorAll('attn-scope')[2].shadowRoot.querySelector('canvas.cross-grid'), null, { timeout: 30000 });
    const after = (await elements(g.page))[2];
    assert.equal(after.resultKind, 'cross');
    assert.deepEqual(after.shape, [L, H, T, S]);
    assert.equal(await g.page.evaluate(() => customElements.get('attn-scope').engineStats().runs), runs);
    // The element's own kind switch sets the attribute.
    await g.page.evaluate(() => document.querySelectorAll('attn-scope')[0].shadowRoot.querySelector('.kind-switch [data-kind="dec"]').click());
    await g.page.waitForFunction(() => document.querySelectorAll('attn-scope')[0].getAttribute('kind') === 'dec');
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });

  it('view="block" walks a decoder layer: self-attention, cross-attention, feed-forward; every check ≤ 1e-4', async () => {
    const g = await guardedPage(browser);
    await g.page.goto(server.origin + '/block.html');
    await waitForElements(g.page, 1);
    const walk = await g.page.waitForFunction(() => {
      const root = document.querySelector('attn-scope').shadowRoot;
      const steps = [...root.querySelectorAll('.view-block .block-step')].map((s) => s.dataset.step);
      const checks = [...root.querySelectorAll('.view-block .step.check')].map((p) => Number(p.dataset.maxError));
      const cross = [...root.querySelectorAll('.view-block section[data-step="blockS2SCross"] table.block-weights tbody tr')].length;
      return steps.length ? { steps, checks, cross } : null;
    }, null, { timeout: 60000 }).then((h) => h.jsonValue());
    assert.ok(['blockS2SSelf', 'blockS2SCross', 'blockS2SFfn', 'blockS2SSummary'].every((s) => walk.steps.includes(s)), walk.steps.join(','));
    assert.equal(walk.cross, ref.sourceIds.length, 'one row per source token read');
    assert.ok(walk.checks.length >= 8 && walk.checks.every((d) => d <= 1e-4), walk.checks.join(','));
    assert.deepEqual(await g.check(), []);
    await g.context.close();
  });

  // English at desktop width and Korean at phone width (the other two pairings add time, not cases:
  // the language and the width are independent here).
  it('English at desktop and Korean at phone width: the kind switch and the walk in the element\'s language, nothing wider than the screen', async () => {
    for (const [lang, width] of [['en', 1280], ['ko', 390]]) {
      for (const [name, extra] of [['cross', 'kind="cross" view="head"'], ['block', 'view="block"']]) {
        const g = await guardedPage(browser, { viewport: { width, height: 900 } });
        await g.page.goto(`${server.origin}/one.html`);
        await waitForElements(g.page, 1);
        await g.page.evaluate((html) => { document.body.innerHTML = html; }, element(`${extra} lang="${lang}"`));
        await g.page.waitForFunction(() => document.querySelector('attn-scope')?.dataset.status === 'ready' &&
          document.querySelector('attn-scope').shadowRoot.querySelector('.view-host .view:not([hidden])'), null, { timeout: 60000 });
        const seen = await g.page.evaluate(() => {
          const root = document.querySelector('attn-scope').shadowRoot;
          return { kindTitle: root.querySelector('.kind-switch:not([hidden]) .kind-title')?.textContent ?? null,
            titles: [...root.querySelectorAll('.view-block .block-step h4')].map((h) => h.textContent),
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth };
        });
        if (name === 'cross') assert.ok(seen.kindTitle, 'the kind switch shows');
        else assert.ok(seen.titles.some((t) => t.includes(lang === 'ko' ? '교차 어텐션' : 'Cross-attention')), seen.titles.join(' | '));
        if (lang === 'ko' && name === 'cross') assert.match(seen.kindTitle, /[가-힣]/);
        assert.ok(seen.overflow <= 0, `${name} ${lang} ${width}px: ${seen.overflow}px wider than the screen`);
        if (SHOTS) await g.page.screenshot({ path: join(SHOTS, `embed-seq2seq-${name}-${lang}-${width}.png`), fullPage: true });
        assert.deepEqual(await g.check(), []);
        await g.context.close();
      }
    }
  });
});

describe('dist/attnscope-embed-seq2seq.html', () => {
  it('opens from file:// offline on a held-out pair at its cross-attention; ?k=dec switches kind', async () => {
    const file = pathToFileURL(join(ROOT, 'dist', 'attnscope-embed-seq2seq.html')).href;
    for (const [query, kind] of [['', 'cross'], ['?k=dec', 'dec']]) {
      const g = await guardedPage(browser, { offline: true });
      await g.page.goto(file + query);
      await waitForElements(g.page, 1, 120000);
      const [e] = await elements(g.page);
      assert.equal(e.status, 'ready');
      assert.equal(e.resultKind, kind);
      assert.ok(e.targetIds.length > 2, 'a target, not decoder_start_token_id alone');
      assert.deepEqual(await g.check(), []);
      await g.context.close();
    }
  });
});
