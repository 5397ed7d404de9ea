// BertTokenizer::from_files: reads what a Hugging Face model folder ships — tokenizer.json
// (BertNormalizer, BertPreTokenizer, WordPiece, TemplateProcessing/BertProcessing, added_tokens)
// or vocab.txt + tokenizer_config.json — and rejects, naming it, anything whose behaviour this
// tokenizer would not reproduce exactly.
#include "error.h"
#include "tokenizer/bert_tokenizer.h"
#include "tokenizer/json_fields.h"

namespace attnscope::tok {
namespace {

using namespace json_fields;

// Classes whose slow tokenizer is transformers' BertTokenizer logic (WordPiece + BasicTokenizer).
bool is_bert_family_class(std::string name) {
  const std::string fast = "Fast";
  if (name.size() > fast.size() && name.compare(name.size() - fast.size(), fast.size(), fast) == 0) {
    name.resize(name.size() - fast.size());
  }
  for (const char* known : {"BertTokenizer", "DistilBertTokenizer", "ElectraTokenizer",
                            "MobileBertTokenizer", "SqueezeBertTokenizer", "LayoutLMTokenizer"}) {
    if (name == known) return true;
  }
  return false;
}

}  // namespace

BertTokenizer BertTokenizer::from_files(std::string_view vocab_txt, std::string_view tokenizer_json,
                                        std::string_view tokenizer_config_json) {
  if (tokenizer_json.empty()) {
    if (vocab_txt.empty()) fail("neither tokenizer.json nor vocab.txt was given");
    TokenizerSettings settings;
    std::vector<AddedToken> extra;
    if (!tokenizer_config_json.empty()) {
      const json config = parse_json(tokenizer_config_json, "tokenizer_config.json");
      if (!config.is_object()) fail("tokenizer_config.json must be a JSON object");
      const std::string cls = get_string(config, "tokenizer_class", "BertTokenizer", "tokenizer_config");
      if (!is_bert_family_class(cls)) {
        fail("tokenizer_class '" + cls + "' is not a BERT WordPiece tokenizer");
      }
      settings.lowercase = get_bool(config, "do_lower_case", true, "tokenizer_config");
      settings.strip_accents = get_optional_bool(config, "strip_accents", "tokenizer_config");
      settings.handle_chinese_chars = get_bool(config, "tokenize_chinese_chars", true, "tokenizer_config");
      settings.unk_token = special_token_name(config, "unk_token", settings.unk_token);
      settings.sep_token = special_token_name(config, "sep_token", settings.sep_token);
      settings.pad_token = special_token_name(config, "pad_token", settings.pad_token);
      settings.cls_token = special_token_name(config, "cls_token", settings.cls_token);
      settings.mask_token = special_token_name(config, "mask_token", settings.mask_token);
      if (auto it = config.find("added_tokens_decoder"); it != config.end() && !it->is_null()) {
        if (!it->is_object()) fail("tokenizer_config.added_tokens_decoder must be an object");
        for (const auto& [id, value] : it->items()) {
          int64_t n = -1;
          try { n = std::stoll(id); } catch (...) { fail("added_tokens_decoder key '" + id + "' is not an id"); }
          if (n < 0 || n > kMaxVocab) fail("added_tokens_decoder id " + id + " is out of range");
          extra.push_back(parse_added_token(value, static_cast<int32_t>(n), "added_tokens_decoder." + id));
        }
      }
      if (auto it = config.find("additional_special_tokens"); it != config.end() && !it->is_null()) {
        if (!it->is_array()) fail("tokenizer_config.additional_special_tokens must be an array");
        for (const json& v : *it) {
          AddedToken t;
          t.content = v.is_string() ? v.get<std::string>() : (v.is_object() ? v.value("content", "") : "");
          if (t.content.empty()) fail("tokenizer_config.additional_special_tokens has an invalid entry");
          t.id = -1;  // resolved against the vocabulary below
          extra.push_back(t);
        }
      }
    }
    BertTokenizer t = from_vocab(vocab_txt, settings);
    for (AddedToken a : extra) {
      if (a.id < 0) {
        auto it = t.ids_.find(a.content);
        if (it == t.ids_.end()) fail("additional special token '" + a.content + "' is not in vocab.txt");
        a.id = it->second;
      }
      add_unique(t.added_, a);
    }
    t.finish_setup();
    return t;
  }

  const json doc = parse_json(tokenizer_json, "tokenizer.json");
  if (!doc.is_object()) fail("tokenizer.json must be a JSON object");
  BertTokenizer t;
  TokenizerSettings& s = t.settings_;

  const json normalizer = doc.value("normalizer", json());
  if (normalizer.is_null()) {
    // No normalizer is BertNormalizer with every step off.
    s.clean_text = s.handle_chinese_chars = s.lowercase = false;
    s.strip_accents = false;
  } else {
    const std::string type = normalizer.is_object() ? get_string(normalizer, "type", "", "normalizer") : "";
    if (type != "BertNormalizer") {
      fail("normalizer '" + (type.empty() ? normalizer.dump() : type) +
           "' is not supported: AttnScope reproduces BertNormalizer only");
    }
    s.clean_text = get_bool(normalizer, "clean_text", true, "normalizer");
    s.handle_chinese_chars = get_bool(normalizer, "handle_chinese_chars", true, "normalizer");
    s.strip_accents = get_optional_bool(normalizer, "strip_accents", "normalizer");
    s.lowercase = get_bool(normalizer, "lowercase", true, "normalizer");
  }

  const json pre = doc.value("pre_tokenizer", json());
  const std::string pre_type = pre.is_object() ? get_string(pre, "type", "", "pre_tokenizer") : "";
  if (pre_type != "BertPreTokenizer") {
    fail("pre_tokenizer '" + (pre_type.empty() ? pre.dump() : pre_type) +
         "' is not supported: AttnScope reproduces BertPreTokenizer only");
  }

  const json model = doc.value("model", json());
  if (!model.is_object()) fail("tokenizer.json has no model");
  // Old files may omit the type; a vocab with merges is then BPE, not WordPiece.
  const std::string model_type = get_string(model, "type", model.contains("merges") ? "BPE" : "WordPiece", "model");
  if (model_type != "WordPiece") fail("model '" + model_type + "' is not supported: AttnScope reproduces WordPiece only");
  s.unk_token = get_string(model, "unk_token", "[UNK]", "model");
  s.continuing_subword_prefix = get_string(model, "continuing_subword_prefix", "##", "model");
  if (auto it = model.find("max_input_chars_per_word"); it != model.end() && !it->is_null()) {
    s.max_input_chars_per_word = static_cast<int>(get_int(*it, "model.max_input_chars_per_word", 0, 1 << 30));
  }
  const json vocab = model.value("vocab", json());
  if (!vocab.is_object() || vocab.empty()) fail("model.vocab must be a non-empty object of token -> id");
  for (const auto& [token, id_json] : vocab.items()) {
    const auto id = static_cast<int32_t>(get_int(id_json, "model.vocab['" + token + "']", 0, kMaxVocab));
    if (static_cast<size_t>(id) >= t.vocab_.size()) t.vocab_.resize(static_cast<size_t>(id) + 1);
    t.vocab_[static_cast<size_t>(id)] = token;
    t.ids_[token] = id;
  }

  parse_added_tokens(doc, t.added_);

  const json post = doc.value("post_processor", json());
  const std::string post_type = post.is_object() ? get_string(post, "type", "", "post_processor") : "";
  if (post_type == "TemplateProcessing") {
    t.post_processor_.single = parse_template(post, "single", false);
    t.post_processor_.pair = parse_template(post, "pair", true);
  } else if (post_type == "BertProcessing") {
    const auto [cls, cls_id] = parse_token_pair(post, "cls");
    const auto [sep, sep_id] = parse_token_pair(post, "sep");
    t.post_processor_ = PostProcessor::bert(cls, cls_id, sep, sep_id);
  } else {
    fail("post_processor '" + (post_type.empty() ? post.dump() : post_type) +
         "' is not supported: AttnScope needs TemplateProcessing or BertProcessing");
  }
  // Settings mirror the template's first/last special tokens so callers see the real names.
  for (const TemplatePiece& p : t.post_processor_.single) {
    if (p.sequence >= 0 || p.special.empty()) continue;
    (&p == &t.post_processor_.single.front() ? s.cls_token : s.sep_token) = p.special.front().first;
  }
  t.normalizer_ = NormalizerOptions{s.clean_text, s.handle_chinese_chars,
                                    s.strip_accents.value_or(s.lowercase), s.lowercase};
  t.wordpiece_.unk_token = s.unk_token;
  t.wordpiece_.continuing_subword_prefix = s.continuing_subword_prefix;
  t.wordpiece_.max_input_chars_per_word = s.max_input_chars_per_word;
  t.finish_setup();
  return t;
}

}  // namespace attnscope::tok
