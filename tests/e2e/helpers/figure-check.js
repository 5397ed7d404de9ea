// Checks an exported PNG figure against the page it came from, in the browser (pass to
// page.evaluate with its argument): where the view's canvas landed in the PNG (found by matching
// a row of its pixels, not by trusting the exporter's layout), and whether the places where the
// panel shows HTML text (hints, legend numbers and captions) have ink in the PNG — the old
// exports left them blank. All sizes come back in CSS pixels.
export async function checkFigureInPage({ b64, root, panelSelector, canvasSelector, textSelectors, dpr }) {
  const scope = root ? document.querySelector(root).shadowRoot : document;
  const panel = scope.querySelector(panelSelector);
  const canvas = panel.querySelector(canvasSelector);
  const img = await createImageBitmap(new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], { type: 'image/png' }));
  const out = new OffscreenCanvas(img.width, img.height).getContext('2d');
  out.drawImage(img, 0, 0);
  const png = out.getImageData(0, 0, img.width, img.height).data;
  const at = (x, y) => { const k = (y * img.width + x) * 4; return [png[k], png[k + 1], png[k + 2]]; };
  const P = panel.getBoundingClientRect(), C = canvas.getBoundingClientRect();
  const src = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  // Twenty-four samples along the canvas row through its middle, in device pixels.
  const row = Math.floor(canvas.height / 2);
  const samples = [...Array(24).keys()].map((k) => Math.floor(((k + 0.5) / 24) * canvas.width))
    .map((x) => ({ x, rgb: [0, 1, 2].map((c) => src[(row * canvas.width + x) * 4 + c]) }));
  const distinct = new Set(samples.map((s) => s.rgb.join())).size;
  // The canvas's left edge in the PNG: search x and y (the exporter's margins are not assumed).
  let found = null;
  for (let oy = 0; oy + row < img.height && !found; oy++) {
    for (let ox = 0; ox + canvas.width <= img.width + 1 && !found; ox++) {
      if (samples.every(({ x, rgb }) => x + ox < img.width && at(x + ox, row + oy).every((v, c) => Math.abs(v - rgb[c]) <= 3))) found = { ox, oy };
    }
  }
  if (!found) return { found: null, distinct, size: { width: img.width, height: img.height } };
  // Where the panel's top left sits in the PNG, in CSS pixels.
  const panelX = found.ox / dpr - (C.left - P.left), panelY = found.oy / dpr - (C.top - P.top);
  const ink = (x0, y0, x1, y1) => {
    let dark = 0;
    for (let y = Math.max(0, Math.round(y0 * dpr)); y < Math.min(img.height, Math.round(y1 * dpr)); y++) {
      for (let x = Math.max(0, Math.round(x0 * dpr)); x < Math.min(img.width, Math.round(x1 * dpr)); x++) {
        const [r, g, b] = at(x, y);
        if (r + g + b < 3 * 170) dark++;
      }
    }
    return dark;
  };
  const texts = textSelectors.map((sel) => {
    const el = panel.querySelector(sel);
    if (!el) return { sel, missing: true };
    const r = el.getBoundingClientRect();
    return { sel, text: el.textContent.slice(0, 40), ink: ink(panelX + r.left - P.left, panelY + r.top - P.top, panelX + r.right - P.left, panelY + r.bottom - P.top) };
  });
  // The first of the view's parts checked (the canvas, the texts) in the PNG: what lies above it
  // is the title band (the exporter drops the pickers and how-to above the picture, so the panel's
  // own top may lie above the PNG's).
  const tops = [C.top, ...textSelectors.map((sel) => panel.querySelector(sel)?.getBoundingClientRect().top).filter((v) => v !== undefined)];
  const firstY = panelY + Math.min(...tops) - P.top;
  return {
    found, distinct, panelX, panelY, firstY, size: { width: img.width, height: img.height },
    titleInk: ink(0, 0, img.width / dpr, firstY),   // the title band above the view
    texts,
  };
}
