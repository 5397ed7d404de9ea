// Every piece of UI text, in English and Korean, and the two functions that use it: translate()
// for views (with {name} placeholders) and applyStatic() for the markup's data-i18n keys. Text
// is always inserted with textContent. A missing key is a bug: it is logged and shown as the key.

import { DECODER_STRINGS } from './i18n-decoder.js';
import { BLOCK_STRINGS } from './i18n-block.js';
import { HEADS_STRINGS } from './i18n-heads.js';
import { MEMORY_STRINGS } from './i18n-memory.js';
import { WORDS_STRINGS } from './i18n-words.js';
import { FIGURE_STRINGS } from './i18n-figure.js';
import { LESSON_STRINGS } from './i18n-lesson.js';
import { ERROR_STRINGS } from './i18n-errors.js';
import { LENS_STRINGS } from './i18n-lens.js';
import { LLAMA_STRINGS } from './i18n-llama.js';
import { CHIPS_STRINGS } from './i18n-chips.js';
import { PHONE_STRINGS } from './i18n-phone.js';
import { SEQ2SEQ_STRINGS } from './i18n-seq2seq.js';
import { BLOCK_SEQ2SEQ_STRINGS } from './i18n-block-seq2seq.js';
import { PATCHING_LABELS } from './i18n-patching.js';

const STRINGS = {
  en: {
    pageTitle: 'AttnScope — see attention at work',
    copyLink: 'Copy link',
    hiddenMass: 'Hidden [CLS]/[SEP] took {min}–{max}% of each row’s weight (mean {mean}%); the rows shown are renormalised over the remaining tokens.',
    hiddenMassRow: '(hidden tokens took {pct}% of this row)',
    exportPng: 'PNG',
    exportPngTitle: 'Download the view on screen as a figure (PNG at screen resolution, with title, labels and colour scale)',
    exportLinesScale: 'line opacity = attention weight; colour = head',
    exportSvg: 'SVG',
    exportSvgTitle: 'Download the view on screen as SVG (the head view as a vector heatmap)',
    linkCopied: 'Link copied: it opens this text, model and view.',
    linkCopyFailed: 'Could not copy; the link is the address in the address bar.',
    tagline: 'See softmax(QKᵀ/√d_k)·V at work, head by head.',
    skipToInput: 'Skip to the input',
    footer: 'AttnScope runs the model in your browser. Nothing you type leaves this page.',
    modelTitle: 'Model',
    modelBundled: 'Bundled model (offline)',
    modelMultilingual: 'multilingual, try Korean',
    modelOtherHub: 'Other hub model…',
    modelLocal: 'Local folder…',
    modelLocalLoaded: 'Local model',
    modelInfo: '{name}: {layers} layers × {heads} heads, hidden {hidden}, up to {positions} tokens {mlm}',
    withMlm: '· predicts [MASK]',
    hubIdLabel: 'Hugging Face model id',
    hubNote: 'Downloads from huggingface.co (BERT, DistilBERT, RoBERTa, GPT-2, the Llama family — Llama, Mistral, Qwen2, Qwen3 — or an encoder–decoder — BART, T5, Marian — with model.safetensors). Files are cached for next time.',
    load: 'Load',
    dropHere: 'Drop a model folder here',
    pickFolder: 'Choose folder…',
    pickFiles: 'Choose files…',
    localNote: 'Needs config.json, model.safetensors and vocab.txt, tokenizer.json, vocab.json + merges.txt (GPT-2) or vocab.json + source.spm + target.spm (Marian). Files stay on your computer.',
    localMissing: 'That folder has no config.json.',
    badHubId: 'A hub id looks like "owner/name" or "name".',
    cancel: 'Cancel',
    loadingModel: 'Loading {name}…',
    progress: '{name}: {file} {loaded} / {total} MB',
    loadCancelled: 'Loading {name} was cancelled. Still using the previous model.',
    loadFailed: 'Could not load {name}: {reason}. Still using the previous model.',
    hubSize: '{name}: about {mb} MB to download (cached afterwards). Press Load, or Enter in the list.',
    hubSizeUnknown: '{name}: downloads from the hub. Press Load, or Enter in the list.',
    linkModelFailed: 'This link asks for {name}, which could not be loaded: {reason}. Showing the bundled model instead; reload to try again.',
    englishOnly: 'English only',
    mostlyUnknown: '{n} of {total} tokens are [UNK]: this model only knows English words. For Korean and other languages, pick bert-base-multilingual-cased.',
    running: 'Running…',
    inputTitle: 'Text',
    sentenceA: 'Sentence',
    sentenceB: 'Second sentence',
    pairToggle: 'Second sentence (pair)',
    emptyText: 'Type some text to see its attention.',
    runFailed: 'Could not run the model: {reason}.',
    truncated: '{n} tokens were cut off: this model reads at most {max} tokens.',
    ranIn: '{tokens} tokens, {ms} ms',
    predictionsTitle: 'The model’s guesses for this [MASK]',
    controlsTitle: 'Controls',
    hideSpecial: 'Hide [CLS]/[SEP] (rows renormalised)',
    hideSpecialOf: 'Hide {tokens} (rows renormalised)',
    threshold: 'Hide weights below',
    editAria: 'Selected tokens',
    selectionInfo: '{n} selected',
    clearSelection: 'Clear selection',
    maskTokens: 'Exclude selected (attention mask)',
    dropTokens: 'Drop selected',
    restore: 'Restore original',
    editMasked: 'Showing the run with {n} token(s) masked out (attention_mask = 0).',
    editDropped: 'Showing the run with {n} token(s) removed.',
    viewsAria: 'Views',
    view_grid: 'All heads',
    view_flow: 'Flow',
    view_head: 'Head',
    view_lines: 'Lines',
    view_formula: 'Formula',
    view_aggregates: 'Aggregates',
    view_diff: 'Diff',
    layer: 'Layer',
    head: 'Head',
    layerShort: 'L',
    headShort: 'H',
    layerHead: 'Layer {layer}, head {head}',
    queryToken: 'Query token',
    gridHint: 'Every layer (rows) and head (columns), one colour scale for all (√weight, so faint links stay visible).',
    gridAria: 'Attention of {layers} layers × {heads} heads',
    zoomTitle: 'Close-up of rows {r0}–{r1} × columns {c0}–{c1}: the full map is too small for token labels; click a cell there to move this window.',
    headHint: 'Row = the token that is looking (query), column = the token it looks at (key).',
    headAria: 'Attention heatmap, layer {layer}, head {head}, {n} tokens',
    savePng: 'Save PNG',
    selectionTitle: 'Where the selected queries look, on average: {tokens}',
    legendAttention: 'attention weight',
    legendNorm: 'α·‖f(x)‖',
    legendSqrt: 'attention weight, colour ∝ √weight',
    legendDelta: 'edited − original',
    linesHint: 'Left: tokens that look. Right: tokens they look at. Thicker, darker lines carry more weight.',
    linesAria: 'Attention lines of layer {layer}',
    headsToggle: 'Show or hide heads',
    formulaNoQkv: 'This run has no q, k, v vectors.',
    formulaStep1: '1. The query vector of {token} in this head (d_k = {dk} numbers):',
    formulaStep2: '2. Its dot product with every key k_j, divided by √d_k = {scale}, then softmax across the row:',
    colKey: 'key j',
    colDot: 'q·k_j',
    colScaled: '÷ √d_k',
    colSoftmax: 'softmax = α',
    formulaTopOnly: 'Showing the {shown} strongest of {total} keys.',
    formulaHiddenNote: '[CLS]/[SEP] rows are hidden from the table, but the softmax above is over all keys, as the model computes it.',
    formulaStep3: '3. The output for {token} is the α-weighted sum of the value vectors, Σ α_j v_j:',
    formulaWhereQ: 'd_k = d_model / h = {hidden} / {heads} = {dk}. q_i = x_i·W_Q + b_Q: this token’s input vector to the layer times the head’s learned query projection; every k_j = x_j·W_K + b_K and v_j = x_j·W_V + b_V likewise.',
    formulaKeyValue: 'The key and value vectors of {token} (α = {alpha}; click a row to pick another key):',
    formulaMatrices: '4. Every query at once: the scaled scores QKᵀ/√d_k before the softmax, and each row softmaxed — this head\'s attention matrix.',
    formulaMatrix_scores: 'QKᵀ/√d_k (before softmax)',
    formulaMatrix_weights: 'softmax(QKᵀ/√d_k), row by row',
    legendScores: 'scaled score (masked keys blank: −∞)',
    formulaCheck: 'Check: this softmax matches the engine’s attention row (largest difference {err}).',
    explainTitle: 'What is going on?',
    explainQ: 'Q (query): what this token is looking for. Each token gets its own query vector from a learned projection.',
    explainK: 'K (key): what each token offers. A query and a key that point the same way give a large dot product.',
    explainV: 'V (value): the information a token passes on once it is picked.',
    explainScale: '√d_k: dot products of long vectors grow with their length d_k. Dividing by √d_k keeps them in a range where softmax is not saturated.',
    explainSoftmax: 'softmax: turns the scores into weights that are positive and add up to 1 — one row of the heatmap.',
    explainOut: 'Output: the weighted average of the values. Every head does this in parallel; in the same layer their outputs are concatenated and mixed by the output projection W_O, then added to the input (residual connection) and layer-normalised.',
    agg_mean: 'Mean over heads, layer {layer}',
    agg_max: 'Max over heads, layer {layer}',
    agg_rollout: 'Attention rollout, layers 0–{layer}',
    agg_raw: 'Raw attention, layer {layer} head {head}',
    agg_normWeighted: 'Value-norm weighted α·‖f(x)‖, layer {layer} head {head}',
    aggNote_mean: 'Average of all heads in this layer.',
    aggNote_max: 'Strongest weight any head gives.',
    aggNote_rollout: 'Abnar & Zuidema (2020): 0.5·A + 0.5·I per layer, multiplied through the layers.',
    aggNote_raw: 'What the softmax gives, for comparison.',
    aggNote_normWeighted: 'Kobayashi et al. (2020): weight × size of the value vector passed on. A large weight on a tiny vector moves little.',
    aggNoNorms: 'This run has no value norms.',
    computing: 'Computing…',
    diffEmpty: 'Select tokens (click their chips), then Mask or Drop them to compare the new attention with the original.',
    diffWhat: '{kind}: {tokens}',
    masked: 'Masked',
    dropped: 'Dropped',
    diff_original: 'Original',
    diff_edited: 'Edited',
    diff_delta: 'Difference (edited − original)',
  },
  ko: {
    pageTitle: 'AttnScope — 어텐션이 작동하는 모습 보기',
    copyLink: '링크 복사',
    hiddenMass: '숨긴 [CLS]/[SEP]가 각 행 가중치의 {min}–{max}%를 차지했습니다 (평균 {mean}%). 보이는 행은 남은 토큰끼리 다시 정규화했습니다.',
    hiddenMassRow: '(숨긴 토큰이 이 행의 {pct}%)',
    exportPng: 'PNG',
    exportPngTitle: '화면의 보기를 그림으로 내려받기 (화면 해상도 PNG, 제목·토큰 이름·색 눈금 포함)',
    exportLinesScale: '선의 진하기 = 어텐션 가중치, 색 = 헤드',
    exportSvg: 'SVG',
    exportSvgTitle: '화면의 보기를 SVG로 내려받기 (헤드 보기는 벡터 히트맵)',
    linkCopied: '링크를 복사했습니다. 이 텍스트, 모델, 보기가 그대로 열립니다.',
    linkCopyFailed: '복사하지 못했습니다. 주소창의 주소가 바로 그 링크입니다.',
    tagline: 'softmax(QKᵀ/√d_k)·V가 헤드마다 어떻게 작동하는지 직접 보세요.',
    skipToInput: '입력으로 건너뛰기',
    footer: 'AttnScope는 브라우저 안에서 모델을 실행합니다. 입력한 글은 이 페이지 밖으로 나가지 않습니다.',
    modelTitle: '모델',
    modelBundled: '내장 모델 (오프라인)',
    modelMultilingual: '다국어, 한국어도 가능',
    modelOtherHub: '다른 허브 모델…',
    modelLocal: '내 컴퓨터의 폴더…',
    modelLocalLoaded: '로컬 모델',
    modelInfo: '{name}: {layers}개 층 × {heads}개 헤드, 은닉 {hidden}, 최대 {positions} 토큰 {mlm}',
    withMlm: '· [MASK] 예측 가능',
    hubIdLabel: 'Hugging Face 모델 ID',
    hubNote: 'huggingface.co에서 내려받습니다 (model.safetensors가 있는 BERT, DistilBERT, RoBERTa, GPT-2, Llama 계열 — Llama, Mistral, Qwen2, Qwen3 — 또는 인코더–디코더 — BART, T5, Marian). 다음에는 캐시를 씁니다.',
    load: '불러오기',
    dropHere: '모델 폴더를 여기에 끌어다 놓으세요',
    pickFolder: '폴더 선택…',
    pickFiles: '파일 선택…',
    localNote: 'config.json, model.safetensors, 그리고 vocab.txt, tokenizer.json, vocab.json + merges.txt(GPT-2) 또는 vocab.json + source.spm + target.spm(Marian)이 필요합니다. 파일은 내 컴퓨터 밖으로 나가지 않습니다.',
    localMissing: '이 폴더에는 config.json이 없습니다.',
    badHubId: '허브 ID는 "owner/name" 또는 "name" 형식입니다.',
    cancel: '취소',
    loadingModel: '{name} 불러오는 중…',
    progress: '{name}: {file} {loaded} / {total} MB',
    loadCancelled: '{name} 불러오기를 취소했습니다. 이전 모델을 계속 씁니다.',
    loadFailed: '{name}을(를) 불러오지 못했습니다: {reason}. 이전 모델을 계속 씁니다.',
    hubSize: '{name}: 약 {mb} MB를 내려받습니다 (이후 캐시). 불러오기를 누르거나 목록에서 Enter를 누르세요.',
    hubSizeUnknown: '{name}: 허브에서 내려받습니다. 불러오기를 누르거나 목록에서 Enter를 누르세요.',
    linkModelFailed: '이 링크는 {name} 모델을 요청하지만 불러오지 못했습니다: {reason}. 대신 내장 모델을 보여 줍니다. 새로 고치면 다시 시도합니다.',
    englishOnly: '영어 전용',
    mostlyUnknown: '토큰 {total}개 중 {n}개가 [UNK]입니다. 이 모델은 영어 단어만 압니다. 한국어 등 다른 언어는 bert-base-multilingual-cased를 고르세요.',
    running: '실행 중…',
    inputTitle: '텍스트',
    sentenceA: '문장',
    sentenceB: '두 번째 문장',
    pairToggle: '두 번째 문장 (문장 쌍)',
    emptyText: '텍스트를 입력하면 어텐션이 보입니다.',
    runFailed: '모델을 실행하지 못했습니다: {reason}.',
    truncated: '토큰 {n}개가 잘렸습니다. 이 모델은 최대 {max} 토큰까지 읽습니다.',
    ranIn: '토큰 {tokens}개, {ms} ms',
    predictionsTitle: '이 [MASK] 자리에 대한 모델의 추측',
    controlsTitle: '설정',
    hideSpecial: '[CLS]/[SEP] 숨기기 (행 다시 정규화)',
    hideSpecialOf: '{tokens} 숨기기 (행 다시 정규화)',
    threshold: '이보다 작은 가중치 숨기기',
    editAria: '선택한 토큰',
    selectionInfo: '{n}개 선택됨',
    clearSelection: '선택 해제',
    maskTokens: '선택 토큰 제외 (어텐션 마스크)',
    dropTokens: '선택 토큰 빼기',
    restore: '원래대로',
    editMasked: '토큰 {n}개를 마스킹한 결과입니다 (attention_mask = 0).',
    editDropped: '토큰 {n}개를 뺀 결과입니다.',
    viewsAria: '보기',
    view_grid: '전체 헤드',
    view_flow: '흐름',
    view_head: '헤드',
    view_lines: '연결선',
    view_formula: '수식',
    view_aggregates: '종합',
    view_diff: '비교',
    layer: '층',
    head: '헤드',
    layerShort: 'L',
    headShort: 'H',
    layerHead: '{layer}층, {head}번 헤드',
    queryToken: '쿼리 토큰',
    gridHint: '모든 층(행)과 헤드(열)를 같은 색 척도(√가중치, 약한 연결도 보이도록)로 그렸습니다.',
    gridAria: '{layers}개 층 × {heads}개 헤드의 어텐션',
    zoomTitle: '{r0}–{r1}행 × {c0}–{c1}열 확대: 전체 지도는 토큰 이름을 쓰기에 너무 작습니다. 거기서 칸을 클릭하면 이 창이 옮겨 갑니다.',
    headHint: '행은 바라보는 토큰(쿼리), 열은 바라봐지는 토큰(키)입니다.',
    headAria: '어텐션 히트맵, {layer}층 {head}번 헤드, 토큰 {n}개',
    savePng: 'PNG로 저장',
    selectionTitle: '선택한 쿼리들이 평균적으로 보는 곳: {tokens}',
    legendAttention: '어텐션 가중치',
    legendNorm: 'α·‖f(x)‖',
    legendSqrt: '어텐션 가중치, 색은 √가중치에 비례',
    legendDelta: '변경 − 원래',
    linesHint: '왼쪽은 바라보는 토큰, 오른쪽은 바라봐지는 토큰입니다. 진한 선일수록 가중치가 큽니다.',
    linesAria: '{layer}층의 어텐션 연결선',
    headsToggle: '헤드 보이기/숨기기',
    formulaNoQkv: '이 결과에는 q, k, v 벡터가 없습니다.',
    formulaStep1: '1. 이 헤드에서 {token}의 쿼리 벡터 (d_k = {dk}개의 수):',
    formulaStep2: '2. 모든 키 k_j와 내적하고 √d_k = {scale}로 나눈 뒤, 행 전체에 softmax를 적용합니다:',
    colKey: '키 j',
    colDot: 'q·k_j',
    colScaled: '÷ √d_k',
    colSoftmax: 'softmax = α',
    formulaTopOnly: '키 {total}개 중 가장 큰 {shown}개만 보여 줍니다.',
    formulaHiddenNote: '[CLS]/[SEP]는 표에서 숨겼지만, 위의 softmax는 모델과 똑같이 모든 키에 대해 계산했습니다.',
    formulaStep3: '3. {token}의 출력은 값 벡터들을 α로 가중합한 것, Σ α_j v_j 입니다:',
    formulaWhereQ: 'd_k = d_model / h = {hidden} / {heads} = {dk}. q_i = x_i·W_Q + b_Q: 이 토큰이 층에 들어올 때의 벡터에 헤드의 쿼리 투영 행렬을 곱한 것입니다. k_j = x_j·W_K + b_K, v_j = x_j·W_V + b_V도 같습니다.',
    formulaKeyValue: '{token}의 키 벡터와 값 벡터 (α = {alpha}, 다른 키를 보려면 행을 클릭하세요):',
    formulaMatrices: '4. 모든 쿼리를 한꺼번에: softmax 전의 스케일된 점수 QKᵀ/√d_k와, 행마다 softmax를 적용한 결과(이 헤드의 어텐션 행렬).',
    formulaMatrix_scores: 'QKᵀ/√d_k (softmax 전)',
    formulaMatrix_weights: '행별 softmax(QKᵀ/√d_k)',
    legendScores: '스케일된 점수 (마스킹된 키는 빈칸: −∞)',
    formulaCheck: '확인: 이 softmax는 엔진이 계산한 어텐션 행과 같습니다 (최대 차이 {err}).',
    explainTitle: '무슨 일이 일어나나요?',
    explainQ: 'Q (쿼리): 이 토큰이 찾고 있는 것. 학습된 변환으로 토큰마다 쿼리 벡터를 만듭니다.',
    explainK: 'K (키): 각 토큰이 내세우는 특징. 쿼리와 키가 같은 방향을 가리키면 내적이 커집니다.',
    explainV: 'V (값): 선택되었을 때 그 토큰이 실제로 넘겨주는 정보.',
    explainScale: '√d_k: 긴 벡터의 내적은 길이 d_k에 따라 커집니다. √d_k로 나누면 softmax가 한쪽으로 쏠리지 않는 범위에 머뭅니다.',
    explainSoftmax: 'softmax: 점수를 양수이면서 합이 1인 가중치로 바꿉니다. 히트맵의 한 행이 바로 이것입니다.',
    explainOut: '출력: 값 벡터들의 가중 평균. 모든 헤드가 동시에 이 일을 하고, 같은 층 안에서 헤드 출력들을 이어 붙여 출력 투영 W_O로 섞은 뒤 입력에 더하고(잔차 연결) 층 정규화를 합니다.',
    agg_mean: '헤드 평균, {layer}층',
    agg_max: '헤드 최댓값, {layer}층',
    agg_rollout: '어텐션 롤아웃, 0–{layer}층',
    agg_raw: '원래 어텐션, {layer}층 {head}번 헤드',
    agg_normWeighted: '값 벡터 크기로 가중한 α·‖f(x)‖, {layer}층 {head}번 헤드',
    aggNote_mean: '이 층의 모든 헤드를 평균했습니다.',
    aggNote_max: '어느 헤드든 가장 크게 준 가중치입니다.',
    aggNote_rollout: 'Abnar & Zuidema (2020): 층마다 0.5·A + 0.5·I를 만들어 층을 따라 곱합니다.',
    aggNote_raw: '비교용: softmax가 준 그대로의 가중치.',
    aggNote_normWeighted: 'Kobayashi 외 (2020): 가중치 × 넘겨주는 값 벡터의 크기. 가중치가 커도 벡터가 작으면 영향이 작습니다.',
    aggNoNorms: '이 결과에는 값 벡터 크기가 없습니다.',
    computing: '계산 중…',
    diffEmpty: '토큰 칩을 클릭해 선택한 뒤 마스킹하거나 빼면, 원래 어텐션과 비교해 볼 수 있습니다.',
    diffWhat: '{kind}: {tokens}',
    masked: '마스킹함',
    dropped: '뺌',
    diff_original: '원래',
    diff_edited: '변경 후',
    diff_delta: '차이 (변경 후 − 원래)',
  },
};

// Decoder text (causal mask, next token, generation, compare) lives in its own table.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], DECODER_STRINGS[lang]);
// The block walk-through and positions views.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], BLOCK_STRINGS[lang]);
// Probing heads: ablation, the head table, the query/key map.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], HEADS_STRINGS[lang]);
// Inside the prediction: logit lens, attribution, sampling controls.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], LENS_STRINGS[lang]);
// Big models: the weight precision choice and the memory used.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], MEMORY_STRINGS[lang]);
// Word-level attention.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], WORDS_STRINGS[lang]);
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], FIGURE_STRINGS[lang]);
// The guided lesson.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], LESSON_STRINGS[lang]);
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], ERROR_STRINGS[lang]);
// The Llama family: grouped heads, rotary positions; the head detectors.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], LLAMA_STRINGS[lang]);
// The chips' two actions, the phone's scroll cue.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], CHIPS_STRINGS[lang]);
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], PHONE_STRINGS[lang]);
// Encoder–decoders: source and target, the three attention kinds, the cross view.
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], SEQ2SEQ_STRINGS[lang]);
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], BLOCK_SEQ2SEQ_STRINGS[lang]);
// Asking why: the Patching tab and example (the view's own text: addStrings, when it loads).
for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], PATCHING_LABELS[lang]);

export const LANGUAGES = Object.keys(STRINGS);

/** Adds a module's own text ({ en: {...}, ko: {...} }) when it loads (i18n-flow.js,
 *  i18n-patching.js): a host that never shows that view does not carry its strings (the element's
 *  size budget); its tab's label stays in the tables above. */
export function addStrings(tables) {
  for (const [lang, table] of Object.entries(tables)) {
    ADDED[lang] = { ...ADDED[lang], ...table };
    // The element's bundle holds no table until it fetches its language (addLanguage adds them then).
    if (hasStrings(lang)) Object.assign(STRINGS[lang], table);
  }
}
const ADDED = {};   // lang → the views' own text added so far

// The <attn-scope> bundle (scripts/build-embed.mjs) leaves the tables above out of its main chunk
// and fetches only the language an element shows: these let it add that table and ask for it.
/** Every language's table, for scripts/build-embed.mjs to cut into one chunk per language. */
export const STRING_TABLES = STRINGS;
/** Whether `lang`'s table is here (always, but in the element bundle before it has fetched it). */
export const hasStrings = (lang) => Object.hasOwn(STRINGS, lang);
/** Adds `lang`'s table (the element bundle, once it has fetched it). */
export function addLanguage(lang, table) {
  STRINGS[lang] = { ...table, ...ADDED[lang] };  // keeps what a view's module added
}

export function translate(lang, key, vars) {
  let s = STRINGS[lang]?.[key] ?? STRINGS.en?.[key];
  if (s === undefined) {
    console.error(`i18n: missing key "${key}"`);
    return key;
  }
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
  return s;
}

// Fills every [data-i18n] element's text and [data-i18n-aria] element's aria-label.
export function applyStatic(root, lang) {
  document.documentElement.lang = lang;
  document.title = translate(lang, 'pageTitle');
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = translate(lang, el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-aria]')) el.setAttribute('aria-label', translate(lang, el.dataset.i18nAria));
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.title = translate(lang, el.dataset.i18nTitle);
  for (const b of root.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
}

// For tests: every language must define every key English has.
export function missingKeys() {
  const out = [];
  for (const lang of LANGUAGES) for (const key of Object.keys(STRINGS.en)) if (!(key in STRINGS[lang])) out.push(`${lang}.${key}`);
  return out;
}
