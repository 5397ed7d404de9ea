// parse_seq2seq_config(): BartConfig, MarianConfig and T5Config as transformers reads them (the same
// defaults where a key is absent), into one Seq2SeqConfig. Keys whose non-default values change
// the arithmetic in ways the engine does not implement are refused by name.
#include "seq2seq_config.h"

#include <cstdint>
#include "error.h"
#include "json_reader.h"

namespace attnscope {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& message) { throw Error("E_CONFIG", "config.json: " + message); }

constexpr int64_t kMaxSize = int64_t{1} << 30;

int read_int(const json& j, const char* key, int fallback, int64_t min = 1) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) fail(std::string("\"") + key + "\" must be an integer, got " + json_brief(*it));
  const int64_t v = it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(kMaxSize)
                        ? kMaxSize + 1
                        : it->get<int64_t>();
  if (v < min || v > kMaxSize)
    fail(std::string("\"") + key + "\" = " + json_brief(*it) + " is out of range [" + std::to_string(min) + ", " +
         std::to_string(kMaxSize) + "]");
  return static_cast<int>(v);
}

bool read_bool(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail(std::string("\"") + key + "\" must be true or false, got " + json_brief(*it));
  return it->get<bool>();
}

std::string read_string(const json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) fail(std::string("\"") + key + "\" must be a string, got " + json_brief(*it));
  return it->get<std::string>();
}

// A boolean option the engine runs at one value only.
void require_bool(const json& j, const char* key, bool supported, const std::string& why) {
  if (read_bool(j, key, supported) != supported)
    fail(std::string("\"") + key + "\": " + (supported ? "false" : "true") + " is not supported (" + why + ")");
}

bool supported_activation(const std::string& act) {
  return act == "gelu" || act == "gelu_python" || act == "gelu_new" || act == "gelu_pytorch_tanh" ||
         act == "gelu_fast" || act == "relu" || act == "silu" || act == "swish";
}

// BartConfig / MarianConfig: the same keys, different defaults.
void parse_bart_shaped(const json& j, Seq2SeqConfig& c) {
  const bool marian = c.family == Seq2SeqFamily::Marian;
  c.vocab_size = read_int(j, "vocab_size", marian ? 58101 : 50265);
  c.d_model = read_int(j, "d_model", 1024);
  c.encoder_layers = read_int(j, "encoder_layers", 12);
  c.decoder_layers = read_int(j, "decoder_layers", 12);
  c.encoder_heads = read_int(j, "encoder_attention_heads", 16);
  c.decoder_heads = read_int(j, "decoder_attention_heads", 16);
  c.encoder_ffn = read_int(j, "encoder_ffn_dim", 4096);
  c.decoder_ffn = read_int(j, "decoder_ffn_dim", 4096);
  c.max_position_embeddings = read_int(j, "max_position_embeddings", 1024);
  c.activation = read_string(j, "activation_function", "gelu");
  if (!supported_activation(c.activation))
    fail("\"activation_function\": \"" + c.activation + "\" is not supported (gelu, gelu_new, relu, silu, swish)");
  c.scale_embedding = read_bool(j, "scale_embedding", false);
  c.tie_word_embeddings = read_bool(j, "tie_word_embeddings", true);
  c.eps = 1e-5;  // nn.LayerNorm's default: BART and Marian set no epsilon
  c.pad_token_id = read_int(j, "pad_token_id", marian ? 58100 : 1, 0);
  c.eos_token_id = read_int(j, "eos_token_id", marian ? 0 : 2, 0);
  c.decoder_start_token_id = read_int(j, "decoder_start_token_id", marian ? c.pad_token_id : 2, 0);
  for (const auto& [key, heads] : {std::pair{"encoder_attention_heads", c.encoder_heads},
                                   std::pair{"decoder_attention_heads", c.decoder_heads}})
    if (c.d_model % heads != 0)
      fail("\"d_model\" = " + std::to_string(c.d_model) + " is not divisible by \"" + key + "\" = " +
           std::to_string(heads));
  // Options of older BART-shaped configs (and mBART's, which is not this model_type).
  require_bool(j, "normalize_before", false, "the layers are post-LN");
  require_bool(j, "add_final_layer_norm", false, "no final LayerNorm after the layers");
  require_bool(j, "normalize_embedding", !marian, marian ? "Marian has no layernorm_embedding"
                                                         : "BART normalises its embeddings");
  require_bool(j, "static_position_embeddings", marian, marian ? "Marian's positions are sinusoidal"
                                                               : "BART's positions are learned");
  // Marian configs converted by transformers 3.x carry add_bias_logits and extra_pos_embeddings
  // (= vocab_size) that MarianMTModel never read: the head adds final_logits_bias, the sinusoids
  // have no offset. BART's would have meant another head or another position offset.
  if (!marian) {
    require_bool(j, "add_bias_logits", false, "the head has final_logits_bias only");
    if (read_int(j, "extra_pos_embeddings", 2, 0) != 2)
      fail("\"extra_pos_embeddings\": only 2 (the offset BART's learned positions use) is supported");
  }
  require_bool(j, "share_encoder_decoder_embeddings", true,
               "the encoder and decoder read one shared embedding matrix");
}

// T5Config: feed_forward_proj "relu" (v1.0), "gated-gelu" (v1.1: gelu_new(wi_0 x) · wi_1 x), or
// another "[gated-]act" as transformers splits it.
void parse_t5(const json& j, Seq2SeqConfig& c) {
  c.vocab_size = read_int(j, "vocab_size", 32128);
  c.d_model = read_int(j, "d_model", 512);
  c.d_kv = read_int(j, "d_kv", 64);
  c.encoder_ffn = c.decoder_ffn = read_int(j, "d_ff", 2048);
  c.encoder_layers = read_int(j, "num_layers", 6);
  c.decoder_layers = read_int(j, "num_decoder_layers", c.encoder_layers);
  c.encoder_heads = c.decoder_heads = read_int(j, "num_heads", 8);
  c.num_buckets = read_int(j, "relative_attention_num_buckets", 32, 4);
  c.max_distance = read_int(j, "relative_attention_max_distance", 128);
  // The decoder's buckets grow logarithmically from num_buckets / 2 positions: the distance must
  // reach past that or the bucket formula divides by log(≤ 1).
  if (c.max_distance <= c.num_buckets / 2)
    fail("\"relative_attention_max_distance\" = " + std::to_string(c.max_distance) +
         " must exceed relative_attention_num_buckets / 2");
  auto eps = j.find("layer_norm_epsilon");
  c.eps = 1e-6;
  if (eps != j.end() && !eps->is_null()) {
    if (!eps->is_number() || !(eps->get<double>() > 0 && eps->get<double>() < 1))
      fail("\"layer_norm_epsilon\" must be a number in (0, 1), got " + json_brief(*eps));
    c.eps = eps->get<double>();
  }
  const std::string proj = read_string(j, "feed_forward_proj", "relu");
  c.gated_ffn = proj.rfind("gated-", 0) == 0;
  const std::string act = c.gated_ffn ? proj.substr(6) : proj;
  if (!supported_activation(act) || act.find('-') != std::string::npos)
    fail("\"feed_forward_proj\": \"" + proj + "\" is not supported (relu, gelu, gated-gelu, gated-relu, gated-silu)");
  c.activation = proj == "gated-gelu" ? "gelu_new" : act;  // transformers' special case
  // Newer saves also write what T5Config derives; a value that disagrees would be the one
  // transformers runs (config.json's keys are set last), so it must agree.
  if (read_string(j, "dense_act_fn", c.activation) != c.activation)
    fail("\"dense_act_fn\": \"" + read_string(j, "dense_act_fn", "") + "\" disagrees with feed_forward_proj \"" + proj +
         "\" (" + c.activation + ")");
  if (read_bool(j, "is_gated_act", c.gated_ffn) != c.gated_ffn)
    fail("\"is_gated_act\" disagrees with feed_forward_proj \"" + proj + "\"");
  c.tie_word_embeddings = read_bool(j, "tie_word_embeddings", true);
  c.pad_token_id = read_int(j, "pad_token_id", 0, 0);
  c.eos_token_id = read_int(j, "eos_token_id", 1, 0);
  c.decoder_start_token_id = read_int(j, "decoder_start_token_id", c.pad_token_id, 0);
}

json parse_json(std::string_view text) {
  json j;
  try {
    j = read_json(text);
  } catch (const json::exception& e) {
    fail(std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object()) fail("must be a JSON object");
  return j;
}

}  // namespace

bool is_seq2seq_config(std::string_view config_json) {
  json j;
  try {
    j = read_json(config_json);
  } catch (const json::exception&) {
    return false;
  }
  if (!j.is_object()) return false;
  auto t = j.find("model_type");
  return t != j.end() && t->is_string() && (*t == "bart" || *t == "marian" || *t == "t5");
}

Seq2SeqConfig parse_seq2seq_config(std::string_view config_json) {
  const json j = parse_json(config_json);
  Seq2SeqConfig c;
  c.model_type = read_string(j, "model_type", "");
  if (c.model_type == "bart") c.family = Seq2SeqFamily::Bart;
  else if (c.model_type == "marian") c.family = Seq2SeqFamily::Marian;
  else if (c.model_type == "t5") c.family = Seq2SeqFamily::T5;
  else fail("\"model_type\": \"" + c.model_type + "\" is not an encoder-decoder model (bart, marian, t5)");
  if (c.family == Seq2SeqFamily::T5) parse_t5(j, c);
  else parse_bart_shaped(j, c);
  require_bool(j, "is_encoder_decoder", true, "this is the encoder-decoder engine");
  for (const auto& [key, id] : {std::pair{"decoder_start_token_id", c.decoder_start_token_id},
                                std::pair{"pad_token_id", c.pad_token_id}})
    if (id >= c.vocab_size)
      fail(std::string("\"") + key + "\" = " + std::to_string(id) + " is outside the vocabulary (vocab_size = " +
           std::to_string(c.vocab_size) + ")");
  if (static_cast<int64_t>(c.encoder_heads) * c.encoder_head_dim() > kMaxSize ||
      static_cast<int64_t>(c.decoder_heads) * c.decoder_head_dim() > kMaxSize)
    fail("\"num_heads\" × \"d_kv\" is too large");
  return c;
}

}  // namespace attnscope
