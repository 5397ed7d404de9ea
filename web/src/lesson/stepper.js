// The lesson's stepper: a panel above the views with the step's title, its short text (the
// model's own numbers filled in), a small figure of the reader's run (figures.js), progress and
// previous/next (buttons and ← →). Going to a step sets state.view (and the step) through
// app.set, so the page's own view draws below and the permalink holds the step; the views, the
// text box and the run are the page's, untouched.
import { LESSONS, stepVars } from './steps.js';
import { FIGURES } from './figures.js';

/**
 * @param host the panel element
 * @param app the view model (its state has lesson and step, 1-based)
 * @param tryText (text) → shows another text (the "I am full" button)
 */
export function createLesson(host, app, { tryText }) {
  const steps = LESSONS[app.state.lesson];
  host.hidden = false;
  host.classList.add('lesson');
  const title = document.createElement('h2');
  title.className = 'lesson-title';
  const progress = document.createElement('div');
  progress.className = 'lesson-progress';
  const bar = document.createElement('progress');
  bar.max = steps.length;
  const count = document.createElement('span');
  progress.append(bar, count);
  const stepTitle = document.createElement('h3');
  stepTitle.className = 'lesson-step-title';
  const body = document.createElement('p');
  body.className = 'lesson-body';
  const figure = document.createElement('div');
  figure.className = 'lesson-figure';
  const nav = document.createElement('div');
  nav.className = 'lesson-nav';
  const prev = document.createElement('button');
  prev.type = 'button';
  prev.className = 'lesson-prev';
  const next = document.createElement('button');
  next.type = 'button';
  next.className = 'lesson-next';
  const keys = document.createElement('p');
  keys.className = 'lesson-keys muted';
  nav.append(prev, next);
  host.replaceChildren(title, progress, stepTitle, body, figure, nav, keys);

  const go = (n) => {
    const step = Math.min(Math.max(1, n), steps.length);
    if (step === app.state.step && app.state.view === steps[step - 1].view) return;
    app.set({ step, view: steps[step - 1].view });
    host.querySelector('.lesson-step-title')?.focus?.({ preventScroll: true });
  };
  prev.addEventListener('click', () => go(app.state.step - 1));
  next.addEventListener('click', () => go(app.state.step + 1));
  // ← → anywhere but in a text field or a control that uses them.
  document.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const target = e.target;
    if (target.closest?.('input, textarea, select, [contenteditable], canvas, [role=tab]')) return;
    if (e.key === 'ArrowRight') { go(app.state.step + 1); e.preventDefault(); }
    if (e.key === 'ArrowLeft') { go(app.state.step - 1); e.preventDefault(); }
  });
  stepTitle.tabIndex = -1;

  const stepView = stepContent(app, { stepTitle, body, figure, root: document, tryText });

  function render() {
    const { t, state } = app;
    const n = state.step;
    host.dataset.step = String(n);
    host.dataset.stepId = steps[n - 1].id;
    title.textContent = t('lessonTitle');
    bar.value = n;
    count.textContent = t('lessonProgress', { n, total: steps.length });
    prev.textContent = t('lessonPrev');
    next.textContent = t('lessonNext');
    prev.disabled = n <= 1;
    next.disabled = n >= steps.length;
    keys.textContent = t('lessonKeys');
    stepView.render(steps[n - 1], n);
  }

  return { render, go, steps };
}

/**
 * One step's title, text and figure (the stepper's, and <attn-scope lesson step>'s, which shows
 * one step without the stepper). `root` is where the block view's sections are looked up.
 */
export function stepContent(app, { stepTitle, body, figure, root, tryText }) {
  let shownFigure = null;   // { step, result, layer, head, query, lang }: rebuilt only when these change

  function render(step, n) {
    const { t, state } = app;
    app.lessonVars = stepVars(app);
    stepTitle.textContent = `${n}. ${t(`lesson_${step.id}_title`)}`;
    body.textContent = t(`lesson_${step.id}_body`, app.lessonVars);
    const key = { step: n, result: app.result, layer: state.layer, head: state.head, query: state.query, lang: state.lang };
    const same = shownFigure && Object.keys(key).every((k) => shownFigure[k] === key[k]);
    if (!same) {
      figure.replaceChildren();
      const draw = FIGURES[step.figure];
      // The figures on q, k, v need a run that has them (every run of the page's and the element's).
      if (draw && app.result && (!NEEDS_QKV.has(step.figure) || app.result.q)) draw(app, figure, { tryText });
      figure.hidden = !figure.childElementCount;
      shownFigure = key;
    }
    if (step.section) highlightSection(step.section);
  }

  // The block view's section this step is about: outlined and scrolled into view (once drawn).
  function highlightSection(section) {
    requestAnimationFrame(() => {
      const panel = root.querySelector('.view-block');
      const target = panel?.querySelector(`[data-step="${section}"]`);
      for (const s of panel?.querySelectorAll('.lesson-focus') ?? []) if (s !== target) s.classList.remove('lesson-focus');
      if (target && !target.classList.contains('lesson-focus')) {
        target.classList.add('lesson-focus');
        target.scrollIntoView({ block: 'nearest' });
      }
    });
  }

  return { render };
}

const NEEDS_QKV = new Set(['qkv', 'dot', 'scale', 'softmax', 'weighted']);
