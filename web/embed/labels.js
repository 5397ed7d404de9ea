// The element's own UI words (toolbar, status), English and Korean. View text comes from the
// page's i18n module; these are only what the element adds around the views.
export const ELEMENT_STRINGS = {
  en: {
    loading: 'Loading the model…',
    running: 'Running…',
    ran: '{tokens} tokens · {layers} layers × {heads} heads',
    png: 'PNG', svg: 'SVG', json: 'BertViz JSON', link: 'Copy link',
    pngTitle: 'Download this view as a PNG image',
    svgTitle: 'Download the current head as an SVG heatmap',
    jsonTitle: 'Download all attention as BertViz head_view input (as attnscope run --format bertviz writes it)',
    linkTitle: 'Copy a link that opens this in the AttnScope explorer',
    copied: 'Link copied.',
    copyFailed: 'Could not copy; the link is: {url}',
    shortened: 'The text was shortened to {n} characters.',
    failed: 'AttnScope: {message} ({code})',
    viewsAria: 'Views',
    actionsAria: 'Export',
    brand: 'AttnScope — attention computed in your browser',
    // A frozen figure (src) ran nothing here: its matrices are what the model computed when the
    // figure was saved (attnscope snapshot, or Figure data).
    brandFrozen: 'AttnScope — a frozen figure: attention computed by {model} when the figure was saved, not in your browser',
    // A flow graph's shares or a patching grid: not attention weights.
    brandFrozenNumbers: 'AttnScope — a frozen figure: numbers computed by {model} when the figure was saved, not in your browser',
    figureLoading: 'Loading the figure…',
    frozen: 'Saved figure ({model}): no model loaded. Change the text to run it live.',
    figure: 'Figure data',
    figureTitle: 'Download the data of this figure (JSON) for <attn-scope src="…">: it draws with no model download',
  },
  ko: {
    loading: '모델을 불러오는 중…',
    running: '실행 중…',
    ran: '토큰 {tokens}개 · {layers}층 × 헤드 {heads}개',
    png: 'PNG', svg: 'SVG', json: 'BertViz JSON', link: '링크 복사',
    pngTitle: '이 보기를 PNG 이미지로 내려받기',
    svgTitle: '현재 헤드를 SVG 히트맵으로 내려받기',
    jsonTitle: '전체 어텐션을 BertViz head_view 입력 형식으로 내려받기 (attnscope run --format bertviz와 같음)',
    linkTitle: 'AttnScope 탐색기에서 여는 링크 복사',
    copied: '링크를 복사했습니다.',
    copyFailed: '복사하지 못했습니다. 링크: {url}',
    shortened: '텍스트를 {n}자로 줄였습니다.',
    failed: 'AttnScope: {message} ({code})',
    viewsAria: '보기',
    actionsAria: '내보내기',
    brand: 'AttnScope — 브라우저에서 계산한 어텐션',
    brandFrozen: 'AttnScope — 저장된 그림: 어텐션은 그림을 저장할 때 {model} 모델이 계산한 것이며, 브라우저에서 계산하지 않았습니다',
    brandFrozenNumbers: 'AttnScope — 저장된 그림: 이 수치는 그림을 저장할 때 {model} 모델이 계산한 것이며, 브라우저에서 계산하지 않았습니다',
    figureLoading: '그림을 불러오는 중…',
    frozen: '저장된 그림({model}): 모델을 불러오지 않았습니다. 텍스트를 바꾸면 실제로 실행합니다.',
    figure: '그림 데이터',
    figureTitle: '이 그림의 데이터(JSON)를 내려받기. <attn-scope src="…">가 모델 없이 그립니다',
  },
};

export function elementText(lang, key, vars = {}) {
  const s = (ELEMENT_STRINGS[lang] ?? ELEMENT_STRINGS.en)[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ''));
}
