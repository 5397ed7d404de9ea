// Tokenizer: the one loop over the stages (tokenizers' encode_single_sequence), lookups, decode,
// and the setup every builder ends with. The builders are in tokenizer_json.cpp (tokenizer.json)
// and legacy_files.cpp (vocab.txt, vocab.json + merges.txt).
#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "build_features.h"
#include "error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/space_cuts.h"
#include "tokenizer/unicode_tables.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {
namespace {

std::u32string code_points(const std::vector<SpannedChar>& chars) {
  std::u32string out;
  for (const SpannedChar& c : chars) out += c.cp;
  return out;
}

// The token's text is the matched text itself, as in tokenizers: the content for a raw match,
// its normalized form for a normalized one, plus any whitespace lstrip/rstrip absorbed. Its label
// is the token's content.
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

// Marian's .spm files come only with an encoder–decoder, which the core wasm build leaves out
// (with the SentencePiece reader, then unused).
Tokenizer Tokenizer::marian_files(const TokenizerFiles& f, bool target) {
  if constexpr (!kBuildHasSeq2Seq) throw_not_in_build("Marian's SentencePiece files (source.spm, target.spm)");
  return from_marian_files(f, target);
}

Tokenizer Tokenizer::from_files(const TokenizerFiles& f) {
  if (!f.tokenizer_json.empty()) return from_tokenizer_json(f.tokenizer_json, f.tokenizer_config_json);
  if (!f.source_spm.empty()) return marian_files(f, false);
  if (!f.vocab_txt.empty()) return from_vocab_txt_files(f.vocab_txt, f.tokenizer_config_json);
  if (!f.vocab_json.empty()) return from_vocab_json(f.vocab_json, f.merges_txt, f.tokenizer_config_json);
  throw Error("E_TOKENIZER", "no tokenizer files: need tokenizer.json, vocab.txt, vocab.json + merges.txt, or "
                             "source.spm + target.spm + vocab.json");
}

std::optional<Tokenizer> Tokenizer::target_from_files(const TokenizerFiles& f) {
  if (!f.tokenizer_json.empty() || f.source_spm.empty()) return std::nullopt;
  return marian_files(f, true);
}

void Tokenizer::finish_setup() {
  lay_out_vocabulary();
  build_added_token_matchers();
  name_special_tokens();
  space_cuts_ = stages_keep_space_cuts();
}

bool Tokenizer::stages_keep_space_cuts() const {
  if (language_codes_ || !normalizer_.keeps_space_cuts() || !pre_tokenizer_.cuts_at_spaces()) return false;
  // An added token must not reach across a cut: none holds whitespace (as written or normalized),
  // and none ending in a letter or digit swallows the space after it (rstrip).
  const auto space = [](const SpannedChar& c) { return is_white_space(c.cp); };
  for (const AddedToken& a : added_) {
    const std::vector<SpannedChar> content = decode_utf8(a.content);
    const std::vector<SpannedChar> normalized = normalizer_.apply(content.data(), content.data() + content.size());
    for (const std::vector<SpannedChar>* form : {&content, &normalized}) {
      if (std::any_of(form->begin(), form->end(), space)) return false;
      if (a.rstrip && !form->empty() && is_ascii_alphanumeric(form->back().cp)) return false;
    }
  }
  return true;
}

void Tokenizer::lay_out_vocabulary() {
  vocab_ = model_.tokens();
  // Added tokens may carry ids past the model's vocabulary: id_to_token must know them too.
  size_t table = vocab_.size();
  for (const AddedToken& a : added_) {
    if (a.id < 0 || a.id > json_fields::kMaxVocab) {
      throw Error("E_TOKENIZER", "added token '" + a.content + "' has an invalid id " + std::to_string(a.id));
    }
    table = std::max(table, static_cast<size_t>(a.id) + 1);
  }
  json_fields::check_dense_ids(table, vocab_.size() + added_.size(), "added_tokens");
  vocab_.resize(table);
  for (const AddedToken& a : added_) vocab_[static_cast<size_t>(a.id)] = a.content;
  // The template's special tokens become ids the model will look up: they must exist.
  for (const auto* pieces : {&post_processor_.single, &post_processor_.pair}) {
    for (const TemplatePiece& piece : *pieces) {
      for (const auto& [token, id] : piece.special) {
        if (static_cast<size_t>(id) >= vocab_.size()) {
          throw Error("E_TOKENIZER", "post_processor special token '" + token + "' has id " + std::to_string(id) +
                                         ", outside the vocabulary of " + std::to_string(vocab_.size()));
        }
      }
    }
  }
}

void Tokenizer::build_added_token_matchers() {
  // Each token goes in one matcher; normalized ones are matched in their normalized form, as
  // tokenizers' AddedVocabulary does. An empty content never matches.
  std::vector<std::u32string> raw(added_.size()), normalized(added_.size());
  for (size_t i = 0; i < added_.size(); ++i) {
    const std::vector<SpannedChar> content = decode_utf8(added_[i].content);
    if (added_[i].normalized) {
      normalized[i] = code_points(normalizer_.apply(content.data(), content.data() + content.size()));
    } else {
      raw[i] = code_points(content);
    }
  }
  raw_matcher_.build(added_, raw);
  normalized_matcher_.build(added_, normalized);
}

void Tokenizer::name_special_tokens() {
  // Roles the files did not name: the model's unk, the template's first and last special
  // tokens, then the added special tokens named by convention (so a RoBERTa-style folder with
  // tokenizer.json alone still has its <mask>), then BERT's names for a WordPiece model.
  SpecialTokens& s = special_;
  if (s.unk.empty()) s.unk = model_.unk_token();
  if (!post_processor_.single.empty()) {
    const TemplatePiece& first = post_processor_.single.front();
    const TemplatePiece& last = post_processor_.single.back();
    if (s.cls.empty() && first.sequence < 0 && !first.special.empty()) s.cls = first.special.front().first;
    if (s.sep.empty() && &last != &first && last.sequence < 0 && !last.special.empty()) s.sep = last.special.front().first;
  }
  for (const auto& [role, name] : {std::pair{&s.mask, "<mask>"}, std::pair{&s.pad, "<pad>"}, std::pair{&s.unk, "<unk>"}}) {
    if (!role->empty()) continue;
    for (const AddedToken& a : added_)
      if (a.special && a.content == name) *role = name;
  }
  if (model_.is_wordpiece()) {
    if (s.pad.empty()) s.pad = "[PAD]";
    if (s.mask.empty()) s.mask = "[MASK]";
  }
}

SequenceTokens Tokenizer::tokenize_sequence(std::string_view text, size_t keep) const {
  SequenceTokens out;
  int32_t units = 0;
  for (size_t begin = 0; begin < text.size();) {
    const bool cut = space_cuts_ && text.size() - begin > kPieceBytes;
    const size_t end = cut ? next_space_cut(text, begin + kPieceBytes) : text.size();
    std::vector<Token> tokens = tokenize_piece(text.substr(begin, end - begin), units, out.kept.size() < keep);
    out.total += tokens.size();
    const auto take = static_cast<std::ptrdiff_t>(std::min(tokens.size(), keep - out.kept.size()));
    out.kept.insert(out.kept.end(), std::make_move_iterator(tokens.begin()), std::make_move_iterator(tokens.begin() + take));
    begin = end;
  }
  return out;
}

std::vector<Token> Tokenizer::tokenize_piece(std::string_view piece, int32_t& units_before, bool labels) const {
  std::vector<SpannedChar> chars = decode_utf8(piece);
  const int32_t base = units_before;
  for (SpannedChar& c : chars) {
    c.start += base;
    c.end += base;
  }
  if (!chars.empty()) units_before = chars.back().end;
  std::vector<Token> out;
  out.reserve(chars.size() / 3 + 4);
  std::vector<bool> prefixed;  // token i begins with a space the pre-tokenizer prepended
  for (const TextSegment& seg : raw_matcher_.split(chars, 0, chars.size())) {
    if (seg.token >= 0) {
      out.push_back(added_token(chars, seg, added_[static_cast<size_t>(seg.token)]));
      continue;
    }
    const size_t text_begin = language_codes_ ? split_language_code(chars, seg, out) : seg.begin;
    const std::vector<SpannedChar> norm = normalizer_.apply(chars.data() + text_begin, chars.data() + seg.end);
    for (const TextSegment& sub : normalized_matcher_.split(norm, 0, norm.size())) {
      if (sub.token >= 0) {
        out.push_back(added_token(norm, sub, added_[static_cast<size_t>(sub.token)]));
        continue;
      }
      for (const Word& word : pre_tokenizer_.split(norm.data() + sub.begin, norm.data() + sub.end)) {
        const size_t first_new = out.size();
        model_.tokenize(word, out);
        if (labels && !model_.is_wordpiece()) {
          for (size_t i = first_new; i < out.size(); ++i) out[i].readable = readable(out[i].text);
        }
        prefixed.resize(out.size(), false);
        if (word.prefixed && first_new < out.size()) prefixed[first_new] = true;
      }
    }
  }
  prefixed.resize(out.size(), false);
  if (post_processor_.trim_offsets) {
    trim_byte_level_offsets(out, prefixed, post_processor_.trim_add_prefix_space, chars, base == 0);
  }
  return out;
}

size_t Tokenizer::split_language_code(const std::vector<SpannedChar>& chars, const TextSegment& seg,
                                      std::vector<Token>& out) const {
  auto at = [&](size_t i, char32_t c) { return i < seg.end && chars[i].cp == c; };
  if (!at(seg.begin, '>') || !at(seg.begin + 1, '>')) return seg.begin;
  for (size_t i = seg.begin + 2; i + 1 < seg.end; ++i) {  // the first "<<" after the ">>"
    if (!at(i, '<') || !at(i + 1, '<')) continue;
    std::string code;
    for (size_t k = seg.begin; k < i + 2; ++k) append_utf8(code, chars[k].cp);
    const int32_t id = model_.token_to_id(code);
    out.push_back(Token{code, id >= 0 ? id : model_.token_to_id(model_.unk_token()), chars[seg.begin].start, chars[i + 1].end});
    return i + 2;
  }
  return seg.begin;
}

Encoding Tokenizer::encode(std::string_view text, const std::optional<std::string_view>& pair,
                           int max_length) const {
  post_processor_.check_max_length(max_length, pair.has_value());
  // Truncation keeps at most max_length tokens of either sequence: keeping that many of each is
  // enough whatever longest_first decides, once it knows both totals.
  const size_t keep = max_length > 0 ? static_cast<size_t>(max_length) : SIZE_MAX;
  SequenceTokens a = tokenize_sequence(text, keep);
  std::optional<SequenceTokens> b;
  if (pair) b = tokenize_sequence(*pair, keep);
  Encoding out;
  post_processor_.apply(std::move(a), std::move(b), max_length, out);
  return out;
}

int32_t Tokenizer::token_to_id(std::string_view token) const {
  for (const AddedToken& a : added_) {
    if (a.content == token) return a.id;
  }
  return model_.token_to_id(token);
}

const std::string& Tokenizer::id_to_token(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_.size()) {
    throw Error("E_INPUT", "token id " + std::to_string(id) + " is outside the vocabulary of " +
                               std::to_string(vocab_.size()));
  }
  return vocab_[static_cast<size_t>(id)];
}

std::string Tokenizer::readable(const std::string& token) const {
  std::string bytes;
  if (pre_tokenizer_.byte_level()) return unicode_to_bytes(token, bytes) ? readable_bytes(bytes) : token;
  if (model_.is_wordpiece()) return token;
  // SentencePiece-style vocabularies write a space as '▁' (U+2581): show it as '␣' like byte-level.
  std::string out = token;
  for (size_t at = out.find("\u2581"); at != std::string::npos; at = out.find("\u2581", at + 3)) out.replace(at, 3, "\u2423");
  return out;
}

std::string Tokenizer::token_text(int32_t id) const {
  const std::string& token = id_to_token(id);
  for (const AddedToken& a : added_) {
    if (a.id == id) return token;
  }
  return readable(token);
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) tokens.push_back(id_to_token(id));
  return decoder_.decode(std::move(tokens));
}

}  // namespace attnscope::tok
