// The model picker: the bundled model (default, offline), a short curated list of hub models, any
// hub id, or a local folder (file picker or drag-and-drop). Choosing a hub model in the list only
// says what it would download: the download starts on Load (or Enter in the list), so arrowing
// through the list fetches nothing. Shows download progress with a cancel button, and why a
// model could not load; the page keeps the previous model in that case. Beside the list, the
// weight precision (auto / f32 / f16 / q8: changing it reloads the model in use), and after a load
// the memory the model takes.
import { isHubId, WEIGHT_PRECISIONS } from '../state/state.js';
import { errorReason, showMessage } from '../i18n/error-text.js';
import { isRotary, kvGroups } from '../model/model-family.js';
import { bundledLabel } from '../i18n/bundled-labels.js';
import { BUNDLED_MODEL_IDS, BUNDLED_SEQ2SEQ_MODEL, isBundledModelId } from '../../../js/api/bundled-models.js';
import { parameterCounts } from '../../../js/api/memory-estimate.js';

// Hub models offered in the list, with the size of their model.safetensors on the hub in MB
// (read from huggingface.co, rounded; only for the notice before a download).
export const CURATED_MB = {
  'bert-base-uncased': 440,
  'distilbert-base-uncased': 268,
  'sentence-transformers/all-MiniLM-L6-v2': 91,
  'bert-base-multilingual-cased': 714,
  // GPT-2 family decoders (causal attention, next-token predictions, generation).
  'distilgpt2': 353,
  'gpt2': 548,
  // Llama-family decoders (RMSNorm, rotary positions, grouped-query attention, SwiGLU), stored
  // bf16 on the hub: 'auto' keeps them as f16. Each ships a tokenizer.json, which the loader
  // fetches first. The billion-parameter ones fit because a long run keeps its attention maps on
  // demand (engine/attention_sources.h): js/api/memory-estimate.js budgets TinyLlama-1.1B at about
  // 1.9 GB of f16 weights + 1.1 GB for a 1024-token run (its 22 × 32 maps alone would be 2.95 GB),
  // Llama-3.2-1B (unsloth's ungated copy of meta-llama's) 2.3 + 1.3 GB, and Qwen2.5-1.5B, which
  // 'auto' loads as q8, 1.7 + 1.5 GB.
  'HuggingFaceTB/SmolLM2-135M': 269,
  'Qwen/Qwen2.5-0.5B': 988,
  'TinyLlama/TinyLlama-1.1B-Chat-v1.0': 2200,
  'unsloth/Llama-3.2-1B': 2471,
  'Qwen/Qwen2.5-1.5B': 3087,
  // Encoder–decoders (cross-attention; the memory estimate is js/api/memory-estimate.js's). t5-small
  // and bart-base ship a tokenizer.json; opus-mt-en-de its SentencePiece files (source.spm,
  // target.spm + vocab.json), which the loader fetches when there is no tokenizer.json.
  't5-small': 242,
  'facebook/bart-base': 558,
  'Helsinki-NLP/opus-mt-en-de': 298,
};
export const CURATED = Object.keys(CURATED_MB);

export function createModelPicker(el, app) {
  const { select, precision, hubRow, hubInput, hubInputLabel, hubSize, hubLoad, localRow, folderInput, filesInput, drop,
    progressRow, progress, progressText, cancel, error, info, precisionNote } = el;
  let controller = null;
  let mode = null;   // '__hub' | '__local' while that row is open; it stays open after a failure
  let offered = null;   // the hub id chosen in the list and waiting for Load
  let inUse = null;     // {source, label} of the model loaded last (a precision change reloads it)

  function fillOptions() {
    const { t } = app;
    const current = select.value;
    select.replaceChildren();
    const add = (value, text) => {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = text;
      select.append(o);
    };
    for (const id of BUNDLED_MODEL_IDS) add(id, bundledLabel(t, id));
    for (const id of CURATED) {
      add(id, id + (id.includes('multilingual') ? ' — ' + t('modelMultilingual') : ''));
    }
    const m = app.state.model;
    if (!isBundledModelId(m) && m !== 'local' && !CURATED.includes(m)) add(m, m);
    add('__hub', t('modelOtherHub'));
    add('__local', t('modelLocal'));
    if (app.state.model === 'local') add('local', t('modelLocalLoaded'));
    select.value = [...select.options].some((o) => o.value === current) ? current : app.state.model;
    precision.replaceChildren(...WEIGHT_PRECISIONS.map((value) => {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = value === 'auto' ? t('weightsAuto') : value;
      return o;
    }));
    precision.value = app.state.weightPrecision;
  }

  function syncRows() {
    hubRow.hidden = mode !== '__hub' && !offered;
    hubInputLabel.hidden = Boolean(offered);
    hubSize.hidden = !offered;
    localRow.hidden = mode !== '__local';
  }

  // A hub model picked in the list: say what Load would download.
  function offer(id) {
    offered = id;
    hubInput.value = id;
    const mb = CURATED_MB[id];
    hubSize.textContent = mb ? app.t('hubSize', { name: id, mb }) : app.t('hubSizeUnknown', { name: id });
    syncRows();
  }

  async function load(source, label) {
    controller?.abort();
    controller = new AbortController();
    const mine = controller;
    showMessage(error, app.t, null);
    progressRow.hidden = false;
    progress.removeAttribute('value');
    progressText.textContent = app.t('loadingModel', { name: label });
    try {
      await app.loadModel(source, label, {
        signal: mine.signal,
        onProgress: (p) => showProgress(p, label),
      });
      inUse = { source, label };
      // The list may have moved on while this loaded (a bundled model loads at once and the
      // arrow keys keep going): keep the hub model offered since, rather than jump back.
      if (offered === null || offered === source) {
        select.value = app.state.model;
        offered = null;
      }
      mode = null;
      return null;
    } catch (e) {
      if (mine.signal.aborted || e?.code === 'E_ABORTED') {
        showError((t) => t('loadCancelled', { name: label }));
      } else {
        showError((t) => t('loadFailed', { name: label, reason: errorReason(t, e) }) +
          (e?.code === 'E_TOO_LARGE' && app.state.weightPrecision === 'f32' ? ' ' + t('tooLargeHint') : ''), e);
      }
      // The list names the model in use again (the one that failed is in the message); a row
      // the user opened (another hub id, a folder) stays open to try again.
      offered = null;
      fillOptions();
      select.value = mode ?? app.state.model;
      return e;
    } finally {
      if (controller === mine) { controller = null; progressRow.hidden = true; }
      syncRows();
    }
  }

  // Progress events from the loader: {loaded, total, file} (bytes); tolerate missing fields.
  function showProgress(p, label) {
    if (!p) return;
    const loaded = Number(p.loaded ?? p.bytesLoaded ?? 0), total = Number(p.total ?? p.bytesTotal ?? 0);
    if (total > 0) {
      progress.max = total;
      progress.value = Math.min(loaded, total);
    }
    const file = p.file ?? p.name ?? '';
    progressText.textContent = app.t('progress', {
      name: label, file, loaded: mb(loaded), total: total ? mb(total) : '?',
    });
  }

  // build(t) words the message (again after a language switch); `failure` adds the engine's detail.
  function showError(build, failure = null) {
    showMessage(error, app.t, build, failure);
  }

  select.addEventListener('change', () => {
    const v = select.value;
    mode = v === '__hub' || v === '__local' ? v : null;
    offered = null;
    if (v === '__hub') hubInput.value = '';
    syncRows();
    if (v === '__hub') { hubInput.focus(); return; }
    if (v === '__local' || v === 'local') return;
    if (isBundledModelId(v)) load(v, bundledLabel(app.t, v));   // nothing to download
    else if (v !== app.state.model) offer(v);
  });
  select.addEventListener('keydown', (e) => { if (e.key === 'Enter' && offered) loadHub(); });
  const loadHub = () => {
    const id = hubInput.value.trim();
    if (!isHubId(id)) { showError((t) => t('badHubId')); return; }
    load(id, id);
  };
  hubLoad.addEventListener('click', loadHub);
  hubInput.addEventListener('keydown', (e) => { if (e.key === 'Enter') loadHub(); });
  const loadFiles = (files) => {
    // heldout.jsonl: an encoder–decoder folder's pairs with known alignments (heldout.js).
    const list = [...files].filter((f) => /(^|\/)(config\.json|model\.safetensors|vocab\.txt|vocab\.json|merges\.txt|source\.spm|target\.spm|tokenizer\.json|tokenizer_config\.json|heldout\.jsonl)$/.test(f.webkitRelativePath || f.name));
    if (!list.some((f) => f.name === 'config.json')) { showError((t) => t('localMissing')); return; }
    load(list, app.t('modelLocalLoaded'));
  };
  folderInput.addEventListener('change', () => folderInput.files.length && loadFiles(folderInput.files));
  filesInput.addEventListener('change', () => filesInput.files.length && loadFiles(filesInput.files));
  cancel.addEventListener('click', () => controller?.abort());
  // A new precision applies to the model in use at once (kept in the permalink as wp=).
  precision.addEventListener('change', () => {
    app.set({ weightPrecision: precision.value });
    if (inUse) load(inUse.source, inUse.label);
  });
  for (const type of ['dragenter', 'dragover']) {
    drop.addEventListener(type, (e) => { e.preventDefault(); drop.classList.add('over'); });
  }
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    loadFiles(await droppedFiles(e.dataTransfer));
  });

  function showInfo() {
    const i = app.info;
    showPrecisionNote(i);
    if (!i) { info.textContent = ''; return; }
    const c = configNumbers(i);
    const bundled = i.source === 'bundled';
    const bundledName = bundledLabel(app.t, app.state.model) ?? app.t('modelBundled');
    info.dataset.kind = i.kind ?? 'encoder';
    const name = i.source === 'files' ? app.t('modelLocalLoaded') : bundled ? bundledName : (i.id ?? app.state.model);
    if (i.kind === 'encoder-decoder') {   // js/api/seq2seq.js's config: two stacks
      const s = i.config;
      info.textContent = app.t('modelInfoSeq2Seq', { name, type: s.modelType, enc: s.encoderLayers, dec: s.decoderLayers,
        heads: s.decoderHeads, hidden: s.hiddenSize }) +
        (bundled && app.state.model === BUNDLED_SEQ2SEQ_MODEL ? ' · ' + app.t('modelBundledSeq2SeqAbout') : '') + memoryText(i);
      info.title = i.memoryBytes ? app.t('memoryTitle', { model: mb(i.memoryBytes), wasm: mb(i.wasmMemoryBytes), precision: i.weightPrecision }) : '';
      return;
    }
    info.textContent = app.t(i.kind === 'decoder' ? 'kindDecoder' : 'kindEncoder') + ' — ' + app.t('modelInfo', {
      name,
      layers: c.layers, heads: c.heads, hidden: c.hidden, positions: c.maxPositions,
      mlm: i.hasMlmHead ? app.t('withMlm') : '',
    }) + familyText(i) + (bundled ? ` · ${app.t('englishOnly')}` : '') + memoryText(i);
    info.title = (i.memoryBytes ? app.t('memoryTitle', { model: mb(i.memoryBytes), wasm: mb(i.wasmMemoryBytes), precision: i.weightPrecision }) : '') +
      (i.threads ? (i.memoryBytes ? ' ' : '') + app.t('threadsTitle') : '');
  }

  // What the precision in use does to this model, in the page (the select's tooltip says it too, but
  // a phone cannot show it): f16 on a checkpoint stored in 16 bits keeps its numbers.
  function showPrecisionNote(i) {
    if (!precisionNote) return;
    const p = i?.weightPrecision;
    const key = p === 'q8' ? 'precisionNoteQ8'
      : p === 'f16' ? (storedBits(i) === 16 ? 'precisionNoteF16Stored' : 'precisionNoteF16') : null;
    precisionNote.hidden = !key;
    if (key) precisionNote.textContent = app.t(key);
  }

  // ' · 2 K/V heads (grouped-query) · rotary positions': the Llama family's attention, said once.
  function familyText(i) {
    const c = i.config ?? {};
    const gqa = kvGroups(c).length ? ' · ' + app.t('modelInfoKv', { kv: c.numKeyValueHeads }) : '';
    return gqa + (isRotary(i) ? ' · ' + app.t('modelInfoRotary') : '');
  }

  // ' · f16 weights, 642 MB': what the model holds in wasm memory, at the precision it loaded with.
  // ' · 2 threads': how many threads its runs use (1 where the page is not cross-origin isolated).
  function memoryText(i) {
    const threads = i.threads ? ' · ' + (i.threads === 1 ? app.t('threadsOne') : app.t('threadsInfo', { n: i.threads })) : '';
    if (!i.memoryBytes || !i.weightPrecision) return threads;
    return ' · ' + app.t('memoryInfo', { precision: i.weightPrecision, mb: Math.max(1, Math.round(i.memoryBytes / 1048576)) }) + threads;
  }

  return { fillOptions, syncRows, showInfo, load, showError };
}

/** 16 or 32: the bits per weight the checkpoint's safetensors files hold (their bytes over the
 *  model's parameters), or null where that cannot be told (an encoder–decoder, no sizes). */
export function storedBits(info) {
  const bytes = Object.entries(info?.files ?? {}).filter(([name]) => name.endsWith('.safetensors'))
    .reduce((sum, [, size]) => sum + (Number(size) || 0), 0);
  if (!bytes || info.kind === 'encoder-decoder') return null;
  try {
    const { matrices, other } = parameterCounts(info.config);
    const perWeight = bytes / (matrices + other);
    return perWeight < 3 ? 16 : 32;
  } catch {
    return null;
  }
}

// The model's sizes from info.config, whichever spelling the package uses (camelCase or
// config.json's snake_case).
export function configNumbers(info) {
  const c = info?.config ?? {};
  const pick = (...names) => names.map((n) => c[n]).find((v) => Number.isFinite(v));
  return {
    layers: pick('numLayers', 'num_layers', 'num_hidden_layers'),
    heads: pick('numHeads', 'num_heads', 'num_attention_heads'),
    hidden: pick('hiddenSize', 'hidden_size'),
    maxPositions: pick('maxPositionEmbeddings', 'max_position_embeddings') ?? 512,
  };
}

function mb(bytes) {
  return (bytes / 1048576).toFixed(bytes < 1048576 ? 2 : 1);
}

// Files from a drop: a dropped folder is walked (one level is enough for a model folder).
async function droppedFiles(dt) {
  const out = [];
  const entries = [...dt.items].map((it) => it.webkitGetAsEntry && it.webkitGetAsEntry()).filter(Boolean);
  if (!entries.length) return [...dt.files];
  const fileOf = (entry) => new Promise((res, rej) => entry.file(res, rej));
  for (const entry of entries) {
    if (entry.isFile) out.push(await fileOf(entry));
    else if (entry.isDirectory) {
      const reader = entry.createReader();
      const children = await new Promise((res, rej) => reader.readEntries(res, rej));
      for (const c of children) if (c.isFile) out.push(await fileOf(c));
    }
  }
  return out;
}
