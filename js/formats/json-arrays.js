// Float32 arrays as nested JSON arrays, in pieces (a 512-token run of a 12×12 model has 37 M
// attention values: the CLI streams them, the <attn-scope> export joins them). Values print
// with 9 significant digits, which round-trips a float32; NaN/Infinity become null.
const PIECE_CHARS = 1 << 20;

function jsonNumber(x) {
  return Number.isFinite(x) ? String(Number(x.toPrecision(9))) : 'null';
}

/** Yields the JSON text of `data` (row-major) as arrays nested by `shape`. */
export function* nestedJson(data, shape) {
  const inner = shape[shape.length - 1];
  const outer = shape.slice(0, -1);
  const rows = data.length / inner;
  // Before row r: close the groups that ended, a comma, and open the groups that start at r.
  const bracketsAt = (r) => {
    let count = 0;
    let stride = 1;
    for (let d = outer.length - 1; d >= 0; d--) {
      stride *= outer[d];
      if (r % stride === 0) count++;
    }
    return count;
  };
  let text = '';
  for (let r = 0; r < rows; r++) {
    if (r > 0) text += `${']'.repeat(bracketsAt(r))},`;
    text += `${'['.repeat(bracketsAt(r))}[${Array.from(data.subarray(r * inner, (r + 1) * inner), jsonNumber).join(',')}]`;
    if (text.length > PIECE_CHARS) {
      yield text;
      text = '';
    }
  }
  yield `${text}${']'.repeat(outer.length)}`;
}
