// load_weights(): reads a checkpoint's tensors by the family's row of the name table
// (weight_names.h) into ModelWeights fields; every tensor is shape-checked as it is read, and a
// missing or misshapen tensor is an E_WEIGHTS error naming it.
#include "weights.h"

#include "error.h"
#include "kernels/packed_linear_wasmsimd.h"
#include "weight_names.h"

namespace attnscope {

namespace {

using Shape = std::vector<int64_t>;

// Resolves names for one checkpoint: the optional model prefix ("bert." / "distilbert.") and the
// LayerNorm parameter spelling (weight/bias, or gamma/beta in checkpoints converted from TF 1).
struct Reader {
  TensorSource& st;
  std::string prefix;
  WeightPrecision precision;

  std::vector<float> get(const std::string& name, const Shape& shape) const {
    return st.take_f32(prefix + name, shape);
  }
  bool has(const std::string& name) const { return st.has(prefix + name); }
  WeightMatrix matrix(const std::string& name, const Shape& shape) const {
    WeightMatrix m;
    if (precision != WeightPrecision::F32)  // F16, and Q8 (quantized from f16 when packed)
      m.f16 = st.take_f16(prefix + name, shape);
    else
      m.f32 = st.take_f32(prefix + name, shape);
    return m;
  }

  // A LayerNorm at `base` ("embeddings.LayerNorm"): gamma, beta of shape (C).
  void layer_norm(const std::string& base, int64_t C, std::vector<float>& g, std::vector<float>& b) const {
    if (!has(base + ".weight") && has(base + ".gamma")) {
      g = get(base + ".gamma", {C});
      b = get(base + ".beta", {C});
    } else {
      g = get(base + ".weight", {C});
      b = get(base + ".bias", {C});
    }
  }
  // An nn.Linear at `base`: weight (out, in), bias (out).
  void linear(const std::string& base, int64_t out, int64_t in, WeightMatrix& w,
              std::vector<float>& b) const {
    w = matrix(base + ".weight", {out, in});
    b = get(base + ".bias", {out});
  }
  // A GPT-2 Conv1D at `base`: weight stored (in, out), bias (out), y = x W + b. Its columns are
  // split into parts.size() equal blocks (c_attn holds q | k | v side by side), each returned as
  // an nn.Linear weight (out / parts, in) with its slice of the bias.
  void conv1d(const std::string& base, int64_t in, int64_t out,
              std::initializer_list<std::pair<WeightMatrix*, std::vector<float>*>> parts) const {
    const int64_t cols = out / static_cast<int64_t>(parts.size());
    const std::vector<float> bias = get(base + ".bias", {out});
    int64_t col0 = 0;
    if (precision != WeightPrecision::F32) {
      const std::vector<uint16_t> w = st.take_f16(prefix + base + ".weight", {in, out});
      for (auto [matrix, b] : parts) {
        matrix->f16 = transposed_columns(w, in, out, col0, cols, kernels::kWeightSlackHalves);
        b->assign(bias.begin() + col0, bias.begin() + col0 + cols);
        col0 += cols;
      }
    } else {
      const std::vector<float> w = st.take_f32(prefix + base + ".weight", {in, out});
      for (auto [matrix, b] : parts) {
        matrix->f32 = transposed_columns(w, in, out, col0, cols, kernels::kWeightSlackFloats);
        b->assign(bias.begin() + col0, bias.begin() + col0 + cols);
        col0 += cols;
      }
    }
  }
  // Columns [col0, col0 + cols) of an (in, out) row-major matrix as a (cols, in) one, with the
  // spare capacity pack_linear needs to pack it in place.
  template <typename T>
  static std::vector<T> transposed_columns(const std::vector<T>& w, int64_t in, int64_t out, int64_t col0,
                                           int64_t cols, size_t slack) {
    std::vector<T> t;
    t.reserve(static_cast<size_t>(cols * in) + slack);
    t.resize(static_cast<size_t>(cols * in));
    for (int64_t i = 0; i < in; ++i) {
      const T* row = w.data() + i * out + col0;
      for (int64_t c = 0; c < cols; ++c) t[static_cast<size_t>(c * in + i)] = row[c];
    }
    return t;
  }
  // The MLM head's small transform stays f32 whatever the precision.
  void linear_f32(const std::string& base, int64_t out, int64_t in, std::vector<float>& w,
                  std::vector<float>& b) const {
    w = get(base + ".weight", {out, in});
    b = get(base + ".bias", {out});
  }
};

std::string detect_prefix(const TensorSource& st, const FamilyNames& names) {
  return st.has(names.prefix + names.probe) ? names.prefix : "";
}

// The "<layers><l>." prefix of layer l's parts.
std::string layer_base(const FamilyNames& names, int l) { return names.layers + std::to_string(l) + "."; }

// The masked-LM head a BERT-shaped or DistilBERT checkpoint carries (the first of the family's
// heads that is stored), read without the model prefix. Tied (the default): the decoder is
// word_emb itself, not a copy (94 MB for bert-base).
void load_mlm_head(const ModelConfig& c, const FamilyNames& names, TensorSource& st, WeightPrecision precision,
                   ModelWeights& w) {
  const int64_t C = c.hidden_size, V = c.vocab_size;
  const Reader head{st, "", precision};
  for (const MlmHeadNames& n : names.mlm_heads) {
    if (!head.has(n.dense + ".weight")) continue;
    w.has_mlm_head = true;
    head.linear_f32(n.dense, C, C, w.mlm.dense_w, w.mlm.dense_b);
    head.layer_norm(n.norm, C, w.mlm.ln_g, w.mlm.ln_b);
    if (!c.tie_word_embeddings) w.mlm.decoder_w = head.get(n.decoder, {V, C});
    w.mlm.bias = n.decoder_bias.empty() || head.has(n.bias) ? head.get(n.bias, {V}) : head.get(n.decoder_bias, {V});
    return;
  }
}

// A decoder's untied language-model head, stored without the prefix; nothing when tied (the head
// is the word embeddings).
void load_lm_head(const ModelConfig& c, const FamilyNames& names, TensorSource& st, WeightPrecision precision,
                  ModelWeights& w) {
  if (c.tie_word_embeddings) return;
  const Reader head{st, "", precision};
  if (!head.has(names.lm_head))
    throw Error("E_WEIGHTS", "config.json sets \"tie_word_embeddings\": false but the checkpoint has no \"" +
                                 names.lm_head + "\"");
  w.lm_head = head.matrix(names.lm_head, {c.vocab_size, c.hidden_size});
}

// BERT-shaped checkpoints (BertModel / BertForMaskedLM, RobertaModel / RobertaForMaskedLM) and
// DistilBERT: post-LN layers of nn.Linear, learned positions, a normalised embeddings sum.
ModelWeights load_encoder(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const int64_t C = c.hidden_size, F = c.intermediate_size, V = c.vocab_size;
  const FamilyNames& names = family_names(c.family);
  const Reader r{st, detect_prefix(st, names), precision};
  ModelWeights w;
  w.word_emb = r.matrix(names.word_emb, {V, C});
  w.pos_emb = r.get(names.pos_emb, {c.max_position_embeddings, C});
  if (!names.type_emb.empty()) w.type_emb = r.get(names.type_emb, {c.type_vocab_size, C});
  r.layer_norm(names.ln_emb, C, w.ln_emb_g, w.ln_emb_b);

  const LayerNames& n = names.layer;
  w.layers.resize(c.num_layers);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = layer_base(names, l);
    LayerWeights& L = w.layers[l];
    r.linear(p + n.q, C, C, L.q_w, L.q_b);
    r.linear(p + n.k, C, C, L.k_w, L.k_b);
    r.linear(p + n.v, C, C, L.v_w, L.v_b);
    r.linear(p + n.o, C, C, L.o_w, L.o_b);
    r.layer_norm(p + n.ln_attn, C, L.ln_attn_g, L.ln_attn_b);
    r.linear(p + n.ff_in, F, C, L.ff_i_w, L.ff_i_b);
    r.linear(p + n.ff_out, C, F, L.ff_o_w, L.ff_o_b);
    r.layer_norm(p + n.ln_ffn, C, L.ln_out_g, L.ln_out_b);
  }
  load_mlm_head(c, names, st, precision, w);
  return w;
}

// GPT2LMHeadModel / GPT2Model: pre-LN blocks h.N (ln_1 → attn → ln_2 → mlp) and a final ln_f.
ModelWeights load_gpt2(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const int64_t C = c.hidden_size, F = c.intermediate_size, V = c.vocab_size;
  const FamilyNames& names = family_names(c.family);
  const Reader r{st, detect_prefix(st, names), precision};
  ModelWeights w;
  w.word_emb = r.matrix(names.word_emb, {V, C});
  w.pos_emb = r.get(names.pos_emb, {c.max_position_embeddings, C});

  const LayerNames& n = names.layer;
  w.layers.resize(c.num_layers);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = layer_base(names, l);
    LayerWeights& L = w.layers[l];
    r.layer_norm(p + n.ln_attn, C, L.ln_attn_g, L.ln_attn_b);
    r.conv1d(p + n.q, C, 3 * C, {{&L.q_w, &L.q_b}, {&L.k_w, &L.k_b}, {&L.v_w, &L.v_b}});  // q = k = v: c_attn
    r.conv1d(p + n.o, C, C, {{&L.o_w, &L.o_b}});
    r.layer_norm(p + n.ln_ffn, C, L.ln_out_g, L.ln_out_b);
    r.conv1d(p + n.ff_in, C, F, {{&L.ff_i_w, &L.ff_i_b}});
    r.conv1d(p + n.ff_out, F, C, {{&L.ff_o_w, &L.ff_o_b}});
  }
  r.layer_norm(names.final_norm, C, w.ln_f_g, w.ln_f_b);
  load_lm_head(c, names, st, precision, w);
  return w;
}

// LlamaForCausalLM / MistralForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM (or their bare
// *Model saves): RMSNorms (weight only), q/k/v/o projections of their own widths, a SwiGLU MLP.
ModelWeights load_llama(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const int64_t C = c.hidden_size, F = c.intermediate_size, V = c.vocab_size;
  const int64_t Q = c.q_width(), KV = c.kv_width(), dh = c.head_dim();
  const FamilyNames& names = family_names(c.family);
  const Reader r{st, detect_prefix(st, names), precision};
  // A linear layer whose bias the config says is there (or not: then none is read).
  auto linear = [&](const std::string& base, int64_t out, int64_t in, bool bias, WeightMatrix& m,
                    std::vector<float>& b) {
    m = r.matrix(base + ".weight", {out, in});
    if (bias) b = r.get(base + ".bias", {out});
  };
  ModelWeights w;
  w.word_emb = r.matrix(names.word_emb, {V, C});

  const LayerNames& n = names.layer;
  w.layers.resize(c.num_layers);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = layer_base(names, l);
    LayerWeights& L = w.layers[l];
    L.ln_attn_g = r.get(p + n.ln_attn + ".weight", {C});
    linear(p + n.q, Q, C, c.qkv_bias, L.q_w, L.q_b);
    linear(p + n.k, KV, C, c.qkv_bias, L.k_w, L.k_b);
    linear(p + n.v, KV, C, c.qkv_bias, L.v_w, L.v_b);
    linear(p + n.o, C, Q, c.o_bias, L.o_w, L.o_b);
    if (c.qk_norm) {
      L.q_norm_g = r.get(p + n.q_norm + ".weight", {dh});
      L.k_norm_g = r.get(p + n.k_norm + ".weight", {dh});
    }
    L.ln_out_g = r.get(p + n.ln_ffn + ".weight", {C});
    linear(p + n.ff_gate, F, C, c.mlp_bias, L.ff_g_w, L.ff_g_b);
    linear(p + n.ff_in, F, C, c.mlp_bias, L.ff_i_w, L.ff_i_b);
    linear(p + n.ff_out, C, F, c.mlp_bias, L.ff_o_w, L.ff_o_b);
  }
  w.ln_f_g = r.get(names.final_norm + ".weight", {C});
  load_lm_head(c, names, st, precision, w);
  return w;
}

// A whole file in memory: tensors are converted (copied) as they are taken.
class FileTensors : public TensorSource {
 public:
  explicit FileTensors(const SafeTensors& st) : st_(st) {}
  bool has(const std::string& name) const override { return st_.has(name); }
  std::vector<float> take_f32(const std::string& name, const Shape& shape) override {
    return st_.to_f32(name, shape);
  }
  std::vector<uint16_t> take_f16(const std::string& name, const Shape& shape) override {
    return st_.to_f16(name, shape);
  }

 private:
  const SafeTensors& st_;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

bool weight_is_used(const ModelConfig& config, const std::string& name) {
  for (Family f : {Family::Bert, Family::Roberta, Family::DistilBert, Family::Gpt2, Family::Llama}) {
    const FamilyNames& names = family_names(f);
    const std::string local = starts_with(name, names.prefix) ? name.substr(names.prefix.size()) : name;
    for (const std::string& root : names.ignored_roots)
      if (starts_with(local, root)) return false;
    for (const std::string& suffix : names.ignored_suffixes)
      if (ends_with(local, suffix)) return false;
    // A stored head is ignored when tied, whichever family's name it carries.
    bool head = name == names.lm_head;
    for (const MlmHeadNames& mlm : names.mlm_heads) head = head || name == mlm.decoder;
    if (head && config.tie_word_embeddings) return false;
  }
  return true;
}

bool weight_is_matrix(const ModelConfig& config, const std::string& name, size_t rank) {
  if (rank != 2) return false;
  const FamilyNames& names = family_names(config.family);
  if (!names.lm_head.empty() && name == names.lm_head) return true;
  const std::string local = starts_with(name, names.prefix) ? name.substr(names.prefix.size()) : name;
  if (local == names.word_emb) return true;
  if (!starts_with(local, names.layers)) return false;
  const size_t dot = local.find('.', names.layers.size());  // after the layer number
  if (dot == std::string::npos) return false;
  const std::string part = local.substr(dot + 1);
  for (const std::string& base : names.layer.linears())
    if (part == base + ".weight") return true;
  return false;
}

ModelWeights load_weights(const ModelConfig& config, TensorSource& tensors, WeightPrecision precision) {
  ModelWeights w;
  switch (config.family) {
    case Family::Gpt2: w = load_gpt2(config, tensors, precision); break;
    case Family::Llama: w = load_llama(config, tensors, precision); break;
    case Family::Bert:
    case Family::Roberta:
    case Family::DistilBert: w = load_encoder(config, tensors, precision); break;
  }
  w.precision = precision;
  return w;
}

ModelWeights load_weights(const ModelConfig& config, const SafeTensors& tensors, WeightPrecision precision) {
  FileTensors source(tensors);
  return load_weights(config, source, precision);
}

}  // namespace attnscope
