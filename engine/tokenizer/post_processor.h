// The post-processor stage, read from tokenizer.json's "post_processor" section: truncation and
// Hugging Face's TemplateProcessing. Truncates the sequences to max_length (tokenizers'
// "longest_first", counting the template's special tokens) and wraps them as the template says —
// for BERT `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]` with type ids 0/1. BertProcessing and
// RobertaProcessing are templates too, converted when loading; ByteLevel (and RobertaProcessing)
// also ask for byte-level offset trimming (byte_level.h), which the tokenizer applies per sequence;
// a Sequence of them is read as one.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/token.h"

namespace attnscope::tok {

struct Encoding;  // encoding.h

struct TemplatePiece {
  int sequence = -1;  // 0 = $A, 1 = $B, -1 = special tokens below
  std::vector<std::pair<std::string, int32_t>> special;  // (token, id), usually one
  int32_t type_id = 0;
};

struct PostProcessor {
  std::vector<TemplatePiece> single{TemplatePiece{0, {}, 0}};  // default: no special tokens
  std::vector<TemplatePiece> pair{TemplatePiece{0, {}, 0}, TemplatePiece{1, {}, 1}};
  bool trim_offsets = false;           // ByteLevel/RobertaProcessing trim_offsets
  bool trim_add_prefix_space = false;  // their add_prefix_space (which leading space is not trimmed)

  // The "post_processor" section: TemplateProcessing, BertProcessing, RobertaProcessing,
  // ByteLevel, or a Sequence of ByteLevel and at most one of the others; null means none.
  static PostProcessor from_json(const nlohmann::json& section);

  // [CLS] A [SEP] (B [SEP]) with type ids 0/1.
  static PostProcessor bert(const std::string& cls, int32_t cls_id, const std::string& sep,
                            int32_t sep_id);

  // RobertaProcessing: <s> A </s> and <s> A </s></s> B </s>, every type id 0.
  static PostProcessor roberta(const std::string& cls, int32_t cls_id, const std::string& sep,
                               int32_t sep_id);
  // No special tokens (ByteLevel, or no post-processor): A, and A B with type ids 0/1.
  static PostProcessor none();

  // Special tokens the template adds (2 for BERT single, 3 for pair).
  int added_tokens(bool is_pair) const;

  // Truncates (max_length 0 = never) and applies the template. Truncation counts each
  // sequence's total; its kept tokens must hold at least what truncation keeps. Throws
  // Error("E_INPUT") when max_length is negative or cannot even hold the special tokens.
  void apply(SequenceTokens a, std::optional<SequenceTokens> b, int max_length, Encoding& out) const;
  // The same for sequences kept whole.
  void apply(std::vector<Token> a, std::optional<std::vector<Token>> b, int max_length,
             Encoding& out) const;
  // The check apply makes first, for callers that would rather fail before tokenizing.
  void check_max_length(int max_length, bool is_pair) const;
};

// tokenizers' longest_first for a pair: the shorter sequence keeps its length if the longer can
// take the rest, otherwise both get half the budget (the second one the odd token). Returns the
// kept lengths {n_a, n_b}.
std::pair<size_t, size_t> longest_first_lengths(size_t n_a, size_t n_b, size_t budget);

}  // namespace attnscope::tok
