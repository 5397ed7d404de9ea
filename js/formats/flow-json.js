// The information flow's JSON (`attnscope run --flow`): the API's flat FlowShares (js/index.d.ts)
// as nested arrays with snake_case names. One stack: {"tokens":[L][T][K], "residual", "bias",
// "heads_residual", "heads_bias", "mlp", "mlp_residual": [L][T], "heads":[L][H][T][K]}; an
// encoder–decoder's decoder adds "cross_tokens" [L][T][S], "cross_residual", "cross_bias",
// "cross_heads_residual", "cross_heads_bias" [L][T], "cross_heads" [L][H][T][S] and "encoder" (the
// encoder's block, S positions).
import { nestedJson } from './json-arrays.js';

const ATTENTION = [['tokens', 'keys'], ['residual'], ['bias'], ['heads', 'keys', true], ['headsResidual'], ['headsBias']];

/** Yields the JSON text of `flow` in pieces (a 512-token 12×12 model's heads are 38 M values). */
export function* flowJson(flow) {
  const { layers: L, headCount: H, queries: T } = flow;
  const fields = [];
  for (const [name, keys, perHead] of ATTENTION) {
    fields.push([name, keys ? (perHead ? [L, H, T, flow.keys] : [L, T, flow.keys]) : [L, T]]);
    if (flow.crossTokens) {
      const cross = `cross${name[0].toUpperCase()}${name.slice(1)}`;
      fields.push([cross, keys ? (perHead ? [L, H, T, flow.crossKeys] : [L, T, flow.crossKeys]) : [L, T]]);
    }
  }
  fields.push(['mlp', [L, T]], ['mlpResidual', [L, T]]);
  for (const [i, [name, shape]] of fields.entries()) {
    yield `${i ? ',' : '{'}"${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}":`;
    yield* nestedJson(flow[name], shape);
  }
  if (flow.encoder) {
    yield ',"encoder":';
    yield* flowJson(flow.encoder);
  }
  yield '}';
}
