// The view tabs on a phone are one row that scrolls sideways (style.css): the chosen tab is kept
// in sight (a link to the last view opened with it scrolled out), and the row's fade, which says
// more tabs follow, is dropped once the row is scrolled to its end. Wider screens wrap the
// tabs, so nothing scrolls and both are no-ops.

export function keepTabsInSight(tablist) {
  const showEnd = () => {
    const atEnd = tablist.scrollLeft + tablist.clientWidth >= tablist.scrollWidth - 1;
    tablist.toggleAttribute('data-at-end', atEnd);
  };
  tablist.addEventListener('scroll', showEnd, { passive: true });
  new ResizeObserver(showEnd).observe(tablist);

  /** Scrolls the row (only the row, never the page) so the selected tab is whole. */
  return function reveal() {
    const tab = tablist.querySelector('[role=tab][aria-selected="true"]');
    if (!tab || tablist.scrollWidth <= tablist.clientWidth) return showEnd();
    const left = tab.getBoundingClientRect().left - tablist.getBoundingClientRect().left + tablist.scrollLeft;
    const right = left + tab.offsetWidth;
    if (left < tablist.scrollLeft) tablist.scrollLeft = left - 8;
    else if (right > tablist.scrollLeft + tablist.clientWidth) tablist.scrollLeft = right - tablist.clientWidth + 28;
    showEnd();
  };
}
