// The independent oracle for tokenizer parity: @huggingface/tokenizers (tokenizers.js), built
// from a tokenizer.json written the way transformers' BertConverter converts a BertTokenizer
// (vocab.txt + do_lower_case / strip_accents / tokenize_chinese_chars). Also HF's longest_first
// truncation, which tokenizers.js does not implement, re-derived from tokenizers' Rust source.
import { Tokenizer } from '@huggingface/tokenizers';

export const SPECIALS = { unk: '[UNK]', sep: '[SEP]', pad: '[PAD]', cls: '[CLS]', mask: '[MASK]' };

// vocab.txt → token → id, a repeated token keeping its last line (transformers' load_vocab).
export function parseVocabTxt(text) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const vocab = {};
  lines.forEach((line, id) => { vocab[line.replace(/\r$/, '')] = id; });
  return vocab;
}

// tokenizer.json as BertConverter + PreTrainedTokenizerFast write it. settings:
// { lowercase, strip_accents (null|bool), handle_chinese_chars }.
export function bertTokenizerJson(vocabTxt, settings) {
  const vocab = parseVocabTxt(vocabTxt);
  const need = (t) => {
    if (!(t in vocab)) throw new Error(`special token ${t} missing from the vocabulary`);
    return vocab[t];
  };
  const special = (t) => ({ id: t, type_id: 0 });
  const added = ['unk', 'sep', 'pad', 'cls', 'mask'].map((k) => SPECIALS[k]).filter((t) => t in vocab)
    .map((t) => ({ id: vocab[t], content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }))
    .sort((a, b) => a.id - b.id);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: {
      type: 'BertNormalizer', clean_text: true, handle_chinese_chars: settings.handle_chinese_chars,
      strip_accents: settings.strip_accents, lowercase: settings.lowercase,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: special(SPECIALS.cls) }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: special(SPECIALS.sep) }],
      pair: [{ SpecialToken: special(SPECIALS.cls) }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: special(SPECIALS.sep) },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: SPECIALS.sep, type_id: 1 } }],
      special_tokens: {
        [SPECIALS.cls]: { id: SPECIALS.cls, ids: [need(SPECIALS.cls)], tokens: [SPECIALS.cls] },
        [SPECIALS.sep]: { id: SPECIALS.sep, ids: [need(SPECIALS.sep)], tokens: [SPECIALS.sep] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: SPECIALS.unk, continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

// Where tokenizers.js is known to differ from Hugging Face's reference (Rust) tokenizers, the
// oracle's input is rewritten so that tokenizers.js computes the Rust result. Each rewrite is a
// no-op unless its trigger occurs; callers count how often they fired.
// tokenizers' (Rust) ranges: its Extension E range starts at U+2B920, not Google BERT's U+2B820.
const ASTRAL_CJK = /[\u{20000}-\u{2A6DF}\u{2A700}-\u{2B73F}\u{2B740}-\u{2B81F}\u{2B920}-\u{2CEAF}\u{2F800}-\u{2FA1F}]/gu;
export const ORACLE_ADAPTERS = [
  {
    // tokenizers.js pads CJK ideographs per UTF-16 unit, so it misses supplementary-plane ones.
    name: 'pad supplementary CJK ideographs',
    applies: (s) => s.handle_chinese_chars,
    rewrite: (t) => t.replace(ASTRAL_CJK, (c) => ` ${c} `),
  },
  {
    // String.prototype.toLowerCase applies Final_Sigma (Σ → ς at a word end); Rust's per-char
    // char::to_lowercase always gives σ.
    name: 'capital sigma lowercases to σ',
    applies: (s) => s.lowercase,
    rewrite: (t) => t.replace(/\u03A3/g, '\u03C3'),
  },
];

export function makeOracle(vocabTxt, settings) {
  const json = bertTokenizerJson(vocabTxt, settings);
  const tokenizer = new Tokenizer(json, {});
  const adapters = ORACLE_ADAPTERS.filter((a) => a.applies(settings));
  const fired = new Map();
  const adapt = (text) => {
    let out = text;
    for (const a of adapters) {
      const next = a.rewrite(out);
      if (next !== out) fired.set(a.name, (fired.get(a.name) ?? 0) + 1);
      out = next;
    }
    return out;
  };
  const ids = (tokens) => tokens.map((t) => tokenizer.token_to_id(t) ?? tokenizer.token_to_id(SPECIALS.unk));
  const sequence = (text) => tokenizer.tokenize(adapt(text), { add_special_tokens: false });
  // Template + truncation assembled here so that an empty pair stays a pair (tokenizers.js treats
  // text_pair "" as no pair; Rust does not).
  function encode(text, pair = null, maxLength = 0) {
    let a = sequence(text);
    let b = pair === null ? null : sequence(pair);
    let numTruncated = 0;
    if (maxLength > 0) {
      const budget = maxLength - (b === null ? 2 : 3);
      if (budget < 0) return { error: 'E_INPUT' };
      const before = a.length + (b?.length ?? 0);
      if (b === null) a = a.slice(0, budget);
      else {
        const [na, nb] = longestFirstLengths(a.length, b.length, budget);
        a = a.slice(0, na); b = b.slice(0, nb);
      }
      numTruncated = before - a.length - (b?.length ?? 0);
    }
    const tokens = [SPECIALS.cls, ...a, SPECIALS.sep, ...(b === null ? [] : [...b, SPECIALS.sep])];
    const typeIds = tokens.map((_, i) => (i < a.length + 2 ? 0 : 1));
    return { tokens, ids: ids(tokens), token_type_ids: typeIds, num_truncated: numTruncated };
  }
  // The oracle's own encode() with its own template, for the cases where its semantics match.
  function encodeDirect(text, pair = null) {
    const r = tokenizer.encode(adapt(text), { text_pair: pair === null ? null : adapt(pair), return_token_type_ids: true });
    return { tokens: r.tokens, ids: r.ids, token_type_ids: r.token_type_ids };
  }
  return { encode, encodeDirect, fired, tokenizerJson: json };
}

// tokenizers' truncate_encodings, LongestFirst with a pair (tokenizers/src/utils/truncation.rs).
export function longestFirstLengths(n1, n2, budget) {
  if (n1 + n2 <= budget) return [n1, n2];
  const swap = n1 > n2;
  let [s, l] = swap ? [n2, n1] : [n1, n2];
  l = s > budget ? s : Math.max(s, budget - s);
  if (s + l > budget) { s = Math.floor(budget / 2); l = s + (budget % 2); }
  return swap ? [l, s] : [s, l];
}
