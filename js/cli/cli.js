#!/usr/bin/env node
// The `attnscope` command: run a model and write its attentions (JSON, .npy folder or BertViz
// input), tokenize JSON lines from stdin, benchmark, or describe a model. User errors print one
// line on stderr and exit non-zero; a stack trace means a bug (or ATTNSCOPE_DEBUG=1).
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

import { loadModel, buildInfo, AttnScopeError } from '../index.js';
import { loadTokenizer } from '../api/tokenizer.js';
import { writeJsonResult, writeBertViz, writeNpyFolder, writeSeq2SeqJson, snakeCaseKeys } from './output.js';
import { UsageError, integerList, optionalInteger, optionalNumber, parseFlags, refuseEmpty } from './args.js';
import { nestedJson } from '../formats/json-arrays.js';
import { AUTO_F16_ABOVE_BYTES, DEFAULT_WEIGHT_PRECISION, WEIGHT_PRECISION_CHOICES } from '../api/memory-estimate.js';
import { GENERATE_DEFAULTS } from '../analysis/generate.js';
import { PATCH_FLAGS, PATCH_USAGE, STEER_FLAGS, STEER_USAGE, patchCommand, steerFromFlags } from './interventions.js';
import { FIGURE_VIEWS, decoderRun, encoderRun, figureData } from '../analysis/snapshot.js';
import { crossRun } from '../analysis/figure-cross.js';
import { FIGURE_VIEW, LENS_TOP_K, LENS_VIEW } from '../formats/figure-views.js';
import { SNAPSHOT_KIND_FLAGS, SNAPSHOT_KIND_USAGE, checkKindFlags, kindFigureRun } from './snapshot-kinds.js';

const USAGE = `usage: attnscope <command> [options]

commands:
  run       --model M (--ids 101,2023,102 [--token-types 0,0,0] | --text "..." [--text-pair "..."])
            [--max-length N] [--top-k N] [--next-all] [--trace] [--format json|npy|bertviz] [--out FILE|DIR]
            (--trace: every intermediate of every block, see README "The block, step by step")
            [--words]  "words" [{text, start, end, tokens}] and "word_attentions" [L][H][W][W]: sub-word
            tokens merged into words (attention to a word summed over its pieces, from it averaged)
            [--head-mask 0:1,2:3]  switches off those layer:head pairs (Hugging Face head_mask 0)
            [--qkv]  "q", "k", "v" [L][H][T][dh]: each head's queries (not scaled), keys and values
            (decoders: "next" holds the top-k after the last token; --next-all adds every position)
            [--logit-lens [K]]  "logit_lens": the model's own head on the embeddings and every layer's
            output, [L+1][T] of {top (K, default 5), final_rank, final_prob}; decoders also next_rank,
            next_prob (the token that actually follows; null at the last position)
            [--attribution [TOKEN_ID]]  decoders: "attribution", the logit of TOKEN_ID (default: the
            top-1 next token) after the last position split into embeddings, heads, attention biases,
            MLPs and the final norm's bias
            [--value-norms]  "value_norms" [L][H][T]: ‖v_j W_O,h‖, what each head adds per key token
            [--flow]  "flow": the information flow (proportion rule): "tokens" [L][T][T], "residual",
            "bias", "mlp", "mlp_residual" [L][T], "heads" [L][H][T][T] (README "Information flow")
            [--target "..." | --target-ids 5,6]  encoder-decoder models (bart, marian, t5): the
            decoder runs over decoder_start_token_id then the target; the JSON holds
            encoder_attentions, decoder_attentions, cross_attentions, hidden, next; --trace adds
            encoder_trace and decoder_trace, --qkv encoder_qkv and decoder_qkv ({q, k, v} of the
            self-attentions), --flow the decoder's flow with cross_* and its "encoder"; --head-mask masks the encoder's heads, [--decoder-head-mask 0:1]
            the decoder's, [--cross-attn-head-mask 1:0] its cross-attention's; --logit-lens and
            --attribution read the decoder side (attribution also splits out cross_head,
            cross_attention_bias, norm_bias: a post-norm layer's norms' β, logits_bias); --value-norms
            writes encoder_value_norms, decoder_value_norms and cross_value_norms
  generate  --model M (--text "..." | --ids 464,3290) [--max-new-tokens N] [--temperature T]
            [--top-k K] [--top-p P] [--seed S] [--no-stop-at-eos] [--candidates N] [--out FILE]
            (decoders; --temperature 0 is greedy; defaults: ${GENERATE_DEFAULTS.maxNewTokens} tokens, and as Hugging Face:
            temperature ${GENERATE_DEFAULTS.temperature}, top-k ${GENERATE_DEFAULTS.topK}, top-p ${GENERATE_DEFAULTS.topP}; --top-p in (0, 1])
            (encoder-decoder models: --text/--ids is the source; ids start with decoder_start_token_id,
            each step holds its cross_attentions row [L][H][S]; text leaves out the special tokens)
${STEER_USAGE}
${PATCH_USAGE}
  snapshot  [--model M] --text "..." [--view ${FIGURE_VIEWS.join('|')}] [--layer L] [--head H] [--words] --out fig.json
            the data of one figure (tokens, the matrices the view draws, model, text, view/layer/head,
            a format version): <attn-scope src="fig.json"> draws it with no model download;
            --words adds the word spans and each matrix merged into words (drawn as words);
            --view ${LENS_VIEW}: the logit lens (top ${LENS_TOP_K} tokens per layer and position; models with a head)
${SNAPSHOT_KIND_USAGE}
            [--kind enc|dec|cross [--target "..."]]  encoder-decoder models: the encoder's self-attention
            over --text (enc, the default), the decoder's over decoder_start_token_id then --target
            (dec), or the decoder's cross-attention from the target's rows to --text's tokens (cross)
  tokenize  --model M [--text "..." [--text-pair "..."]]   (no --text: one JSON string per stdin line)
            [--side source|target]  encoder-decoder tokenizers: target text goes through the
            target side's tokenizer (Marian: target.spm; others: the same tokenizer)
  bench     --model M [--tokens N] [--runs R]
  info      [--model M]

--model is a folder, an http(s) URL, a Hugging Face hub id, bundled-causal (the bundled GPT-2),
bundled-seq2seq (the bundled T5: English → subject–object–verb order), or omitted for the bundled
BERT.
--weight-precision f16 (any command) keeps the weight matrices as f16 in memory: half the RAM;
q8 quantizes the linear layers to int8 (a quarter, int8 GEMM; results close to f32, not equal);
auto picks f16 when f32 weights would take more than ${AUTO_F16_ABOVE_BYTES / 1024 ** 2} MB, q8 only where f16 would not fit
(default ${DEFAULT_WEIGHT_PRECISION}).
--threads N (any command): threads the model runs on (default: the cores, at most 16); results are
the same bits on any number.
A text longer than --max-length (default: the model's positions) is cut: the JSON's num_truncated
counts the dropped tokens and stderr gets one line.
ATTNSCOPE_HUB_URL overrides https://huggingface.co for hub ids.`;

const COMMON = {
  model: { type: 'string' },
  'weight-precision': { type: 'string', default: DEFAULT_WEIGHT_PRECISION },
  threads: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};
const OPTIONS = {
  run: {
    ...COMMON, ids: { type: 'string' }, 'token-types': { type: 'string' }, text: { type: 'string' },
    'text-pair': { type: 'string' }, out: { type: 'string' }, format: { type: 'string', default: 'json' },
    'top-k': { type: 'string' }, 'max-length': { type: 'string' }, 'next-all': { type: 'boolean' },
    trace: { type: 'boolean' }, 'head-mask': { type: 'string' }, 'logit-lens': { type: 'string' },
    attribution: { type: 'string' }, words: { type: 'boolean' }, target: { type: 'string' },
    'target-ids': { type: 'string' }, qkv: { type: 'boolean' }, 'decoder-head-mask': { type: 'string' },
    'cross-attn-head-mask': { type: 'string' }, flow: { type: 'boolean' }, 'value-norms': { type: 'boolean' },
  },
  generate: {
    ...COMMON, ids: { type: 'string' }, text: { type: 'string' }, out: { type: 'string' },
    'max-new-tokens': { type: 'string' }, temperature: { type: 'string' }, 'top-k': { type: 'string' },
    'top-p': { type: 'string' }, seed: { type: 'string' }, 'no-stop-at-eos': { type: 'boolean' },
    candidates: { type: 'string' }, ...STEER_FLAGS,
  },
  patch: { ...COMMON, ...PATCH_FLAGS },
  snapshot: {
    ...COMMON, text: { type: 'string' }, view: { type: 'string', default: FIGURE_VIEW.head }, layer: { type: 'string' },
    head: { type: 'string' }, out: { type: 'string' }, words: { type: 'boolean' }, kind: { type: 'string' },
    target: { type: 'string' }, ...SNAPSHOT_KIND_FLAGS,
  },
  tokenize: { ...COMMON, text: { type: 'string' }, 'text-pair': { type: 'string' }, 'max-length': { type: 'string' },
    side: { type: 'string' } },
  bench: { ...COMMON, tokens: { type: 'string', default: '128' }, runs: { type: 'string', default: '10' } },
  info: { ...COMMON },
};

// Every command's model: its load warnings (weights the checkpoint has but the model does not use)
// on stderr, as transformers prints them; stdout keeps only the data.
async function openModel(values) {
  const model = await loadModel(values.model, loadOptions(values));
  for (const warning of model.info.warnings ?? []) process.stderr.write(`attnscope: warning: ${warning}\n`);
  return model;
}

function loadOptions(values) {
  const weightPrecision = values['weight-precision'];
  if (!WEIGHT_PRECISION_CHOICES.includes(weightPrecision)) {
    throw new UsageError(`--weight-precision must be ${WEIGHT_PRECISION_CHOICES.join(', ')}, not "${weightPrecision}"`);
  }
  const threads = optionalInteger(values.threads, '--threads', 1);
  return { weightPrecision, ...(threads === undefined ? {} : { threads }) };
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (!(command in OPTIONS)) throw new UsageError(`unknown command "${command}"`);
  // --logit-lens [K] and --attribution [TOKEN_ID]: given without a value, they take these.
  const values = parseFlags(rest, OPTIONS[command], { '--logit-lens': '5', '--attribution': 'top' });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const commands = { run, generate, snapshot, tokenize, bench, info, patch: (v) => patchCommand(v, openModel) };
  return commands[command](values);
}

async function run(values) {
  const format = values.format;
  if (!['json', 'npy', 'bertviz'].includes(format)) throw new UsageError(`--format must be json, npy or bertviz, not "${format}"`);
  if ((values.ids === undefined) === (values.text === undefined)) throw new UsageError('give exactly one of --ids and --text');
  if (values.ids === undefined && values['token-types'] !== undefined) throw new UsageError('--token-types goes with --ids');
  if (values.text === undefined && values['text-pair'] !== undefined) throw new UsageError('--text-pair goes with --text');
  refuseEmpty(values.text, '--text', 'give the text to run');
  refuseEmpty(values['text-pair'], '--text-pair', 'give the second text, or leave the flag out');
  refuseEmpty(values.target, '--target', 'give the target text, or leave the flag out (the decoder then sees decoder_start_token_id alone)');
  if (format === 'npy' && !values.out) throw new UsageError('--format npy writes a folder: give --out DIR');
  if (values.words && (format !== 'json' || values.text === undefined)) throw new UsageError('--words merges the words of a --text into the JSON: use it with --text and --format json');
  if (values.trace && format !== 'json') throw new UsageError('--trace writes its steps into the JSON: use it with --format json');
  if (values.qkv && format !== 'json') throw new UsageError('--qkv writes q, k and v into the JSON: use it with --format json');
  if (values.flow && format !== 'json') throw new UsageError('--flow writes the information flow into the JSON: use it with --format json');
  if (values['value-norms'] && format !== 'json') throw new UsageError('--value-norms writes into the JSON: use it with --format json');
  const options = {
    topK: optionalInteger(values['top-k'], '--top-k', 0),
    maxLength: optionalInteger(values['max-length'], '--max-length', 0),
    ...(values['next-all'] ? { nextAll: true } : {}),
    ...(values.trace ? { trace: true } : {}),
    ...(values.qkv ? { qkv: true } : {}),
    ...(values.flow ? { flow: true } : {}),
    ...(values['value-norms'] ? { valueNorms: true } : {}),
    ...(values.words ? { words: true } : {}),
    ...(values['logit-lens'] !== undefined ? { logitLens: optionalInteger(values['logit-lens'], '--logit-lens', 1) } : {}),
    ...(values.attribution !== undefined
      ? { attribution: values.attribution === 'top' ? true : { tokenId: optionalInteger(values.attribution, '--attribution', 0) } } : {}),
  };
  if ((options.logitLens || options.attribution) && format !== 'json') throw new UsageError('--logit-lens and --attribution write into the JSON: use them with --format json');
  const model = await openModel(values);
  if (model.info.kind === 'encoder-decoder') {
    try {
      return await runSeq2Seq(model, values, options);
    } finally {
      model.dispose();
    }
  }
  try {
    if (values.target !== undefined || values['target-ids'] !== undefined) {
      throw new UsageError('--target and --target-ids are for encoder-decoder models (bart, marian, t5)');
    }
    for (const flag of ['decoder-head-mask', 'cross-attn-head-mask'])
      if (values[flag] !== undefined) throw new UsageError(`--${flag} is for encoder-decoder models (bart, marian, t5); use --head-mask`);
    if (values['head-mask'] !== undefined) options.headMask = headMaskFrom(values['head-mask'], model.config);
    const result = values.ids !== undefined
      ? await model.runIds(integerList(values.ids, '--ids'), {
        ...options,
        tokenTypes: values['token-types'] === undefined ? undefined : integerList(values['token-types'], '--token-types'),
      })
      : await model.run(values.text, { ...options, textPair: values['text-pair'] });
    announceTruncation(result.numTruncated, result.tokens.length, 'the input');
    if (format === 'npy') writeNpyFolder(values.out, result);
    else if (format === 'bertviz') await writeBertViz(values.out, result);
    else await writeJsonResult(values.out, result);
  } finally {
    model.dispose();
  }
  return 0;
}

// run on an encoder-decoder model: the source (--text or --ids) and the target (--target or
// --target-ids, or none: the decoder then sees decoder_start_token_id alone).
async function runSeq2Seq(model, values, options) {
  if (values.format !== 'json') throw new UsageError('encoder-decoder models write --format json');
  for (const flag of ['token-types', 'text-pair', 'next-all', 'words']) {
    if (values[flag] !== undefined) throw new UsageError(`--${flag} is not available for encoder-decoder models`);
  }
  if (values.target !== undefined && values['target-ids'] !== undefined) throw new UsageError('give at most one of --target and --target-ids');
  const c = model.config;
  const masks = {};
  for (const [flag, key, layers, heads] of [['head-mask', 'headMask', c.encoderLayers, c.encoderHeads],
    ['decoder-head-mask', 'decoderHeadMask', c.decoderLayers, c.decoderHeads],
    ['cross-attn-head-mask', 'crossAttnHeadMask', c.decoderLayers, c.decoderHeads]])
    if (values[flag] !== undefined) masks[key] = headMaskFrom(values[flag], { numLayers: layers, numHeads: heads }, flag);
  const common = { topK: options.topK ?? 5, trace: Boolean(values.trace), qkv: Boolean(values.qkv),
    flow: Boolean(values.flow), valueNorms: Boolean(values['value-norms']), ...masks,
    ...(options.logitLens ? { logitLens: options.logitLens } : {}), ...(options.attribution ? { attribution: options.attribution } : {}) };
  const result = values.ids !== undefined
    ? await model.runIds(integerList(values.ids, '--ids'), {
      ...common, targetIds: values['target-ids'] === undefined ? [] : integerList(values['target-ids'], '--target-ids'),
    })
    : await model.run(values.text, {
      ...common, ...(values.target !== undefined ? { target: values.target } : {}),
      ...(values['target-ids'] !== undefined ? { targetIds: integerList(values['target-ids'], '--target-ids') } : {}),
    });
  await writeSeq2SeqJson(values.out, result, {
    encoder: c.encoderHeads * c.encoderHeadDim, decoder: c.decoderHeads * c.decoderHeadDim,
  });
  return 0;
}

async function generate(values) {
  if ((values.ids === undefined) === (values.text === undefined)) throw new UsageError('give exactly one of --ids and --text');
  refuseEmpty(values.text, '--text', 'give the text to generate from');
  const options = {
    maxNewTokens: optionalInteger(values['max-new-tokens'], '--max-new-tokens', 0),
    temperature: optionalNumber(values.temperature, '--temperature', { min: 0, note: '0 is greedy' }),
    topK: optionalInteger(values['top-k'], '--top-k', 0),
    topP: optionalNumber(values['top-p'], '--top-p', { min: 0, minOpen: true, max: 1, note: '1 keeps every token' }),
    seed: optionalInteger(values.seed, '--seed', 0),
    candidates: optionalInteger(values.candidates, '--candidates', 0),
    stopAtEos: !values['no-stop-at-eos'],
    steer: steerFromFlags(values),
  };
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key];
  const model = await openModel(values);
  try {
    const prompt = values.ids !== undefined ? integerList(values.ids, '--ids') : values.text;
    if (model.info.kind === 'encoder-decoder') {
      const r = await model.generate(prompt, options);
      const rows = (data, shape) => JSON.parse([...nestedJson(data, shape)].join(''));
      const c = model.config;
      const json = `${JSON.stringify({
        source_ids: [...r.sourceIds], source_tokens: r.sourceTokens, ids: [...r.ids], tokens: r.tokens,
        stop_reason: r.stopReason, text: r.text,
        steps: r.steps.map((s) => ({ id: s.id, token: s.token, prob: s.prob,
          cross_attentions: rows(s.crossAttentions, [c.decoderLayers, c.decoderHeads, r.sourceIds.length]) })),
      })}\n`;
      if (values.out) writeFileSync(values.out, json);
      else process.stdout.write(json);
      return 0;
    }
    const generation = model.generate(prompt, options);
    const r = await generation.result;
    announceTruncation(r.numTruncated, r.promptLength, 'the prompt');
    if (r.stopReason === 'max-positions') {
      process.stderr.write(`attnscope: stopped after ${r.steps.length} new tokens at the model's ${model.config.maxTokens} positions\n`);
    }
    const json = `${JSON.stringify({
      ids: [...r.ids], tokens: r.tokens, prompt_length: r.promptLength, num_truncated: r.numTruncated,
      stop_reason: r.stopReason, text: r.text,
      steps: r.steps.map((s) => ({ id: s.id, token: s.token, text: s.text, prob: s.prob, candidates: s.candidates })),
    })}\n`;
    if (values.out) writeFileSync(values.out, json);
    else process.stdout.write(json);
  } finally {
    model.dispose();
  }
  return 0;
}

// One frozen figure (js/analysis/snapshot.js): the view's matrices of --text, rounded, as JSON. An
// encoder–decoder's figure is one of its square self-attentions (--kind): the encoder's over the
// text (the source), or the decoder's over the target.
async function snapshot(values) {
  if (values.text === undefined) throw new UsageError('snapshot needs --text');
  refuseEmpty(values.text, '--text', 'give the text to draw');
  if (!values.out) throw new UsageError('snapshot writes a file: give --out fig.json');
  if (!FIGURE_VIEWS.includes(values.view)) {
    throw new UsageError(`--view ${values.view}: a frozen figure draws the ${FIGURE_VIEWS.join(', ')} views ` +
      'with no model; the other views need it (<attn-scope view="…"> without src runs it live)');
  }
  checkKindFlags(values);
  const layer = optionalInteger(values.layer, '--layer', 0) ?? 0;
  const head = optionalInteger(values.head, '--head', 0) ?? 0;
  const model = await openModel(values);
  try {
    const seq2seq = model.info.kind === 'encoder-decoder';
    if (!seq2seq && (values.kind !== undefined || values.target !== undefined)) {
      throw new UsageError('--kind and --target are for encoder-decoder models (bart, marian, t5)');
    }
    const lens = values.view === LENS_VIEW;
    if (lens && seq2seq) throw new UsageError(`--view ${LENS_VIEW} (the logit lens) is for encoders and decoders, not encoder-decoder models`);
    if (lens && values.words) throw new UsageError(`--words merges attention matrices; a --view ${LENS_VIEW} figure holds none`);
    if (lens && !model.info.config.isDecoder && !model.info.hasMlmHead) {
      throw new UsageError(`--view ${LENS_VIEW}: this encoder has no masked-LM head to read its layers with`);
    }
    const own = await kindFigureRun(model, values);   // a flow graph or patching grid
    const result = own?.result ?? (seq2seq ? await seq2seqFigureRun(model, values)
      : await model.run(values.text, { topK: 0, ...(lens ? { logitLens: LENS_TOP_K } : {}) }));
    const [L, H] = result.shape;
    if (layer >= L) throw new UsageError(`--layer ${layer}: the model has ${L} layers (0 to ${L - 1})`);
    if (head >= H) throw new UsageError(`--head ${head}: the model has ${H} heads (0 to ${H - 1})`);
    announceTruncation(result.numTruncated, result.tokens.length, 'the input');
    const figure = figureData(result, { model: values.model ?? 'bundled', info: model.info, text: values.text,
      view: values.view, layer, head, words: Boolean(values.words), ...own?.what });
    writeFileSync(values.out, JSON.stringify(figure) + '\n');
  } finally {
    model.dispose();
  }
  return 0;
}

// The run an encoder–decoder's figure holds: --kind enc (the default; the encoder over --text) or
// dec (the decoder over decoder_start_token_id and --target, which it needs).
async function seq2seqFigureRun(model, values) {
  const kind = values.kind ?? 'enc';
  if (!['enc', 'dec', 'cross'].includes(kind)) throw new UsageError(`--kind is enc, dec or cross, not "${kind}"`);
  if (kind === 'enc' && values.target !== undefined) throw new UsageError('--target goes with --kind dec or cross (the encoder sees --text alone)');
  if (kind !== 'enc' && values.target === undefined) throw new UsageError(`--kind ${kind} draws the decoder over a target: give --target`);
  refuseEmpty(values.target, '--target', 'give the target text the decoder reads');
  if (kind !== 'enc' && values.words) throw new UsageError(`--words merges the words of --text; a --kind ${kind} figure shows the target's tokens`);
  if (kind === 'enc') return encoderRun(await model.run(values.text, { topK: 0 }), model.tokenize(values.text));
  const raw = await model.run(values.text, { topK: 0, target: values.target });
  if (kind === 'dec') return decoderRun(raw, model.tokenizeTarget(values.target));
  return crossRun(raw, model.tokenize(values.text), model.tokenizeTarget(values.target));
}

async function tokenize(values) {
  // Only the tokenizer files (and config.json when present, for the default max length): a folder
  // of tokenizer files alone is enough, and no weights are read.
  refuseEmpty(values.text, '--text', 'give the text to tokenize, or leave --text out to read JSON lines from stdin');
  refuseEmpty(values['text-pair'], '--text-pair', 'give the second text, or leave the flag out');
  const model = await loadTokenizer(values.model);
  const maxLength = optionalInteger(values['max-length'], '--max-length', 0);
  const side = values.side ?? 'source';
  if (side !== 'source' && side !== 'target') throw new UsageError(`--side is source or target, not "${side}"`);
  if (side === 'target' && values['text-pair'] !== undefined) throw new UsageError('--text-pair goes with --side source');
  const line = (text, textPair, what) => {
    const e = side === 'target' ? model.tokenizeTarget(text, { maxLength }) : model.tokenize(text, { textPair, maxLength });
    announceTruncation(e.numTruncated, e.tokens.length, what);
    const offsets = [];
    for (let i = 0; i < e.offsets.length; i += 2) offsets.push([e.offsets[i], e.offsets[i + 1]]);
    return `${JSON.stringify({ tokens: e.tokens, token_texts: e.tokenTexts, ids: [...e.ids], token_type_ids: [...e.typeIds],
      offsets, num_truncated: e.numTruncated })}\n`;
  };
  try {
    if (values.text !== undefined) {
      process.stdout.write(line(values.text, values['text-pair'], 'the input'));
      return 0;
    }
    if (values['text-pair'] !== undefined) throw new UsageError('--text-pair goes with --text');
    let number = 0;
    for await (const input of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      number++;
      if (input.trim() === '') continue;
      let text;
      try {
        text = JSON.parse(input);
      } catch {
        throw new AttnScopeError('E_INPUT', `stdin line ${number} is not JSON (expected a JSON string per line)`);
      }
      if (typeof text !== 'string') throw new AttnScopeError('E_INPUT', `stdin line ${number} is not a JSON string`);
      if (!process.stdout.write(line(text, undefined, `stdin line ${number}`))) await new Promise((resolve) => process.stdout.once('drain', resolve));
    }
  } finally {
    model.dispose();
  }
  return 0;
}

async function bench(values) {
  const tokens = optionalInteger(values.tokens, '--tokens', 1);
  const runs = optionalInteger(values.runs, '--runs', 1);
  const model = await openModel(values);
  try {
    const limit = model.config.maxTokens;
    if (tokens > limit) throw new UsageError(`--tokens ${tokens} is more than the model's ${limit} positions`);
    const ids = benchIds(model, tokens);
    await model.runIds(ids); // warm-up: first-touch page faults, lazy init
    const times = [];
    for (let r = 0; r < runs; r++) {
      const start = process.hrtime.bigint();
      await model.runIds(ids);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    const mid = times.length >> 1;
    const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
    const build = await buildInfo({ threads: model.info.threads });  // the module the model runs in
    process.stdout.write(`${JSON.stringify({
      median_ms: round(median), min_ms: round(times[0]), tokens, runs, threads: model.info.threads,
      weight_precision: model.info.weightPrecision,
      build: `${build.target}${build.simd ? '+simd128' : ''}${build.relaxedSimd ? '+relaxed-simd' : ''} ${build.compiler}`,
    })}\n`);
  } finally {
    model.dispose();
  }
  return 0;
}

async function info(values) {
  const model = await openModel(values);
  try {
    // Every field of model.info, in the CLI's snake_case (the config's keys too; files maps file
    // names, which stay as they are, to sizes); its location is "path".
    const { location, files, ...rest } = model.info;
    process.stdout.write(`${JSON.stringify({ path: location, files, ...snakeCaseKeys(rest) }, null, 2)}\n`);
  } finally {
    model.dispose();
  }
  return 0;
}

// A cut input is never silent: one stderr line (stdout keeps only the data).
function announceTruncation(dropped, kept, what) {
  if (dropped > 0) process.stderr.write(`attnscope: ${what} was cut to ${kept} tokens (${dropped} dropped)\n`);
}

// [CLS] w w … [SEP] with deterministic ordinary word ids, for a benchmark input of any length.
function benchIds(model, count) {
  const cls = model.tokenToId('[CLS]');
  const sep = model.tokenToId('[SEP]');
  const vocab = model.info.tokenizerVocabSize;
  const ids = [cls];
  for (let i = 1; i < count - 1; i++) ids.push(Math.min(vocab - 1, 1000 + ((i * 7919) % Math.max(1, vocab - 1000))));
  if (count > 1) ids.push(sep);
  return ids.slice(0, count);
}

// "0:1,2:3" → an (L, H) head mask of ones with 0 at layer 0 head 1 and layer 2 head 3.
function headMaskFrom(text, { numLayers: L, numHeads: H }, flag = 'head-mask') {
  const mask = Array.from({ length: L }, () => new Array(H).fill(1));
  for (const pair of text.split(',')) {
    const match = /^\s*(\d+):(\d+)\s*$/.exec(pair);
    if (!match) throw new UsageError(`--${flag} takes layer:head pairs like 0:1,2:3, got "${pair}"`);
    const [layer, head] = [Number(match[1]), Number(match[2])];
    if (layer >= L || head >= H) throw new UsageError(`--${flag} ${layer}:${head} is outside the model's ${L} layers × ${H} heads`);
    mask[layer][head] = 0;
  }
  return mask;
}

function round(ms) {
  return Math.round(ms * 1000) / 1000;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => {
    if (process.env.ATTNSCOPE_DEBUG) console.error(error);
    if (error instanceof UsageError) {
      process.stderr.write(`attnscope: ${error.message}\n(attnscope --help for usage)\n`);
      process.exitCode = 2;
    } else if (error instanceof AttnScopeError) {
      process.stderr.write(`attnscope: ${error.code}: ${error.message}\n`);
      process.exitCode = 1;
    } else if (error?.code === 'EPIPE') {
      process.exitCode = 0;
    } else {
      process.stderr.write(`attnscope: internal error: ${error?.stack || error}\n`);
      process.exitCode = 70;
    }
  },
);
