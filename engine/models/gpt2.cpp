// GPT-2: pre-norm decoder layers, x ← x + Attention(LayerNorm(x), causal); x ← x + FFN(LayerNorm(x)),
// learned positions added to the word embeddings, a final LayerNorm (ln_f) before the head.
#include "models/family.h"
#include "weight_reader.h"

namespace attnscope {

const LayerSpec kGpt2Layer{NormPlacement::Before, NormKind::LayerNorm, FeedForwardKind::Plain, Positions::Learned};

namespace {

// Blocks h.N (ln_1 → attn → ln_2 → mlp) of Conv1D layers, stored (in, out) and transposed as they
// are read; c_attn holds q | k | v side by side.
void read_layer(const ModelConfig& c, const Reader& r, const LayerNames& n, const std::string& p, LayerWeights& L) {
  const int64_t C = c.hidden_size, F = c.intermediate_size;
  r.layer_norm(p + n.ln_attn, C, L.ln_attn_g, L.ln_attn_b);
  r.conv1d(p + n.q, C, 3 * C, {{&L.q_w, &L.q_b}, {&L.k_w, &L.k_b}, {&L.v_w, &L.v_b}});  // q = k = v: c_attn
  r.conv1d(p + n.o, C, C, {{&L.o_w, &L.o_b}});
  r.layer_norm(p + n.ln_ffn, C, L.ln_out_g, L.ln_out_b);
  r.conv1d(p + n.ff_in, C, F, {{&L.ff_i_w, &L.ff_i_b}});
  r.conv1d(p + n.ff_out, F, C, {{&L.ff_o_w, &L.ff_o_b}});
}

}  // namespace

// GPT2LMHeadModel / GPT2Model.
ModelWeights load_gpt2(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const FamilyNames& names = family_names(c.family);
  const Reader r{st, detect_prefix(st, names), precision};
  ModelWeights w = read_checkpoint(c, names, r, read_layer);
  r.layer_norm(names.final_norm, c.hidden_size, w.ln_f_g, w.ln_f_b);
  load_lm_head(c, names, st, precision, w);
  return w;
}

}  // namespace attnscope
