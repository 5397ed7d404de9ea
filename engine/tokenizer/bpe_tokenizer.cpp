// The BpeTokenizer facade: added-token split (raw, then "normalized" — the same text, as there is
// no normalizer) → per segment: prefix space, GPT-2 split, BPE → trim_offsets → template.
// Loading from Hugging Face files is in bpe_files.cpp.
#include "tokenizer/bpe_tokenizer.h"

#include <algorithm>

#include "error.h"
#include "tokenizer/byte_level.h"

namespace attnscope::tok {
namespace {

std::u32string code_points(std::string_view utf8) {
  std::u32string out;
  for (const SpannedChar& c : decode_utf8(utf8)) out += c.cp;
  return out;
}

// The matched text (with any whitespace lstrip/rstrip absorbed) is the token's text, as in
// tokenizers; the label is the token's content.
Token added_token(const std::vector<SpannedChar>& chars, const TextSegment& seg, const AddedToken& token) {
  std::string text;
  int32_t start = chars[seg.begin].start, end = chars[seg.begin].end;
  for (size_t i = seg.begin; i < seg.end; ++i) {
    append_utf8(text, chars[i].cp);
    start = std::min(start, chars[i].start);
    end = std::max(end, chars[i].end);
  }
  return Token{std::move(text), token.id, start, end, token.content};
}

}  // namespace

void BpeTokenizer::finish_setup(const VocabMap& model_vocab, const std::vector<BpeMerge>& merges,
                                BpeOptions options) {
  if (model_vocab.empty()) throw Error("E_TOKENIZER", "the BPE vocabulary is empty");
  for (const auto& [token, id] : model_vocab) {
    if (id < 0 || id > 50'000'000) throw Error("E_TOKENIZER", "token '" + token + "' has an invalid id");
    if (static_cast<size_t>(id) >= model_tokens_.size()) model_tokens_.resize(static_cast<size_t>(id) + 1);
    model_tokens_[static_cast<size_t>(id)] = token;
  }
  model_ = BpeModel(model_vocab, merges, std::move(options));
  vocab_ = model_tokens_;
  for (const AddedToken& a : added_) {
    if (a.id < 0 || a.id > 50'000'000) {
      throw Error("E_TOKENIZER", "added token '" + a.content + "' has an invalid id " + std::to_string(a.id));
    }
    if (static_cast<size_t>(a.id) >= vocab_.size()) vocab_.resize(static_cast<size_t>(a.id) + 1);
    vocab_[static_cast<size_t>(a.id)] = a.content;
  }
  std::vector<std::u32string> raw(added_.size()), normalized(added_.size());
  for (size_t i = 0; i < added_.size(); ++i) {
    (added_[i].normalized ? normalized[i] : raw[i]) = code_points(added_[i].content);
  }
  raw_matcher_.build(added_, raw);
  normalized_matcher_.build(added_, normalized);
}

void BpeTokenizer::tokenize_segment(const std::vector<SpannedChar>& chars, size_t begin, size_t end,
                                    std::vector<Token>& out) const {
  // The prepended space takes the span of the segment's first character, as tokenizers'
  // NormalizedString::prepend aligns it.
  std::vector<SpannedChar> text;
  text.reserve(end - begin + 1);
  if (settings_.add_prefix_space && chars[begin].cp != ' ') {
    text.push_back(SpannedChar{' ', chars[begin].start, chars[begin].end});
  }
  text.insert(text.end(), chars.begin() + static_cast<std::ptrdiff_t>(begin),
              chars.begin() + static_cast<std::ptrdiff_t>(end));
  const std::vector<CharRange> pieces =
      settings_.use_regex ? split_gpt2_pattern(text, 0, text.size()) : std::vector<CharRange>{{0, text.size()}};
  std::string bytes;
  std::vector<std::pair<int32_t, int32_t>> byte_spans;  // each byte carries its character's span
  for (const CharRange& piece : pieces) {
    bytes.clear();
    byte_spans.clear();
    for (size_t i = piece.begin; i < piece.end; ++i) {
      const size_t before = bytes.size();
      append_utf8(bytes, text[i].cp);
      byte_spans.insert(byte_spans.end(), bytes.size() - before, {text[i].start, text[i].end});
    }
    for (const BpePiece& p : model_.tokenize(bytes)) {
      int32_t start = byte_spans[p.begin].first, stop = byte_spans[p.begin].second;
      for (uint32_t b = p.begin; b < p.end; ++b) {
        start = std::min(start, byte_spans[b].first);
        stop = std::max(stop, byte_spans[b].second);
      }
      out.push_back(Token{model_tokens_[static_cast<size_t>(p.id)], p.id, start, stop,
                          readable_bytes(std::string_view(bytes).substr(p.begin, p.end - p.begin))});
    }
  }
}

std::vector<Token> BpeTokenizer::tokenize_sequence(std::string_view text) const {
  const std::vector<SpannedChar> chars = decode_utf8(text);
  std::vector<Token> out;
  out.reserve(chars.size() / 3 + 4);
  std::vector<bool> prefixed;  // token i begins with a space add_prefix_space prepended
  auto mark_prefixed = [&](size_t first_new, size_t seg_begin) {
    prefixed.resize(out.size(), false);
    if (settings_.add_prefix_space && first_new < out.size() && chars[seg_begin].cp != ' ') prefixed[first_new] = true;
  };
  for (const TextSegment& seg : raw_matcher_.split(chars, 0, chars.size())) {
    if (seg.token >= 0) {
      out.push_back(added_token(chars, seg, added_[static_cast<size_t>(seg.token)]));
      continue;
    }
    for (const TextSegment& sub : normalized_matcher_.split(chars, seg.begin, seg.end)) {
      if (sub.token >= 0) {
        out.push_back(added_token(chars, sub, added_[static_cast<size_t>(sub.token)]));
      } else {
        const size_t first_new = out.size();
        tokenize_segment(chars, sub.begin, sub.end, out);
        mark_prefixed(first_new, sub.begin);
      }
    }
  }
  prefixed.resize(out.size(), false);
  if (settings_.trim_offsets) trim_byte_level_offsets(out, prefixed, settings_.trim_add_prefix_space, chars);
  return out;
}

Encoding BpeTokenizer::encode(std::string_view text, const std::optional<std::string_view>& pair,
                              int max_length) const {
  std::vector<Token> a = tokenize_sequence(text);
  std::optional<std::vector<Token>> b;
  if (pair) b = tokenize_sequence(*pair);
  Encoding out;
  post_processor_.apply(std::move(a), std::move(b), max_length, out);
  return out;
}

int32_t BpeTokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& a : added_) {
    if (a.content == token) return a.id;
  }
  auto it = model_.vocab().find(std::string(token));
  return it == model_.vocab().end() ? -1 : it->second;
}

const std::string& BpeTokenizer::id_to_token(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_.size()) {
    throw Error("E_INPUT", "token id " + std::to_string(id) + " is outside the vocabulary of " +
                               std::to_string(vocab_.size()));
  }
  return vocab_[static_cast<size_t>(id)];
}

std::string BpeTokenizer::token_text(int32_t id) const {
  const std::string& token = id_to_token(id);
  for (const AddedToken& a : added_) {
    if (a.id == id) return token;
  }
  std::string bytes;
  return unicode_to_bytes(token, bytes) ? readable_bytes(bytes) : token;
}

}  // namespace attnscope::tok
