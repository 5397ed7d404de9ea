// The tensor-name table of the encoder–decoder families and the loader that reads by it, written
// from transformers' BartForConditionalGeneration, MarianMTModel and T5ForConditionalGeneration.
// Each tensor's shape is checked as it is taken (E_WEIGHTS naming the tensor).
#include <cmath>

#include "error.h"
#include "seq2seq.h"

namespace attnscope {

namespace {

using Shape = std::vector<int64_t>;

// One layer's parts relative to "<stack><layers><l>.": linear bases (".weight", ".bias" follow)
// and norms. T5's feed-forward is layer.1 in the encoder and layer.2 in the decoder.
struct Seq2SeqLayerNames {
  std::string self_attn, self_norm, cross_attn, cross_norm;
  std::string q, k, v, o;
  std::string ff_in, ff_gate, ff_out, ffn_norm;
};

struct Seq2SeqNames {
  std::string prefix;         // optional ("model.": BartModel saves without it)
  std::string shared;         // the shared (V, C) embeddings, under the prefix
  std::string embed_tokens;   // "<stack>" + this: a copy of shared some saves keep instead
  std::string layers;         // "<stack>" + this + "<l>."
  std::string positions;      // "<stack>" + this: BART's learned / Marian's stored sinusoid table
  std::string embedding_norm; // BART
  std::string final_norm;     // T5
  std::string relative_bias;  // T5: "<stack>" + this, layer 0's (buckets, heads) table
  int position_offset = 0;    // BART: its learned positions' table has 2 rows before position 0
  bool sinusoid_positions = false;  // Marian: the sinusoid when the checkpoint stores no table
  bool biases = true;         // T5's linear layers and norms have none
  Seq2SeqLayerNames encoder_layer, decoder_layer;
  std::string lm_head = "lm_head.weight", final_logits_bias = "final_logits_bias";  // no prefix
};

Seq2SeqNames bart_names() {
  Seq2SeqNames n;
  n.prefix = "model.";
  n.shared = "shared.weight";
  n.embed_tokens = "embed_tokens.weight";
  n.layers = "layers.";
  n.positions = "embed_positions.weight";
  n.embedding_norm = "layernorm_embedding";
  n.position_offset = 2;
  Seq2SeqLayerNames l;
  l.self_attn = "self_attn";
  l.self_norm = "self_attn_layer_norm";
  l.q = "q_proj", l.k = "k_proj", l.v = "v_proj", l.o = "out_proj";
  l.ff_in = "fc1", l.ff_out = "fc2", l.ffn_norm = "final_layer_norm";
  n.encoder_layer = n.decoder_layer = l;
  n.decoder_layer.cross_attn = "encoder_attn";
  n.decoder_layer.cross_norm = "encoder_attn_layer_norm";
  return n;
}

Seq2SeqNames marian_names() {
  Seq2SeqNames n = bart_names();
  n.embedding_norm.clear();
  n.position_offset = 0;
  n.sinusoid_positions = true;
  return n;
}

Seq2SeqNames t5_names(bool gated) {
  Seq2SeqNames n;
  n.shared = "shared.weight";
  n.embed_tokens = "embed_tokens.weight";
  n.layers = "block.";
  n.final_norm = "final_layer_norm";
  n.relative_bias = "block.0.layer.0.SelfAttention.relative_attention_bias.weight";
  n.biases = false;
  n.final_logits_bias.clear();
  for (bool decoder : {false, true}) {
    Seq2SeqLayerNames l;
    l.self_attn = "layer.0.SelfAttention";
    l.self_norm = "layer.0.layer_norm";
    if (decoder) {
      l.cross_attn = "layer.1.EncDecAttention";
      l.cross_norm = "layer.1.layer_norm";
    }
    const std::string ff = decoder ? "layer.2." : "layer.1.";
    l.q = "q", l.k = "k", l.v = "v", l.o = "o";
    l.ff_in = ff + (gated ? "DenseReluDense.wi_1" : "DenseReluDense.wi");
    if (gated) l.ff_gate = ff + "DenseReluDense.wi_0";
    l.ff_out = ff + "DenseReluDense.wo";
    l.ffn_norm = ff + "layer_norm";
    (decoder ? n.decoder_layer : n.encoder_layer) = l;
  }
  return n;
}

// Takes tensors by name, under the prefix when the checkpoint stores them so.
class Reader {
 public:
  Reader(TensorSource& source, std::string prefix, WeightPrecision precision)
      : source_(source), prefix_(std::move(prefix)), precision_(precision) {}
  bool has(const std::string& name) const { return source_.has(prefix_ + name); }
  std::vector<float> vector(const std::string& name, const Shape& shape) {
    return source_.take_f32(prefix_ + name, shape);
  }
  WeightMatrix matrix(const std::string& name, const Shape& shape) {
    WeightMatrix m;
    if (precision_ != WeightPrecision::F32) m.f16 = source_.take_f16(prefix_ + name, shape);  // F16, Q8
    else m.f32 = source_.take_f32(prefix_ + name, shape);
    return m;
  }
  LinearLayer linear(const std::string& base, int in, int out, bool bias) {
    WeightMatrix w = matrix(base + ".weight", {out, in});
    std::vector<float> b = bias ? vector(base + ".bias", {out}) : std::vector<float>{};
    return pack_linear_layer(w, b, in, out, precision_);
  }
  LayerNormParams norm(const std::string& base, int C, bool beta) {
    LayerNormParams p;
    p.gamma = vector(base + ".weight", {C});
    if (beta) p.beta = vector(base + ".bias", {C});
    return p;
  }

 private:
  TensorSource& source_;
  std::string prefix_;
  WeightPrecision precision_;
};

// MarianSinusoidalPositionalEmbedding._init_weight: column j of position p is p / 10000^(2⌊j/2⌋/C);
// sin of the even columns fills the first ⌈C/2⌉ columns, cos of the odd ones the rest.
std::vector<float> sinusoid_table(int positions, int C) {
  std::vector<float> table(static_cast<size_t>(positions) * C);
  const int sentinel = (C + 1) / 2;
  for (int p = 0; p < positions; ++p)
    for (int j = 0; j < C; ++j) {
      const double angle = p / std::pow(10000.0, 2.0 * (j / 2) / C);
      const int column = j % 2 == 0 ? j / 2 : sentinel + j / 2;
      table[static_cast<size_t>(p) * C + column] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return table;
}

Seq2SeqStack load_stack(const Seq2SeqConfig& c, const Seq2SeqNames& names, Reader& r, bool decoder) {
  const std::string stack = decoder ? "decoder." : "encoder.";
  const Seq2SeqLayerNames& ln = decoder ? names.decoder_layer : names.encoder_layer;
  const int C = c.d_model, L = decoder ? c.decoder_layers : c.encoder_layers;
  const int H = decoder ? c.decoder_heads : c.encoder_heads;
  const int inner = H * (decoder ? c.decoder_head_dim() : c.encoder_head_dim());
  const int F = decoder ? c.decoder_ffn : c.encoder_ffn;
  const bool biases = names.biases;
  const HeadLayout layout{H, H, inner / H};
  Seq2SeqStack s;
  if (!names.positions.empty()) {
    // transformers reads the table a checkpoint stores; Marian's that store none get the sinusoid.
    const int rows = c.max_position_embeddings + names.position_offset;
    s.positions = r.has(stack + names.positions) || !names.sinusoid_positions
                      ? r.vector(stack + names.positions, {rows, C})
                      : sinusoid_table(c.max_position_embeddings, C);
  }
  if (!names.embedding_norm.empty()) s.embedding_norm = r.norm(stack + names.embedding_norm, C, true);
  if (!names.relative_bias.empty()) s.relative_bias = r.vector(stack + names.relative_bias, {c.num_buckets, H});
  if (!names.final_norm.empty()) s.final_norm = r.norm(stack + names.final_norm, C, false);
  auto attention = [&](const std::string& layer, const std::string& base, const std::string& norm) {
    AttentionWeights a;
    a.q = r.linear(layer + base + "." + ln.q, C, inner, biases);
    a.k = r.linear(layer + base + "." + ln.k, C, inner, biases);
    a.v = r.linear(layer + base + "." + ln.v, C, inner, biases);
    a.o = r.linear(layer + base + "." + ln.o, inner, C, biases);
    a.norm = r.norm(layer + norm, C, biases);
    a.layout = layout;
    return a;
  };
  for (int l = 0; l < L; ++l) {
    const std::string layer = stack + names.layers + std::to_string(l) + ".";
    Layer y;
    y.self = attention(layer, ln.self_attn, ln.self_norm);
    if (decoder) y.cross = attention(layer, ln.cross_attn, ln.cross_norm);
    y.ffn.in = r.linear(layer + ln.ff_in, C, F, biases);
    if (!ln.ff_gate.empty()) y.ffn.gate = r.linear(layer + ln.ff_gate, C, F, biases);
    y.ffn.out = r.linear(layer + ln.ff_out, F, C, biases);
    y.ffn.norm = r.norm(layer + ln.ffn_norm, C, biases);
    s.layers.push_back(std::move(y));
  }
  return s;
}

class FileTensors : public TensorSource {
 public:
  explicit FileTensors(const SafeTensors& st) : st_(st) {}
  bool has(const std::string& name) const override { return st_.has(name); }
  std::vector<float> take_f32(const std::string& name, const Shape& shape) override { return st_.to_f32(name, shape); }
  std::vector<uint16_t> take_f16(const std::string& name, const Shape& shape) override {
    return st_.to_f16(name, shape);
  }

 private:
  const SafeTensors& st_;
};

}  // namespace

Seq2SeqWeights load_seq2seq_weights(const Seq2SeqConfig& c, TensorSource& tensors, WeightPrecision precision) {
  const Seq2SeqNames names = c.family == Seq2SeqFamily::T5       ? t5_names(c.gated_ffn)
                             : c.family == Seq2SeqFamily::Marian ? marian_names()
                                                                 : bart_names();
  const std::string prefix =
      !names.prefix.empty() && (tensors.has(names.prefix + names.shared) ||
                                tensors.has(names.prefix + "encoder." + names.embed_tokens))
          ? names.prefix
          : "";
  Reader r(tensors, prefix, precision);
  const int V = c.vocab_size, C = c.d_model;
  Seq2SeqWeights w;
  // save_pretrained keeps one of the tied copies: shared, or else the encoder's embed_tokens.
  w.shared = r.matrix(r.has(names.shared) || !r.has("encoder." + names.embed_tokens) ? names.shared
                                                                                      : "encoder." + names.embed_tokens,
                      {V, C});
  w.encoder = load_stack(c, names, r, false);
  w.decoder = load_stack(c, names, r, true);
  Reader top(tensors, "", precision);
  if (!c.tie_word_embeddings) w.lm_head = top.matrix(names.lm_head, {V, C});
  // A registered buffer transformers zero-initialises when a save lacks it (BartModel saves).
  if (!names.final_logits_bias.empty())
    w.final_logits_bias = top.has(names.final_logits_bias) ? top.vector(names.final_logits_bias, {1, V})
                                                           : std::vector<float>(V, 0.0f);
  return w;
}

Seq2SeqWeights load_seq2seq_weights(const Seq2SeqConfig& c, const SafeTensors& tensors, WeightPrecision precision) {
  FileTensors source(tensors);
  return load_seq2seq_weights(c, source, precision);
}

}  // namespace attnscope
