// What each AttnScopeError code (js/formats/errors.js) means, in the UI's languages: the page's error
// messages say this in the reader's language and keep the engine's own (English) message, which
// names the file, URL or tensor, as secondary detail. Merged into i18n.js's tables.

export const ERROR_STRINGS = {
  en: {
    err_E_NETWORK: 'the server could not be reached, or it failed',
    err_E_NOT_FOUND: 'a file or model was not found (or needs a login)',
    err_E_CONFIG: 'config.json is unusable, or the model is not a BERT- or GPT-2-family model',
    err_E_TOO_LARGE: 'the model does not fit in this tab’s WebAssembly memory (4 GB at most)',
    err_E_TOKENIZER: 'the tokenizer files (vocab.txt, tokenizer.json) are unusable',
    err_E_SAFETENSORS: 'model.safetensors is malformed',
    err_E_WEIGHTS: 'a weight tensor is missing or has the wrong shape',
    err_E_INPUT: 'the input cannot be run (too long, or not valid for this model)',
    err_E_ABORTED: 'it was cancelled',
    err_E_DISPOSED: 'the model was closed while it worked',
    err_E_INTERNAL: 'an internal error (a bug — please report it)',
    errorDetail: 'Details',
  },
  ko: {
    err_E_NETWORK: '서버에 연결할 수 없거나 서버가 실패했습니다',
    err_E_NOT_FOUND: '파일이나 모델을 찾을 수 없습니다 (또는 로그인이 필요합니다)',
    err_E_CONFIG: 'config.json을 쓸 수 없거나 BERT·GPT-2 계열 모델이 아닙니다',
    err_E_TOO_LARGE: '모델이 이 탭의 WebAssembly 메모리(최대 4 GB)에 들어가지 않습니다',
    err_E_TOKENIZER: '토크나이저 파일(vocab.txt, tokenizer.json)을 쓸 수 없습니다',
    err_E_SAFETENSORS: 'model.safetensors 파일이 잘못되었습니다',
    err_E_WEIGHTS: '가중치 텐서가 없거나 모양이 맞지 않습니다',
    err_E_INPUT: '이 입력은 실행할 수 없습니다 (너무 길거나 이 모델에 맞지 않음)',
    err_E_ABORTED: '취소되었습니다',
    err_E_DISPOSED: '작업 중에 모델이 닫혔습니다',
    err_E_INTERNAL: '내부 오류입니다 (버그이니 알려 주세요)',
    errorDetail: '자세히',
  },
};
