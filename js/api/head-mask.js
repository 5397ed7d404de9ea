// Hugging Face's head masks (head_mask, decoder_head_mask, cross_attn_head_mask) as the engine
// takes them: layers × heads floats, from [L][H] nested arrays or a flat array. Every value must
// be a number (null would read as 0, '1' as 1): a ragged or mistyped mask is refused naming the
// row or value. Whether the numbers are finite is the engine's check (E_INPUT naming layer and
// head), as for native callers.
import { AttnScopeError } from '../formats/errors.js';

/** A Float32Array of layers·heads values, or null for no mask (every head at 1). */
export function headMaskArray(mask, { layers: L, heads: H, name }) {
  if (mask === undefined || mask === null) return null;
  const shape = `${L} layers × ${H} heads of numbers ([L][H] arrays or ${L * H} values)`;
  const isList = (value) => Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
  if (!isList(mask)) throw new AttnScopeError('E_INPUT', `${name} must be ${shape}, got ${describeValue(mask)}`);
  const nested = mask.length > 0 && Array.from(mask).some(isList);
  if (!nested) {
    if (mask.length !== L * H) throw new AttnScopeError('E_INPUT', `${name} must be ${shape}; got ${mask.length} values`);
    return Float32Array.from(mask, (value, i) => maskValue(value, `${name}[${i}]`));
  }
  if (mask.length !== L) throw new AttnScopeError('E_INPUT', `${name} must be ${shape}; got ${mask.length} rows`);
  const out = new Float32Array(L * H);
  for (let l = 0; l < L; l++) {
    const row = mask[l];
    if (!isList(row)) throw new AttnScopeError('E_INPUT', `${name} must be ${shape}; row ${l} is ${describeValue(row)}`);
    if (row.length !== H) {
      throw new AttnScopeError('E_INPUT', `${name} must be ${shape}; row ${l} has ${row.length} values (rows of different lengths?)`);
    }
    for (let h = 0; h < H; h++) out[l * H + h] = maskValue(row[h], `${name}[${l}][${h}]`);
  }
  return out;
}

function maskValue(value, name) {
  if (typeof value !== 'number') throw new AttnScopeError('E_INPUT', `${name} must be a number, got ${describeValue(value)}`);
  return value;
}

// A value as a message shows it: short JSON, or its type where JSON has no form for it.
function describeValue(value) {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return typeof value;
  try {
    const json = JSON.stringify(value);
    return json.length > 40 ? `${json.slice(0, 40)}…` : json;
  } catch {
    return typeof value;
  }
}
