// Marian checkpoints (Helsinki-NLP/opus-mt-*) ship no tokenizer.json: source.spm and target.spm
// (SentencePiece Unigram models), vocab.json (piece → model id, shared by both sides) and
// tokenizer_config.json. MarianTokenizer (transformers' tokenization_marian.py) reads them, and
// so does this builder, into the same stages every tokenizer has:
//   added tokens   its special tokens (</s>, <unk>, <pad>, additional_special_tokens), split out of
//                  the raw text unstripped, as PreTrainedTokenizer's trie does
//   language code  a segment starting ">>xx<<" gives that code as one token (remove_language_code)
//   normalizer     SentencePiece's own (the .spm's normalizer_spec: charsmap, whitespace switches)
//   model          the .spm's Unigram pieces, numbered by vocab.json (a piece it lacks: <unk>)
//   post-processor $A </s> (build_inputs_with_special_tokens)
//   decoder        convert_tokens_to_string over SentencePiece's DecodePieces
// Sacremoses' punctuation normalization, which MarianTokenizer applies only when that package is
// installed, is left out. separate_vocabs checkpoints (target_vocab.json) are refused.
#include "error.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/sentencepiece_model.h"
#include "tokenizer/tokenizer.h"

namespace attnscope::tok {

using namespace json_fields;

Tokenizer Tokenizer::from_marian_files(const TokenizerFiles& f, bool target) {
  const char* file = target ? "target.spm" : "source.spm";
  const std::string_view spm_bytes = target ? f.target_spm : f.source_spm;
  if (spm_bytes.empty()) fail(std::string("a Marian tokenizer needs ") + file);
  if (f.vocab_json.empty()) fail("a Marian tokenizer needs vocab.json with its source.spm and target.spm");
  const json config = parse_config(f.tokenizer_config_json);
  const std::string cls = get_string(config, "tokenizer_class", "MarianTokenizer", "tokenizer_config");
  if (!class_is(cls, {"MarianTokenizer"})) {
    fail("tokenizer_class '" + cls + "' is not supported with source.spm + target.spm: AttnScope reads MarianTokenizer");
  }
  if (get_bool(config, "separate_vocabs", false, "tokenizer_config")) {
    fail("tokenizer_config.separate_vocabs (a target_vocab.json) is not supported");
  }
  const std::string unk = special_token_name(config, "unk_token", "<unk>");
  const std::string eos = special_token_name(config, "eos_token", "</s>");
  const std::string pad = special_token_name(config, "pad_token", "<pad>");
  const VocabMap vocab = parse_vocab_object(parse_json(f.vocab_json, "vocab.json"), "vocab.json");
  const SpmModel spm = parse_spm_model(spm_bytes, file);

  Tokenizer t;
  t.language_codes_ = true;
  const SpmNormalizerSpec& n = spm.normalizer;
  t.normalizer_ = Normalizer::sentencepiece(n.precompiled_charsmap,
                                            {n.add_dummy_prefix, n.remove_extra_whitespaces, n.escape_whitespaces});
  std::vector<UnigramPiece> pieces;
  pieces.reserve(spm.pieces.size());
  for (const SpmPiece& p : spm.pieces) pieces.push_back(UnigramPiece{p.piece, p.score, p.type == SpmPiece::Type::Normal});
  t.model_ = Model::sentencepiece_with_vocab(std::move(pieces), spm.unk_id, vocab, unk);

  // The special tokens: the three roles, then additional_special_tokens, each where vocab.json has it.
  std::vector<std::string> specials = {eos, unk, pad};
  if (auto it = config.find("additional_special_tokens"); it != config.end() && !it->is_null()) {
    if (!it->is_array()) fail("tokenizer_config.additional_special_tokens must be an array");
    for (const json& v : *it) {
      const std::string name = v.is_string() ? v.get<std::string>() : (v.is_object() ? v.value("content", "") : "");
      if (name.empty()) fail("tokenizer_config.additional_special_tokens has an invalid entry");
      specials.push_back(name);
    }
  }
  for (const std::string& name : specials) {
    auto it = vocab.find(name);
    if (it == vocab.end()) {
      if (name == eos) fail("eos_token '" + eos + "' is not in vocab.json");
      continue;
    }
    add_unique(t.added_, AddedToken{name, it->second, false, false, false, false, true});
  }
  const int32_t eos_id = vocab.at(eos);
  t.post_processor_.single = {TemplatePiece{0, {}, 0}, TemplatePiece{-1, {{eos, eos_id}}, 0}};
  t.post_processor_.pair = {TemplatePiece{0, {}, 0}, TemplatePiece{1, {}, 1}, TemplatePiece{-1, {{eos, eos_id}}, 1}};
  std::unordered_set<std::string> all_special;
  for (const AddedToken& a : t.added_) all_special.insert(a.content);
  t.decoder_ = Decoder::marian(MarianDecoding(spm, std::move(all_special),
                                              get_bool(config, "clean_up_tokenization_spaces", false, "tokenizer_config")));
  t.special_ = SpecialTokens{"", eos, pad, "", unk};
  t.finish_setup();
  return t;
}

}  // namespace attnscope::tok
