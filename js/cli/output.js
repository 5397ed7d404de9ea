// The CLI's output formats for a RunResult: one JSON document (streamed: a 512-token run of a
// 12×12 model has 37 M attention values), BertViz's head_view/model_view input, and a folder of
// NumPy .npy files. Float32 values are printed with 9 significant digits, which round-trips.
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { AttnScopeError } from '../formats/errors.js';
import { bertvizJson } from '../formats/bertviz.js';
import { flowJson } from '../formats/flow-json.js';
import { nestedJson } from '../formats/json-arrays.js';

/** {"ids","token_type_ids","tokens","offsets","num_truncated","attentions":[L][H][T][T],"kv_heads"?:[H]
 *   (grouped-query attention: the key/value head each query head reads; left out when every query
 *   head has its own), "hidden":[T][C],
 *   "words"? and "word_attentions"? [L][H][W][W] (--words),
 *   "mask_predictions"? (encoders), "next"? and "next_by_position"? (decoders), "logit_lens"?, "attribution"?,
 *   "value_norms"? [L][H][T], "flow"? (js/formats/flow-json.js)} */
export async function writeJsonResult(out, result) {
  const [L, H, T] = result.shape;
  const C = result.hidden.length / T;
  await withSink(out, async (write) => {
    await write(`{"ids":${JSON.stringify([...result.ids])},"token_type_ids":${JSON.stringify([...result.typeIds])},`);
    await write(`"tokens":${JSON.stringify(result.tokens)},"offsets":${JSON.stringify(offsetPairs(result.offsets))},` +
      `"num_truncated":${result.numTruncated ?? 0},`);
    await write('"attentions":');
    await writeNested(write, result.attentions, [L, H, T, T]);
    if (result.words) {
      const W = result.words.length;
      await write(`,"words":${JSON.stringify(result.words)},"word_attentions":`);
      await writeNested(write, result.wordAttentions, [L, H, W, W]);
    }
    if (result.kvHeads?.some((kv, h) => kv !== h)) await write(`,"kv_heads":${JSON.stringify(result.kvHeads)}`);
    await write(',"hidden":');
    await writeNested(write, result.hidden, [T, C]);
    if (result.maskPredictions) await write(`,"mask_predictions":${JSON.stringify(result.maskPredictions)}`);
    if (result.next) await write(`,"next":${JSON.stringify(result.next)}`);
    if (result.nextByPosition) await write(`,"next_by_position":${JSON.stringify(result.nextByPosition)}`);
    if (result.logitLens) await write(`,"logit_lens":${JSON.stringify(logitLensJson(result.logitLens))}`);
    if (result.attribution) await write(`,"attribution":${JSON.stringify(attributionJson(result.attribution))}`);
    if (result.q) await writeQkv(write, result, [L, H, T, result.q.length / (L * H * T)]);
    if (result.valueNorms) {
      await write(',"value_norms":');
      await writeNested(write, result.valueNorms, [L, H, T]);
    }
    if (result.trace) await writeTrace(write, result.trace, T);
    if (result.flow) await writeFlow(write, result.flow);
    await write('}\n');
  });
}

/** An encoder-decoder run (js/api/seq2seq.js): {"model_type","source_ids","source_tokens","target_ids",
 *   "target_tokens" (the decoder's input: decoder_start_token_id, then the target),
 *   "encoder_attentions":[L][H][S][S], "decoder_attentions":[L][H][T][T], "cross_attentions":[L][H][T][S],
 *   "hidden":[T][C] (the decoder's last hidden state), "next", "flow"? (js/formats/flow-json.js), the decoder
 *   side's "logit_lens"? and "attribution"? (as the decoders'), "encoder_value_norms"? [L][H][S],
 *   "decoder_value_norms"? [L][H][T], "cross_value_norms"? [L][H][S]} */
export async function writeSeq2SeqJson(out, result, valueWidths = {}) {
  const T = result.targetIds.length;
  await withSink(out, async (write) => {
    await write(`{"model_type":${JSON.stringify(result.modelType)},"source_ids":${JSON.stringify([...result.sourceIds])},` +
      `"source_tokens":${JSON.stringify(result.sourceTokens)},"target_ids":${JSON.stringify([...result.targetIds])},` +
      `"target_tokens":${JSON.stringify(result.targetTokens)}`);
    for (const [name, data, shape] of [['encoder_attentions', result.encoderAttentions, result.encoderShape],
      ['decoder_attentions', result.decoderAttentions, result.decoderShape],
      ['cross_attentions', result.crossAttentions, result.crossShape]]) {
      await write(`,"${name}":`);
      await writeNested(write, data, shape);
    }
    await write(',"hidden":');
    await writeNested(write, result.hidden, [T, result.hiddenSize]);
    await write(`,"next":${JSON.stringify(result.next)}`);
    const S = result.sourceIds.length;
    for (const [side, qkv, [L, H], rows] of [['encoder', result.encoderQkv, result.encoderShape, S],
      ['decoder', result.decoderQkv, result.decoderShape, T]]) {
      if (!qkv) continue;
      await write(`,"${side}_qkv":{`);
      await writeQkv(write, qkv, [L, H, rows, qkv.q.length / (L * H * rows)], '');
      await write('}');
    }
    for (const [side, trace, rows] of [['encoder', result.encoderTrace, S], ['decoder', result.decoderTrace, T]])
      if (trace) await writeStackTrace(write, `${side}_trace`, trace, rows, valueWidths);
    if (result.flow) await writeFlow(write, result.flow);
    if (result.logitLens) await write(`,"logit_lens":${JSON.stringify(logitLensJson(result.logitLens))}`);
    if (result.attribution) await write(`,"attribution":${JSON.stringify(attributionJson(result.attribution))}`);
    for (const [name, norms, [L, H], keys] of [['encoder_value_norms', result.encoderValueNorms, result.encoderShape, S],
      ['decoder_value_norms', result.decoderValueNorms, result.decoderShape, T], ['cross_value_norms', result.crossValueNorms, result.crossShape, S]]) {
      if (!norms) continue;
      await write(`,"${name}":`);
      await writeNested(write, norms, [L, H, keys]);
    }
    await write('}\n');
  });
}

// "q", "k", "v": [L][H][T][dh] each (after a comma unless `lead` says otherwise).
async function writeQkv(write, { q, k, v }, shape, lead = ',') {
  for (const [i, [name, data]] of [['q', q], ['k', k], ['v', v]].entries()) {
    await write(`${i ? ',' : lead}"${name}":`);
    await writeNested(write, data, shape);
  }
}

// An encoder-decoder's stack trace: {"embeddings": [T][C], "layers": [{self_attention_output, …,
// self_values: [keys][H·dh], …}], "final_norm"?: [T][C]} in snake_case. Each step is [T][width];
// the values a head averages are [keys][H·dh]. The norms' parameters stay out (they are weights).
// valueWidths: {encoder, decoder} heads × head width of each stack (a T5's differs from d_model).
async function writeStackTrace(write, name, trace, T, valueWidths) {
  await write(`,"${name}":{"embeddings":`);
  await writeNested(write, trace.embeddings, [T, trace.embeddings.length / T]);
  await writeTraceLayers(write, trace, T, async (steps) => {
    let first = true;
    for (const [step, data] of Object.entries(steps)) {
      // selfValues: the stack's own width; crossValues: the decoder's (its cross-attention's heads).
      const width = step === 'selfValues' ? valueWidths[name.split('_')[0]] : step === 'crossValues'
        ? valueWidths.decoder : data.length / T;
      await write(`${first ? '' : ','}"${snakeCase(step)}":`);
      await writeNested(write, data, [data.length / width, width]);
      first = false;
    }
  });
}

// "trace": {"embeddings": {word, position, token_type?, sum, output}, "layers": [{attention_output,
// ...}], "final_norm"?}: the RunResult's camelCase names in snake_case, each [T][width].
async function writeTrace(write, trace, T) {
  const group = async (fields) => {
    let first = true;
    for (const [name, data] of Object.entries(fields)) {
      await write(`${first ? '' : ','}"${snakeCase(name)}":`);
      await writeNested(write, data, [T, data.length / T]);
      first = false;
    }
  };
  await write(',"trace":{"embeddings":{');
  await group(trace.embeddings);
  await write('}');
  await writeTraceLayers(write, trace, T, group);
}

// ,"layers":[{…}, …],"final_norm"?:[T][C]} — the end every trace shares; `group` writes one layer's steps.
async function writeTraceLayers(write, trace, T, group) {
  await write(',"layers":[');
  for (let l = 0; l < trace.layers.length; l++) {
    await write(l ? ',{' : '{');
    await group(trace.layers[l]);
    await write('}');
  }
  await write(']');
  if (trace.finalNorm) {
    await write(',"final_norm":');
    await writeNested(write, trace.finalNorm, [T, trace.finalNorm.length / T]);
  }
  await write('}');
}

/** BertViz input (js/formats/bertviz.js, the same document the <attn-scope> export writes). */
export async function writeBertViz(out, result) {
  await withSink(out, async (write) => {
    for (const piece of bertvizJson(result)) await write(piece);
  });
}

/** attentions.npy (L,H,T,T) f4, hidden.npy (T,C) f4, ids/token_type_ids.npy (T) i4, offsets.npy (T,2) i4, tokens.npy (T) <U. */
export function writeNpyFolder(dir, result) {
  const [L, H, T] = result.shape;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'attentions.npy'), npy('<f4', [L, H, T, T], result.attentions));
    writeFileSync(join(dir, 'hidden.npy'), npy('<f4', [T, result.hidden.length / T], result.hidden));
    writeFileSync(join(dir, 'ids.npy'), npy('<i4', [T], result.ids));
    writeFileSync(join(dir, 'token_type_ids.npy'), npy('<i4', [T], result.typeIds));
    writeFileSync(join(dir, 'offsets.npy'), npy('<i4', [T, 2], result.offsets));
    writeFileSync(join(dir, 'tokens.npy'), npyStrings(result.tokens));
    if (result.maskPredictions) writeFileSync(join(dir, 'mask_predictions.json'), `${JSON.stringify(result.maskPredictions)}\n`);
    if (result.next) writeFileSync(join(dir, 'next.json'), `${JSON.stringify(result.next)}\n`);
  } catch (error) {
    throw new AttnScopeError('E_INPUT', `cannot write ${dir}: ${error.message}`);
  }
}

function offsetPairs(offsets) {
  const pairs = [];
  for (let i = 0; i < offsets.length; i += 2) pairs.push([offsets[i], offsets[i + 1]]);
  return pairs;
}

// ,"flow":{…} (js/formats/flow-json.js)
async function writeFlow(write, flow) {
  await write(',"flow":');
  for (const piece of flowJson(flow)) await write(piece);
}

async function writeNested(write, data, shape) {
  for (const piece of nestedJson(data, shape)) await write(piece);
}

// Streams to a file, or to stdout when `out` is undefined or '-'; waits for 'drain'.
async function withSink(out, body) {
  const toStdout = out === undefined || out === '-';
  const stream = toStdout ? process.stdout : createWriteStream(out);
  let failure = null;
  const onError = (error) => { failure = error; };
  stream.on('error', onError);
  const write = async (text) => {
    if (failure) throw failure;
    if (!stream.write(text)) await new Promise((resolve, reject) => {
      stream.once('drain', resolve);
      stream.once('error', reject);
    });
  };
  try {
    await body(write);
    if (!toStdout) await new Promise((resolve, reject) => stream.end((error) => (error ? reject(error) : resolve())));
    if (failure) throw failure;
  } catch (error) {
    if (error instanceof AttnScopeError) throw error;
    throw new AttnScopeError('E_INPUT', `cannot write ${toStdout ? 'stdout' : out}: ${error.message}`);
  } finally {
    stream.off('error', onError);
  }
}

function npyHeader(descr, shape) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  // Magic (6) + version (2) + length (2) + header + '\n' must be a multiple of 64.
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const out = new Uint8Array(10 + header.length);
  out.set([0x93, ...new TextEncoder().encode('NUMPY'), 1, 0, header.length & 0xff, header.length >> 8]);
  out.set(new TextEncoder().encode(header), 10);
  return out;
}

function npy(descr, shape, typed) {
  const header = npyHeader(descr, shape);
  const body = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
  const out = new Uint8Array(header.length + body.length);
  out.set(header);
  out.set(body, header.length);
  return out;
}

// NumPy's unicode dtype '<Un': n UTF-32LE code points per element, zero padded.
function npyStrings(strings) {
  const codePoints = strings.map((s) => Array.from(s, (c) => c.codePointAt(0)));
  const width = Math.max(1, ...codePoints.map((c) => c.length));
  const data = new Uint32Array(strings.length * width);
  codePoints.forEach((cps, i) => data.set(cps, i * width));
  return npy(`<U${width}`, [strings.length], data);
}

/** The logit lens in the CLI's snake_case: [L+1][T] of {top: [{id, token, prob}], final_rank,
 *  final_prob} and, for decoders, next_rank / next_prob (null at the last position). */
export function logitLensJson(lens) {
  return lens.map((row) => row.map((e) => ({
    top: e.top.map(({ id, token, prob }) => ({ id, token, prob })),
    final_rank: e.finalRank,
    final_prob: e.finalProb,
    ...('nextRank' in e ? { next_rank: e.nextRank, next_prob: e.nextProb } : {}),
  })));
}

/** Direct logit attribution in the CLI's snake_case. */
export function attributionJson(a) {
  return { position: a.position, token_id: a.tokenId, token: a.token, logit: a.logit, parts: a.parts, sum: a.sum };
}

/** The CLI's name for an API field: numLayers → num_layers. */
export function snakeCase(name) {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A plain JSON value with every object key in snake_case at every depth, as the CLI's JSON names
 *  things (the API's objects are camelCase). */
export function snakeCaseKeys(value) {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [snakeCase(key), snakeCaseKeys(v)]));
}
