// The Llama family: Llama, Mistral, Qwen2, Qwen3. GPT-2's pre-norm decoder layer with RMSNorm,
// rotary positions on q and k (after Qwen3's per-head RMSNorm), grouped-query attention (fewer
// key/value heads than query heads) and a SwiGLU feed-forward:
//   x ← x + Attention(RMSNorm(x), causal);  x ← x + (act(x' W_gate) · x' W_up) W_down, x' = RMSNorm(x)
// No position table: the embeddings are the word embeddings alone.
#include "models/family.h"
#include "weight_reader.h"

namespace attnscope {

const LayerSpec kLlamaLayer{NormPlacement::Before, NormKind::RmsNorm, FeedForwardKind::Gated, Positions::Rotary};

// Llama's attention_bias (q, k, v and o), Qwen2's q/k/v biases, mlp_bias: as config.json says.
LayerBiases llama_biases(const ModelConfig& c) { return {c.qkv_bias, c.o_bias, c.mlp_bias}; }

namespace {

// RMSNorms (weight only), q/k/v/o projections of their own widths, Qwen3's q/k norms, a SwiGLU MLP.
void read_layer(const ModelConfig& c, const Reader& r, const LayerNames& n, const std::string& p, LayerWeights& L) {
  const int64_t C = c.hidden_size, F = c.intermediate_size, Q = c.q_width(), KV = c.kv_width(), dh = c.head_dim();
  const LayerBiases biases = llama_biases(c);
  // A linear layer whose bias the config says is there (or not: then none is read).
  auto linear = [&](const std::string& base, int64_t out, int64_t in, bool bias, WeightMatrix& m,
                    std::vector<float>& b) {
    m = r.matrix(base + ".weight", {out, in});
    if (bias) b = r.get(base + ".bias", {out});
  };
  L.ln_attn_g = r.get(p + n.ln_attn + ".weight", {C});
  linear(p + n.q, Q, C, biases.qkv, L.q_w, L.q_b);
  linear(p + n.k, KV, C, biases.qkv, L.k_w, L.k_b);
  linear(p + n.v, KV, C, biases.qkv, L.v_w, L.v_b);
  linear(p + n.o, C, Q, biases.o, L.o_w, L.o_b);
  if (c.qk_norm) {
    L.q_norm_g = r.get(p + n.q_norm + ".weight", {dh});
    L.k_norm_g = r.get(p + n.k_norm + ".weight", {dh});
  }
  L.ln_out_g = r.get(p + n.ln_ffn + ".weight", {C});
  linear(p + n.ff_gate, F, C, biases.mlp, L.ff_g_w, L.ff_g_b);
  linear(p + n.ff_in, F, C, biases.mlp, L.ff_i_w, L.ff_i_b);
  linear(p + n.ff_out, C, F, biases.mlp, L.ff_o_w, L.ff_o_b);
}

}  // namespace

// LlamaForCausalLM / MistralForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM, or their bare
// *Model saves; model.norm's RMSNorm at the end.
ModelWeights load_llama(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const FamilyNames& names = family_names(c.family);
  const Reader r{st, detect_prefix(st, names), precision};
  ModelWeights w = read_checkpoint(c, names, r, read_layer);
  w.ln_f_g = r.get(names.final_norm + ".weight", {c.hidden_size});
  load_lm_head(c, names, st, precision, w);
  return w;
}

}  // namespace attnscope
