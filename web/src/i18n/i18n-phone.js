// UI text for narrow screens: the cue above a table that scrolls sideways; the
// Generate panel's own list of the tokens it wrote. English and Korean, merged into i18n.js's
// tables.

export const PHONE_STRINGS = {
  en: { scrollMore: 'Wider than the screen: swipe the table sideways for more columns →', genWritten: 'New tokens:' },
  ko: { scrollMore: '화면보다 넓습니다: 표를 옆으로 밀면 열이 더 있습니다 →', genWritten: '새 토큰:' },
};
