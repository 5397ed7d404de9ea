// UI text for big models: the weight precision choice beside the model picker,
// the memory the loaded model uses and what a run whose maps stay in the worker offers, English and Korean, merged into i18n.js's tables.
import { AUTO_F16_ABOVE_BYTES } from '../../../js/api/memory-estimate.js';

// The 'auto' threshold in the words is js/api/memory-estimate.js's constant, not a copy of it.
const AUTO_MB = AUTO_F16_ABOVE_BYTES / 1024 ** 2;

export const MEMORY_STRINGS = {
  en: {
    weightsLabel: 'Weights',
    weightsTitle: `How the weight matrices are kept in memory. f16 takes half the memory of f32; the arithmetic stays f32, so results differ only by the weights’ rounding. q8 quantizes the linear layers to 8-bit integers: about a quarter of the memory and faster, with results close to f32 but not equal. Auto: f16 when the f32 weights would take more than ${AUTO_MB} MB (read from config.json before the download). Changing it reloads the model.`,
    weightsAuto: 'auto',
    precisionNoteF16Stored: 'f16: this checkpoint is stored in f16, so its weights keep every digit: the attention is the same as with f32, in half the memory.',
    precisionNoteF16: 'f16: each weight rounded to 16 bits, in half the memory; the arithmetic stays f32, so the numbers differ from f32 only by that rounding.',
    precisionNoteQ8: 'q8: the linear layers’ weights rounded to 8-bit integers (one scale per row): about a quarter of the memory and faster; the attention is close to f32’s but not equal.',
    memoryInfo: '{precision} weights, {mb} MB',
    memoryTitle: 'The model holds {model} MB of WebAssembly memory ({precision} weights); its worker’s memory is {wasm} MB after loading, and a run adds its attention maps.',
    tooLargeHint: 'Choose f16 weights (beside the model list) to halve the memory it needs.',
    mapsInWorkerView: 'This view needs every head’s attention map at once, and this run’s {maps} MB of maps are too large to hold in the page: it is not offered at this size. The grid, the head view and the formula show the maps one head at a time.',
    mapsInWorkerFigure: 'Figure data holds every attention map, and this run’s {maps} MB of maps are too large to hold in the page: it is not offered at this size.',
    threadsInfo: '{n} threads',
    threadsOne: '1 thread',
    threadsTitle: 'Threads the model runs on: the matrix products and the heads are shared out, with the same results as one thread. More than one needs a cross-origin isolated page (npm start serves one).',
  },
  ko: {
    weightsLabel: '가중치',
    weightsTitle: `가중치 행렬을 메모리에 어떻게 둘지 정합니다. f16은 f32의 절반 메모리를 쓰고, 계산은 f32로 하므로 결과는 가중치 반올림만큼만 다릅니다. q8은 선형 층을 8비트 정수로 양자화합니다: 메모리는 약 4분의 1이고 더 빠르며, 결과는 f32와 가깝지만 같지는 않습니다. 자동: f32 가중치가 ${AUTO_MB} MB를 넘으면 f16 (내려받기 전에 config.json으로 판단). 바꾸면 모델을 다시 불러옵니다.`,
    weightsAuto: '자동',
    precisionNoteF16Stored: 'f16: 이 체크포인트는 f16으로 저장되어 있어 가중치의 자릿수가 그대로입니다. 어텐션은 f32와 같고 메모리는 절반입니다.',
    precisionNoteF16: 'f16: 가중치를 16비트로 반올림해 메모리는 절반입니다. 계산은 f32로 하므로 f32와의 차이는 그 반올림뿐입니다.',
    precisionNoteQ8: 'q8: 선형 층의 가중치를 8비트 정수로 반올림합니다(행마다 배율 하나). 메모리는 약 4분의 1이고 더 빠르며, 어텐션은 f32와 가깝지만 같지는 않습니다.',
    memoryInfo: '{precision} 가중치, {mb} MB',
    memoryTitle: '모델이 WebAssembly 메모리 {model} MB를 씁니다 ({precision} 가중치). 불러온 뒤 워커의 메모리는 {wasm} MB이고, 실행할 때마다 어텐션 맵만큼 더 씁니다.',
    tooLargeHint: '모델 목록 옆에서 f16 가중치를 고르면 필요한 메모리가 절반이 됩니다.',
    mapsInWorkerView: '이 보기는 모든 헤드의 어텐션 맵이 한꺼번에 필요한데, 이번 실행의 맵 {maps} MB는 페이지에 담기에 너무 큽니다. 이 크기에서는 제공하지 않습니다. 그리드·헤드 보기·수식은 맵을 헤드 하나씩 보여 줍니다.',
    mapsInWorkerFigure: '그림 데이터에는 모든 어텐션 맵이 들어가는데, 이번 실행의 맵 {maps} MB는 페이지에 담기에 너무 큽니다. 이 크기에서는 제공하지 않습니다.',
    threadsInfo: '스레드 {n}개',
    threadsOne: '스레드 1개',
    threadsTitle: '모델을 돌리는 스레드 수입니다. 행렬 곱과 헤드를 나눠 맡고, 결과는 스레드 하나일 때와 같습니다. 둘 이상은 교차 출처 격리된 페이지에서만 됩니다 (npm start가 그렇게 띄웁니다).',
  },
};
