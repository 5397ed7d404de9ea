// The Hugging Face tensor names of every family, as data: one table row per family. load_weights()
// reads its tensors by these names, and weight_is_used() / weight_is_matrix() answer from the same
// rows, so the streaming loader and the loader cannot disagree about a name (they used to re-derive
// names by substring). Not here: shapes (weights.cpp checks them as it loads) and arithmetic.
#pragma once
#include <string>
#include <vector>

#include "config.h"

namespace attnscope {

// A layer's parts, relative to "<layers><l>." (e.g. "encoder.layer.3."): bases of linear layers
// (".weight" / ".bias" follow) and of norms. "" where the family has no such part.
struct LayerNames {
  std::string q, k, v, o;      // attention projections; GPT-2: q = k = v = the fused Conv1D c_attn
  std::string ln_attn, ln_ffn; // the norms around (encoders: after; decoders: before) each sublayer
  std::string ff_in, ff_out;   // feed-forward C → F → C (Llama: up_proj, down_proj)
  std::string ff_gate;         // Llama: gate_proj, act(gate) · up
  std::string q_norm, k_norm;  // Qwen3: RMSNorm of each head's q and k

  // The bases whose ".weight" is a 2-D matrix (kept as f16 under WeightPrecision::F16).
  std::vector<std::string> linears() const;
};

// A masked-LM head (encoders), stored without the model prefix.
struct MlmHeadNames {
  std::string dense, norm;          // the transform: dense (C, C) → activation → norm
  std::string decoder;              // the (V, C) decoder weight: ignored when tied
  std::string bias, decoder_bias;   // the (V) bias: `bias`, or in older saves `decoder_bias`
};

struct FamilyNames {
  std::string prefix;               // optional model prefix ("bert.", "transformer.", "model.")
  std::string probe;                // a tensor every checkpoint has: is it stored under the prefix?
  std::string word_emb;             // (V, C), under the prefix
  std::string pos_emb, type_emb, ln_emb;  // learned positions, token types, embeddings norm; or ""
  std::string layers;               // "encoder.layer.": layer l's parts are under "<layers><l>."
  LayerNames layer;
  bool conv1d = false;              // GPT-2: linears are Conv1D, stored (in, out)
  std::string final_norm;           // decoders, under the prefix
  std::string lm_head;              // decoders: the untied head weight, stored without the prefix
  std::vector<MlmHeadNames> mlm_heads;  // encoders: the heads a checkpoint may carry, tried in order
  // Tensors the model never reads, whatever the family (prefix stripped): names that start with
  // one of `ignored_roots` or end with one of `ignored_suffixes`.
  std::vector<std::string> ignored_roots, ignored_suffixes;
};

const FamilyNames& family_names(Family family);
// Every family's row (whose names a streaming loader may meet, whichever the checkpoint is).
std::vector<const FamilyNames*> all_family_names();

}  // namespace attnscope
