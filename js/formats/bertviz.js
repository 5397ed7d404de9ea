// BertViz's input for a RunResult, written by `attnscope run --format bertviz` and the
// <attn-scope> "BertViz JSON" button alike: {"attention": [L][1][H][T][T], "tokens": [...],
// "sentence_b_start": index | null}, i.e. what head_view(attention, tokens, sentence_b_start)
// and model_view take once each layer is a (batch=1, heads, T, T) torch tensor.
import { nestedJson } from './json-arrays.js';

/** Yields the document's JSON text in pieces (join them, or stream them). */
export function* bertvizJson(result) {
  const [L, H, T] = result.shape;
  const pairStart = Array.prototype.indexOf.call(result.typeIds, 1);
  yield '{"attention":[';
  for (let l = 0; l < L; l++) {
    yield l ? ',[' : '[';
    yield* nestedJson(result.attentions.subarray(l * H * T * T, (l + 1) * H * T * T), [H, T, T]);
    yield ']';
  }
  yield `],"tokens":${JSON.stringify(Array.from(result.tokens))},"sentence_b_start":${pairStart < 0 ? 'null' : pairStart}}\n`;
}
