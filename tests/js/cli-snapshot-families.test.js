// `attnscope snapshot` for every model family × every view <attn-scope> can show (the
// bundled T5 crashed with "internal error"; its figure is the encoder's self-attention, or with
// --kind dec the decoder's over --target). Views a frozen figure can hold (head, lines, grid) give
// a well-formed figure, checked here without the project's reader: the format fields, the shape
// from the model's own config.json, the tokens from @huggingface/tokenizers, one matrix per head
// the view draws, rows of probabilities (causal for decoders), and for the bundled models the
// matrices of the float64 PyTorch forwards in tests/fixtures (1e-4, as the golden tests). Views
// that need the model (q, k, v, traces, position tables) are refused in one clear line.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';

import { readSafetensors } from './helpers/safetensors.js';
import { FIGURE_VIEWS as FIGURE_FILE_VIEWS } from '../../js/analysis/snapshot.js';
// The element's views as the view registry lists them (the registry holds no DOM: Node reads it).
import { ELEMENT_VIEW_IDS as ELEMENT_VIEWS } from '../../web/src/views/registry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'js/cli/cli.js');
const FIXTURES = join(ROOT, 'tests/fixtures');
const work = mkdtempSync(join(tmpdir(), 'attnscope-snapshot-'));
after(() => rmSync(work, { recursive: true, force: true }));

const FIGURE_VIEWS = ['head', 'lines', 'grid'];
// Figures with a block of their own (a flow graph, a patching grid): tests/js/snapshot-kinds.test.js.
const BLOCK_VIEWS = ['flow', 'patching'];

const json = (path) => JSON.parse(readFileSync(path, 'utf8'));
const fixtureCase = (dir, name) => json(join(FIXTURES, dir, 'inputs.json')).cases.find((c) => c.name === name);

// Each family: the CLI's --model (none: the bundled BERT), its folder, its layers and heads as its
// config.json names them, whether it is causal, the text, and where the reference matrices are.
const FAMILIES = [
  { name: 'bert', model: null, dir: 'model', layers: 'num_hidden_layers', heads: 'num_attention_heads', causal: false,
    reference: { dir: 'bundled', case: 'mask_river', tensor: 'attentions' } },
  { name: 'gpt2', model: 'bundled-causal', dir: 'model-causal', layers: 'n_layer', heads: 'n_head', causal: true,
    reference: { dir: 'bundled-causal', case: 'heldout_fiction', tensor: 'attentions' } },
  // An encoder–decoder's figure is its encoder's self-attention over the text (the source).
  { name: 't5', model: 'bundled-seq2seq', dir: 'model-seq2seq', layers: 'num_layers', heads: 'num_heads', causal: false,
    reference: { dir: 'bundled-seq2seq', case: 'heldout_7', tensor: 'encoder_attentions', text: 'source' } },
  // --kind dec: the decoder's self-attention over decoder_start_token_id and the target.
  { name: 't5-dec', model: 'bundled-seq2seq', dir: 'model-seq2seq', layers: 'num_decoder_layers', heads: 'num_heads', causal: true,
    reference: { dir: 'bundled-seq2seq', case: 'heldout_7', tensor: 'decoder_attentions', text: 'source', target: 'target' } },
  { name: 'llama', model: join(FIXTURES, 'llama_page'), dir: 'tests/fixtures/llama_page', layers: 'num_hidden_layers',
    heads: 'num_attention_heads', causal: true, text: 'The cat sat on the mat.' },
];
for (const f of FAMILIES) {
  const config = json(join(ROOT, f.dir, 'config.json'));
  Object.assign(f, { L: config[f.layers], H: config[f.heads] });
  if (f.reference) {
    const c = fixtureCase(f.reference.dir, f.reference.case);
    f.text = c[f.reference.text ?? 'text'];
    f.expectedTokens = f.reference.target ? ['<pad>', ...c.target_tokens] : c.source_tokens ?? c.tokens;
    if (f.reference.target) f.args = ['--kind', 'dec', '--target', c[f.reference.target]];
  }
}

function cli(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args, '--threads', '1'], { maxBuffer: 1 << 26 }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

const LAYER = 1, HEAD = 1;

/** The [layer, head] pairs a view draws, as the figure format says (js/analysis/snapshot.js's header). */
function viewHeads(view, L, H) {
  if (view === 'head') return [[LAYER, HEAD]];
  const pairs = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) if (view === 'grid' || l === LAYER) pairs.push([l, h]);
  return pairs;
}

describe('attnscope snapshot: every family × every element view', () => {
  it('reads the element\'s views', () => {
    assert.ok(ELEMENT_VIEWS.length >= 3 && FIGURE_VIEWS.every((v) => ELEMENT_VIEWS.includes(v)), ELEMENT_VIEWS.join());
  });

  for (const f of FAMILIES) {
    let reference = null;
    before(() => {
      if (f.reference) reference = readSafetensors(join(FIXTURES, f.reference.dir, `${f.reference.case}.safetensors`))[f.reference.tensor];
    });

    for (const view of ELEMENT_VIEWS.filter((v) => !BLOCK_VIEWS.includes(v))) {
      it(`${f.name} --view ${view}`, async () => {
        const out = join(work, `${f.name}-${view}.json`);
        const r = await cli(['snapshot', ...(f.model ? ['--model', f.model] : []), ...(f.args ?? []), '--text', f.text, '--view', view,
          '--layer', String(LAYER), '--head', String(HEAD), '--out', out]);
        if (!FIGURE_VIEWS.includes(view)) {
          assert.equal(r.code, 2, r.stderr);
          assert.match(r.stderr, new RegExp(`^attnscope: --view ${view}: a frozen figure draws the ${FIGURE_FILE_VIEWS.join(', ')} views with no model`));
          assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
          return;
        }
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stderr, '');
        const doc = json(out);
        assert.equal(doc.format, 'attnscope-figure');
        assert.equal(doc.version, 1);   // the lowest version that has all it holds: an attention figure is version 1
        assert.equal(doc.model, f.model ?? 'bundled');
        assert.deepEqual([doc.text, doc.view, doc.layer, doc.head], [f.text, view, LAYER, HEAD]);
        const T = doc.tokens.length;
        assert.deepEqual(doc.shape, [f.L, f.H, T]);
        if (f.expectedTokens) assert.deepEqual(doc.tokens, f.expectedTokens);
        else {
          const hf = new Tokenizer(json(join(ROOT, f.dir, 'tokenizer.json')), json(join(ROOT, f.dir, 'tokenizer_config.json')));
          assert.deepEqual(doc.tokens, hf.encode(f.text).tokens);
        }
        assert.equal(doc.tokenTexts.length, T);
        assert.equal(doc.specialTokensMask.length, T);
        assert.equal(doc.offsets.length, 2 * T);
        assert.equal(doc.modelInfo.config.isDecoder, f.causal);
        assert.deepEqual(doc.heads, viewHeads(view, f.L, f.H));
        assert.equal(doc.attentions.length, doc.heads.length);
        doc.heads.forEach(([l, h], i) => {
          const m = doc.attentions[i];
          assert.equal(m.length, T * T);
          for (let q = 0; q < T; q++) {
            const row = m.slice(q * T, (q + 1) * T);
            assert.ok(row.every((v) => v >= 0 && v <= 1), `${l}/${h} row ${q} holds a value outside [0, 1]`);
            assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4, `${l}/${h} row ${q} sums to ${row.reduce((a, b) => a + b, 0)}`);
            if (f.causal) assert.ok(row.slice(q + 1).every((v) => v === 0), `${l}/${h} row ${q} looks ahead`);
          }
          if (reference) {
            const at = (l * f.H + h) * T * T;
            let worst = 0;
            m.forEach((v, c) => { worst = Math.max(worst, Math.abs(v - reference.data[at + c])); });
            assert.ok(worst < 1e-4, `${f.name} ${l}/${h}: max error ${worst} against PyTorch`);
          }
        });
      });
    }
  }

  it('--kind and --target: an encoder–decoder\'s three attentions, each with what it needs', async () => {
    const out = ['--out', join(work, 'x.json')];
    const refused = async (args, pattern) => {
      const r = await cli(['snapshot', ...args, ...out]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, pattern);
    };
    const t5 = ['--model', 'bundled-seq2seq', '--text', 'the cat sat'];
    await refused([...t5, '--kind', 'both', '--target', 'the sat cat'], /^attnscope: --kind is enc, dec or cross, not "both"/);
    await refused([...t5, '--kind', 'cross'], /^attnscope: --kind cross draws the decoder over a target: give --target/);
    await refused([...t5, '--kind', 'cross', '--target', 'the sat cat', '--words'], /^attnscope: --words merges the words of --text/);
    await refused([...t5, '--view', 'layers'], /^attnscope: --view layers \(the logit lens\) is for encoders and decoders/);
    await refused(['--model', 'bundled-causal', '--text', 'the cat sat', '--view', 'layers', '--words'],
      /^attnscope: --words merges attention matrices; a --view layers figure holds none/);
    await refused([...t5, '--kind', 'dec'], /^attnscope: --kind dec draws the decoder over a target: give --target/);
    await refused([...t5, '--kind', 'dec', '--target', ''], /^attnscope: --target is empty/);
    await refused([...t5, '--target', 'the sat cat'], /^attnscope: --target goes with --kind dec/);
    await refused([...t5, '--kind', 'dec', '--target', 'the sat cat', '--words'], /^attnscope: --words merges the words of --text/);
    await refused(['--text', 'the cat sat', '--kind', 'enc'], /^attnscope: --kind and --target are for encoder-decoder models/);
  });

  it('a layer or head the model has not is refused with its size', async () => {
    const r = await cli(['snapshot', '--model', 'bundled-seq2seq', '--text', 'the cat sat', '--layer', '3', '--out', join(work, 'x.json')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^attnscope: --layer 3: the model has 3 layers \(0 to 2\)/);
  });
});
