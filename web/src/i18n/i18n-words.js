// UI text for words and pieces: the matrix views' "words: pieces merged" toggle and
// the token chips' legend (##, ␣, bytes), English and Korean, merged into i18n.js's tables.

export const WORDS_STRINGS = {
  en: {
    wordsToggle: 'Words: pieces merged',
    wordsTitle: 'Show words instead of sub-word tokens in the grid, head and lines views: a word is a run of tokens with no space between them (special tokens stay alone). Attention to a word is the sum over its pieces, from a word the mean of its pieces’ rows (Clark et al. 2019), so rows still sum to 1.',
    wordsBadge: 'Words: pieces merged — attention to a word is summed over its pieces, from a word averaged.',
    wordsUnavailable: 'Words: not available for this run (a sentence pair, or dropped tokens); showing tokens.',
    // The token chips' legend (web/src/panels/token-legend.js).
    legendPieces: '“##” continues the word before it',
    legendSpace: '“␣” starts with a space',
    legendBytes: '“<0xEB>” is one byte of a character the vocabulary has no piece for',
    legendBundled: 'the bundled models are small and know English only',
    mostlyBytes: '{n} of {total} tokens are single bytes: the bundled models only know English, so each Korean (or other) character is spelt as its UTF-8 bytes. For Korean, pick a multilingual model.',
    mostlyBytesModel: '{n} of the text’s {total} tokens are single bytes: this model’s vocabulary has no piece for those characters, so each is spelt as its UTF-8 bytes.',
  },
  ko: {
    wordsToggle: '단어: 조각 합치기',
    wordsTitle: '그리드·헤드·선 보기에서 하위 단어 토큰 대신 단어를 보여 줍니다. 단어는 사이에 공백이 없는 토큰들의 묶음이고 특수 토큰은 따로 둡니다. 단어로 가는 어텐션은 조각들의 합, 단어에서 나오는 어텐션은 조각 행들의 평균입니다(Clark 외 2019). 그래서 행의 합은 여전히 1입니다.',
    wordsBadge: '단어: 조각 합침 — 단어로 가는 어텐션은 조각들의 합, 단어에서 나오는 어텐션은 평균입니다.',
    wordsUnavailable: '단어: 이 실행에서는 쓸 수 없습니다(문장 쌍이거나 토큰을 뺐음). 토큰으로 보여 줍니다.',
    legendPieces: '“##”는 앞 단어를 이어 가는 조각',
    legendSpace: '“␣”는 공백으로 시작하는 조각',
    legendBytes: '“<0xEB>”는 어휘에 조각이 없는 글자의 바이트 하나',
    legendBundled: '내장 모델은 작고 영어만 압니다',
    mostlyBytes: '토큰 {total}개 중 {n}개가 바이트 하나씩입니다. 내장 모델은 영어만 알아서 한국어(등) 글자 하나를 UTF-8 바이트로 씁니다. 한국어는 다국어 모델을 고르세요.',
    mostlyBytesModel: '텍스트의 토큰 {total}개 중 {n}개가 바이트 하나씩입니다. 이 모델의 어휘에는 그 글자들의 조각이 없어 글자마다 UTF-8 바이트로 씁니다.',
  },
};
