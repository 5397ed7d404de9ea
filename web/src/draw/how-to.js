// A view's caption says what the figure shows; its how-to (hover, arrow keys, click) says how to
// use the page. The how-to is marked data-no-export so an exported figure carries the caption
// only (exported PNGs included on-screen instructions).

/** Fills `element` with the caption, then the how-to in a span the figure exports leave out. */
export function captionWithHowTo(element, caption, howTo) {
  const span = document.createElement('span');
  span.className = 'how-to';
  span.dataset.noExport = '';
  span.textContent = howTo;
  element.replaceChildren(caption + ' ', span);
}
