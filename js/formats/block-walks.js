// Each family's block walk, written once as data: the steps one token meets in one layer, in the
// order the layer runs them, each naming the traced array it shows, the i18n key of its label and,
// where the step is arithmetic on earlier ones, the recomputation that checks it. The page's Block
// view (web/src/views/block.js) draws a walk entry by entry; js/formats/block-steps.js runs its checks.
// Nothing here draws or computes: a walk is plain data any host can read.
//
// References name traced arrays (each T rows; a row's width is its length / T):
//   'x'                 the layer's input (the embeddings' output at layer 0, else the layer before's output)
//   'embeddings'        the embeddings' output (what layer 0 reads); 'embeddings.<part>' one part
//   'finalNorm'         the stack's norm after its last layer
//   any other name      that field of the layer's trace; 'a|b' is a, or b where the trace has no a
// Norm parameters: a layer's by name ('attention', 'ffn', 'selfAttention', 'qNorm', …); the
// stack's 'embeddings' and 'final'.
//
// A walk: { family, norm: 'layer' (LayerNorm) | 'rms' (RMSNorm), intro, entries }. Entries are body
// notes ({note, sizes?}) and sections ({section: title key, items, lastTitle?, className?}); items
// are notes, strips ({strip: ref, label: key | text: literal, groups?: 'H' | 'KV', vars?}), norms
// ({norm: input ref, params, out: ref}: the statistics, γ, β, the output and its check), checks
// ({check: ref, want: [op, …refs]}) and widgets (drawings of their own, by name). Any entry or
// item may say when it applies: at 'first' (layer 0 only: its checks run once, before the layers),
// 'later' (not layer 0), 'last' (the last layer only: its checks run once, after them), `when`
// (the trace has that array) and `flag` ('qkv' / '!qkv': the run has per-head q, k, v or not).
// Check ops: ['sum', …refs] (absent refs skipped: BERT's token types), ['norm', ref, params],
// ['act', ref] (the config's activation), ['times', a, b], ['headNorm', ref, params] (each head's
// RMSNorm), ['rotate', ref] (rotary, at the token's position), ['context'] (Σ_j P_ij v_j from the
// run's attentions), ['same', ref] (a step that is its input).
const note = (key, more = {}) => ({ note: key, ...more });
const strip = (ref, label, more = {}) => ({ strip: ref, label, ...more });
const text = (ref, literal, more = {}) => ({ strip: ref, text: literal, ...more });
const check = (ref, want, more = {}) => ({ check: ref, want, ...more });
const norm = (input, params, out, more = {}) => ({ norm: input, params, out, ...more });
const widget = (name, more = {}) => ({ widget: name, ...more });
const section = (title, items, more = {}) => ({ section: title, items, ...more });

// How much each sublayer changed the token: ‖x‖ → ‖attention out‖ → ‖FFN out‖ → ‖output‖.
const SIZES = note('blockNormsSummary', { sizes: { input: 'x', attn: 'attentionOutput', ffn: 'ffnOutput', out: 'output' } });
const OUTPUT = (final = []) => section('blockNext', [strip('output', 'blockLayerOut'), ...final], { lastTitle: 'blockLast' });
const ADD_ATTENTION = section('blockAdd', [note('blockAddWhy'), text('x', 'x'), strip('attentionOutput', 'blockAttnOut'),
  strip('attentionResidual', 'blockResidual'), check('attentionResidual', ['sum', 'x', 'attentionOutput'])]);

// BERT's and GPT-2's multi-head attention: x split into H heads of d_k, each head's Σ α v (from the
// run's attention and v), the heads concatenated, W_O.
const MULTI_HEAD = [
  section('blockQkv', [note('blockSplit'), widget('headSplit'), widget('qkv', { flag: 'qkv' }), note('formulaNoQkv', { flag: '!qkv' })]),
  section('blockHeads', [widget('headOutputs')], { flag: 'qkv' }),
  section('blockConcat', [widget('concat')], { flag: 'qkv' }),
  section('blockWo', [strip('attentionOutput', 'blockAttnOut')]),
];
const FFN = (input) => section('blockFfn', [strip(input, 'blockFfnIn'), strip('ffnPreActivation', 'blockFfnPre'),
  note('blockActApplied'), strip('ffnIntermediate', 'blockFfnMid'), check('ffnIntermediate', ['act', 'ffnPreActivation']),
  strip('ffnOutput', 'blockFfnOut')], { className: 'block-ffn' });
const LEARNED_EMBEDDINGS = [strip('embeddings.word', 'blockWord'), strip('embeddings.position', 'blockPosition'),
  strip('embeddings.tokenType', 'blockTokenType', { when: 'embeddings.tokenType' }), strip('embeddings.sum', 'blockSum'),
  check('embeddings.sum', ['sum', 'embeddings.word', 'embeddings.position', 'embeddings.tokenType'])];

/** Post-LN encoders (BERT, DistilBERT, MiniLM, RoBERTa): attention → Add → Norm → FFN → Add → Norm. */
const POST_LN = {
  norm: 'layer',
  entries: [
    note('blockIntroEncoder'),
    section('blockEmbeddings', [...LEARNED_EMBEDDINGS, note('blockEmbNorm'), norm('embeddings.sum', 'embeddings', 'embeddings.output')],
      { at: 'first' }),
    section('blockInput', [text('x', 'x')]),
    ...MULTI_HEAD,
    ADD_ATTENTION,
    section('blockNormTitle', [norm('attentionResidual', 'attention', 'attentionNorm')]),
    FFN('attentionNorm'),
    section('blockAdd', [strip('attentionNorm', 'blockNormOut'), strip('ffnOutput', 'blockFfnOut'), strip('ffnResidual', 'blockResidual2'),
      check('ffnResidual', ['sum', 'attentionNorm', 'ffnOutput'])]),
    section('blockNormTitle', [norm('ffnResidual', 'ffn', 'output')]),
    OUTPUT(),
    SIZES,
  ],
};

/** Pre-LN decoders (GPT-2): Norm → attention → Add, Norm → FFN → Add; ln_f after the last layer. */
const PRE_LN = {
  norm: 'layer',
  entries: [
    note('blockIntroDecoder'),
    section('blockEmbeddings', LEARNED_EMBEDDINGS, { at: 'first' }),
    section('blockInput', [text('x', 'x')]),
    section('blockPreNormAttn', [norm('x', 'attention', 'attentionInputNorm')]),
    ...MULTI_HEAD,
    ADD_ATTENTION,
    section('blockPreNormFfn', [norm('attentionResidual', 'ffn', 'ffnInputNorm')]),
    FFN('ffnInputNorm'),
    section('blockAdd', [strip('attentionResidual', 'blockResidual'), strip('ffnOutput', 'blockFfnOut'), strip('ffnResidual', 'blockResidual2'),
      check('ffnResidual', ['sum', 'attentionResidual', 'ffnOutput'])]),
    OUTPUT([note('blockFinalNorm', { at: 'last', when: 'finalNorm' }), norm('output', 'final', 'finalNorm', { at: 'last', when: 'finalNorm' })]),
    SIZES,
  ],
};

/** The Llama family (Llama, Mistral, Qwen2, Qwen3): RMSNorm → q/k/v (k, v: the key/value heads) →
 *  Qwen3's per-head q/k RMSNorms → rotation by the position → grouped-query attention → o_proj →
 *  Add → RMSNorm → SwiGLU (act(gate) · up, down) → Add; model.norm after the last layer. No
 *  position table: the embeddings are the word vector alone. */
const LLAMA = {
  family: 'llama',
  norm: 'rms',
  entries: [
    note('blockIntroLlama'),
    section('blockEmbeddingsRotary', [strip('embeddings.word', 'blockWord'), check('embeddings.sum', ['sum', 'embeddings.word'])], { at: 'first' }),
    section('blockInput', [text('x', 'x')]),
    section('blockRmsAttn', [norm('x', 'attention', 'attentionInputNorm')]),
    section('blockQkvLlama', [text('qProjection', 'q', { groups: 'H' }), text('kProjection', 'k', { groups: 'KV' }),
      text('vProjection', 'v', { groups: 'KV' })]),
    section('blockHeadNorms', [strip('qHeadNorm', 'blockQNormed', { groups: 'H' }), strip('kHeadNorm', 'blockKNormed', { groups: 'KV' }),
      check('qHeadNorm', ['headNorm', 'qProjection', 'qNorm']), check('kHeadNorm', ['headNorm', 'kProjection', 'kNorm'])], { when: 'qHeadNorm' }),
    // The rotation turns pairs of numbers: lengths stay, directions change with the position.
    section('blockRotation', [note('blockRotationWhy'),
      strip('qHeadNorm|qProjection', 'blockBeforeRotation', { vars: { x: 'q' }, groups: 'H' }),
      strip('qRotated', 'blockAfterRotation', { vars: { x: 'q' }, groups: 'H' }), check('qRotated', ['rotate', 'qHeadNorm|qProjection']),
      strip('kHeadNorm|kProjection', 'blockBeforeRotation', { vars: { x: 'k' }, groups: 'KV' }),
      strip('kRotated', 'blockAfterRotation', { vars: { x: 'k' }, groups: 'KV' }), check('kRotated', ['rotate', 'kHeadNorm|kProjection']),
      widget('rotationLengths')]),
    section('blockGqa', [widget('kvGroups'), check('attentionContext', ['context'])]),
    section('blockWoLlama', [strip('attentionContext', 'blockConcatLabel', { groups: 'H' }), strip('attentionOutput', 'blockAttnOut')]),
    ADD_ATTENTION,
    section('blockRmsFfn', [norm('attentionResidual', 'ffn', 'ffnInputNorm')]),
    section('blockSwiglu', [note('blockSwigluWhy'), strip('ffnInputNorm', 'blockFfnIn'), strip('ffnGate', 'blockGate'),
      strip('ffnGateActivated', 'blockGateAct'), check('ffnGateActivated', ['act', 'ffnGate']), strip('ffnUp', 'blockUp'),
      strip('ffnIntermediate', 'blockGateTimesUp'), check('ffnIntermediate', ['times', 'ffnGateActivated', 'ffnUp']),
      strip('ffnOutput', 'blockDown')], { className: 'block-ffn' }),
    section('blockAdd', [strip('attentionResidual', 'blockResidual'), strip('ffnOutput', 'blockFfnOut'), strip('ffnResidual', 'blockResidual2'),
      check('ffnResidual', ['sum', 'attentionResidual', 'ffnOutput'])]),
    OUTPUT([note('blockFinalRmsNorm', { at: 'last' }), norm('output', 'final', 'finalNorm', { at: 'last' })]),
    SIZES,
  ],
};

// An encoder–decoder's attention sublayers: which attention rows its table shows (js/api/seq2seq.js's
// names) and its keys.
const SELF_DECODER = { name: 'selfAttention', title: 'blockS2SSelf', weights: 'blockS2SSelfWeights', attentions: 'decoderAttentions',
  out: 'blockS2SSelfOut', after: 'blockS2SAfterSelf', row: 'blockS2SRowSelf', exposeAs: 'selfWeights' };
const CROSS = { name: 'crossAttention', title: 'blockS2SCross', weights: 'blockS2SCrossWeights', attentions: 'crossAttentions',
  out: 'blockS2SCrossOut', after: 'blockS2SAfterCross', row: 'blockS2SRowCross', exposeAs: 'crossWeights' };
const SELF_ENCODER = { ...SELF_DECODER, title: 'blockS2SEncSelf', weights: 'blockS2SEncSelfWeights', attentions: 'encoderAttentions' };

/**
 * One stack of an encoder–decoder (BART, Marian, T5): ① self-attention (the decoder's masked,
 * over the target so far; the encoder's over the whole source), ② the decoder's cross-attention
 * over the source, then the feed-forward network, each with its Add & Norm — T5 normalising before
 * each sublayer (RMSNorm, and once more after the last layer), BART and Marian after each Add
 * (LayerNorm). Each attention sublayer shows the tokens it read with every head's weights; a closing
 * table says what each sublayer added to the token's residual stream.
 */
function seq2seqWalk({ stack, modelType, gatedFfn }) {
  const decoder = stack === 'decoder', preNorm = modelType === 't5';
  const entries = [
    note(decoder ? 'blockS2SIntro' : 'blockS2SEncIntro'),
    note(preNorm ? (decoder ? 'blockS2SFamilyT5' : 'blockS2SEncFamilyT5') : 'blockS2SFamilyPostLn'),
    section('blockS2SEmbeddings', [note({ t5: decoder ? 'blockS2SEmbT5' : 'blockS2SEncEmbT5', bart: 'blockS2SEmbBart' }[modelType] ?? 'blockS2SEmbMarian'),
      text('embeddings', 'x')], { at: 'first' }),
    section(decoder ? 'blockS2SInput' : 'blockS2SEncInput', [text('x', 'x')], { at: 'later' }),
  ];
  let x = 'x';
  const rows = [{ key: 'input', label: 'blockS2SRowInput', after: 'x' }];
  for (const sub of decoder ? [SELF_DECODER, CROSS] : [SELF_ENCODER]) {
    const out = `${sub.name}Output`, residual = `${sub.name}Residual`, after = preNorm ? residual : `${sub.name}Norm`;
    entries.push(
      section(sub.title, [...(preNorm ? [note('blockS2SPreNorm'), norm(x, sub.name, `${sub.name}InputNorm`)] : []),
        note(sub.weights), widget('weights', { attentions: sub.attentions, exposeAs: sub.exposeAs }), note('blockS2SHeadsOut'),
        strip(out, sub.out)]),
      section('blockS2SAdd', [text(x, 'x'), strip(out, sub.out), strip(residual, sub.after), check(residual, ['sum', x, out]),
        ...(preNorm ? [] : [note('blockS2SPostNorm'), norm(residual, sub.name, after)])]));
    rows.push({ key: sub.name, label: sub.row, added: out, after });
    x = after;
  }
  const ffnAfter = decoder ? 'blockS2SAfterFfn' : 'blockS2SEncAfterFfn';
  entries.push(
    section(decoder ? 'blockS2SFfn' : 'blockS2SEncFfn', [...(preNorm ? [note('blockS2SPreNorm'), norm(x, 'ffn', 'ffnInputNorm')] : []),
      ...(gatedFfn
        ? [note('blockS2SGatedWhy'), strip('ffnPreActivation', 'blockS2SFfnPreGated'), strip('ffnIntermediate', 'blockS2SFfnMidGated')]
        : [strip('ffnPreActivation', preNorm ? 'blockS2SFfnPreT5' : 'blockFfnPre'), note('blockActApplied'),
          strip('ffnIntermediate', 'blockFfnMid'), check('ffnIntermediate', ['act', 'ffnPreActivation'])]),
      strip('ffnOutput', 'blockFfnOut')], { className: 'block-ffn' }),
    section('blockS2SAdd', [text(x, 'x'), strip('ffnOutput', 'blockFfnOut'), strip('ffnResidual', ffnAfter),
      check('ffnResidual', ['sum', x, 'ffnOutput']),
      // Pre-norm: the layer's output is the sum itself (checked, not drawn a second time).
      ...(preNorm ? [check('output', ['same', 'ffnResidual'], { drawn: false })] : [note('blockS2SPostNorm'), norm('ffnResidual', 'ffn', 'output')])]),
    OUTPUT([note(decoder ? 'blockS2SFinalNorm' : 'blockS2SEncFinalNorm', { at: 'last', when: 'finalNorm' }),
      norm('output', 'final', 'finalNorm', { at: 'last', when: 'finalNorm' })]),
    section('blockS2SSummary', [widget('summary', { rows: [...rows, { key: 'ffn', label: decoder ? 'blockS2SRowFfn' : 'blockS2SEncRowFfn',
      added: 'ffnOutput', after: 'output' }] }), note(preNorm ? 'blockS2SSummaryNoteT5' : 'blockS2SSummaryNotePostLn')],
    { className: 'block-summary' }));
  return { family: 'seq2seq', stack, norm: preNorm ? 'rms' : 'layer', preNorm, entries };
}

/** The walk of a single-stack model's layer (js/api/model.js's config: family, isDecoder). */
export function blockWalk(config) {
  if (config.family === 'llama') return LLAMA;
  return config.isDecoder ? PRE_LN : POST_LN;
}

/** The walk of one stack of an encoder–decoder (js/api/seq2seq.js's config: modelType, gatedFfn). */
export function seq2seqBlockWalk(config, stack = 'decoder') {
  if (stack !== 'decoder' && stack !== 'encoder') throw new Error(`stack must be 'decoder' or 'encoder', not ${stack}`);
  return seq2seqWalk({ stack, modelType: config.modelType, gatedFfn: Boolean(config.gatedFfn) });
}
