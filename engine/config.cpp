// parse_config(): the one reader of config.json. BERT-shaped configs (BERT, MiniLM, RoBERTa, ...),
// DistilBERT and GPT-2 use different key names for the same quantities; all land in ModelConfig.
// Anything the engine could not run faithfully is rejected here with E_CONFIG naming the key.
#include "config.h"

#include <cmath>
#include <cstdint>
#include "build_features.h"
#include "error.h"
#include "json_reader.h"

namespace attnscope {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& message) { throw Error("E_CONFIG", "config.json: " + message); }

// Sizes must be integers (not 768.0, not "768") in [min, kMaxSize]. The upper bound keeps every
// product of two sizes inside int64 and rejects configs no browser could hold anyway.
constexpr int64_t kMaxSize = int64_t{1} << 30;

int read_size(const json& j, const char* key, int fallback, bool required, int64_t min = 1) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) fail(std::string("missing required key \"") + key + "\"");
    return fallback;
  }
  int64_t value;
  if (it->is_number_unsigned()) {
    const uint64_t u = it->get<uint64_t>();
    if (u > static_cast<uint64_t>(kMaxSize)) fail(std::string("\"") + key + "\" is too large");
    value = static_cast<int64_t>(u);
  } else if (it->is_number_integer()) {
    value = it->get<int64_t>();
  } else {
    fail(std::string("\"") + key + "\" must be an integer, got " + json_brief(*it));
  }
  if (value < min || value > kMaxSize)
    fail(std::string("\"") + key + "\" = " + std::to_string(value) + " is out of range [" +
         std::to_string(min) + ", " + std::to_string(kMaxSize) + "]");
  return static_cast<int>(value);
}

std::string read_string(const json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) fail(std::string("\"") + key + "\" must be a string, got " + json_brief(*it));
  return it->get<std::string>();
}

// SiLU ("silu", or its alias "swish") only for the Llama family, whose gate it is: an encoder or
// GPT-2 asking for it is a config the engine has never been checked on.
bool is_supported_activation(const std::string& act, bool llama) {
  return act == "gelu" || act == "gelu_python" || act == "gelu_new" || act == "gelu_pytorch_tanh" ||
         act == "gelu_fast" || act == "relu" || (llama && (act == "silu" || act == "swish"));
}

// Old configs (before transformers 2.x) carry no model_type; DistilBERT's and GPT-2's own key
// names give them away.
std::string infer_model_type(const json& j) {
  if (j.contains("dim") && j.contains("n_layers")) return "distilbert";
  if (j.contains("n_embd") && j.contains("n_layer")) return "gpt2";
  return "bert";
}

// A LayerNorm epsilon under `key`, if present: a number in (0, 1).
void read_eps(const json& j, const char* key, double& eps) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_number()) fail(std::string("\"") + key + "\" must be a number, got " + json_brief(*it));
  const double e = it->get<double>();
  if (!(e > 0.0 && e < 1.0)) fail(std::string("\"") + key + "\" = " + json_brief(*it) + " must be in (0, 1)");
  eps = e;
}

bool read_bool(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail(std::string("\"") + key + "\" must be true or false, got " + json_brief(*it));
  return it->get<bool>();
}

// GPT-2 options that change the arithmetic. The engine implements their defaults only, so a
// checkpoint that sets one is refused rather than run as a silently different model.
void reject_gpt2_options(const json& j) {
  const struct { const char* key; bool supported; } options[] = {
      {"scale_attn_weights", true},                // false: scores not divided by √d_k
      {"scale_attn_by_inverse_layer_idx", false},  // true: scores also divided by layer index + 1
      {"reorder_and_upcast_attn", false},          // true: a different summation order and dtype
      {"add_cross_attention", false},              // true: an encoder-decoder cross-attention block
  };
  for (const auto& option : options)
    if (read_bool(j, option.key, option.supported) != option.supported)
      fail(std::string("\"") + option.key + "\": " + (option.supported ? "false" : "true") +
           " is not supported (AttnScope runs GPT-2 with \"" + option.key + "\": " +
           (option.supported ? "true" : "false") + " only)");
}

double read_number(const json& j, const char* key, double fallback, const char* where = "") {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number() || !std::isfinite(it->get<double>()))
    fail(std::string(where) + "\"" + key + "\" must be a finite number, got " + json_brief(*it));
  return it->get<double>();
}

// "rope_scaling": null, or {"rope_type" (older files: "type"): "default" | "linear" | "llama3", ...}
// with the keys transformers' modeling_rope_utils reads for that type. Any other type (dynamic,
// yarn, longrope, ...) changes the positions in ways the engine does not implement: E_CONFIG.
void read_rope_scaling(const json& j, RopeConfig& rope) {
  auto it = j.find("rope_scaling");
  if (it == j.end() || it->is_null()) return;
  if (!it->is_object()) fail("\"rope_scaling\" must be an object or null, got " + json_brief(*it));
  const json& s = *it;
  std::string type = read_string(s, "rope_type", "");
  if (type.empty()) type = read_string(s, "type", "");
  if (type.empty()) fail("\"rope_scaling\" has no \"rope_type\"");
  if (type == "default") return;
  if (type != "linear" && type != "llama3")
    fail("\"rope_scaling\": rope_type \"" + type + "\" is not supported (supported: default, linear, llama3)");
  auto factor = s.find("factor");
  if (factor == s.end() || factor->is_null()) fail("\"rope_scaling\" (" + type + ") needs \"factor\"");
  rope.factor = read_number(s, "factor", 1.0, "rope_scaling: ");
  if (!(rope.factor > 0)) fail("\"rope_scaling\": \"factor\" must be > 0, got " + json_brief(*factor));
  if (type == "linear") {
    rope.scaling = RopeConfig::Scaling::Linear;
    return;
  }
  rope.scaling = RopeConfig::Scaling::Llama3;
  for (const char* key : {"low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
    if (!s.contains(key) || s[key].is_null()) fail(std::string("\"rope_scaling\" (llama3) needs \"") + key + "\"");
  rope.low_freq_factor = read_number(s, "low_freq_factor", 1.0, "rope_scaling: ");
  rope.high_freq_factor = read_number(s, "high_freq_factor", 4.0, "rope_scaling: ");
  rope.original_max_position_embeddings = read_size(s, "original_max_position_embeddings", 8192, true);
  if (!(rope.high_freq_factor > rope.low_freq_factor && rope.low_freq_factor > 0))
    fail("\"rope_scaling\": llama3 needs 0 < low_freq_factor < high_freq_factor");
}

// The sliding window a run would meet, or 0. Mistral: "sliding_window" on every layer unless null.
// Qwen2 / Qwen3: only with "use_sliding_window", on the layers from "max_window_layers" on (or the
// ones "layer_types" names "sliding_attention").
int read_sliding_window(const json& j, const ModelConfig& c) {
  bool applies;
  auto types = j.find("layer_types");
  if (types != j.end() && !types->is_null()) {
    if (!types->is_array()) fail("\"layer_types\" must be an array, got " + json_brief(*types));
    applies = false;
    for (const auto& t : *types) {
      if (t == "sliding_attention") applies = true;
      else if (t != "full_attention") fail("\"layer_types\": " + json_brief(t) + " is not supported (full_attention, sliding_attention)");
    }
  } else if (c.model_type == "mistral") {
    applies = true;
  } else if (c.model_type == "qwen2" || c.model_type == "qwen3") {
    applies = read_bool(j, "use_sliding_window", false) &&
              read_size(j, "max_window_layers", 28, false, 0) < c.num_layers;
  } else {
    applies = false;  // LlamaConfig has no sliding window
  }
  const int fallback = c.model_type == "mistral" && !j.contains("sliding_window") ? 4096 : 0;
  const int window = read_size(j, "sliding_window", fallback, false);
  return applies ? window : 0;
}

// LlamaForCausalLM and its relatives, with each family's defaults as its transformers config class
// sets them. Options that would change the arithmetic and that the engine does not implement are
// refused by name.
void parse_llama(const json& j, ModelConfig& c) {
  const std::string& type = c.model_type;
  c.family = Family::Llama;
  c.vocab_size = read_size(j, "vocab_size", 32000, true);
  c.hidden_size = read_size(j, "hidden_size", 4096, true);
  c.num_layers = read_size(j, "num_hidden_layers", 32, true);
  c.num_heads = read_size(j, "num_attention_heads", 32, true);
  c.num_kv_heads = read_size(j, "num_key_value_heads", c.num_heads, false);
  c.intermediate_size = read_size(j, "intermediate_size", 11008, true);
  c.head_dim_override = read_size(j, "head_dim", type == "qwen3" ? 128 : c.hidden_size / c.num_heads, false);
  c.max_position_embeddings =
      read_size(j, "max_position_embeddings", type == "llama" ? 2048 : type == "mistral" ? 131072 : 32768, false);
  c.type_vocab_size = 0;
  c.layer_norm_eps = 1e-6;
  read_eps(j, "rms_norm_eps", c.layer_norm_eps);
  c.hidden_act = read_string(j, "hidden_act", "silu");
  c.bos_token_id = read_size(j, "bos_token_id", -1, false, 0);
  // Llama 3 lists several end tokens ([128001, 128008, 128009]); the first is the one kept.
  const auto eos = j.find("eos_token_id");
  const bool eos_list = eos != j.end() && eos->is_array() && !eos->empty();
  c.eos_token_id = eos_list ? read_size(json{{"eos_token_id", (*eos)[0]}}, "eos_token_id", -1, false, 0)
                            : read_size(j, "eos_token_id", -1, false, 0);
  c.rope.theta = read_number(j, "rope_theta", 10000.0);
  if (!(c.rope.theta > 1.0)) fail("\"rope_theta\" must be > 1, got " + std::to_string(c.rope.theta));
  read_rope_scaling(j, c.rope);
  const bool attention_bias = read_bool(j, "attention_bias", false);
  c.qkv_bias = type == "qwen2" || ((type == "llama" || type == "qwen3") && attention_bias);
  c.o_bias = (type == "llama" || type == "qwen3") && attention_bias;
  c.mlp_bias = type == "llama" && read_bool(j, "mlp_bias", false);
  c.qk_norm = type == "qwen3";
  c.sliding_window = read_sliding_window(j, c);
  if (c.num_heads % c.kv_heads() != 0)
    fail("num_attention_heads = " + std::to_string(c.num_heads) + " is not a multiple of \"num_key_value_heads\" = " +
         std::to_string(c.kv_heads()));
  if (c.head_dim() < 2 || c.head_dim() % 2 != 0)
    fail("\"head_dim\" = " + std::to_string(c.head_dim()) + " must be even and at least 2 (rotary pairs; " +
         "without the key it is hidden_size / num_attention_heads)");
  // The projections' widths, num_attention_heads × head_dim, stay sizes like any other.
  if (static_cast<int64_t>(c.num_heads) * c.head_dim() > kMaxSize)
    fail("num_attention_heads × \"head_dim\" = " + std::to_string(static_cast<int64_t>(c.num_heads) * c.head_dim()) +
         " is too large");
  if (read_size(j, "pretraining_tp", 1, false) != 1)
    fail("\"pretraining_tp\" other than 1 is not supported");
  if (read_number(j, "partial_rotary_factor", 1.0) != 1.0)
    fail("\"partial_rotary_factor\" other than 1 is not supported (every dimension is rotated)");
}

void parse_gpt2(const json& j, ModelConfig& c) {
  c.family = Family::Gpt2;
  c.vocab_size = read_size(j, "vocab_size", 50257, true);
  c.hidden_size = read_size(j, "n_embd", 768, true);
  c.num_layers = read_size(j, "n_layer", 12, true);
  c.num_heads = read_size(j, "n_head", 12, true);
  c.intermediate_size = read_size(j, "n_inner", 4 * c.hidden_size, false);
  c.max_position_embeddings = read_size(j, "n_positions", 1024, true);
  c.type_vocab_size = 0;
  c.layer_norm_eps = 1e-5;
  read_eps(j, "layer_norm_epsilon", c.layer_norm_eps);
  c.hidden_act = read_string(j, "activation_function", "gelu_new");
  c.bos_token_id = read_size(j, "bos_token_id", -1, false, 0);
  c.eos_token_id = read_size(j, "eos_token_id", -1, false, 0);
  reject_gpt2_options(j);
}

}  // namespace

std::string ModelConfig::position_limit_key() const {
  if (family == Family::Llama && max_tokens() < max_position_embeddings) return "sliding_window";
  return family == Family::Gpt2 ? "n_positions" : "max_position_embeddings";
}

ModelConfig parse_config(std::string_view config_json) {
  json j;
  try {
    j = read_json(config_json);
  } catch (const json::exception& e) {
    fail(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object()) fail("top level must be a JSON object");

  ModelConfig c;
  c.model_type = read_string(j, "model_type", infer_model_type(j));
  const bool distil = c.model_type == "distilbert", roberta = c.model_type == "roberta";
  const bool llama = c.model_type == "llama" || c.model_type == "mistral" || c.model_type == "qwen2" ||
                     c.model_type == "qwen3";
  if (c.model_type != "bert" && !distil && !roberta && c.model_type != "gpt2" && !llama)
    fail("unsupported model_type \"" + c.model_type +
         "\" (supported: bert, distilbert, roberta, gpt2, llama, mistral, qwen2, qwen3)");
  if (!kBuildHasDecoders && (c.model_type == "gpt2" || llama))
    throw_not_in_build("the decoder model_type \"" + c.model_type + "\" (GPT-2 and the Llama family)");
  c.family = distil ? Family::DistilBert : roberta ? Family::Roberta : Family::Bert;

  if (c.model_type == "gpt2") {
    parse_gpt2(j, c);
  } else if (llama) {
    parse_llama(j, c);
  } else if (distil) {
    c.vocab_size = read_size(j, "vocab_size", 30522, true);
    c.hidden_size = read_size(j, "dim", 768, true);
    c.num_layers = read_size(j, "n_layers", 6, true);
    c.num_heads = read_size(j, "n_heads", 12, true);
    c.intermediate_size = read_size(j, "hidden_dim", 3072, true);
    c.max_position_embeddings = read_size(j, "max_position_embeddings", 512, false);
    c.type_vocab_size = 0;
    c.layer_norm_eps = 1e-12;  // hard-coded in transformers' DistilBERT modules
    c.hidden_act = read_string(j, "activation", "gelu");
  } else {
    c.vocab_size = read_size(j, "vocab_size", 30522, true);
    c.hidden_size = read_size(j, "hidden_size", 768, true);
    c.num_layers = read_size(j, "num_hidden_layers", 12, true);
    c.num_heads = read_size(j, "num_attention_heads", 12, true);
    c.intermediate_size = read_size(j, "intermediate_size", 3072, true);
    c.max_position_embeddings = read_size(j, "max_position_embeddings", 512, false);
    c.type_vocab_size = read_size(j, "type_vocab_size", 2, false);
    c.hidden_act = read_string(j, "hidden_act", "gelu");
    // Relative position schemes change the attention scores; we only implement learned absolute.
    const std::string pos = read_string(j, "position_embedding_type", "absolute");
    if (pos != "absolute")
      fail("unsupported position_embedding_type \"" + pos + "\" (only \"absolute\")");
    read_eps(j, "layer_norm_eps", c.layer_norm_eps);
  }
  c.pad_token_id = read_size(j, "pad_token_id", roberta ? 1 : 0, false, 0);
  // LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config default to an untied head.
  c.tie_word_embeddings = read_bool(j, "tie_word_embeddings", !llama);
  c.mlm_head_act = roberta ? "gelu" : c.hidden_act;
  if (roberta && c.max_tokens() < 1)
    fail("max_position_embeddings = " + std::to_string(c.max_position_embeddings) + " leaves no position after " +
         "RoBERTa's padding offset (pad_token_id + 1 = " + std::to_string(c.pad_token_id + 1) + ")");

  if (!is_supported_activation(c.hidden_act, llama))
    fail(std::string("unsupported activation \"") + c.hidden_act +
         "\" (supported: gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu" + (llama ? ", silu)" : ")"));
  if (!llama && c.hidden_size % c.num_heads != 0)
    fail("hidden size " + std::to_string(c.hidden_size) + " is not divisible by the number of heads " +
         std::to_string(c.num_heads));

  auto arch = j.find("architectures");
  if (arch != j.end() && arch->is_array()) {
    for (const auto& a : *arch)
      if (a.is_string() && a.get<std::string>().find("ForMaskedLM") != std::string::npos)
        c.has_mlm_head_hint = true;
  }
  return c;
}

}  // namespace attnscope
