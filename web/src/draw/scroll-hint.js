// A wide table on a phone scrolls sideways in its own box; without a cue the column cut at the
// screen's edge passes for the last one (the formula's softmax column, the head table).
// scrollHint puts a line above the box, shown only while the table is wider than the box, and
// marks the box (data-more) while columns lie beyond its right edge, which style.css fades.

/**
 * @param box the element that scrolls (overflow-x: auto)
 * @param say () → the hint's text in the UI's language
 * @returns {{element: HTMLElement, update: () => void}} the hint line (insert it before the box)
 *   and update(), to call after the box's content or width changed (it also runs on scroll)
 */
export function scrollHint(box, say) {
  const element = document.createElement('p');
  element.className = 'scroll-hint';
  element.hidden = true;
  const update = () => {
    const wider = box.scrollWidth > box.clientWidth + 1;
    element.hidden = !wider;
    if (wider) element.textContent = say();
    box.toggleAttribute('data-more', wider && box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
  };
  box.addEventListener('scroll', update, { passive: true });
  // Sizes are known once the box is in the page and laid out.
  const later = () => requestAnimationFrame(update);
  return { element, update: later };
}
