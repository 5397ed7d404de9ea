// The Patching view's suggestions (web/src/model/patch-suggest.js): the bundled example's corruption for
// its own clean prompt, one content word replaced otherwise (never [MASK]), and the default answer
// and wrong tokens (the clean top; the corrupted top, or the clean second when both agree); its
// text in every language (added when the view loads, so i18n.js's missingKeys does not see it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PATCHING_EXAMPLE, corruptionCandidates, defaultAnswers, namesToken } from '../../web/src/model/patch-suggest.js';
import { PATCHING_STRINGS } from '../../web/src/i18n/i18n-patching.js';
import { LANGUAGES } from '../../web/src/i18n/i18n.js';

test('the bundled example suggests its own corruption', () => {
  assert.deepEqual(corruptionCandidates(PATCHING_EXAMPLE.clean).map((c) => [c.text, c.example]), [[PATCHING_EXAMPLE.corrupted, true]]);
});

test('other texts: one content word replaced, its case kept, never a function word or [MASK]', () => {
  const c = corruptionCandidates('The River ran past the mill and the [MASK] was quiet.');
  assert.ok(c.length > 0);
  for (const x of c) {
    assert.equal(x.example, false);
    assert.ok(['River', 'ran', 'past'].includes(x.from), x.from);
    assert.notEqual(x.to.toLowerCase(), x.from.toLowerCase());
    assert.match(x.text, /\[MASK\]/);
  }
  assert.equal(c[0].text, 'The House ran past the mill and the [MASK] was quiet.');
  assert.deepEqual(corruptionCandidates('the and was'), []);
});

test('the default answer and wrong tokens', () => {
  const e = (id, text) => ({ id, token: 'Ġ' + text.trim(), text, prob: 0.1 });
  const clean = [e(1, ' church'), e(2, ' home')], corrupted = [e(3, ' school'), e(1, ' church')];
  assert.deepEqual(defaultAnswers(clean, corrupted), { answer: clean[0], wrong: corrupted[0] });
  assert.deepEqual(defaultAnswers(clean, [e(1, ' church')]), { answer: clean[0], wrong: clean[1] });
  // The bundled example compares its own two tokens.
  assert.deepEqual(defaultAnswers(clean, corrupted, PATCHING_EXAMPLE.clean, PATCHING_EXAMPLE.corrupted),
    { answer: { token: ' church' }, wrong: { token: ' school' } });
  assert.ok(namesToken(' church', clean[0]) && namesToken('Ġchurch', clean[0]) && !namesToken('church', clean[0]));
});

test('the view\'s text has every key in every language', () => {
  const keys = Object.keys(PATCHING_STRINGS.en).sort();
  for (const lang of LANGUAGES) {
    assert.deepEqual(Object.keys(PATCHING_STRINGS[lang]).sort(), keys, lang);
    for (const key of keys) if (lang !== 'en') assert.notEqual(PATCHING_STRINGS[lang][key], PATCHING_STRINGS.en[key], `${lang}.${key}`);
  }
});

test('an encoder–decoder\'s target so far: the example\'s, else the target up to the changed word, else all of it', async () => {
  const { PATCHING_SEQ2SEQ_EXAMPLE, defaultPrefix } = await import('../../web/src/model/patch-suggest.js');
  const { prefixText } = await import('../../web/src/model/patch-seq2seq.js');
  assert.deepEqual(defaultPrefix(PATCHING_SEQ2SEQ_EXAMPLE.clean, [], [], []), { text: PATCHING_SEQ2SEQ_EXAMPLE.prefix });
  assert.deepEqual(corruptionCandidates(PATCHING_SEQ2SEQ_EXAMPLE.clean).map((c) => c.text), [PATCHING_SEQ2SEQ_EXAMPLE.corrupted]);
  // "i sat by her" → "i by her sat": the changed word "sat" is the target's fourth; a word that
  // the target does not hold (a translation) keeps the whole target.
  const clean = ['i', 'sat', 'by', 'her', '</s>'], corrupted = ['i', 'house', 'by', 'her', '</s>'];
  assert.deepEqual(defaultPrefix('I sat by her', clean, corrupted, ['i', 'by', 'her', 'sat', '.']), { length: 3, word: 'sat' });
  assert.deepEqual(defaultPrefix('I sat by her', clean, corrupted, ['ich', 'saß']), { length: 2, word: null });
  // The prefix as the view says it: WordPiece's ## joins, SentencePiece's ▁ starts a word.
  assert.equal(prefixText({ targetTokens: ['<pad>', 'i', 'div', '##an'] }), 'i divan');
  assert.equal(prefixText({ targetTokens: ['<pad>', '▁I', '▁sa', 't'] }), 'I sat');
  assert.equal(prefixText({ targetTokens: ['<pad>'] }), '');
});
