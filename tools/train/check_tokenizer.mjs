// Node half of check_tokenizer.py: encodes the same texts with @huggingface/tokenizers (through
// the project's oracle in tests/js/helpers/tokenizer-hf.js, the uncased BERT settings of
// model/tokenizer_config.json) and reports every case where the ids differ.
import { readFileSync } from 'node:fs';
import { makeOracle } from '../../tests/js/helpers/tokenizer-hf.js';

const [vocabPath, casesPath] = process.argv.slice(2);
const oracle = makeOracle(readFileSync(vocabPath, 'utf8'),
  { lowercase: true, strip_accents: null, handle_chinese_chars: true });
const cases = JSON.parse(readFileSync(casesPath, 'utf8'));
let bad = 0;
let tokens = 0;
let unk = 0;
const unkId = oracle.tokenizerJson.model.vocab['[UNK]'];
for (const c of cases) {
  const hf = oracle.encode(c.text, c.pair);
  tokens += hf.ids.length;
  unk += hf.ids.filter((id) => id === unkId).length;
  const same = JSON.stringify(hf.ids) === JSON.stringify(c.ids)
    && JSON.stringify(hf.token_type_ids) === JSON.stringify(c.token_type_ids);
  if (!same) {
    bad += 1;
    if (bad <= 5) console.log('MISMATCH', JSON.stringify(c.text).slice(0, 120), '\n  ours', c.ids.join(' '), '\n  hf  ', hf.ids.join(' '));
  }
}
console.log(`tokenizer check: ${cases.length} cases, ${tokens} tokens (${unk} [UNK]), ${bad} mismatches; oracle rewrites: ${JSON.stringify([...oracle.fired])}`);
process.exit(bad ? 1 : 0);
