// The pieces the views that write prose beside their figure share (layers, contributions, flow,
// patching, next-token): the figure-and-explanation layout, a heading, a paragraph, a top-k candidate.

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

/** The figure (main, classed `mainClass`) beside its explanation (an aside), appended to host. */
export function explainedLayout(host, mainClass) {
  const layout = document.createElement('div');
  layout.className = 'lens-layout';
  const main = document.createElement('div');
  main.className = mainClass;
  const explain = document.createElement('aside');
  explain.className = 'explain';
  layout.append(main, explain);
  host.append(layout);
  return { main, explain };
}

/** One candidate {token, text?, prob} of a top-k list: its probability as a bar, its text, its
 *  percentage. The caller marks what its list marks (the id, the token written). */
export function candidateItem(c, wordClass = '') {
  const li = document.createElement('li');
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.style.width = (c.prob * 100).toFixed(1) + '%';
  const word = document.createElement('span');
  if (wordClass) word.className = wordClass;
  word.textContent = c.text ?? c.token;
  const prob = document.createElement('span');
  prob.className = 'next-prob';
  prob.textContent = (c.prob * 100).toFixed(1) + '%';
  li.append(bar, word, prob);
  return li;
}
