// The explorer page and <attn-scope> show the same views from the same code (web/src/views, given
// web/src/state/view-model.js): one list of checks, run on both for the same text. Each view must have
// drawn the run on screen — tokens from @huggingface/tokenizers, attention equal in both hosts (to
// rounding: their wasm builds differ) —
// and the formula view's own recomputation must agree with the engine's row.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { bertTokenizerJson } from '../js/helpers/tokenizer-hf.js';
import * as pageSetup from './helpers.js';
import * as embedSetup from './embed-helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const TEXT = 'The bank of the river was muddy.';
const VIEWS = ['grid', 'head', 'lines', 'formula', 'aggregates'];

// What "drawn" means for each view, read from the DOM inside `root` (the page's #view-host or
// the element's shadow root). T: tokens, L×H: layers × heads of the run.
function viewDrawn(root, view, { T, L, H }) {
  const panel = root.querySelector(`.view-${view}`);
  if (!panel || panel.hidden) return `${view}: not shown`;
  const n = (el) => Number(el?.dataset.n);
  switch (view) {
    case 'grid': {
      const c = panel.querySelector('canvas.model-grid');
      return Number(c?.dataset.rendered) === L * H && Number(c.dataset.layers) === L && Number(c.dataset.heads) === H
        ? '' : `grid: ${c?.dataset.rendered} of ${L * H} heads drawn`;
    }
    case 'head':
      return n(panel.querySelector('.heatmap-overlay')) === T ? '' : 'head: heatmap size';
    case 'lines': {
      const c = panel.querySelector('canvas.lines');
      return Number(c?.dataset.drawn) === H ? '' : `lines: ${c?.dataset.drawn} of ${H} heads drawn`;
    }
    case 'formula': {
      const check = panel.querySelector('.step.check');
      return check && Number(check.dataset.maxError) < 1e-4 ? '' : `formula: check ${check?.dataset.maxError}`;
    }
    case 'aggregates': {
      const panels = [...panel.querySelectorAll('.agg-panel')];
      const kinds = panels.map((p) => p.dataset.kind).join(',');
      if (kinds !== 'mean,max,rollout,raw,normWeighted') return `aggregates: panels ${kinds}`;
      return panels.every((p) => p.dataset.ready === '1' && n(p.querySelector('.heatmap-overlay')) === T) ? '' : 'aggregates: not drawn';
    }
    default:
      return `unknown view ${view}`;
  }
}

const HOSTS = {
  page: {
    async open(browser) {
      const server = await pageSetup.startServer();
      const g = await pageSetup.guardedPage(browser, server.origin);
      await g.page.goto(`${server.origin}/?text=${encodeURIComponent(TEXT)}&layer=1&head=2&q=3`);
      await pageSetup.waitForRuns(g.page, 1);
      return { ...g, close: server.close, rootHandle: () => g.page.evaluateHandle(() => document.getElementById('view-host')),
        run: () => g.page.evaluate(() => ({ tokens: window.__attnscope.tokens, shape: window.__attnscope.shape,
          head: window.__attnscope.raw(1, 2) })),
        choose: (view) => g.page.locator(`[role=tab][data-view=${view}]`).click() };
    },
  },
  element: {
    async open(browser) {
      await embedSetup.ensureBuilt();
      const server = await embedSetup.startServer({ pages: { '/e.html': embedSetup.elementPage(
        `<attn-scope text="${TEXT}" layer="1" head="2"></attn-scope>`) } });
      const g = await embedSetup.guardedPage(browser, { viewport: { width: 1280, height: 800 } });
      await g.page.goto(`${server.origin}/e.html`);
      await embedSetup.waitForElements(g.page, 1);
      return { ...g, close: server.close, problems: g.problems,
        rootHandle: () => g.page.evaluateHandle(() => document.querySelector('attn-scope').shadowRoot),
        run: () => g.page.evaluate(() => {
          const r = document.querySelector('attn-scope').result;
          return { tokens: [...r.tokens], shape: [...r.shape], head: [...r.attention(1, 2)] };
        }),
        choose: (view) => g.page.locator(`attn-scope button[data-view=${view}]`).click() };
    },
  },
};

let browser;
const runs = {};
before(async () => { browser = await pageSetup.launchBrowser(); });
after(async () => { await browser?.close(); });

describe('the same view checks on the page and the element', () => {
  const vocab = readFileSync(join(ROOT, 'model/vocab.txt'), 'utf8');
  const hf = new Tokenizer(bertTokenizerJson(vocab, { lowercase: true, strip_accents: null, handle_chinese_chars: true }), { do_lower_case: true });
  const expected = hf.encode(TEXT).tokens;

  for (const [name, host] of Object.entries(HOSTS)) {
    it(`${name}: every view draws the run`, async () => {
      const h = await host.open(browser);
      try {
        const run = await h.run();
        runs[name] = run;
        assert.deepEqual(run.tokens, expected);
        const [L, H, T] = run.shape;
        const root = await h.rootHandle();
        for (const view of VIEWS) {
          await h.choose(view);
          // Polled from here: page.evaluate is not subject to the element page's CSP (no eval).
          const drawn = () => h.page.evaluate(([r, v, dims, check]) => new Function('return ' + check)()(r, v, dims),
            [root, view, { T, L, H }, viewDrawn.toString()]);
          let problem = await drawn();
          for (let i = 0; i < 100 && problem; i++) {
            await h.page.waitForTimeout(100);
            problem = await drawn();
          }
          assert.equal(problem, '', `${name}: ${problem}`);
        }
        const seen = h.check ? await h.check() : h.problems;
        assert.deepEqual(seen, []);
      } finally {
        await h.context.close();
        await h.close();
      }
    });
  }

  it('both hosts show the same numbers', () => {
    assert.ok(runs.page && runs.element, 'a host did not run');
    assert.deepEqual(runs.element.tokens, runs.page.tokens);
    assert.deepEqual(runs.element.shape, runs.page.shape);
    // The same bits but for rounding: the page runs the threaded relaxed-SIMD build (fused
    // multiply-adds in its f32 kernels), the element a BERT on the encoder build (SIMD128, no FMA).
    assert.equal(runs.element.head.length, runs.page.head.length);
    const worst = runs.page.head.reduce((m, p, i) => Math.max(m, Math.abs(p - runs.element.head[i])), 0);
    // (6e-7 here on 5 December 2026; a wrong map is off by 1e-3 or more).
    assert.ok(worst <= 1e-5, `the hosts' attention differs by up to ${worst}`);
  });
});
