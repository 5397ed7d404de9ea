// The BERT tokenizer, stage by stage as Hugging Face `tokenizers` builds it:
// added/special tokens split out → BertNormalizer → BertPreTokenizer → WordPiece →
// TemplateProcessing ([CLS] A [SEP] (B [SEP])). Output ids and tokens are identical to Hugging
// Face's for the same vocabulary and settings; offsets are UTF-16 code-unit spans in the original
// input (JavaScript string indices). Invalid UTF-8 input is replaced by U+FFFD per maximal
// invalid subpart (which the normalizer then drops, as HF drops U+FFFD).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/added_tokens.h"
#include "tokenizer/encoding.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/post_processor.h"
#include "tokenizer/wordpiece.h"

namespace attnscope::tok {

struct TokenizerSettings {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<bool> strip_accents;  // unset: follows lowercase (HF semantics)
  bool lowercase = true;
  std::string unk_token = "[UNK]", cls_token = "[CLS]", sep_token = "[SEP]";
  std::string pad_token = "[PAD]", mask_token = "[MASK]";
  std::string continuing_subword_prefix = "##";
  int max_input_chars_per_word = 100;
};

class BertTokenizer {
 public:
  // From vocab.txt text (one token per line, id = line number) and settings.
  static BertTokenizer from_vocab(std::string_view vocab_txt, const TokenizerSettings& settings);

  // From the files a Hugging Face model folder ships; any may be empty. tokenizer.json wins when
  // given (BertNormalizer/BertPreTokenizer/WordPiece/TemplateProcessing); otherwise vocab.txt with
  // settings from tokenizer_config.json (do_lower_case, strip_accents, tokenize_chinese_chars,
  // special tokens). Throws Error("E_TOKENIZER", ...) for anything it cannot reproduce exactly.
  static BertTokenizer from_files(std::string_view vocab_txt, std::string_view tokenizer_json,
                                  std::string_view tokenizer_config_json);

  // max_length 0 = no truncation; otherwise HF "longest_first" truncation, counted in
  // Encoding::num_truncated.
  Encoding encode(std::string_view text, const std::optional<std::string_view>& pair = std::nullopt,
                  int max_length = 0) const;

  int32_t token_to_id(std::string_view token) const;  // -1 when absent
  const std::string& id_to_token(int32_t id) const;    // throws Error("E_INPUT") when out of range
  size_t vocab_size() const { return vocab_.size(); }
  const TokenizerSettings& settings() const { return settings_; }
  static const char* unicode_version();  // of the generated tables, e.g. "15.0.0"

 private:
  // Checks the special tokens and builds the matchers; called once the members are filled.
  void finish_setup();
  std::vector<Token> tokenize_sequence(std::string_view text) const;

  TokenizerSettings settings_;
  std::vector<std::string> vocab_;                 // id -> token (WordPiece vocab + added tokens)
  std::unordered_map<std::string, int32_t> ids_;   // the WordPiece model's vocab
  NormalizerOptions normalizer_;
  WordPieceConfig wordpiece_;
  PostProcessor post_processor_;
  std::vector<AddedToken> added_;
  AddedTokenMatcher raw_matcher_;         // added tokens with normalized = false
  AddedTokenMatcher normalized_matcher_;  // added tokens with normalized = true
};

}  // namespace attnscope::tok
