// Encodes the Brown documents (causal_corpus.py's docs.json) with @huggingface/tokenizers on the
// learned tokenizer.json, so the training and evaluation ids ARE Hugging Face's ids. Writes
// <split>.bin (uint16 little-endian, every document followed by <|endoftext|>) and
// <split>.json (per document: name, first token, token count). Checks that decoding gives back
// every document's text exactly.
//   node tools/train/encode_causal.mjs build/train-causal/docs.json <tokenizer dir> <out dir>
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

const [docsPath, tokDir, outDir] = process.argv.slice(2);
const tokenizerJson = JSON.parse(readFileSync(join(tokDir, 'tokenizer.json'), 'utf8'));
const tokenizerConfig = JSON.parse(readFileSync(join(tokDir, 'tokenizer_config.json'), 'utf8'));
const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
const eot = tokenizerJson.model.vocab['<|endoftext|>'];
const docs = JSON.parse(readFileSync(docsPath, 'utf8'));

for (const split of ['train', 'held_out']) {
  const ids = [];
  const index = [];
  let bytes = 0;
  for (const { name, text } of docs[split]) {
    const enc = tokenizer.encode(text);
    const back = tokenizer.decode(enc.ids);
    if (back !== text) throw new Error(`${split}/${name}: decode(encode(text)) differs from the text`);
    index.push({ name, start: ids.length, length: enc.ids.length });
    for (const id of enc.ids) ids.push(id);
    ids.push(eot);
    bytes += Buffer.byteLength(text);
  }
  const buf = Buffer.alloc(ids.length * 2);
  ids.forEach((id, i) => buf.writeUInt16LE(id, i * 2));
  writeFileSync(join(outDir, `${split}.bin`), buf);
  writeFileSync(join(outDir, `${split}.json`), JSON.stringify({ eot, vocab_size: Object.keys(tokenizerJson.model.vocab).length, documents: index }));
  console.log(`${split}: ${docs[split].length} documents, ${ids.length} tokens (${(bytes / (ids.length - docs[split].length)).toFixed(2)} bytes/token), round trip exact`);
}
// Special token in text: must become the single <|endoftext|> id.
const probe = tokenizer.encode('The end.<|endoftext|>The river');
if (!probe.ids.includes(eot)) throw new Error('<|endoftext|> in text is not encoded as the special token');
console.log('probe', JSON.stringify(probe.tokens));
