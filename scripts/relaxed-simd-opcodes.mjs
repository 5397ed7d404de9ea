// Rewrites the pre-standard relaxed-SIMD opcodes that Debian's clang 14 emits into the standard
// ones browsers implement (both encodings 3 bytes, so the rewrite is in place):
//   f32x4.fma (0xfd 0xaf 0x01, __builtin_wasm_fma_f32x4) → f32x4.relaxed_madd (0xfd 0x85 0x02),
//     the same operation;
//   i8x16.relaxed_swizzle (0xfd 0xa2 0x01, __builtin_wasm_relaxed_swizzle_i8x16) →
//     i16x8.relaxed_dot_i8x16_i7x16_s (0xfd 0x92 0x02), which clang 14 has no builtin for: the
//     int8 GEMM (engine/kernels/gemm_q8_wasmsimd.cpp) writes the swizzle as its stand-in, with the
//     dot product's operands, and nothing else in the engine uses the swizzle;
//   i32x4.laneselect (0xfd 0xd2 0x01, __builtin_wasm_laneselect_i32x4) →
//     i32x4.relaxed_dot_i8x16_i7x16_add_s (0xfd 0x93 0x02), the fused form, the same way.
// The code section is decoded instruction by instruction so only real opcodes are touched (never
// an immediate or data that happens to hold the same bytes). Other pre-standard relaxed opcodes
// are not rewritten (AttnScope uses none): the module then fails validation, which the script
// checks (run it with node --experimental-wasm-relaxed-simd: Node 20 has the standard opcodes
// behind that flag).
//   node --experimental-wasm-relaxed-simd scripts/relaxed-simd-opcodes.mjs FILE.wasm...
import { readFileSync, writeFileSync } from 'node:fs';

const PRE_STANDARD_FMA = 0xaf;      // f32x4.fma in clang 14 / binaryen ≤ 108
const RELAXED_MADD = 0x105;         // f32x4.relaxed_madd in the relaxed-SIMD standard
const PRE_STANDARD_SWIZZLE = 0xa2;  // i8x16.relaxed_swizzle in clang 14
const RELAXED_DOT_I16 = 0x112;      // i16x8.relaxed_dot_i8x16_i7x16_s in the standard
const PRE_STANDARD_LANESELECT_I32 = 0xd2;  // i32x4.laneselect in clang 14
const RELAXED_DOT_ADD_I32 = 0x113;         // i32x4.relaxed_dot_i8x16_i7x16_add_s in the standard
const REWRITES = new Map([[PRE_STANDARD_FMA, RELAXED_MADD], [PRE_STANDARD_SWIZZLE, RELAXED_DOT_I16],
  [PRE_STANDARD_LANESELECT_I32, RELAXED_DOT_ADD_I32]]);
const COUNTED = new Map([[PRE_STANDARD_FMA, 'madd'], [PRE_STANDARD_SWIZZLE, 'dot'], [PRE_STANDARD_LANESELECT_I32, 'dotAdd']]);
/**
 * Rewrites the three opcodes; returns the number of instructions rewritten (the total) and sets
 * `counts` (if given) to { madd, dot, dotAdd }. Throws on anything it cannot decode.
 */
export function rewriteRelaxedFma(bytes, counts = {}) {
  counts.madd = 0;
  counts.dot = 0;
  counts.dotAdd = 0;
  let at = 0;
  const u32 = () => {
    let result = 0, shift = 0, byte;
    do {
      byte = bytes[at++];
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return result >>> 0;
  };
  const skipLeb = () => { while (bytes[at++] & 0x80); };
  const memarg = () => { skipLeb(); skipLeb(); };
  const blockType = () => {
    const b = bytes[at];
    if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) at++;
    else skipLeb();  // s33 type index
  };

  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new Error('not a wasm module');
  at = 8;
  let rewritten = 0;
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = u32();
    const end = at + size;
    if (id !== 10) { at = end; continue; }  // only the code section holds instructions
    const count = u32();
    for (let f = 0; f < count; f++) {
      const bodySize = u32();
      const bodyEnd = at + bodySize;
      const groups = u32();
      for (let g = 0; g < groups; g++) { skipLeb(); at++; }  // count, valtype
      while (at < bodyEnd) {
        const op = bytes[at++];
        if (op === 0xfd) {
          const opcodeAt = at;
          const sub = u32();
          if (REWRITES.has(sub) && at - opcodeAt === 2) {
            const to = REWRITES.get(sub);
            bytes[opcodeAt] = 0x80 | (to & 0x7f);
            bytes[opcodeAt + 1] = to >> 7;
            rewritten++;
            counts[COUNTED.get(sub)]++;
          } else if (sub <= 11 || sub === 92 || sub === 93) {
            memarg();                            // loads, stores, load_zero
          } else if (sub === 12 || sub === 13) {
            at += 16;                            // v128.const, i8x16.shuffle
          } else if (sub >= 21 && sub <= 34) {
            at += 1;                             // extract / replace lane
          } else if (sub >= 84 && sub <= 91) {
            memarg(); at += 1;                   // load / store lane
          }
          continue;
        }
        switch (op) {
          case 0x02: case 0x03: case 0x04: case 0x06: blockType(); break;  // block loop if try
          case 0x07: case 0x08: case 0x09: case 0x18: skipLeb(); break;    // catch throw rethrow delegate
          case 0x0c: case 0x0d: skipLeb(); break;                          // br br_if
          case 0x0e: { const n = u32(); for (let i = 0; i <= n; i++) skipLeb(); break; }  // br_table
          case 0x10: case 0x12: skipLeb(); break;                          // call return_call
          case 0x11: case 0x13: skipLeb(); skipLeb(); break;               // call_indirect
          case 0x1c: { const n = u32(); at += n; break; }                  // select t*
          case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25: case 0x26: skipLeb(); break;
          case 0x3f: case 0x40: skipLeb(); break;                          // memory.size / grow
          case 0x41: case 0x42: skipLeb(); break;                          // i32 / i64 const
          case 0x43: at += 4; break;
          case 0x44: at += 8; break;
          case 0xd0: at += 1; break;                                       // ref.null t
          case 0xd2: skipLeb(); break;                                     // ref.func
          case 0xfc: {
            const sub = u32();
            if (sub === 8 || sub === 12 || sub === 14) { skipLeb(); skipLeb(); }
            else if (sub === 10) { skipLeb(); skipLeb(); }
            else if (sub >= 9 && sub <= 17) skipLeb();
            break;
          }
          case 0xfe: {                                                     // atomics (threaded build)
            const sub = u32();
            if (sub === 0x03) at += 1;                                     // atomic.fence 0x00
            else memarg();                                                 // notify, wait, loads, stores, rmw
            break;
          }
          default:
            if (op >= 0x28 && op <= 0x3e) memarg();                        // loads / stores
            // everything else has no immediates
        }
      }
      if (at !== bodyEnd) throw new Error(`function ${f}: decoding ended at ${at}, body ends at ${bodyEnd}`);
    }
    if (at !== end) throw new Error('code section size mismatch');
  }
  return rewritten;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2)) {
    const bytes = readFileSync(file);
    const counts = {};
    rewriteRelaxedFma(bytes, counts);
    if (!WebAssembly.validate(bytes)) throw new Error(`${file}: not valid after the rewrite (is --experimental-wasm-relaxed-simd on?)`);
    writeFileSync(file, bytes);
    console.log(`${file}: ${counts.madd} f32x4.fma → f32x4.relaxed_madd, ${counts.dot} i8x16.relaxed_swizzle → ` +
      `i16x8.relaxed_dot_i8x16_i7x16_s, ${counts.dotAdd} i32x4.laneselect → i32x4.relaxed_dot_i8x16_i7x16_add_s`);
  }
}
