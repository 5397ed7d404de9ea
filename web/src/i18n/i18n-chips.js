// UI text for the token chips' two actions: a click picks the query; the "Select
// tokens" toggle switches clicks to selecting tokens for Mask/Drop. English and Korean, merged
// into i18n.js's tables.

export const CHIPS_STRINGS = {
  en: {
    tokensAria: 'Tokens: click one to make it the query',
    tokensAriaSelecting: 'Tokens: click to select or unselect for masking or dropping (Escape: done)',
    selectMode: 'Select tokens…',
    selectModeOn: 'Selecting: click tokens (done)',
    selectModeTitle: 'While pressed, clicking a token chip selects it for Exclude/Drop instead of making it the query.',
    selectionNone: 'Press “Select tokens…”, then click chips to mask or drop them.',
  },
  ko: {
    tokensAria: '토큰: 클릭하면 그 토큰이 쿼리가 됩니다',
    tokensAriaSelecting: '토큰: 클릭해 마스킹하거나 뺄 토큰을 고르거나 풉니다 (Esc: 끝)',
    selectMode: '토큰 고르기…',
    selectModeOn: '고르는 중: 토큰 클릭 (끝내기)',
    selectModeTitle: '눌려 있는 동안 토큰 칩을 클릭하면 쿼리로 바꾸지 않고 제외/빼기할 토큰으로 고릅니다.',
    selectionNone: '“토큰 고르기…”를 누른 뒤 마스킹하거나 뺄 칩을 클릭하세요.',
  },
};
