// The element's styles, adopted into its shadow root as a constructable stylesheet (allowed by
// style-src 'self'; a <style> element would need 'unsafe-inline'). The views' own rules come
// from the page's web/style.css (bundled as text) with :root → :host, so a view looks the same
// on the page and in a blog; the element's frame and the dark theme are added here.
import pageCss from '../style.css';

// (In the dark theme the logit lens's cells keep their colour-scale background, light to dark blue:
// their text stays dark on the light end; the top-k list and the cross view's labels follow the
// theme. Comments stay out of the string: they would ship to every element.)
const ELEMENT_CSS = `
:host { display: block; contain: content; min-width: 0; max-width: 100%; text-align: left;
  border: 1px solid var(--line); border-radius: 10px; background: var(--panel); margin: 1em 0; }
:host([hidden]) { display: none; }
:host([theme="dark"]) {
  --fg: #e6e9ef; --muted: #a3abb8; --bg: #15181e; --panel: #1c2027; --line: #363c47;
  --accent: #7fb0ff; --accent-soft: #23344d; --error: #ff8a8a; --warn: #f0b35a; }
:host([theme="dark"]) select, :host([theme="dark"]) button, :host([theme="dark"]) .head-toggle,
:host([theme="dark"]) .explain { background: #242a33; color: var(--fg); }
:host([theme="dark"]) .formula-table th, :host([theme="dark"]) .formula-table td { border-bottom-color: #2c323c; }
:host([theme="dark"]) .lens-cell { color: #111; }
:host([theme="dark"]) .lens-cell.is-dark { color: #fff; }
:host([theme="dark"]) .next-list li { background: #242a33; }
:host([theme="dark"]) .cross-lines text { fill: var(--fg); }
:host([theme="dark"]) .cross-lines text.special { fill: var(--muted); }
.frame { padding: 10px 12px; color: var(--fg); background: var(--panel); border-radius: 10px;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans KR", "Apple SD Gothic Neo", sans-serif; }
.caption { margin: 0 0 6px; overflow-wrap: anywhere; max-height: 4.4em; overflow-y: auto; }
.caption .pair { color: var(--muted); }
.toolbar { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; justify-content: space-between; margin: 0 0 8px; }
.views, .actions { display: flex; flex-wrap: wrap; gap: 4px; }
.toolbar button { border: 1px solid var(--line); background: var(--panel); color: var(--fg); border-radius: 6px;
  padding: 3px 9px; cursor: pointer; font-size: 0.86rem; }
.views button[aria-pressed="true"] { background: var(--accent); border-color: var(--accent); color: var(--panel); font-weight: 600; }
.status { margin: 4px 0; color: var(--muted); font-size: 0.86rem; min-height: 1.2em; }
.status.error { color: var(--error); font-weight: 500; }
.body { overflow: auto; min-height: 120px; }
.view-host { min-height: 0; }
/* A run whose maps stay in the worker (a large one): a view needing every head says so instead. */
.maps-note { margin: 4px 0 8px; padding: 4px 8px; border-left: 3px solid var(--accent); font-size: 0.86rem; }
.view[data-maps-unavailable] > :not(.maps-note) { display: none; }
.save-png { display: none; }   /* the head view's own button; the toolbar's PNG covers it */
.brand { font-size: 0.78rem; color: var(--muted); margin: 6px 0 0; }
`;

let sheet = null;

/** One stylesheet object shared by every element on the page. */
export function elementStyleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(pageCss.replace(/:root\b/g, ':host') + ELEMENT_CSS);
  }
  return sheet;
}
