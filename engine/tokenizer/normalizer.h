// Stage 1 of the BERT tokenizer: Hugging Face's BertNormalizer. Cleans the text (drops NUL,
// U+FFFD and control characters, turns whitespace into ' '), pads CJK ideographs with spaces,
// strips accents (NFD then drop Mn marks) and lowercases — in that order, as tokenizers' Rust
// implementation does. Every output character keeps the source span of the input character it
// came from. It does not split text; that is the pre-tokenizer's job.
#pragma once
#include <vector>

#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

struct NormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool strip_accents = true;  // already resolved: HF's "unset" means "same as lowercase"
  bool lowercase = true;
};

std::vector<SpannedChar> normalize_bert(const std::vector<SpannedChar>& text,
                                        const NormalizerOptions& options);
std::vector<SpannedChar> normalize_bert(const SpannedChar* begin, const SpannedChar* end,
                                        const NormalizerOptions& options);

// Canonical ordering of text[from..] (NFD's last step): each run of non-starters stably sorted by
// combining class.
void order_non_starters(std::vector<SpannedChar>& text, size_t from);

// Canonical composition of decomposed, canonically ordered text (NFC's second half): each
// character joins the last starter when nothing between blocks it. Spans are realigned as
// tokenizers does (see normalizer.cpp).
std::vector<SpannedChar> compose(const std::vector<SpannedChar>& text);

// The character classes BertNormalizer uses (exposed for the pre-tokenizer and the tests).
bool is_bert_control(char32_t cp);     // Cc/Cf/Co/Cs except \t \n \r (unassigned kept)
bool is_bert_whitespace(char32_t cp);  // \t \n \r or White_Space
bool is_cjk_ideograph(char32_t cp);    // the CJK Unified/Compatibility blocks BERT pads

}  // namespace attnscope::tok
