// BpeTokenizer::from_files: reads tokenizer.json (BPE model, ByteLevel pre-tokenizer alone or in a
// Sequence, no normalizer, ByteLevel/RobertaProcessing/TemplateProcessing post-processor,
// added_tokens) or the older vocab.json + merges.txt + tokenizer_config.json, configured the way
// transformers' GPT2Converter / RobertaConverter build the fast tokenizer. Anything whose
// behaviour would differ from Hugging Face's is rejected with E_TOKENIZER naming it.
#include "error.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/json_fields.h"

namespace attnscope::tok {

using namespace json_fields;

namespace {

VocabMap parse_vocab_object(const json& vocab, const std::string& where) {
  if (!vocab.is_object() || vocab.empty()) fail(where + " must be a non-empty object of token -> id");
  VocabMap out;
  out.reserve(vocab.size());
  for (const auto& [token, id] : vocab.items()) {
    out[token] = static_cast<int32_t>(get_int(id, where + "['" + token + "']", 0, kMaxVocab));
  }
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

// The model section: returns the options; checks what tokenizers would do differently.
BpeOptions parse_model_options(const json& model) {
  BpeOptions options;
  if (auto it = model.find("dropout"); it != model.end() && !it->is_null()) {
    if (!it->is_number() || it->get<double>() != 0.0) {
      fail("model.dropout " + it->dump() + " is not supported: BPE dropout is random; it must be null");
    }
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (!get_string(model, key, "", "model").empty()) {
      fail(std::string("model.") + key + " is not supported by AttnScope's byte-level BPE");
    }
  }
  if (get_bool(model, "byte_fallback", false, "model")) fail("model.byte_fallback is not supported");
  options.unk_token = get_string(model, "unk_token", "", "model");
  options.fuse_unk = get_bool(model, "fuse_unk", false, "model");
  options.ignore_merges = get_bool(model, "ignore_merges", false, "model");
  return options;
}

// A ByteLevel pre-tokenizer, alone or as the only member of a Sequence.
void parse_pre_tokenizer(const json& pre, BpeSettings& s) {
  const std::string type = type_name(pre, "pre_tokenizer");
  json byte_level = pre;
  if (type == "Sequence") {
    const json list = pre.value("pretokenizers", json());
    if (!list.is_array() || list.size() != 1) {
      fail("pre_tokenizer Sequence is supported only with exactly one ByteLevel member");
    }
    byte_level = list[0];
  }
  const std::string inner = type_name(byte_level, "pre_tokenizer");
  if (inner != "ByteLevel") {
    fail("pre_tokenizer '" + inner + "' is not supported with a BPE model: AttnScope reproduces ByteLevel only");
  }
  s.add_prefix_space = get_bool(byte_level, "add_prefix_space", true, "pre_tokenizer");
  s.use_regex = get_bool(byte_level, "use_regex", true, "pre_tokenizer");
}

// ByteLevel only trims offsets; RobertaProcessing and TemplateProcessing add tokens; a Sequence
// may combine ByteLevel with one of them.
void parse_post_processor(const json& post, BpeSettings& s, PostProcessor& p) {
  p = PostProcessor::none();
  if (post.is_null()) return;
  const std::string type = type_name(post, "post_processor");
  if (type == "Sequence") {
    const json list = post.value("processors", json());
    if (!list.is_array()) fail("post_processor.processors must be an array");
    bool has_template = false;
    for (const json& member : list) {
      const std::string t = type_name(member, "post_processor");
      if (t == "Sequence") fail("nested post_processor Sequence is not supported");
      if (t != "ByteLevel" && has_template) fail("post_processor Sequence with two templates is not supported");
      has_template |= t != "ByteLevel";
      PostProcessor member_p;
      parse_post_processor(member, s, member_p);
      if (t != "ByteLevel") p = member_p;
    }
    return;
  }
  if (type == "ByteLevel") {
    s.trim_offsets = get_bool(post, "trim_offsets", true, "post_processor");
    s.trim_add_prefix_space = get_bool(post, "add_prefix_space", true, "post_processor");
  } else if (type == "RobertaProcessing") {
    const auto [cls, cls_id] = parse_token_pair(post, "cls");
    const auto [sep, sep_id] = parse_token_pair(post, "sep");
    p = PostProcessor::roberta(cls, cls_id, sep, sep_id);
    s.trim_offsets = get_bool(post, "trim_offsets", true, "post_processor");
    s.trim_add_prefix_space = get_bool(post, "add_prefix_space", true, "post_processor");
    if (s.cls_token.empty()) s.cls_token = cls;
    if (s.sep_token.empty()) s.sep_token = sep;
  } else if (type == "TemplateProcessing") {
    p.single = parse_template(post, "single", false);
    p.pair = parse_template(post, "pair", true);
  } else {
    fail("post_processor '" + type + "' is not supported with a BPE model: AttnScope needs ByteLevel, "
         "RobertaProcessing or TemplateProcessing");
  }
}

// Special token names a tokenizer_config.json declares, over the defaults of its class.
void read_special_names(const json& config, BpeSettings& s) {
  s.bos_token = special_token_name(config, "bos_token", s.bos_token);
  s.eos_token = special_token_name(config, "eos_token", s.eos_token);
  s.unk_token = special_token_name(config, "unk_token", s.unk_token);
  s.sep_token = special_token_name(config, "sep_token", s.sep_token);
  s.cls_token = special_token_name(config, "cls_token", s.cls_token);
  s.pad_token = special_token_name(config, "pad_token", s.pad_token);
  s.mask_token = special_token_name(config, "mask_token", s.mask_token);
}

bool is_class(std::string name, const char* base) {
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "Fast") == 0) name.resize(name.size() - 4);
  return name == base;
}

}  // namespace

BpeTokenizer BpeTokenizer::from_files(std::string_view vocab_json, std::string_view merges_txt,
                                      std::string_view tokenizer_json, std::string_view tokenizer_config_json) {
  BpeTokenizer t;
  BpeSettings& s = t.settings_;
  json config = json::object();
  if (!tokenizer_config_json.empty()) {
    config = parse_json(tokenizer_config_json, "tokenizer_config.json");
    if (!config.is_object()) fail("tokenizer_config.json must be a JSON object");
  }

  if (!tokenizer_json.empty()) {
    const json doc = parse_json(tokenizer_json, "tokenizer.json");
    if (!doc.is_object()) fail("tokenizer.json must be a JSON object");
    const json normalizer = doc.value("normalizer", json());
    if (!normalizer.is_null()) {
      fail("normalizer '" + type_name(normalizer, "normalizer") +
           "' is not supported with a BPE model: AttnScope's byte-level BPE runs without a normalizer");
    }
    parse_pre_tokenizer(doc.value("pre_tokenizer", json()), s);
    const json model = doc.value("model", json());
    if (!model.is_object()) fail("tokenizer.json has no model");
    const std::string model_type = get_string(model, "type", model.contains("merges") ? "BPE" : "", "model");
    if (model_type != "BPE") fail("model '" + model_type + "' is not a BPE model");
    const BpeOptions options = parse_model_options(model);
    parse_post_processor(doc.value("post_processor", json()), s, t.post_processor_);
    parse_added_tokens(doc, t.added_);
    read_special_names(config, s);
    if (s.unk_token.empty()) s.unk_token = options.unk_token;
    // Without a tokenizer_config.json (a folder with tokenizer.json alone) the roles come from
    // the added special tokens RoBERTa-style vocabularies name by convention, so <mask> still
    // gets predictions.
    for (const auto& [role, name] : {std::pair{&s.mask_token, "<mask>"}, std::pair{&s.pad_token, "<pad>"},
                                     std::pair{&s.unk_token, "<unk>"}}) {
      if (!role->empty()) continue;
      for (const AddedToken& a : t.added_)
        if (a.special && a.content == name) *role = name;
    }
    t.finish_setup(parse_vocab_object(model.value("vocab", json()), "model.vocab"),
                   parse_merges_json(model.value("merges", json())), options);
    return t;
  }

  if (vocab_json.empty() || merges_txt.empty()) fail("a BPE tokenizer needs tokenizer.json or vocab.json + merges.txt");
  // As transformers' GPT2Converter / RobertaConverter: ByteLevel pre-tokenizer with the config's
  // add_prefix_space, no unk in the model, special tokens added whole (RoBERTa's <mask> lstrip).
  const std::string cls = get_string(config, "tokenizer_class", "GPT2Tokenizer", "tokenizer_config");
  const bool roberta = is_class(cls, "RobertaTokenizer");
  if (!roberta && !is_class(cls, "GPT2Tokenizer")) {
    fail("tokenizer_class '" + cls + "' is not supported with vocab.json + merges.txt: AttnScope reads "
         "GPT2Tokenizer and RobertaTokenizer (or give tokenizer.json)");
  }
  if (get_bool(config, "add_bos_token", false, "tokenizer_config")) {
    fail("tokenizer_config.add_bos_token is not supported: give tokenizer.json");
  }
  s.add_prefix_space = get_bool(config, "add_prefix_space", false, "tokenizer_config");
  if (roberta) {
    s.bos_token = s.cls_token = "<s>";
    s.eos_token = s.sep_token = "</s>";
    s.unk_token = "<unk>";
    s.pad_token = "<pad>";
    s.mask_token = "<mask>";
  } else {
    s.bos_token = s.eos_token = s.unk_token = "<|endoftext|>";
  }
  read_special_names(config, s);
  const json vocab_doc = parse_json(vocab_json, "vocab.json");
  const VocabMap vocab = parse_vocab_object(vocab_doc, "vocab.json");
  auto id_of = [&](const std::string& token, const char* role) {
    auto it = vocab.find(token);
    if (it == vocab.end()) fail(std::string(role) + " '" + token + "' is not in vocab.json");
    return it->second;
  };
  if (roberta) {
    t.post_processor_ = PostProcessor::roberta(s.cls_token, id_of(s.cls_token, "cls_token"), s.sep_token,
                                               id_of(s.sep_token, "sep_token"));
    s.trim_offsets = true;
    s.trim_add_prefix_space = s.add_prefix_space;
  } else {
    t.post_processor_ = PostProcessor::none();  // GPT2Converter: ByteLevel(trim_offsets=False)
  }
  // transformers registers the special tokens as added tokens (not normalized); RoBERTa's mask
  // absorbs the whitespace before it.
  for (const std::string* name : {&s.bos_token, &s.eos_token, &s.unk_token, &s.sep_token, &s.pad_token,
                                  &s.cls_token, &s.mask_token}) {
    if (name->empty()) continue;
    auto it = vocab.find(*name);
    if (it == vocab.end()) continue;
    AddedToken a{*name, it->second, false, roberta && name == &s.mask_token, false, false, true};
    bool seen = false;
    for (const AddedToken& e : t.added_) seen |= e.content == *name;
    if (!seen) t.added_.push_back(a);
  }
  parse_added_tokens_decoder(config, t.added_);
  t.finish_setup(vocab, parse_merges_txt(merges_txt), BpeOptions{});
  return t;
}

}  // namespace attnscope::tok
