// Prints the ids @huggingface/tokenizers gives each text (JSON list of lists) on a model folder's
// tokenizer.json: the one encoder used for prompts and fixture texts, so no Python tokenizer is
// trusted for them.   node tools/train/encode_texts.mjs <model dir> '["text", ...]'
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

const [modelDir, textsJson] = process.argv.slice(2);
const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8')),
  JSON.parse(readFileSync(join(modelDir, 'tokenizer_config.json'), 'utf8')));
const result = JSON.parse(textsJson).map((t) => {
  const e = tokenizer.encode(t);
  return { ids: e.ids, tokens: e.tokens };
});
process.stdout.write(JSON.stringify(result));
