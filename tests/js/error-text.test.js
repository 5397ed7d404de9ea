// The page's error messages (web/src/i18n/error-text.js, web/src/i18n/i18n-errors.js): every code an
// AttnScopeError can carry has its own sentence in English and in Korean, and the engine's
// message is kept whole in the detail line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttnScopeError, ERROR_CODES } from '../../js/formats/errors.js';
import { translate } from '../../web/src/i18n/i18n.js';
import { errorCode, errorDetail, errorReason } from '../../web/src/i18n/error-text.js';

test('every error code has a distinct English and Korean sentence', () => {
  const seen = { en: new Set(), ko: new Set() };
  for (const code of ERROR_CODES) {
    const en = errorReason((k, v) => translate('en', k, v), { code });
    const ko = errorReason((k, v) => translate('ko', k, v), { code });
    assert.notEqual(en, `err_${code}`, `${code} has no English text`);
    assert.match(ko, /[가-힣]/, `${code} has no Korean text`);
    assert.notEqual(en, ko);
    assert.ok(!seen.en.has(en) && !seen.ko.has(ko), `${code} repeats another code's text`);
    seen.en.add(en);
    seen.ko.add(ko);
  }
});

test('unknown or missing codes read as internal errors; the detail keeps the engine\'s message', () => {
  assert.equal(errorCode(new Error('boom')), 'E_INTERNAL');
  assert.equal(errorCode({ code: 'E_MADE_UP' }), 'E_INTERNAL');
  const e = new AttnScopeError('E_CONFIG', 'config.json: "hidden_size" must be divisible by "num_attention_heads"');
  assert.equal(errorCode(e), 'E_CONFIG');
  assert.equal(errorDetail(e), 'E_CONFIG: config.json: "hidden_size" must be divisible by "num_attention_heads"');
  assert.equal(errorDetail('plain string'), 'E_INTERNAL: plain string');
  assert.equal(errorReason((k) => translate('ko', k), e), translate('ko', 'err_E_CONFIG'));
});
