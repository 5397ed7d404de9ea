// Query/key map (?view=map; AttentionViz, Yeh et al. 2023): one head's query and key
// vectors of every token of the corpus sample, projected together onto their first two principal
// components (js/analysis/qk-map.js). Everything heavy runs in the model's worker (web/src/model/corpus.js):
// the sample as one corpus job in time slices (progress, cancel; a typed character's run goes
// between two slices), then each head's projection on request; only the points, their kinds,
// sentences and positions come back, so this thread only draws. Points are coloured by
// query/key, position or POS class; hover shows the token in its sentence, click opens that
// sentence in the head view. Under the map, the head's POS summary (js/analysis/pos-summary.js sums kept
// by the worker): the query-class → key-class pairs it attends most.
import { layerHeadPickers, makeSelect } from '../draw/pickers.js';
import { cssColour, sequential, HEAD_COLOURS } from '../draw/colormap.js';
import { VIEW } from './registry.js';
import { errorReason } from '../i18n/error-text.js';

const KIND_COLOURS = ['#0072b2', '#d55e00'];   // query, key
const COLOUR_BY = ['kind', 'position', 'pos'];
const MIN_QUERIES = 20;   // a POS class needs this many query tokens for its pairs to be listed
const TOP_PAIRS = 6;

export function createQkMap(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const controls = document.createElement('div');
  controls.className = 'map-controls';
  const startBtn = document.createElement('button');
  startBtn.type = 'button';
  startBtn.className = 'map-start';
  const cancelBtn = document.createElement('button');
  cancelBtn.type = 'button';
  cancelBtn.className = 'map-cancel';
  const progress = document.createElement('progress');
  const status = document.createElement('span');
  status.className = 'hint map-status';
  controls.append(startBtn, cancelBtn, progress, status);
  const note = document.createElement('p');
  note.className = 'hint';
  const wrap = document.createElement('div');
  wrap.className = 'grid-wrap qk-wrap';
  const canvas = document.createElement('canvas');
  canvas.className = 'qk-map';
  const tip = document.createElement('div');
  tip.className = 'tooltip';
  tip.hidden = true;
  wrap.append(canvas, tip);
  const legend = document.createElement('div');
  legend.className = 'map-legend';
  const pos = document.createElement('section');
  pos.className = 'pos-summary';
  host.append(bar, controls, note, wrap, legend, pos);

  let colourBy = 'kind', job = null, failed = null, geo = null, hover = -1;
  let map = null;              // the map on screen (possibly the previous head's while the next computes)
  let mapJob = null;           // { key, controller } of the map being computed in the worker
  const exposed = { runsMs: null, projectionMs: null, mapWallMs: null, rerunMs: null, points: 0, head: null, pairs: [],
    inWorker: true, qkLayers: null };

  async function compute() {
    if (!app.jobs?.model || job) return;
    job = new AbortController();
    failed = null;
    render();
    try {
      const { summary } = await app.jobs.corpus({
        signal: job.signal,
        onProgress: ({ done, total }) => {
          progress.max = total;
          progress.value = done;
          status.textContent = app.t('mapProgress', { done, total });
        },
      });
      exposed.runsMs = summary.ms;
    } catch (e) {
      failed = stoppedFor(e, job) ? null : e?.code === 'E_ABORTED' || e?.name === 'AbortError' ? app.t('headsCancelled')
        : app.t('runFailed', { reason: errorReason(app.t, e) });
    } finally {
      job = null;
      render();
    }
  }
  startBtn.addEventListener('click', compute);
  cancelBtn.addEventListener('click', () => { job?.abort(); mapJob?.controller.abort(); });

  // A job stopped because the view was left (or the model changed), not by Cancel: it starts again
  // when the view is shown.
  function stoppedFor(e, own) {
    return (e?.code === 'E_ABORTED' || e?.name === 'AbortError') && !own.signal.aborted;
  }

  function render() {
    if (host.hidden) return;   // left meanwhile: drawn (and restarted) when shown again
    const { t, state } = app;
    bar.replaceChildren(layerHeadPickers(app), makeSelect(t('mapColourBy'),
      COLOUR_BY.map((k) => [COLOUR_BY.indexOf(k), t('mapBy_' + k)]), COLOUR_BY.indexOf(colourBy),
      (i) => { colourBy = COLOUR_BY[i]; render(); }, 'colour-picker'));
    startBtn.textContent = t('mapStart');
    cancelBtn.textContent = t('cancel');
    const client = app.jobs?.model;
    const done = app.jobs?.cachedCorpus();
    startBtn.hidden = Boolean(done) || Boolean(job);
    cancelBtn.hidden = progress.hidden = !job && !mapJob;
    if (!done) {
      wrap.hidden = true;
      legend.replaceChildren();
      pos.replaceChildren();
      note.textContent = t('mapHint');
      if (failed) status.textContent = failed;
      // Opening the view starts the computation once; after a cancel the button restarts it.
      else if (!job) queueMicrotask(compute);
      return;
    }
    if (map && map.client !== client) map = null;   // another model's
    const wanted = app.jobs.cachedCorpusMap(state.layer, state.head);
    if (wanted) show(wanted);
    else requestMap(client, state.layer, state.head);
    if (!map) {
      wrap.hidden = true;
      return;
    }
    wrap.hidden = false;
    if (!mapJob) {
      status.textContent = failed ?? t('mapDone', { n: done.summary.sentences, points: map.kinds.length,
        s: ((exposed.runsMs ?? done.summary.ms) / 1000).toFixed(1), ms: map.projectionMs.toFixed(0) });
    }
    note.textContent = t('mapHintDone', { a: (100 * map.variance[0]).toFixed(0), b: (100 * map.variance[1]).toFixed(0) });
    draw(done);
    renderLegend(done);
    renderPos(done);
  }

  function show(next) {
    if (map === next) return;
    map = next;
    map.client = app.jobs.model;
    hover = -1;
    tip.hidden = true;
    Object.assign(exposed, { projectionMs: map.projectionMs, mapWallMs: map.wallMs, rerunMs: map.rerunMs, points: map.kinds.length,
      head: [map.layer, map.head], qkLayers: map.qk.layers });
  }

  // One map at a time in the worker; a head chosen meanwhile is requested when it is back.
  async function requestMap(client, layer, head) {
    const key = `${layer}/${head}`;
    if (mapJob) return;
    mapJob = { key, controller: new AbortController() };
    failed = null;
    status.textContent = app.t('mapProjecting', { layer, head });
    progress.hidden = cancelBtn.hidden = false;
    progress.removeAttribute('value');
    try {
      await app.jobs.corpusMap(layer, head, {
        signal: mapJob.controller.signal,
        onProgress: ({ done, total }) => {
          progress.max = total;
          progress.value = done;
          status.textContent = app.t('mapRerun', { done, total, layer });
        },
      });
    } catch (e) {
      failed = stoppedFor(e, mapJob.controller) ? null : e?.code === 'E_ABORTED' ? app.t('headsCancelled')
        : app.t('runFailed', { reason: errorReason(app.t, e) });
    } finally {
      mapJob = null;
      // A failed map is not retried by itself: choosing a head again asks again.
      if (!failed && app.jobs.model === client) render();
      else progress.hidden = cancelBtn.hidden = true;
    }
  }

  function pointClass(done, i) {
    return done.summary.runs[map.runs[i]].classes[map.positions[i]];
  }

  function colourOf(done, i) {
    if (colourBy === 'kind') return KIND_COLOURS[map.kinds[i]];
    if (colourBy === 'position') return cssColour(sequential, Math.min(1, 0.15 + map.positions[i] / 48));
    const c = pointClass(done, i);
    return c >= 0 ? HEAD_COLOURS[c % HEAD_COLOURS.length] : '#bbbbbb';
  }

  function draw(done) {
    const width = Math.min(host.clientWidth || 600, 720);
    const height = Math.round(width * 0.7);
    const dpr = window.devicePixelRatio || 1;
    canvas.width = width * dpr;
    canvas.height = height * dpr;
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    const p = map.points, n = map.kinds.length;
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let i = 0; i < n; i++) {
      x0 = Math.min(x0, p[2 * i]); x1 = Math.max(x1, p[2 * i]);
      y0 = Math.min(y0, p[2 * i + 1]); y1 = Math.max(y1, p[2 * i + 1]);
    }
    const pad = 8, sx = (width - 2 * pad) / (x1 - x0 || 1), sy = (height - 2 * pad) / (y1 - y0 || 1);
    geo = { x: (i) => pad + (p[2 * i] - x0) * sx, y: (i) => height - pad - (p[2 * i + 1] - y0) * sy, n, width };
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.globalAlpha = 0.55;
    for (let i = 0; i < n; i++) {
      ctx.fillStyle = colourOf(done, i);
      ctx.fillRect(geo.x(i) - 1.5, geo.y(i) - 1.5, 3, 3);
    }
    ctx.globalAlpha = 1;
    if (hover >= 0 && hover < n) {
      ctx.strokeStyle = '#000';
      ctx.lineWidth = 1.5;
      ctx.strokeRect(geo.x(hover) - 4, geo.y(hover) - 4, 8, 8);
    }
    canvas.dataset.points = String(n);
  }

  function renderLegend(done) {
    legend.replaceChildren();
    const item = (colour, text) => {
      const span = document.createElement('span');
      span.className = 'map-legend-item';
      const sw = document.createElement('i');
      sw.style.background = colour;
      span.append(sw, text);
      legend.append(span);
    };
    if (colourBy === 'kind') { item(KIND_COLOURS[0], app.t('mapQuery')); item(KIND_COLOURS[1], app.t('mapKey')); }
    else if (colourBy === 'position') { item(cssColour(sequential, 0.15), app.t('mapFirst')); item(cssColour(sequential, 1), app.t('mapLater')); }
    else done.sample.classes.forEach((c, k) => item(HEAD_COLOURS[k % HEAD_COLOURS.length], c));
  }

  function renderPos(done) {
    const classes = done.sample.classes;
    const { mass, queries } = done.summary.pos, C = classes.length, H = done.summary.shape[1];
    const lh = app.state.layer * H + app.state.head;
    const pairs = [];
    for (let a = 0; a < C; a++) {
      if (queries[a] < MIN_QUERIES) continue;
      for (let b = 0; b < C; b++) pairs.push({ from: classes[a], to: classes[b], mass: mass[(lh * C + a) * C + b] });
    }
    pairs.sort((x, y) => y.mass - x.mass);
    exposed.pairs = pairs.slice(0, TOP_PAIRS);
    const h = document.createElement('h3');
    h.textContent = app.t('posTitle', { layer: app.state.layer, head: app.state.head });
    const ol = document.createElement('ol');
    for (const p of exposed.pairs) {
      const li = document.createElement('li');
      li.textContent = `${p.from} → ${p.to}: ${(100 * p.mass).toFixed(1)}%`;
      ol.append(li);
    }
    const hint = document.createElement('p');
    hint.className = 'hint';
    hint.textContent = app.t('posHint', { n: MIN_QUERIES });
    pos.replaceChildren(h, ol, hint);
  }

  function nearest(e) {
    if (!geo) return -1;
    const r = canvas.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
    let best = -1, bestD = 64;   // within 8 px
    for (let i = 0; i < geo.n; i++) {
      const dx = geo.x(i) - mx, dy = geo.y(i) - my, d = dx * dx + dy * dy;
      if (d < bestD) { bestD = d; best = i; }
    }
    return best;
  }

  canvas.addEventListener('pointermove', (e) => {
    const done = app.jobs.cachedCorpus();
    if (!done || !map) return;
    const i = nearest(e);
    if (i === hover) return;
    hover = i;
    draw(done);
    if (i < 0) { tip.hidden = true; return; }
    const run = done.summary.runs[map.runs[i]], t = map.positions[i], [text] = done.sample.sentences[map.runs[i]];
    const s = run.offsets[2 * t], end = run.offsets[2 * t + 1];
    const c = pointClass(done, i);
    tip.textContent = `${app.t(map.kinds[i] ? 'mapKey' : 'mapQuery')} “${run.tokens[t]}”${c >= 0 ? ' · ' + done.sample.classes[c] : ''} — ` +
      (end > s ? `${text.slice(0, s)}[${text.slice(s, end)}]${text.slice(end)}` : text);
    tip.hidden = false;
    tip.style.left = Math.min(geo.x(i) + 10, geo.width - 220) + 'px';
    tip.style.top = geo.y(i) + 10 + 'px';
  });
  canvas.addEventListener('pointerleave', () => { hover = -1; tip.hidden = true; });
  canvas.addEventListener('click', (e) => {
    const done = app.jobs.cachedCorpus();
    const i = done && map ? nearest(e) : -1;
    if (i < 0) return;
    app.openText(done.sample.sentences[map.runs[i]][0], { view: VIEW.head, query: map.positions[i], selected: [] });
  });

  return { render, exposed, currentMap: () => map, destroy() { job?.abort(); mapJob?.controller.abort(); } };
}
export default createQkMap;
