// The byte-level BPE tokenizer (GPT-2, RoBERTa, BART, ...), stage by stage as Hugging Face
// `tokenizers` builds it: added/special tokens split out → ByteLevel pre-tokenizer (GPT-2's split
// pattern, optional prefix space, bytes mapped to printable characters) → BPE merges →
// truncation + post-processor (ByteLevel, RobertaProcessing or TemplateProcessing, with
// trim_offsets). Ids and tokens are identical to Hugging Face's; offsets are UTF-16 spans of the
// input, a token that ends inside a multi-byte character spanning the whole character.
// Invalid UTF-8 is replaced by U+FFFD per maximal invalid subpart — the string JavaScript's
// TextDecoder builds — and U+FFFD is then tokenized like any character (bytes EF BF BD), which is
// what Hugging Face does with that JavaScript string. No normalizer is supported (GPT-2 and
// RoBERTa have none).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe.h"
#include "tokenizer/encoding.h"
#include "tokenizer/post_processor.h"

namespace attnscope::tok {

struct BpeSettings {
  bool add_prefix_space = false;  // pre-tokenizer: a space before each text segment not starting with one
  bool use_regex = true;          // pre-tokenizer: split with GPT-2's pattern (else one piece per segment)
  bool trim_offsets = false;      // post-processor: offsets leave out leading/trailing spaces
  bool trim_add_prefix_space = false;  // the post-processor's own add_prefix_space (for trimming)
  // Names of the special tokens the files declare ("" when absent): for callers that look
  // for the mask or padding token.
  std::string bos_token, eos_token, unk_token, sep_token, cls_token, pad_token, mask_token;
};

class BpeTokenizer {
 public:
  // From tokenizer.json (model.type "BPE", ByteLevel pre-tokenizer) or, when it is empty, from
  // vocab.json + merges.txt with tokenizer_config.json (GPT2Tokenizer or RobertaTokenizer).
  // Throws Error("E_TOKENIZER", ...) naming anything it would not reproduce exactly.
  static BpeTokenizer from_files(std::string_view vocab_json, std::string_view merges_txt,
                                 std::string_view tokenizer_json, std::string_view tokenizer_config_json);

  // max_length 0 = no truncation; otherwise HF "longest_first", counted in num_truncated.
  Encoding encode(std::string_view text, const std::optional<std::string_view>& pair = std::nullopt,
                  int max_length = 0) const;

  int32_t token_to_id(std::string_view token) const;  // -1 when absent
  const std::string& id_to_token(int32_t id) const;    // throws Error("E_INPUT") when out of range
  std::string token_text(int32_t id) const;            // readable form of a vocabulary entry
  size_t vocab_size() const { return vocab_.size(); }
  const BpeSettings& settings() const { return settings_; }

 private:
  void finish_setup(const VocabMap& model_vocab, const std::vector<BpeMerge>& merges, BpeOptions options);
  std::vector<Token> tokenize_sequence(std::string_view text) const;
  void tokenize_segment(const std::vector<SpannedChar>& chars, size_t begin, size_t end,
                        std::vector<Token>& out) const;

  BpeSettings settings_;
  BpeModel model_;
  std::vector<std::string> vocab_;        // id -> token (model vocabulary + added tokens)
  std::vector<std::string> model_tokens_; // id -> token of the model vocabulary alone
  PostProcessor post_processor_;
  std::vector<AddedToken> added_;
  AddedTokenMatcher raw_matcher_;         // added tokens with normalized = false
  AddedTokenMatcher normalized_matcher_;  // normalized = true (no normalizer: the same text, second pass)
};

}  // namespace attnscope::tok
