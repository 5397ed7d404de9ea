// The tokens as chips under the input, with each chip's source span highlighted in a copy of the
// text (offsets are UTF-16 indices, i.e. JavaScript string indices). Clicking a chip makes it the
// query; only while the "Select tokens" toggle (`modeButton`) is pressed does a click add it to or
// remove it from the selection that Mask/Drop act on — one click never does both (it
// did, so picking a query also queued the token for masking). [MASK] chips show the model's top
// predictions. Built with textContent only.

export function createTokensView(chipsHost, mirrorHost, app, modeButton) {
  let result = null, spans = null, builtFor = null;
  let selecting = false;   // the toggle's state: a UI mode, not part of the permalink
  modeButton.addEventListener('click', () => {
    selecting = !selecting;
    showMode();
    // On a phone the toggle sits under the views, far from the chips it changes: bring them up.
    if (selecting) chipsHost.scrollIntoView({ block: 'nearest' });
  });
  // Escape on a chip leaves the selecting mode (keyboard users need no trip to the toggle).
  chipsHost.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && selecting) {
      selecting = false;
      showMode();
    }
  });

  // The toggle, the chips' group label and each chip's aria-pressed say which click this is: a
  // chip is a toggle button only while selecting (pressed = selected), a plain button otherwise.
  function showMode() {
    modeButton.setAttribute('aria-pressed', String(selecting));
    modeButton.textContent = app.t(selecting ? 'selectModeOn' : 'selectMode');
    chipsHost.classList.toggle('selecting', selecting);
    chipsHost.setAttribute('aria-label', app.t(selecting ? 'tokensAriaSelecting' : 'tokensAria'));
    for (const chip of chipsHost.children) pressedState(chip, Number(chip.dataset.pos));
  }

  function pressedState(chip, i) {
    if (selecting) chip.setAttribute('aria-pressed', String(app.state.selected.includes(i)));
    else chip.removeAttribute('aria-pressed');
    if (i === app.state.query) chip.setAttribute('aria-current', 'true');
    else chip.removeAttribute('aria-current');
  }

  showMode();

  function onChipClick(i) {
    if (selecting) app.toggleSelected(i, { query: false });
    else app.set({ query: i });
  }

  // Rebuilds the chips only when the run, the edit or the language changed; otherwise just
  // updates classes (512 chips rebuilt on every hover or selection would cost whole frames).
  function render() {
    const key = [app.original, app.result, app.edit, app.state.lang];
    if (builtFor && key.every((k, i) => k === builtFor[i])) {
      update();
      return;
    }
    builtFor = key;
    result = app.original;
    chipsHost.replaceChildren();
    if (!result) {
      mirrorHost.replaceChildren();
      return;
    }
    const { t, state, edit } = app;
    const preds = new Map((app.result.maskPredictions || app.original.maskPredictions || []).map((p) => [p.position, p.top]));
    const frag = document.createDocumentFragment();
    result.tokens.forEach((tok, i) => {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = 'chip';
      chip.dataset.pos = i;
      if (result.specialTokensMask[i]) chip.classList.add('special');
      if (result.generatedFrom !== undefined && i >= result.generatedFrom) chip.classList.add('generated');   // written by Generate
      if (state.selected.includes(i)) chip.classList.add('selected');
      if (i === state.query) chip.classList.add('query');
      if (edit && edit.positions.includes(i)) chip.classList.add(edit.kind === 'mask' ? 'masked' : 'dropped');
      pressedState(chip, i);
      const label = document.createElement('span');
      label.className = 'chip-token';
      label.textContent = result.tokenTexts?.[i] ?? tok;   // readable: '␣river', not 'Ġriver'
      const idx = document.createElement('span');
      idx.className = 'chip-pos';
      idx.textContent = String(i);
      chip.append(idx, label);
      const top = preds.get(i);
      if (top && top.length) {
        const list = document.createElement('span');
        list.className = 'predictions';
        list.textContent = top.slice(0, 3).map((p) => `${p.text ?? p.token} ${(p.prob * 100).toFixed(0)}%`).join(' · ');
        list.title = t('predictionsTitle');
        chip.append(list);
      }
      chip.addEventListener('click', () => onChipClick(i));
      chip.addEventListener('pointerenter', () => highlight(i));
      chip.addEventListener('focus', () => highlight(i));
      chip.addEventListener('pointerleave', () => highlight(null));
      chip.addEventListener('blur', () => highlight(null));
      frag.append(chip);
    });
    chipsHost.append(frag);
    showMode();   // the labels in the language shown
    shownSelected = new Set(state.selected);
    shownQuery = state.query;
    highlight(null);
  }

  // Touches only the chips whose selection or query mark changed (a class write on each of 512
  // chips restyles them all).
  let shownSelected = new Set(), shownQuery = -1;
  function update() {
    if (!result) return;
    const { state } = app;
    const selected = new Set(state.selected);
    const changed = new Set([...selected, ...shownSelected, state.query, shownQuery]);
    for (const i of changed) {
      const chip = chipsHost.children[i];
      if (!chip) continue;
      chip.classList.toggle('selected', selected.has(i));
      chip.classList.toggle('query', i === state.query);
      pressedState(chip, i);
    }
    const selectionChanged = selected.size !== shownSelected.size || [...selected].some((i) => !shownSelected.has(i));
    shownSelected = selected;
    shownQuery = state.query;
    if (selectionChanged) highlight(null);
  }

  // Rebuilds the mirror: the input text (sentence A, then B) with the token's span in <mark>
  // and the selected tokens' spans underlined.
  function highlight(pos) {
    if (!result) return;
    const { state } = app;
    mirrorHost.replaceChildren();
    const texts = [state.text, state.pairOn ? state.pair : null];
    const off = result.offsets;
    texts.forEach((text, segment) => {
      if (text === null) return;
      const marks = [];
      for (let i = 0; i < result.tokens.length; i++) {
        const type = result.typeIds ? result.typeIds[i] : 0;
        if (type !== segment || result.specialTokensMask[i]) continue;
        const cls = i === pos ? 'hl' : state.selected.includes(i) ? 'sel' : null;
        if (cls) marks.push([off[2 * i], off[2 * i + 1], cls]);
      }
      marks.sort((a, b) => a[0] - b[0]);
      const p = document.createElement('p');
      let at = 0;
      for (const [s, e, cls] of marks) {
        if (s < at) continue;
        p.append(text.slice(at, s));
        const m = document.createElement('mark');
        m.className = cls;
        m.textContent = text.slice(s, e);
        p.append(m);
        at = e;
      }
      p.append(text.slice(at));
      mirrorHost.append(p);
    });
    spans = pos;
    mirrorHost.dataset.highlight = pos ?? '';
  }

  return { render, highlight, get highlighted() { return spans; }, get selecting() { return selecting; } };
}
