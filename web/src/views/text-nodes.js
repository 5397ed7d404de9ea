// The text elements the explanation panels are built from (a heading, a paragraph), shared by the
// views that write prose beside their figure (layers, contributions, flow, patching).

export function heading(text, tag = 'h3') {
  const h = document.createElement(tag);
  h.textContent = text;
  return h;
}

export function para(text, className = '') {
  const p = document.createElement('p');
  if (className) p.className = className;
  p.textContent = text;
  return p;
}
