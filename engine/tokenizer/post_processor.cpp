// Truncation (longest_first, as tokenizers' truncate_encodings) and template application.
#include "tokenizer/post_processor.h"

#include <algorithm>
#include <tuple>

#include "error.h"
#include "tokenizer/encoding.h"
#include "tokenizer/json_fields.h"

namespace attnscope::tok {

using namespace json_fields;

namespace {

void parse_member(const json& post, PostProcessor& p, bool& has_template) {
  const std::string type = type_name(post, "post_processor");
  auto pair = [&](const char* key) {
    const json v = post.value(key, json());
    if (!v.is_array() || v.size() != 2 || !v[0].is_string()) fail("post_processor " + type + "." + key + " must be [token, id]");
    return parse_token_pair(post, key);
  };
  if (type != "ByteLevel") {
    if (has_template) fail("post_processor Sequence with two templates is not supported");
    has_template = true;
  }
  if (type == "ByteLevel") {
    p.trim_offsets = get_bool(post, "trim_offsets", true, "post_processor");
    p.trim_add_prefix_space = get_bool(post, "add_prefix_space", true, "post_processor");
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    const auto [cls, cls_id] = pair("cls");
    const auto [sep, sep_id] = pair("sep");
    const bool roberta = type == "RobertaProcessing";
    const PostProcessor fixed = roberta ? PostProcessor::roberta(cls, cls_id, sep, sep_id)
                                        : PostProcessor::bert(cls, cls_id, sep, sep_id);
    p.single = fixed.single;
    p.pair = fixed.pair;
    if (roberta) {  // RobertaProcessing trims offsets as ByteLevel does
      p.trim_offsets = get_bool(post, "trim_offsets", true, "post_processor");
      p.trim_add_prefix_space = get_bool(post, "add_prefix_space", true, "post_processor");
    }
  } else if (type == "TemplateProcessing") {
    p.single = parse_template(post, "single", false);
    p.pair = parse_template(post, "pair", true);
  } else {
    fail("post_processor '" + type + "' is not supported: AttnScope reproduces TemplateProcessing, BertProcessing, "
         "RobertaProcessing, ByteLevel and a Sequence of them");
  }
}

}  // namespace

PostProcessor PostProcessor::from_json(const json& section) {
  PostProcessor p;
  if (section.is_null()) return p;
  bool has_template = false;
  if (type_name(section, "post_processor") == "Sequence") {
    const json& list = member(section, "processors");
    if (!list.is_array()) fail("post_processor.processors must be an array");
    for (const json& member : list) {
      if (type_name(member, "post_processor") == "Sequence") fail("nested post_processor Sequence is not supported");
      parse_member(member, p, has_template);
    }
    return p;
  }
  parse_member(section, p, has_template);
  return p;
}

PostProcessor PostProcessor::bert(const std::string& cls, int32_t cls_id, const std::string& sep,
                                  int32_t sep_id) {
  PostProcessor p;
  const TemplatePiece c{-1, {{cls, cls_id}}, 0}, s0{-1, {{sep, sep_id}}, 0}, s1{-1, {{sep, sep_id}}, 1};
  p.single = {c, TemplatePiece{0, {}, 0}, s0};
  p.pair = {c, TemplatePiece{0, {}, 0}, s0, TemplatePiece{1, {}, 1}, s1};
  return p;
}

PostProcessor PostProcessor::roberta(const std::string& cls, int32_t cls_id, const std::string& sep,
                                     int32_t sep_id) {
  PostProcessor p;
  const TemplatePiece c{-1, {{cls, cls_id}}, 0}, s{-1, {{sep, sep_id}}, 0};
  p.single = {c, TemplatePiece{0, {}, 0}, s};
  p.pair = {c, TemplatePiece{0, {}, 0}, s, s, TemplatePiece{1, {}, 0}, s};
  return p;
}

PostProcessor PostProcessor::none() { return PostProcessor{}; }

int PostProcessor::added_tokens(bool is_pair) const {
  int n = 0;
  for (const TemplatePiece& piece : is_pair ? pair : single) n += static_cast<int>(piece.special.size());
  return n;
}

std::pair<size_t, size_t> longest_first_lengths(size_t n_a, size_t n_b, size_t budget) {
  if (n_a + n_b <= budget) return {n_a, n_b};
  const bool swap = n_a > n_b;
  size_t n1 = swap ? n_b : n_a, n2 = swap ? n_a : n_b;  // n1 is the shorter
  n2 = n1 > budget ? n1 : std::max(n1, budget - n1);
  if (n1 + n2 > budget) {
    n1 = budget / 2;
    n2 = n1 + budget % 2;
  }
  return swap ? std::pair{n2, n1} : std::pair{n1, n2};
}

void PostProcessor::check_max_length(int max_length, bool is_pair) const {
  if (max_length < 0) {
    throw Error("E_INPUT", "max_length must be 0 (no truncation) or positive, got " +
                               std::to_string(max_length));
  }
  const int added = added_tokens(is_pair);
  if (max_length > 0 && max_length < added) {
    throw Error("E_INPUT", "max_length " + std::to_string(max_length) + " cannot hold the " +
                               std::to_string(added) + " special tokens of a " +
                               (is_pair ? "pair" : "single sequence"));
  }
}

void PostProcessor::apply(std::vector<Token> a, std::optional<std::vector<Token>> b, int max_length,
                          Encoding& out) const {
  const auto whole = [](std::vector<Token> tokens) {
    const size_t n = tokens.size();
    return SequenceTokens{std::move(tokens), n};
  };
  std::optional<SequenceTokens> b_whole;
  if (b) b_whole = whole(std::move(*b));
  apply(whole(std::move(a)), std::move(b_whole), max_length, out);
}

void PostProcessor::apply(SequenceTokens a_seq, std::optional<SequenceTokens> b_seq, int max_length,
                          Encoding& out) const {
  const bool is_pair = b_seq.has_value();
  check_max_length(max_length, is_pair);
  out = Encoding{};
  std::vector<Token>& a = a_seq.kept;
  std::vector<Token>* b = is_pair ? &b_seq->kept : nullptr;
  const size_t n_a = a_seq.total, n_b = is_pair ? b_seq->total : 0;
  size_t keep_a = n_a, keep_b = n_b;
  if (max_length > 0) {
    const size_t budget = static_cast<size_t>(max_length - added_tokens(is_pair));
    if (is_pair) std::tie(keep_a, keep_b) = longest_first_lengths(n_a, n_b, budget);
    else keep_a = std::min(n_a, budget);
    keep_a = std::min(keep_a, n_a);
    keep_b = std::min(keep_b, n_b);
    out.num_truncated = static_cast<int32_t>(n_a + n_b - keep_a - keep_b);
  }
  if (a.size() < keep_a || (b && b->size() < keep_b)) {
    throw Error("E_INTERNAL", "the tokenizer kept fewer tokens than truncation keeps");
  }
  a.resize(keep_a, Token{});
  if (b) b->resize(keep_b, Token{});
  for (const TemplatePiece& piece : is_pair ? pair : single) {
    if (piece.sequence >= 0) {
      const std::vector<Token>& seq = piece.sequence == 0 ? a : *b;
      for (const Token& t : seq) {
        out.tokens.push_back(t.text);
        out.token_texts.push_back(t.readable.empty() ? t.text : t.readable);
        out.ids.push_back(t.id);
        out.type_ids.push_back(piece.type_id);
        out.offsets.emplace_back(t.start, t.end);
        out.special_tokens_mask.push_back(0);
      }
    } else {
      for (const auto& [token, id] : piece.special) {
        out.tokens.push_back(token);
        out.token_texts.push_back(token);
        out.ids.push_back(id);
        out.type_ids.push_back(piece.type_id);
        out.offsets.emplace_back(0, 0);
        out.special_tokens_mask.push_back(1);
      }
    }
  }
}

}  // namespace attnscope::tok
