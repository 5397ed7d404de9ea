// parse_config(): the one reader of config.json. BERT-shaped configs (BERT, MiniLM, RoBERTa, ...),
// DistilBERT and GPT-2 use different key names for the same quantities; all land in ModelConfig.
// Anything the engine could not run faithfully is rejected here with E_CONFIG naming the key.
#include "config.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "error.h"

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
    fail(std::string("\"") + key + "\" must be an integer, got " + it->dump());
  }
  if (value < min || value > kMaxSize)
    fail(std::string("\"") + key + "\" = " + std::to_string(value) + " is out of range [" +
         std::to_string(min) + ", " + std::to_string(kMaxSize) + "]");
  return static_cast<int>(value);
}

std::string read_string(const json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string()) fail(std::string("\"") + key + "\" must be a string, got " + it->dump());
  return it->get<std::string>();
}

bool is_supported_activation(const std::string& act) {
  return act == "gelu" || act == "gelu_python" || act == "gelu_new" ||
         act == "gelu_pytorch_tanh" || act == "gelu_fast" || act == "relu";
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
  if (!it->is_number()) fail(std::string("\"") + key + "\" must be a number, got " + it->dump());
  const double e = it->get<double>();
  if (!(e > 0.0 && e < 1.0)) fail(std::string("\"") + key + "\" = " + it->dump() + " must be in (0, 1)");
  eps = e;
}

bool read_bool(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail(std::string("\"") + key + "\" must be true or false, got " + it->dump());
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

ModelConfig parse_config(std::string_view config_json) {
  json j;
  try {
    j = json::parse(config_json.begin(), config_json.end());
  } catch (const json::exception& e) {
    fail(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object()) fail("top level must be a JSON object");

  ModelConfig c;
  c.model_type = read_string(j, "model_type", infer_model_type(j));
  const bool distil = c.model_type == "distilbert", roberta = c.model_type == "roberta";
  if (c.model_type != "bert" && !distil && !roberta && c.model_type != "gpt2")
    fail("unsupported model_type \"" + c.model_type + "\" (supported: bert, distilbert, roberta, gpt2)");
  c.family = distil ? Family::DistilBert : roberta ? Family::Roberta : Family::Bert;

  if (c.model_type == "gpt2") {
    parse_gpt2(j, c);
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
  c.tie_word_embeddings = read_bool(j, "tie_word_embeddings", true);
  c.mlm_head_act = roberta ? "gelu" : c.hidden_act;
  if (roberta && c.max_tokens() < 1)
    fail("max_position_embeddings = " + std::to_string(c.max_position_embeddings) + " leaves no position after " +
         "RoBERTa's padding offset (pad_token_id + 1 = " + std::to_string(c.pad_token_id + 1) + ")");

  if (!is_supported_activation(c.hidden_act))
    fail(std::string("unsupported activation \"") + c.hidden_act +
         "\" (supported: gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu)");
  if (c.hidden_size % c.num_heads != 0)
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
