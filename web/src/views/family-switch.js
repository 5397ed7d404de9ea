// One tab whose content depends on the loaded model's family: the host builds a tab's view once
// and keeps it, so the slot stays while the view inside is rebuilt when a model of another kind
// loads (the Positions tab: learned position table or rotary angles; the Block tab: the walk
// through, or why it cannot apply). choose(app) names the builder to use.
import { viewUnavailable } from '../model/model-family.js';
import { isSeq2Seq } from '../model/seq2seq-run.js';

export function familySwitch(choose, builders) {
  return (host, app) => {
    let key = null, current = null;
    return {
      render() {
        const k = choose(app);
        if (k !== key) {
          current?.destroy?.();
          host.replaceChildren();
          delete host.dataset.ready;
          key = k;
          current = builders[k](host, app);
        }
        current.render();
      },
      destroy() { current?.destroy?.(); },
      // The test hook reads these of the view inside (and calls its methods through inner).
      get exposed() { return current?.exposed; },
      get last() { return current?.last; },
      get inner() { return current; },
    };
  };
}

/** `factory`'s view, or in its place why the model in use cannot have it (model-family.js). */
export function guardedView(name, factory) {
  return familySwitch((a) => (viewUnavailable(a.info, name) ? 'none' : 'view'),
    { view: factory, none: unavailableView((a) => viewUnavailable(a.info, name)) });
}

/** A view saying why the tab cannot show this model: `reason` is the i18n key, or gives it (app). */
export function unavailableView(reason) {
  return (host, app) => {
    const p = document.createElement('p');
    p.className = 'hint view-unavailable';
    host.append(p);
    return { render() { p.textContent = app.t(typeof reason === 'function' ? reason(app) : reason); } };
  };
}

/** An encoder–decoder showing its cross-attention (state.kind 'cross', target × source: not
 *  square, so the cross views, cross*.js, draw it). */
export const crossShown = (app) => isSeq2Seq(app.info) && app.state.kind === 'cross';

/** `square`'s view, or `cross`'s while crossShown(): the square matrix views (grid, head, lines). */
export function squareOrCross(square, cross) {
  return familySwitch((a) => (crossShown(a) ? 'cross' : 'square'), { square, cross });
}
