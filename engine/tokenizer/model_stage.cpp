// The model stage: reading WordPiece, BPE and Unigram from tokenizer.json, and running one on a word.
#include "tokenizer/model_stage.h"

#include <algorithm>
#include <type_traits>

#include "build_features.h"
#include "error.h"
#include "tokenizer/json_fields.h"

namespace attnscope::tok {

using namespace json_fields;

namespace {

std::vector<std::string> tokens_by_id(const VocabMap& vocab) {
  int32_t max_id = -1;
  for (const auto& [token, id] : vocab) {
    if (id < 0 || id > kMaxVocab) fail("token '" + token + "' has an invalid id");
    max_id = std::max(max_id, id);
  }
  check_dense_ids(static_cast<size_t>(max_id) + 1, vocab.size(), "model.vocab");
  std::vector<std::string> out(static_cast<size_t>(max_id) + 1);
  for (const auto& [token, id] : vocab) out[static_cast<size_t>(id)] = token;
  return out;
}

// "a b" (a merges.txt line or a tokenizer.json string): exactly one space, as tokenizers requires.
BpeMerge split_merge(std::string_view line, const std::string& where) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
      line.find(' ', space + 1) != std::string_view::npos) {
    fail(where + " '" + std::string(line) + "' is not two tokens separated by one space");
  }
  return BpeMerge{std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
}

std::vector<BpeMerge> parse_merges_json(const json& merges) {
  if (merges.is_null()) return {};
  if (!merges.is_array()) fail("model.merges must be an array");
  std::vector<BpeMerge> out;
  out.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const json& m = merges[i];
    const std::string where = "model.merges[" + std::to_string(i) + "]";
    if (m.is_string()) {
      out.push_back(split_merge(m.get_ref<const std::string&>(), where));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      out.push_back(BpeMerge{m[0].get<std::string>(), m[1].get<std::string>()});
    } else {
      fail(where + " must be \"a b\" or [\"a\", \"b\"]");
    }
  }
  return out;
}

BpeOptions parse_bpe_options(const json& model) {
  if (auto it = model.find("dropout"); it != model.end() && !it->is_null()) {
    if (!it->is_number() || it->get<double>() != 0.0) {
      fail("model.dropout " + type_name(*it, "model.dropout") + " is not supported: BPE dropout is random; it must be null");
    }
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (!get_string(model, key, "", "model").empty()) fail(std::string("model.") + key + " is not supported by AttnScope's BPE");
  }
  BpeOptions options;
  options.unk_token = get_string(model, "unk_token", "", "model");
  options.fuse_unk = get_bool(model, "fuse_unk", false, "model");
  options.ignore_merges = get_bool(model, "ignore_merges", false, "model");
  options.byte_fallback = get_bool(model, "byte_fallback", false, "model");
  return options;
}

Token span_token(const Word& word, const BpePiece& p, const std::string& text) {
  int32_t start = word.chars[p.begin].start, stop = word.chars[p.begin].end;
  for (uint32_t i = p.begin; i < p.end; ++i) {
    start = std::min(start, word.chars[i].start);
    stop = std::max(stop, word.chars[i].end);
  }
  return Token{text, p.id, start, stop};
}

// Unigram's "vocab": [[token, score], ...] in id order.
std::vector<UnigramPiece> parse_unigram_vocab(const json& vocab) {
  if (!vocab.is_array()) fail("model.vocab of a Unigram model must be an array of [token, score]");
  if (vocab.size() > static_cast<size_t>(kMaxVocab)) fail("model.vocab has more than " + std::to_string(kMaxVocab) + " entries");
  std::vector<UnigramPiece> out;
  out.reserve(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) {
    const json& v = vocab[i];
    if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_number()) {
      fail("model.vocab[" + std::to_string(i) + "] must be [token, score]");
    }
    out.push_back(UnigramPiece{v[0].get<std::string>(), v[1].get<double>()});
  }
  return out;
}

Model unigram_from_json(const json& model) {
  int32_t unk_id = -1;
  if (auto it = model.find("unk_id"); it != model.end() && !it->is_null()) {
    unk_id = static_cast<int32_t>(get_int(*it, "model.unk_id", 0, kMaxVocab));
  }
  return Model::unigram(parse_unigram_vocab(member(model, "vocab")), unk_id,
                        get_bool(model, "byte_fallback", false, "model"));
}

}  // namespace

VocabMap parse_vocab_object(const json& vocab, const std::string& where) {
  if (!vocab.is_object() || vocab.empty()) fail(where + " must be a non-empty object of token -> id");
  VocabMap out;
  out.reserve(vocab.size());
  for (const auto& [token, id] : vocab.items()) {
    out[token] = static_cast<int32_t>(get_int(id, where + "['" + token + "']", 0, kMaxVocab));
  }
  return out;
}

std::vector<BpeMerge> parse_merges_txt(std::string_view text) {
  std::vector<BpeMerge> merges;
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.rfind("#version", 0) == 0) continue;  // the header tokenizers skips
    if (line.empty() && pos >= text.size()) break;  // a final newline
    merges.push_back(split_merge(line, "merges.txt line " + std::to_string(line_no)));
  }
  return merges;
}

Model Model::wordpiece(VocabMap vocab, std::vector<std::string> id_to_token, WordPieceConfig config) {
  auto unk = vocab.find(config.unk_token);
  if (unk == vocab.end()) fail("unk_token '" + config.unk_token + "' is not in the vocabulary");
  if (config.max_input_chars_per_word < 0) fail("max_input_chars_per_word must not be negative");
  config.unk_id = unk->second;
  config.longest_entry_chars = longest_entry_chars(vocab);
  Model m;
  m.unk_token_ = config.unk_token;
  m.tokens_ = std::move(id_to_token);
  m.impl_ = WordPieceModel{std::move(vocab), std::move(config)};
  return m;
}

// The encoder build keeps WordPiece alone (build_features.h): BPE and Unigram stay out of it.
Model Model::bpe(const VocabMap& vocab, const std::vector<BpeMerge>& merges, BpeOptions options) {
  if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the BPE tokenizer model");
  if (vocab.empty()) fail("the BPE vocabulary is empty");
  Model m;
  m.tokens_ = tokens_by_id(vocab);
  m.unk_token_ = options.unk_token;
  m.impl_ = BpeModel(vocab, merges, std::move(options));
  return m;
}

Model Model::unigram(std::vector<UnigramPiece> vocab, int32_t unk_id, bool byte_fallback) {
  if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the Unigram tokenizer model");
  Model m;
  m.tokens_.reserve(vocab.size());
  for (const UnigramPiece& p : vocab) m.tokens_.push_back(p.token);
  if (unk_id >= 0 && static_cast<size_t>(unk_id) < vocab.size()) m.unk_token_ = vocab[static_cast<size_t>(unk_id)].token;
  m.impl_ = UnigramModel(std::move(vocab), unk_id, byte_fallback);
  return m;
}

Model Model::sentencepiece_with_vocab(std::vector<UnigramPiece> pieces, int32_t spm_unk_id, VocabMap vocab,
                                     const std::string& unk_token) {
  if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the SentencePiece tokenizer model");
  auto unk = vocab.find(unk_token);
  if (unk == vocab.end()) fail("unk_token '" + unk_token + "' is not in vocab.json");
  Model m;
  m.tokens_ = tokens_by_id(vocab);
  m.unk_token_ = unk_token;
  const int32_t unk_id = unk->second;
  m.impl_ = SentencePieceVocabModel{UnigramModel(std::move(pieces), spm_unk_id, false), std::move(vocab), unk_id};
  return m;
}

Model Model::from_json(const json& model) {
  if (!model.is_object()) fail("tokenizer.json has no model");
  const std::string type = get_string(model, "type", model.contains("merges") ? "BPE" : "WordPiece", "model");
  if (kBuildHasWordPieceOnly && type != "WordPiece") throw_not_in_build("the " + type + " tokenizer model");
  if (type == "BPE") {
    return bpe(parse_vocab_object(member(model, "vocab"), "model.vocab"),
               parse_merges_json(member(model, "merges")), parse_bpe_options(model));
  }
  if (type == "Unigram") return unigram_from_json(model);
  if (type != "WordPiece") fail("model '" + type + "' is not supported: AttnScope reproduces WordPiece, BPE and Unigram");
  WordPieceConfig config;
  config.unk_token = get_string(model, "unk_token", "[UNK]", "model");
  config.continuing_subword_prefix = get_string(model, "continuing_subword_prefix", "##", "model");
  if (auto it = model.find("max_input_chars_per_word"); it != model.end() && !it->is_null()) {
    config.max_input_chars_per_word = static_cast<int>(get_int(*it, "model.max_input_chars_per_word", 0, 1 << 30));
  }
  VocabMap vocab = parse_vocab_object(member(model, "vocab"), "model.vocab");
  std::vector<std::string> by_id = tokens_by_id(vocab);
  return wordpiece(std::move(vocab), std::move(by_id), std::move(config));
}

void Model::tokenize(const Word& word, std::vector<Token>& out) const {
  if (const auto* wp = std::get_if<WordPieceModel>(&impl_)) {
    wordpiece_tokenize(word.chars, WordRange{0, word.chars.size()}, wp->vocab, wp->config, out);
    return;
  }
  if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("a tokenizer model other than WordPiece");
  std::string utf8;
  for (const SpannedChar& c : word.chars) append_utf8(utf8, c.cp);
  const auto* spm = std::get_if<SentencePieceVocabModel>(&impl_);
  if (const auto* unigram = spm ? &spm->pieces : std::get_if<UnigramModel>(&impl_)) {
    // Unigram works in bytes: map its byte ranges back to the word's characters.
    std::vector<uint32_t> char_of_byte;
    char_of_byte.reserve(utf8.size() + 1);
    std::string bytes;
    for (uint32_t i = 0; i < word.chars.size(); ++i) {
      bytes.clear();
      append_utf8(bytes, word.chars[i].cp);
      char_of_byte.insert(char_of_byte.end(), bytes.size(), i);
    }
    char_of_byte.push_back(static_cast<uint32_t>(word.chars.size()));
    for (UnigramToken& t : unigram->tokenize(utf8)) {
      if (spm) {  // the piece's text (an unknown piece: the text it covers) looked up in vocab.json
        auto it = spm->vocab.find(t.text);
        t.id = it == spm->vocab.end() ? spm->unk_id : it->second;
      }
      const BpePiece p{t.id, char_of_byte[t.begin], char_of_byte[t.end]};
      out.push_back(span_token(word, p, t.text));
    }
    return;
  }
  for (const BpePiece& p : std::get<BpeModel>(impl_).tokenize(utf8)) {
    out.push_back(span_token(word, p, tokens_[static_cast<size_t>(p.id)]));
  }
}

int32_t Model::token_to_id(std::string_view token) const {
  const VocabMap& vocab = std::visit(
      [](const auto& m) -> const VocabMap& {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, WordPieceModel> || std::is_same_v<M, SentencePieceVocabModel>) return m.vocab;
        else if constexpr (std::is_same_v<M, BpeModel>) return m.vocab();
        else return m.token_to_ids();
      },
      impl_);
  auto it = vocab.find(std::string(token));
  return it == vocab.end() ? -1 : it->second;
}

}  // namespace attnscope::tok
