// The KV cache during a generation: each new token adds one key row and one value row to every
// layer's cache, so a step costs one position's work instead of a new pass. A row holds one key
// (or value) per key/value head, numKeyValueHeads · headDim numbers: C for multi-head attention,
// fewer where query heads share them (grouped-query attention: 32 query heads over 4 key/value
// heads keep an eighth of C). Drawn as L rows of key and value cells, one column per position held
// (the prompt's grey, the generated ones in the accent colour, the newest outlined), with the
// memory the rows take (js/api/generation-budget.js's decoderCacheBytes, f32; the engine's buffers
// grow by doubling, so it may have reserved up to twice that).
import { decoderCacheBytes } from '../../../js/api/generation-budget.js';

const CELL = 4, GAP = 1;

export function createKvCacheStrip(host, app) {
  const box = document.createElement('div');
  box.className = 'kv-cache';
  const title = document.createElement('p');
  title.className = 'kv-title';
  const canvas = document.createElement('canvas');
  canvas.className = 'kv-canvas';
  const note = document.createElement('p');
  note.className = 'kv-note';
  box.append(title, canvas, note);
  host.append(box);

  function render() {
    const gen = app.generation;
    const cfg = app.info?.config;
    box.hidden = !gen || !cfg;
    if (box.hidden) return;
    const { t } = app;
    const L = cfg.numLayers;
    // Models that predate key/value heads in their config have one per query head.
    const kvHeads = cfg.numKeyValueHeads ?? cfg.numHeads, headDim = cfg.headDim ?? cfg.hiddenSize / cfg.numHeads;
    const last = gen.steps[gen.steps.length - 1];
    // Each step runs its new token over the cache at once (for its attention row): after step i the
    // cache holds the prompt and i + 1 new tokens (step.keys).
    const keys = last ? last.keys : gen.promptLength;
    const prompt = gen.promptLength;
    box.dataset.keys = String(keys);
    const bytes = decoderCacheBytes({ layers: L, kvWidth: kvHeads * headDim, positions: keys });
    box.dataset.bytes = String(bytes);
    title.textContent = t('kvTitle', { keys, layers: L });
    note.textContent = t('kvNote', { kvHeads, headDim, width: kvHeads * headDim, size: bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(2)} MB` : `${(bytes / 1024).toFixed(1)} KB` });
    const width = Math.max(1, keys) * (CELL + GAP);
    const rowH = 2 * (CELL + GAP) + 2;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.ceil(width * dpr);
    canvas.height = Math.ceil(L * rowH * dpr);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${L * rowH}px`;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const accent = getComputedStyle(box).getPropertyValue('--accent').trim() || '#1f5fae';
    for (let l = 0; l < L; l++) {
      for (let kv = 0; kv < 2; kv++) {
        const y = l * rowH + kv * (CELL + GAP);
        for (let j = 0; j < keys; j++) {
          ctx.fillStyle = j < prompt ? (kv ? '#aeb6c2' : '#c9d0da') : (kv ? accent : '#5b8fd0');
          ctx.fillRect(j * (CELL + GAP), y, CELL, CELL);
        }
      }
    }
    if (keys > prompt) {
      ctx.strokeStyle = '#d95f02';
      ctx.lineWidth = 1;
      ctx.strokeRect((keys - 1) * (CELL + GAP) - 0.5, -0.5 + 0.5, CELL + 1, L * rowH - 1);
    }
  }

  return { render };
}
