#!/usr/bin/env node
// Which heads matter: switches each head of a model off in turn (Hugging Face head_mask 0) and
// prints the change in mean log-probability of what it should predict (js/analysis/head-stats.js'
// ablationEffects: next tokens for decoders, every 7th token masked in turn for encoders) over
// the first N sentences of the page's corpus sample (held-out Brown), most harmful first, as a
// Markdown table for MODEL.md.
//   node tools/ablation_report.mjs [--model bundled|bundled-causal|DIR] [--sentences 60]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { ablationEffects, loadModel } from '../js/index.js';

const { values } = parseArgs({ options: { model: { type: 'string', default: 'bundled' }, sentences: { type: 'string', default: '60' } } });
const sample = JSON.parse(readFileSync(new URL('../web/data/corpus-sample.json', import.meta.url), 'utf8'));
const texts = sample.sentences.slice(0, Number(values.sentences)).map(([text]) => text);
const model = await loadModel(values.model);
try {
  const started = Date.now();
  const { baseline, heads } = await ablationEffects(model, texts);
  heads.sort((a, b) => a.delta - b.delta);
  console.log(`${values.model}: ${texts.length} held-out sentences, intact mean log-probability ${baseline.toFixed(4)} ` +
    `(perplexity ${Math.exp(-baseline).toFixed(1)}), ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  console.log('| head | Δ mean log-prob | perplexity with it off |\n|---|---|---|');
  for (const h of heads) console.log(`| L${h.layer}H${h.head} | ${h.delta.toFixed(4)} | ${Math.exp(-(baseline + h.delta)).toFixed(1)} |`);
} finally {
  model.dispose();
}
