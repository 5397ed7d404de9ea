// What a keyboard move on a canvas (a heatmap cell, a grid head) lands on, said to screen readers:
// one polite live region per canvas, always in the page (a region that appears together with its
// text, as the tooltip did, is often not read) and written only on keyboard moves (a mouse
// sweeping the heatmap would flood it). Styled by script, so the page and the element's shadow
// root need no class for it.

/** Appends the region to `host`; returns say(text). */
export function createAnnouncer(host) {
  const region = document.createElement('div');
  region.className = 'live-announcer';
  region.setAttribute('aria-live', 'polite');
  region.setAttribute('aria-atomic', 'true');
  Object.assign(region.style, { position: 'absolute', width: '1px', height: '1px', overflow: 'hidden',
    clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap', left: '0', top: '0' });
  host.append(region);
  return (text) => { region.textContent = text; };
}
