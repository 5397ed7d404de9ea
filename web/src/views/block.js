// The Block tab: one token through one layer, as the loaded model's family builds its layer —
// BERT's and GPT-2's (block-bert-gpt2.js), the Llama family's (block-llama.js), an
// encoder–decoder's decoder layer (block-seq2seq.js).
import { isRotary } from '../model-family.js';
import { isSeq2Seq } from '../seq2seq-run.js';
import { familySwitch } from './family-switch.js';
import { createBlock } from './block-bert-gpt2.js';
import { createLlamaBlock } from './block-llama.js';
import { createSeq2SeqBlock } from './block-seq2seq.js';

export default familySwitch(
  (a) => (isSeq2Seq(a.info) ? 'seq2seq' : isRotary(a.info) ? 'llama' : 'walk'),
  { walk: createBlock, llama: createLlamaBlock, seq2seq: createSeq2SeqBlock });
