// The older tokenizer files build the same stages tokenizer.json describes, configured the way
// transformers' converters build the fast tokenizer: vocab.txt + tokenizer_config.json as
// BertConverter (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] A [SEP], WordPiece decoder),
// vocab.json + merges.txt as GPT2Converter / RobertaConverter (ByteLevel pre-tokenizer, BPE,
// ByteLevel or RobertaProcessing, ByteLevel decoder). Anything whose behaviour would differ from
// Hugging Face's is rejected with E_TOKENIZER naming it.
#include "error.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/tokenizer.h"

namespace attnscope::tok {

using namespace json_fields;

namespace {

// vocab.txt: one token per line, id = line number; "\n" or "\r\n" line ends. A repeated token
// keeps its last id for lookup (as transformers' load_vocab and tokenizers' WordPiece do).
void parse_vocab_txt(std::string_view text, std::vector<std::string>& by_id, VocabMap& ids) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (by_id.size() >= static_cast<size_t>(kMaxVocab)) fail("vocab.txt is too large");
    ids[std::string(line)] = static_cast<int32_t>(by_id.size());
    by_id.emplace_back(line);
    pos = eol + 1;
  }
  if (by_id.empty()) fail("vocab.txt is empty");
}

// transformers registers the special tokens the vocabulary has as added tokens (special, matched
// unnormalized) when it converts a slow tokenizer; `lstrip` names one that absorbs the
// whitespace before it (RoBERTa's <mask>).
void add_special_tokens(std::vector<AddedToken>& added, const std::vector<const std::string*>& names,
                        const VocabMap& vocab, const std::string* lstrip) {
  for (const std::string* name : names) {
    if (name->empty()) continue;
    auto it = vocab.find(*name);
    if (it == vocab.end()) continue;
    bool seen = false;
    for (const AddedToken& a : added) seen |= a.content == *name;
    if (!seen) added.push_back(AddedToken{*name, it->second, false, name == lstrip, false, false, true});
  }
}

int32_t id_in(const VocabMap& vocab, const std::string& token, const std::string& what) {
  auto it = vocab.find(token);
  if (it == vocab.end()) fail(what + " '" + token + "' is not in the vocabulary");
  return it->second;
}

}  // namespace

Tokenizer Tokenizer::from_vocab_txt(std::string_view vocab_txt, const BertSettings& s) {
  Tokenizer t;
  std::vector<std::string> by_id;
  VocabMap ids;
  parse_vocab_txt(vocab_txt, by_id, ids);
  t.normalizer_ = Normalizer::bert(NormalizerOptions{s.clean_text, s.handle_chinese_chars,
                                                     s.strip_accents.value_or(s.lowercase), s.lowercase});
  t.pre_tokenizer_ = PreTokenizer::bert();
  add_special_tokens(t.added_, {&s.unk_token, &s.sep_token, &s.pad_token, &s.cls_token, &s.mask_token}, ids, nullptr);
  // Looked up one after the other (a call's arguments have no order): a missing [CLS] is named first.
  const int32_t cls_id = id_in(ids, s.cls_token, "special token");
  const int32_t sep_id = id_in(ids, s.sep_token, "special token");
  t.post_processor_ = PostProcessor::bert(s.cls_token, cls_id, s.sep_token, sep_id);
  WordPieceConfig config;
  config.unk_token = s.unk_token;
  config.continuing_subword_prefix = s.continuing_subword_prefix;
  config.max_input_chars_per_word = s.max_input_chars_per_word;
  t.model_ = Model::wordpiece(std::move(ids), std::move(by_id), std::move(config));
  t.decoder_ = Decoder::wordpiece(s.continuing_subword_prefix, true);
  t.special_ = SpecialTokens{s.cls_token, s.sep_token, s.pad_token, s.mask_token, s.unk_token};
  t.finish_setup();
  return t;
}

Tokenizer Tokenizer::from_vocab_txt_files(std::string_view vocab_txt, std::string_view tokenizer_config_json) {
  const json config = parse_config(tokenizer_config_json);
  BertSettings s;
  const std::string cls = get_string(config, "tokenizer_class", "BertTokenizer", "tokenizer_config");
  if (!class_is(cls, {"BertTokenizer", "DistilBertTokenizer", "ElectraTokenizer", "MobileBertTokenizer",
                      "SqueezeBertTokenizer", "LayoutLMTokenizer"})) {
    fail("tokenizer_class '" + cls + "' is not a BERT WordPiece tokenizer");
  }
  s.lowercase = get_bool(config, "do_lower_case", true, "tokenizer_config");
  s.strip_accents = get_optional_bool(config, "strip_accents", "tokenizer_config");
  s.handle_chinese_chars = get_bool(config, "tokenize_chinese_chars", true, "tokenizer_config");
  s.unk_token = special_token_name(config, "unk_token", s.unk_token);
  s.sep_token = special_token_name(config, "sep_token", s.sep_token);
  s.pad_token = special_token_name(config, "pad_token", s.pad_token);
  s.cls_token = special_token_name(config, "cls_token", s.cls_token);
  s.mask_token = special_token_name(config, "mask_token", s.mask_token);
  Tokenizer t = from_vocab_txt(vocab_txt, s);
  parse_added_tokens_decoder(config, t.added_);
  if (auto it = config.find("additional_special_tokens"); it != config.end() && !it->is_null()) {
    if (!it->is_array()) fail("tokenizer_config.additional_special_tokens must be an array");
    for (const json& v : *it) {
      AddedToken a;
      a.content = v.is_string() ? v.get<std::string>() : (v.is_object() ? v.value("content", "") : "");
      if (a.content.empty()) fail("tokenizer_config.additional_special_tokens has an invalid entry");
      a.id = t.model_.token_to_id(a.content);
      if (a.id < 0) fail("additional special token '" + a.content + "' is not in vocab.txt");
      add_unique(t.added_, a);
    }
  }
  t.finish_setup();
  return t;
}

Tokenizer Tokenizer::from_vocab_json(std::string_view vocab_json, std::string_view merges_txt,
                                     std::string_view tokenizer_config_json) {
  if (merges_txt.empty()) fail("a BPE tokenizer needs tokenizer.json or vocab.json + merges.txt");
  const json config = parse_config(tokenizer_config_json);
  const std::string cls = get_string(config, "tokenizer_class", "GPT2Tokenizer", "tokenizer_config");
  const bool roberta = class_is(cls, {"RobertaTokenizer"});
  if (!roberta && !class_is(cls, {"GPT2Tokenizer"})) {
    fail("tokenizer_class '" + cls + "' is not supported with vocab.json + merges.txt: AttnScope reads "
         "GPT2Tokenizer and RobertaTokenizer (or give tokenizer.json)");
  }
  if (get_bool(config, "add_bos_token", false, "tokenizer_config")) {
    fail("tokenizer_config.add_bos_token is not supported: give tokenizer.json");
  }
  const bool add_prefix_space = get_bool(config, "add_prefix_space", false, "tokenizer_config");
  // The class's default special tokens, renamed by the config.
  std::string bos = roberta ? "<s>" : "<|endoftext|>", eos = roberta ? "</s>" : "<|endoftext|>";
  std::string unk = roberta ? "<unk>" : "<|endoftext|>";
  std::string sep = roberta ? "</s>" : "", cls_token = roberta ? "<s>" : "";
  std::string pad = roberta ? "<pad>" : "", mask = roberta ? "<mask>" : "";
  for (const auto& [name, key] : {std::pair{&bos, "bos_token"}, std::pair{&eos, "eos_token"}, std::pair{&unk, "unk_token"},
                                  std::pair{&sep, "sep_token"}, std::pair{&cls_token, "cls_token"},
                                  std::pair{&pad, "pad_token"}, std::pair{&mask, "mask_token"}}) {
    *name = special_token_name(config, key, *name);
  }
  const VocabMap vocab = parse_vocab_object(parse_json(vocab_json, "vocab.json"), "vocab.json");

  Tokenizer t;
  t.pre_tokenizer_ = PreTokenizer::byte_level(add_prefix_space);
  if (roberta) {
    const int32_t cls_id = id_in(vocab, cls_token, "cls_token");  // named first when both are missing
    const int32_t sep_id = id_in(vocab, sep, "sep_token");
    t.post_processor_ = PostProcessor::roberta(cls_token, cls_id, sep, sep_id);
    t.post_processor_.trim_offsets = true;
    t.post_processor_.trim_add_prefix_space = add_prefix_space;
  }  // GPT2Converter: ByteLevel(trim_offsets=False), no template
  t.decoder_ = Decoder::byte_level();
  add_special_tokens(t.added_, {&bos, &eos, &unk, &sep, &pad, &cls_token, &mask}, vocab, roberta ? &mask : nullptr);
  parse_added_tokens_decoder(config, t.added_);
  t.model_ = Model::bpe(vocab, parse_merges_txt(merges_txt), BpeOptions{});
  t.special_ = SpecialTokens{cls_token, sep, pad, mask, unk};
  t.finish_setup();
  return t;
}

}  // namespace attnscope::tok
