// The lesson's stepper: a panel above the views with the step's title, its short text (the
// model's own numbers filled in), a small figure of the reader's run (figures.js), progress and
// previous/next (buttons and ← →). Going to a step sets state.view (and the step) through
// app.set, so the page's own view draws below and the permalink holds the step; the views, the
// text box and the run are the page's, untouched. Next keeps the step's title, text and buttons on
// screen: the block view's section a step is about scrolls inside the view's own box,
// not the page, and the buttons stay at the screen's foot while the panel is on it.
import { LESSONS, stepVars } from './steps.js';
import { FIGURES } from './figures.js';

/**
 * @param host the panel element
 * @param app the view model (its state has lesson and step, 1-based)
 * @param tryText (text) → shows another text (the "I am full" button)
 * @param openExample (id) → opens one of the page's examples (examples.js; the patching step's button)
 * @param leave () → back to the free explorer (the "Leave the lesson" button)
 * @param viewHost the page's view box: it scrolls the block view's section in place on the
 *   steps about one (data-lesson-section)
 */
export function createLesson(host, app, { tryText, openExample, leave, viewHost }) {
  const steps = LESSONS[app.state.lesson];
  host.hidden = false;
  host.classList.add('lesson');
  const head = document.createElement('div');
  head.className = 'lesson-head';
  const title = document.createElement('h2');
  title.className = 'lesson-title';
  const exit = document.createElement('button');
  exit.type = 'button';
  exit.className = 'lesson-leave';
  exit.addEventListener('click', () => leave());
  head.append(title, exit);
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
  // Two lines: the arrow keys (hidden where there are none to press: style.css) and the sentence.
  const keys = document.createElement('p');
  keys.className = 'lesson-keys muted';
  const arrows = document.createElement('span');
  arrows.className = 'lesson-arrows';
  const edit = document.createElement('span');
  keys.append(arrows, edit);
  nav.append(prev, next);
  host.replaceChildren(head, progress, stepTitle, body, figure, nav, keys);

  let reveal = false;   // a step just chosen: bring its text on screen once drawn
  const go = (n) => {
    const step = Math.min(Math.max(1, n), steps.length);
    if (step === app.state.step && app.state.view === steps[step - 1].view) return;
    reveal = true;
    app.set({ step, view: steps[step - 1].view });
    host.querySelector('.lesson-step-title')?.focus?.({ preventScroll: true });
  };
  prev.addEventListener('click', () => go(app.state.step - 1));
  next.addEventListener('click', () => go(app.state.step + 1));
  // ← → anywhere but in a text field or a control that uses them.
  const onKey = (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const target = e.target;
    if (target.closest?.('input, textarea, select, [contenteditable], canvas, [role=tab]')) return;
    if (e.key === 'ArrowRight') { go(app.state.step + 1); e.preventDefault(); }
    if (e.key === 'ArrowLeft') { go(app.state.step - 1); e.preventDefault(); }
  };
  document.addEventListener('keydown', onKey);
  stepTitle.tabIndex = -1;

  // The step's text above the screen's top or its buttons below the foot (the new step's panel is
  // taller, or the reader had scrolled): the panel's first line to the top. Where the panel is
  // taller than the screen the buttons stick to the foot (style.css).
  function revealStep() {
    const first = [stepTitle, figure].filter((e) => !e.hidden)
      .reduce((top, e) => Math.min(top, e.getBoundingClientRect().top), Infinity);
    const bottom = nav.getBoundingClientRect().bottom;
    if (first >= 0 && bottom <= window.innerHeight) return;
    window.scrollBy(0, first - 8);
  }

  const stepView = stepContent(app, { stepTitle, body, figure, root: document, tryText, openExample });

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
    exit.textContent = t('lessonExit');
    arrows.textContent = t('lessonKeysArrows') + ' ';
    edit.textContent = t('lessonKeysEdit');
    viewHost?.toggleAttribute('data-lesson-section', Boolean(steps[n - 1].section));
    stepView.render(steps[n - 1], n);
    if (reveal) {
      reveal = false;
      requestAnimationFrame(revealStep);
    }
  }

  /** The lesson gone (the page's "Leave the lesson"): its panel hidden, its keys and marks off. */
  function destroy() {
    document.removeEventListener('keydown', onKey);
    host.hidden = true;
    host.replaceChildren();
    viewHost?.removeAttribute('data-lesson-section');
    for (const s of document.querySelectorAll('.lesson-focus')) s.classList.remove('lesson-focus');
  }

  return { render, go, steps, destroy };
}

/**
 * One step's title, text and figure (the stepper's, and <attn-scope lesson step>'s, which shows
 * one step without the stepper). `root` is where the block view's sections are looked up.
 */
export function stepContent(app, { stepTitle, body, figure, root, tryText, openExample }) {
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
      if (draw && app.result && (!NEEDS_QKV.has(step.figure) || app.result.q)) draw(app, figure, { tryText, openExample });
      figure.hidden = !figure.childElementCount;
      shownFigure = key;
    }
    if (step.section) highlightSection(step.section);
  }

  // The block view's section this step is about: outlined and scrolled into view (once drawn).
  // In a box that scrolls for the lesson (the page's [data-lesson-section]) only the box scrolls,
  // so the step's text stays where the reader is (the page went 768–3,328 px down).
  function highlightSection(section) {
    requestAnimationFrame(() => {
      const panel = root.querySelector('.view-block');
      const target = panel?.querySelector(`[data-step="${section}"]`);
      for (const s of panel?.querySelectorAll('.lesson-focus') ?? []) if (s !== target) s.classList.remove('lesson-focus');
      if (target && !target.classList.contains('lesson-focus')) {
        target.classList.add('lesson-focus');
        const box = target.closest('[data-lesson-section]');
        if (box) box.scrollTop += target.getBoundingClientRect().top - box.getBoundingClientRect().top - 12;
        else target.scrollIntoView({ block: 'nearest' });
      }
    });
  }

  return { render };
}

const NEEDS_QKV = new Set(['qkv', 'dot', 'scale', 'softmax', 'weighted']);
