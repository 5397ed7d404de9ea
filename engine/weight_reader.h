// What the families' loaders (engine/models/*.cpp) read a checkpoint with: a Reader of tensors
// by name under the checkpoint's model prefix, and the heads every family may carry.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "kernels/packed_linear_wasmsimd.h"
#include "weight_names.h"
#include "weights.h"

namespace attnscope {

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

// The model prefix when the checkpoint stores its tensors under it ("bert.", ...), else "".
std::string detect_prefix(const TensorSource& st, const FamilyNames& names);

// The "<layers><l>." prefix of layer l's parts.
std::string layer_base(const FamilyNames& names, int l);

// How a family reads layer l's tensors, whose names start with `base` ("<layers><l>.").
using ReadLayer = void (*)(const ModelConfig& c, const Reader& r, const LayerNames& names, const std::string& base,
                           LayerWeights& layer);

// The embedding tables the family's names list (word; positions, token types and their norm where
// it has them) and every layer as `read_layer` reads it; the heads and final norm are the family's.
ModelWeights read_checkpoint(const ModelConfig& c, const FamilyNames& names, const Reader& r, ReadLayer read_layer);

// The masked-LM head a BERT-shaped or DistilBERT checkpoint carries (the first of the family's
// heads that is stored), read without the model prefix. Tied (the default): the decoder is
// word_emb itself, not a copy (94 MB for bert-base).
void load_mlm_head(const ModelConfig& c, const FamilyNames& names, TensorSource& st, WeightPrecision precision,
                   ModelWeights& w);

// A decoder's untied language-model head, stored without the prefix; nothing when tied (the head
// is the word embeddings).
void load_lm_head(const ModelConfig& c, const FamilyNames& names, TensorSource& st, WeightPrecision precision,
                  ModelWeights& w);

}  // namespace attnscope
