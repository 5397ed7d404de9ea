// load_weights(): reads a checkpoint's tensors by the family's row of the name table
// (weight_names.h) into ModelWeights fields; every tensor is shape-checked as it is read, and a
// missing or misshapen tensor is an E_WEIGHTS error naming it.
#include "weights.h"

#include "error.h"
#include "models/family.h"
#include "weight_reader.h"

namespace attnscope {

std::string detect_prefix(const TensorSource& st, const FamilyNames& names) {
  return st.has(names.prefix + names.probe) ? names.prefix : "";
}

std::string layer_base(const FamilyNames& names, int l) { return names.layers + std::to_string(l) + "."; }

ModelWeights read_checkpoint(const ModelConfig& c, const FamilyNames& names, const Reader& r, ReadLayer read_layer) {
  const int64_t C = c.hidden_size;
  ModelWeights w;
  w.word_emb = r.matrix(names.word_emb, {c.vocab_size, C});
  if (!names.pos_emb.empty()) w.pos_emb = r.get(names.pos_emb, {c.max_position_embeddings, C});
  if (!names.type_emb.empty()) w.type_emb = r.get(names.type_emb, {c.type_vocab_size, C});
  if (!names.ln_emb.empty()) r.layer_norm(names.ln_emb, C, w.ln_emb_g, w.ln_emb_b);
  w.layers.resize(c.num_layers);
  for (int l = 0; l < c.num_layers; ++l) read_layer(c, r, names.layer, layer_base(names, l), w.layers[l]);
  return w;
}

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

void load_lm_head(const ModelConfig& c, const FamilyNames& names, TensorSource& st, WeightPrecision precision,
                  ModelWeights& w) {
  if (c.tie_word_embeddings) return;
  const Reader head{st, "", precision};
  if (!head.has(names.lm_head))
    throw Error("E_WEIGHTS", "config.json sets \"tie_word_embeddings\": false but the checkpoint has no \"" +
                                 names.lm_head + "\"");
  w.lm_head = head.matrix(names.lm_head, {c.vocab_size, c.hidden_size});
}

namespace {

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
  for (const FamilyNames* each : all_family_names()) {
    const FamilyNames& names = *each;
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
  ModelWeights w = model_family(config).load(config, tensors, precision);
  w.precision = precision;
  return w;
}

ModelWeights load_weights(const ModelConfig& config, const SafeTensors& tensors, WeightPrecision precision) {
  FileTensors source(tensors);
  return load_weights(config, source, precision);
}

}  // namespace attnscope
