// load_weights(): the only place that knows Hugging Face tensor names. One table per family maps
// checkpoint names to ModelWeights fields; every tensor is shape-checked as it is read, and a
// missing or misshapen tensor is an E_WEIGHTS error naming it.
#include "weights.h"

#include "error.h"
#include "kernels/packed_linear_wasmsimd.h"

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
    if (precision == WeightPrecision::F16)
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
    if (precision == WeightPrecision::F16) {
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

std::string detect_prefix(const TensorSource& st, const std::string& prefix, const std::string& probe) {
  return st.has(prefix + probe) ? prefix : "";
}

// BERT-shaped checkpoints: BertModel / BertForMaskedLM, and RobertaModel / RobertaForMaskedLM
// (the same layers under "roberta.", a different masked-LM head).
ModelWeights load_bert(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const int64_t C = c.hidden_size, F = c.intermediate_size, V = c.vocab_size;
  const std::string model_prefix = c.family == Family::Roberta ? "roberta." : "bert.";
  const Reader r{st, detect_prefix(st, model_prefix, "embeddings.word_embeddings.weight"), precision};
  ModelWeights w;
  w.word_emb = r.matrix("embeddings.word_embeddings.weight", {V, C});
  w.pos_emb = r.get("embeddings.position_embeddings.weight", {c.max_position_embeddings, C});
  w.type_emb = r.get("embeddings.token_type_embeddings.weight", {c.type_vocab_size, C});
  r.layer_norm("embeddings.LayerNorm", C, w.ln_emb_g, w.ln_emb_b);

  w.layers.resize(c.num_layers);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    LayerWeights& L = w.layers[l];
    r.linear(p + "attention.self.query", C, C, L.q_w, L.q_b);
    r.linear(p + "attention.self.key", C, C, L.k_w, L.k_b);
    r.linear(p + "attention.self.value", C, C, L.v_w, L.v_b);
    r.linear(p + "attention.output.dense", C, C, L.o_w, L.o_b);
    r.layer_norm(p + "attention.output.LayerNorm", C, L.ln_attn_g, L.ln_attn_b);
    r.linear(p + "intermediate.dense", F, C, L.ff_i_w, L.ff_i_b);
    r.linear(p + "output.dense", C, F, L.ff_o_w, L.ff_o_b);
    r.layer_norm(p + "output.LayerNorm", C, L.ln_out_g, L.ln_out_b);
  }
  // pooler.* and cls.seq_relationship.* (next-sentence head) are not part of the encoder: ignored.

  // BertForMaskedLM's head is stored without the "bert." prefix.
  const Reader head{st, "", precision};
  if (head.has("lm_head.dense.weight")) {  // RobertaLMHead: dense → gelu → layer_norm → decoder
    w.has_mlm_head = true;
    head.linear_f32("lm_head.dense", C, C, w.mlm.dense_w, w.mlm.dense_b);
    head.layer_norm("lm_head.layer_norm", C, w.mlm.ln_g, w.mlm.ln_b);
    if (!c.tie_word_embeddings) w.mlm.decoder_w = head.get("lm_head.decoder.weight", {V, C});
    w.mlm.bias = head.has("lm_head.bias") ? head.get("lm_head.bias", {V}) : head.get("lm_head.decoder.bias", {V});
  } else if (head.has("cls.predictions.transform.dense.weight")) {
    w.has_mlm_head = true;
    head.linear_f32("cls.predictions.transform.dense", C, C, w.mlm.dense_w, w.mlm.dense_b);
    head.layer_norm("cls.predictions.transform.LayerNorm", C, w.mlm.ln_g, w.mlm.ln_b);
    // Tied (the default): the decoder is word_emb itself, not a copy (94 MB for bert-base).
    if (!c.tie_word_embeddings) w.mlm.decoder_w = head.get("cls.predictions.decoder.weight", {V, C});
    w.mlm.bias = head.has("cls.predictions.bias") ? head.get("cls.predictions.bias", {V})
                                                  : head.get("cls.predictions.decoder.bias", {V});
  }
  return w;
}

ModelWeights load_distilbert(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const int64_t C = c.hidden_size, F = c.intermediate_size, V = c.vocab_size;
  const Reader r{st, detect_prefix(st, "distilbert.", "embeddings.word_embeddings.weight"), precision};
  ModelWeights w;
  w.word_emb = r.matrix("embeddings.word_embeddings.weight", {V, C});
  w.pos_emb = r.get("embeddings.position_embeddings.weight", {c.max_position_embeddings, C});
  r.layer_norm("embeddings.LayerNorm", C, w.ln_emb_g, w.ln_emb_b);

  w.layers.resize(c.num_layers);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "transformer.layer." + std::to_string(l) + ".";
    LayerWeights& L = w.layers[l];
    r.linear(p + "attention.q_lin", C, C, L.q_w, L.q_b);
    r.linear(p + "attention.k_lin", C, C, L.k_w, L.k_b);
    r.linear(p + "attention.v_lin", C, C, L.v_w, L.v_b);
    r.linear(p + "attention.out_lin", C, C, L.o_w, L.o_b);
    r.layer_norm(p + "sa_layer_norm", C, L.ln_attn_g, L.ln_attn_b);
    r.linear(p + "ffn.lin1", F, C, L.ff_i_w, L.ff_i_b);
    r.linear(p + "ffn.lin2", C, F, L.ff_o_w, L.ff_o_b);
    r.layer_norm(p + "output_layer_norm", C, L.ln_out_g, L.ln_out_b);
  }

  // DistilBertForMaskedLM: vocab_transform → activation → vocab_layer_norm → vocab_projector,
  // stored at the top level (no prefix); the projector weight is tied to the word embeddings.
  const Reader head{st, "", precision};
  if (head.has("vocab_transform.weight")) {
    w.has_mlm_head = true;
    head.linear_f32("vocab_transform", C, C, w.mlm.dense_w, w.mlm.dense_b);
    head.layer_norm("vocab_layer_norm", C, w.mlm.ln_g, w.mlm.ln_b);
    if (!c.tie_word_embeddings) w.mlm.decoder_w = head.get("vocab_projector.weight", {V, C});
    w.mlm.bias = head.get("vocab_projector.bias", {V});
  }
  return w;
}

// GPT2LMHeadModel / GPT2Model: pre-LN blocks h.N (ln_1 → attn → ln_2 → mlp) and a final ln_f.
ModelWeights load_gpt2(const ModelConfig& c, TensorSource& st, WeightPrecision precision) {
  const int64_t C = c.hidden_size, F = c.intermediate_size, V = c.vocab_size;
  const Reader r{st, detect_prefix(st, "transformer.", "wte.weight"), precision};
  ModelWeights w;
  w.word_emb = r.matrix("wte.weight", {V, C});
  w.pos_emb = r.get("wpe.weight", {c.max_position_embeddings, C});

  w.layers.resize(c.num_layers);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    LayerWeights& L = w.layers[l];
    r.layer_norm(p + "ln_1", C, L.ln_attn_g, L.ln_attn_b);
    r.conv1d(p + "attn.c_attn", C, 3 * C, {{&L.q_w, &L.q_b}, {&L.k_w, &L.k_b}, {&L.v_w, &L.v_b}});
    r.conv1d(p + "attn.c_proj", C, C, {{&L.o_w, &L.o_b}});
    r.layer_norm(p + "ln_2", C, L.ln_out_g, L.ln_out_b);
    r.conv1d(p + "mlp.c_fc", C, F, {{&L.ff_i_w, &L.ff_i_b}});
    r.conv1d(p + "mlp.c_proj", F, C, {{&L.ff_o_w, &L.ff_o_b}});
  }
  r.layer_norm("ln_f", C, w.ln_f_g, w.ln_f_b);

  // lm_head is stored without the prefix. Tied (the default): the head is wte itself.
  if (!c.tie_word_embeddings) {
    const Reader head{st, "", precision};
    if (!head.has("lm_head.weight"))
      throw Error("E_WEIGHTS", "config.json sets \"tie_word_embeddings\": false but the checkpoint has no "
                               "\"lm_head.weight\"");
    w.lm_head = head.matrix("lm_head.weight", {V, C});
  }
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

}  // namespace

bool weight_is_used(const ModelConfig& config, const std::string& name) {
  if (name.find("pooler.") != std::string::npos || name.find("seq_relationship") != std::string::npos ||
      ends_with(name, "position_ids"))
    return false;
  // GPT-2's causal-mask buffers (older saves): constants, not weights.
  if (ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias")) return false;
  const bool decoder_weight = name == "cls.predictions.decoder.weight" || name == "vocab_projector.weight" ||
                              name == "lm_head.weight" || name == "lm_head.decoder.weight";
  return !(decoder_weight && config.tie_word_embeddings);
}

bool weight_is_matrix(const std::string& name, size_t rank) {
  if (rank != 2) return false;
  const bool gpt2_block = name.rfind("h.", 0) == 0 || name.find(".h.") != std::string::npos;
  return ends_with(name, "word_embeddings.weight") || ends_with(name, "wte.weight") ||
         name == "lm_head.weight" ||
         ((name.find(".layer.") != std::string::npos || gpt2_block) && ends_with(name, ".weight"));
}

ModelWeights load_weights(const ModelConfig& config, TensorSource& tensors, WeightPrecision precision) {
  switch (config.family) {
    case Family::DistilBert: return load_distilbert(config, tensors, precision);
    case Family::Gpt2: return load_gpt2(config, tensors, precision);
    case Family::Bert:
    case Family::Roberta: break;
  }
  return load_bert(config, tensors, precision);
}

ModelWeights load_weights(const ModelConfig& config, const SafeTensors& tensors, WeightPrecision precision) {
  FileTensors source(tensors);
  return load_weights(config, source, precision);
}

}  // namespace attnscope
