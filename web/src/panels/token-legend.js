// The token chips' legend: what the marks on a token mean ("##" continues a word, "␣" a piece
// that starts with a space, "<0xEB>" one byte of a character the vocabulary has no piece for),
// shown only for the marks the run on screen has, and a notice when most of the input became
// bytes — Korean in the bundled GPT-2 is one chip per UTF-8 byte, which says nothing without it.
const BYTE = /^<0x[0-9A-Fa-f]{2}>$/;

/** The legend's lines for a run (empty when no token carries a mark). */
export function tokenLegend(result, t, { bundled }) {
  if (!result) return { lines: [], mostlyBytes: false };
  const texts = result.tokenTexts ?? result.tokens;
  const plain = texts.filter((_, i) => !result.specialTokensMask[i]);
  const has = (test) => plain.some(test);
  const lines = [];
  if (has((s) => s.startsWith('##'))) lines.push(t('legendPieces'));
  if (has((s) => s.startsWith('␣') || s.startsWith('▁'))) lines.push(t('legendSpace'));
  if (has((s) => BYTE.test(s))) lines.push(t('legendBytes'));
  // The notice is about the typed text (not what Generate wrote after it: a small model's bytes
  // say nothing of the input's language), and names the bundled models only when they are in use.
  const typedEnd = result.generatedFrom ?? texts.length;
  const typed = texts.filter((_, i) => i < typedEnd && !result.specialTokensMask[i]);
  const bytes = typed.filter((s) => BYTE.test(s)).length;
  const mostlyBytes = bytes >= 2 && bytes * 2 >= typed.length;
  if (lines.length && bundled) lines.push(t('legendBundled'));
  return { lines, mostlyBytes, bytes, total: typed.length, message: bundled ? 'mostlyBytes' : 'mostlyBytesModel' };
}

/** Fills `legend` (a <p>) and `notice` (the page's warning line) for the run on screen. */
export function showTokenLegend(legend, notice, result, t, options) {
  const { lines, mostlyBytes, bytes, total, message } = tokenLegend(result, t, options);
  legend.hidden = !lines.length;
  legend.textContent = lines.join(' · ');
  if (mostlyBytes) {
    notice.hidden = false;
    notice.textContent = t(message, { n: bytes, total });
  }
}
