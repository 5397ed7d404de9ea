// The BertTokenizer facade: builds the stages from vocab.txt + settings and runs them in order —
// added-token split (raw) → BertNormalizer → added-token split (normalized) → BertPreTokenizer →
// WordPiece → truncation + template. Loading from Hugging Face files is in tokenizer_files.cpp.
#include "tokenizer/bert_tokenizer.h"

#include <algorithm>

#include "error.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {
namespace {

// vocab.txt: one token per line, id = line number; "\n" or "\r\n" line ends. A repeated token
// keeps its last id for lookup (as transformers' load_vocab and tokenizers' WordPiece do).
void parse_vocab_txt(std::string_view text, std::vector<std::string>& vocab,
                     std::unordered_map<std::string, int32_t>& ids) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (vocab.size() >= static_cast<size_t>(INT32_MAX)) throw Error("E_TOKENIZER", "vocab.txt is too large");
    ids[std::string(line)] = static_cast<int32_t>(vocab.size());
    vocab.emplace_back(line);
    pos = eol + 1;
  }
  if (vocab.empty()) throw Error("E_TOKENIZER", "vocab.txt is empty");
}

std::u32string code_points(const std::vector<SpannedChar>& chars) {
  std::u32string out;
  for (const SpannedChar& c : chars) out += c.cp;
  return out;
}

// The token's text is the matched text itself, as in tokenizers: the content for a raw match,
// its normalized form for a normalized one, plus any whitespace lstrip/rstrip absorbed.
Token segment_token(const std::vector<SpannedChar>& chars, const TextSegment& seg,
                    const AddedToken& token) {
  std::string text;
  int32_t start = chars[seg.begin].start, end = chars[seg.begin].end;
  for (size_t i = seg.begin; i < seg.end; ++i) {
    append_utf8(text, chars[i].cp);
    start = std::min(start, chars[i].start);
    end = std::max(end, chars[i].end);
  }
  return Token{std::move(text), token.id, start, end};
}

}  // namespace

BertTokenizer BertTokenizer::from_vocab(std::string_view vocab_txt, const TokenizerSettings& settings) {
  BertTokenizer t;
  t.settings_ = settings;
  parse_vocab_txt(vocab_txt, t.vocab_, t.ids_);
  t.normalizer_ = NormalizerOptions{settings.clean_text, settings.handle_chinese_chars,
                                    settings.strip_accents.value_or(settings.lowercase),
                                    settings.lowercase};
  t.wordpiece_.unk_token = settings.unk_token;
  t.wordpiece_.continuing_subword_prefix = settings.continuing_subword_prefix;
  t.wordpiece_.max_input_chars_per_word = settings.max_input_chars_per_word;
  // The special tokens the vocabulary has become added tokens (special, matched unnormalized),
  // as transformers does when it converts a BertTokenizer to a fast one.
  for (const std::string* name : {&settings.unk_token, &settings.sep_token, &settings.pad_token,
                                  &settings.cls_token, &settings.mask_token}) {
    auto it = t.ids_.find(*name);
    if (it == t.ids_.end() || name->empty()) continue;
    bool seen = false;
    for (const AddedToken& a : t.added_) seen |= a.content == *name;
    if (!seen) t.added_.push_back(AddedToken{*name, it->second, false, false, false, false, true});
  }
  for (const std::string* name : {&settings.cls_token, &settings.sep_token}) {
    if (!t.ids_.count(*name)) {
      throw Error("E_TOKENIZER", "special token '" + *name + "' is not in the vocabulary");
    }
  }
  t.post_processor_ = PostProcessor::bert(settings.cls_token, t.ids_.at(settings.cls_token),
                                          settings.sep_token, t.ids_.at(settings.sep_token));
  t.finish_setup();
  return t;
}

void BertTokenizer::finish_setup() {
  auto unk = ids_.find(wordpiece_.unk_token);
  if (unk == ids_.end()) {
    throw Error("E_TOKENIZER", "unk_token '" + wordpiece_.unk_token + "' is not in the vocabulary");
  }
  wordpiece_.unk_id = unk->second;
  wordpiece_.longest_entry_chars = longest_entry_chars(ids_);
  if (wordpiece_.max_input_chars_per_word < 0) {
    throw Error("E_TOKENIZER", "max_input_chars_per_word must not be negative");
  }
  // Added tokens may carry ids past the model's vocabulary: id_to_token must know them too.
  for (const AddedToken& a : added_) {
    if (a.id < 0 || a.id > 50'000'000) {
      throw Error("E_TOKENIZER", "added token '" + a.content + "' has an invalid id " + std::to_string(a.id));
    }
    if (static_cast<size_t>(a.id) >= vocab_.size()) vocab_.resize(static_cast<size_t>(a.id) + 1);
    vocab_[static_cast<size_t>(a.id)] = a.content;
  }
  // Each token goes in one matcher; an empty content never matches.
  std::vector<std::u32string> raw(added_.size()), normalized(added_.size());
  for (size_t i = 0; i < added_.size(); ++i) {
    const std::vector<SpannedChar> content = decode_utf8(added_[i].content);
    if (added_[i].normalized) {
      normalized[i] = code_points(normalize_bert(content, normalizer_));
    } else {
      raw[i] = code_points(content);
    }
  }
  raw_matcher_.build(added_, raw);
  normalized_matcher_.build(added_, normalized);
}

std::vector<Token> BertTokenizer::tokenize_sequence(std::string_view text) const {
  const std::vector<SpannedChar> chars = decode_utf8(text);
  std::vector<Token> out;
  out.reserve(chars.size() / 3 + 4);
  for (const TextSegment& seg : raw_matcher_.split(chars, 0, chars.size())) {
    if (seg.token >= 0) {
      out.push_back(segment_token(chars, seg, added_[static_cast<size_t>(seg.token)]));
      continue;
    }
    const std::vector<SpannedChar> norm =
        normalize_bert(chars.data() + seg.begin, chars.data() + seg.end, normalizer_);
    for (const TextSegment& sub : normalized_matcher_.split(norm, 0, norm.size())) {
      if (sub.token >= 0) {
        out.push_back(segment_token(norm, sub, added_[static_cast<size_t>(sub.token)]));
        continue;
      }
      for (const WordRange& word : pre_tokenize_bert(norm, sub.begin, sub.end)) {
        wordpiece_tokenize(norm, word, ids_, wordpiece_, out);
      }
    }
  }
  return out;
}

Encoding BertTokenizer::encode(std::string_view text, const std::optional<std::string_view>& pair,
                               int max_length) const {
  std::vector<Token> a = tokenize_sequence(text);
  std::optional<std::vector<Token>> b;
  if (pair) b = tokenize_sequence(*pair);
  Encoding out;
  post_processor_.apply(std::move(a), std::move(b), max_length, out);
  return out;
}

int32_t BertTokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& a : added_) {
    if (a.content == token) return a.id;
  }
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

const std::string& BertTokenizer::id_to_token(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_.size()) {
    throw Error("E_INPUT", "token id " + std::to_string(id) + " is outside the vocabulary of " +
                               std::to_string(vocab_.size()));
  }
  return vocab_[static_cast<size_t>(id)];
}

const char* BertTokenizer::unicode_version() { return tok::unicode_version(); }

}  // namespace attnscope::tok
