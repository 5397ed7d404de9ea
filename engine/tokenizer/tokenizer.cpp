// Tokenizer: which implementation a folder's files call for, and forwarding to it.
#include "tokenizer/tokenizer.h"

#include "tokenizer/byte_level.h"
#include "tokenizer/utf8_text.h"

#include "error.h"
#include "tokenizer/json_fields.h"

namespace attnscope::tok {
namespace {

// tokenizer.json's model type, "" when it cannot tell (the WordPiece loader then reports why).
std::string model_type(std::string_view tokenizer_json) {
  const nlohmann::json doc = json_fields::parse_json(tokenizer_json, "tokenizer.json");
  if (!doc.is_object()) return "";
  const auto model = doc.find("model");
  if (model == doc.end() || !model->is_object()) return "";
  const auto type = model->find("type");
  if (type != model->end() && type->is_string()) return type->get<std::string>();
  return model->contains("merges") ? "BPE" : "";  // old files omit the type
}

}  // namespace

Tokenizer Tokenizer::from_files(const TokenizerFiles& f) {
  const bool bpe = !f.tokenizer_json.empty() ? model_type(f.tokenizer_json) == "BPE"
                                             : f.vocab_txt.empty() && !f.vocab_json.empty();
  if (bpe) {
    return Tokenizer(BpeTokenizer::from_files(f.vocab_json, f.merges_txt, f.tokenizer_json, f.tokenizer_config_json));
  }
  if (f.tokenizer_json.empty() && f.vocab_txt.empty()) {
    throw Error("E_TOKENIZER", "no tokenizer files: need tokenizer.json, vocab.txt, or vocab.json + merges.txt");
  }
  return Tokenizer(BertTokenizer::from_files(f.vocab_txt, f.tokenizer_json, f.tokenizer_config_json));
}

Encoding Tokenizer::encode(std::string_view text, const std::optional<std::string_view>& pair,
                           int max_length) const {
  return std::visit([&](const auto& t) { return t.encode(text, pair, max_length); }, impl_);
}

int32_t Tokenizer::token_to_id(std::string_view token) const {
  return std::visit([&](const auto& t) { return t.token_to_id(token); }, impl_);
}

const std::string& Tokenizer::id_to_token(int32_t id) const {
  return std::visit([&](const auto& t) -> const std::string& { return t.id_to_token(id); }, impl_);
}

std::string Tokenizer::token_text(int32_t id) const {
  if (const auto* bpe = std::get_if<BpeTokenizer>(&impl_)) return bpe->token_text(id);
  return id_to_token(id);
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  if (is_byte_level()) {
    std::string bytes, piece;
    for (int32_t id : ids) {
      const std::string& token = id_to_token(id);
      // Added tokens (<|endoftext|>, <s>) are plain text, not byte-mapped characters.
      if (unicode_to_bytes(token, piece)) bytes += piece;
      else bytes += token;
    }
    for (const SpannedChar& c : decode_utf8(bytes)) append_utf8(out, c.cp);
    return out;
  }
  const std::string prefix = std::get<BertTokenizer>(impl_).settings().continuing_subword_prefix;
  for (int32_t id : ids) {
    const std::string& token = id_to_token(id);
    if (!prefix.empty() && token.compare(0, prefix.size(), prefix) == 0) {
      out += token.substr(prefix.size());
    } else {
      if (!out.empty()) out += ' ';
      out += token;
    }
  }
  return out;
}

size_t Tokenizer::vocab_size() const {
  return std::visit([](const auto& t) { return t.vocab_size(); }, impl_);
}

SpecialTokens Tokenizer::special_tokens() const {
  if (const auto* bpe = std::get_if<BpeTokenizer>(&impl_)) {
    const BpeSettings& s = bpe->settings();
    return {s.cls_token, s.sep_token, s.pad_token, s.mask_token, s.unk_token};
  }
  const TokenizerSettings& s = std::get<BertTokenizer>(impl_).settings();
  return {s.cls_token, s.sep_token, s.pad_token, s.mask_token, s.unk_token};
}

}  // namespace attnscope::tok
