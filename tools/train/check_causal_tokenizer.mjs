// Node half of check_causal_tokenizer.py: for each case, Hugging Face's ids (@huggingface/tokenizers
// on the shipped tokenizer.json) and our own pre-tokenization into byte-level pieces (GPT-2's
// pattern, bpe_words.mjs), which the Python half turns into ids with its own BPE.
//   node tools/train/check_causal_tokenizer.mjs <model dir> <cases.json> <out.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { GPT2_PATTERN, byteLevel } from './bpe_words.mjs';

const [modelDir, casesPath, outPath] = process.argv.slice(2);
const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')),
  JSON.parse(readFileSync(join(modelDir, 'tokenizer_config.json'), 'utf8')));
const EOT = '<|endoftext|>';
const cases = JSON.parse(readFileSync(casesPath, 'utf8'));
const out = cases.map((text) => ({
  hf: tokenizer.encode(text).ids,
  // The special token is cut out before pre-tokenization, as tokenizers' added-token pass does.
  pieces: text.split(EOT).map((part) => (part.match(GPT2_PATTERN) ?? []).map(byteLevel)),
}));
writeFileSync(outPath, JSON.stringify(out));
