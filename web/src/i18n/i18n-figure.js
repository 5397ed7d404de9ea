// UI text for frozen figures: the page's "Save figure data" button; the views' how-to
// sentences, apart from their captions so exported figures leave them out (how-to.js). English
// and Korean, merged into i18n.js's tables.

export const FIGURE_STRINGS = {
  en: {
    saveFigure: 'Figure data',
    saveFigureTitle: 'Save figure data: download what this figure draws (tokens, its attention matrices, model, text, view, layer, head) as JSON: <attn-scope src="fig.json"> shows it with no model download. Head, lines, grid, layers (logit lens), flow and patching views.',
    saveFigureView: 'Figure data is saved from the head, lines, grid, layers (logit lens), flow and patching views.',
    gridHowTo: 'Click one, or use the arrow keys and Enter, to open it.',
    headHowTo: 'Hover or use the arrow keys for exact weights; click or Enter selects a query.',
    linesHowTo: 'Hover a token to follow only its lines; toggle heads above.',
  },
  ko: {
    saveFigure: '그림 데이터',
    saveFigureTitle: '그림 데이터 저장: 이 그림이 그리는 것(토큰, 어텐션 행렬, 모델, 텍스트, 보기, 층, 헤드)을 JSON으로 내려받습니다. <attn-scope src="fig.json">가 모델을 내려받지 않고 보여 줍니다. 헤드·선·그리드·층별 예측(로짓 렌즈)·흐름·패칭 보기에서.',
    saveFigureView: '그림 데이터는 헤드·선·그리드·층별 예측(로짓 렌즈)·흐름·패칭 보기에서 저장합니다.',
    gridHowTo: '클릭하거나 방향키와 Enter로 열어 보세요.',
    headHowTo: '마우스를 올리거나 방향키를 쓰면 정확한 값이 보이고, 클릭이나 Enter로 쿼리를 선택합니다.',
    linesHowTo: '토큰에 마우스를 올리면 그 토큰의 선만 보이고, 위에서 헤드를 켜고 끌 수 있습니다.',
  },
};
