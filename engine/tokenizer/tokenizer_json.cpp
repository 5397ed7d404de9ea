// Tokenizer from tokenizer.json: each section read by its own stage, the added tokens, and the
// special tokens' names from tokenizer_config.json when the folder has one.
#include "tokenizer/json_fields.h"
#include "tokenizer/tokenizer.h"

namespace attnscope::tok {

using namespace json_fields;

Tokenizer Tokenizer::from_tokenizer_json(std::string_view tokenizer_json, std::string_view tokenizer_config_json) {
  const json doc = parse_json(tokenizer_json, "tokenizer.json");
  if (!doc.is_object()) fail("tokenizer.json must be a JSON object");
  Tokenizer t;
  t.normalizer_ = Normalizer::from_json(member(doc, "normalizer"));
  t.pre_tokenizer_ = PreTokenizer::from_json(member(doc, "pre_tokenizer"));
  t.model_ = Model::from_json(member(doc, "model"));
  t.post_processor_ = PostProcessor::from_json(member(doc, "post_processor"));
  t.decoder_ = Decoder::from_json(member(doc, "decoder"));
  parse_added_tokens(doc, t.added_);
  const json config = parse_config(tokenizer_config_json);
  t.special_ = SpecialTokens{special_token_name(config, "cls_token", ""), special_token_name(config, "sep_token", ""),
                             special_token_name(config, "pad_token", ""), special_token_name(config, "mask_token", ""),
                             special_token_name(config, "unk_token", "")};
  t.finish_setup();
  return t;
}

}  // namespace attnscope::tok
