// Named hook points: the activations of a run by TransformerLens' names, each of which a caller
// can read (copy it out) or write (replace it, or add to it) before the next step uses it. Analyses
// and interventions (activation patching, steering, information flow) are users of hooks rather
// than paths of their own through the forward pass. A run with no hook set only tests one flag per
// site.
//
// Names (l: the layer; encoder–decoders prefix "encoder." or "decoder."):
//   blocks.l.hook_resid_pre     (T, C)  the residual stream entering layer l
//   blocks.l.attn.hook_q        (T, H·dh) the queries as the scores use them (after the Llama
//                                        family's per-head norms and rotation; not scaled)
//   blocks.l.attn.hook_k, hook_v (T, KV·dh) the new positions' keys and values, likewise
//   blocks.l.attn.hook_z        (T, H·dh) each head's context Σ_j P_ij v_j, heads side by side, before W_O
//   blocks.l.attn.hook_pattern  (H, T, keys) the attention probabilities
//   blocks.l.hook_attn_out      (T, C)  the attention sublayer's output (after W_O and its bias)
//   blocks.l.hook_resid_mid     (T, C)  the residual after the attention sublayer (post-LN models:
//                                        the sum before its LayerNorm)
//   blocks.l.hook_mlp_out       (T, C)  the feed-forward sublayer's output
//   blocks.l.hook_resid_post    (T, C)  the layer's output
// Decoders of encoder–decoders add their cross-attention sublayer (TransformerLens' T5 names):
//   decoder.blocks.l.cross_attn.hook_z, decoder.blocks.l.cross_attn.hook_pattern (H, T, S),
//   decoder.blocks.l.hook_cross_attn_out, decoder.blocks.l.hook_resid_mid_cross.
// A written pattern is what the values are weighted with (the context is recomputed from it).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attnscope {

enum class HookStack : uint8_t { Model, Encoder, Decoder };

enum class HookSite : uint8_t {
  ResidPre,
  Q,
  K,
  V,
  Z,
  Pattern,
  AttnOut,
  ResidMid,
  CrossZ,
  CrossPattern,
  CrossAttnOut,
  ResidMidCross,
  MlpOut,
  ResidPost,
  kCount
};

struct HookPoint {
  HookStack stack = HookStack::Model;
  HookSite site = HookSite::ResidPre;
  int layer = 0;
};

// The point a name means, or Error("E_INPUT") naming what is wrong with it.
HookPoint parse_hook_name(const std::string& name);
std::string hook_name(const HookPoint& point);

// What a hook is handed: rows × width floats, writable. Row r of a (T, width) site is position
// first_position + r; a pattern is (heads · T) rows of `keys` (head h's rows from h · T).
struct HookTensor {
  float* data;
  int rows, width;
  int first_position;
};

// A hook: reads `t` (copies what it needs) and, when registered as writing, may change it.
using HookFn = std::function<void(const HookPoint&, HookTensor& t)>;

class Hooks {
 public:
  // `writes`: the hook may change the values (the pass then takes the unfused path at that site
  // where the fused one never stores them, and a written pattern recomputes the context).
  void add(const HookPoint& point, HookFn fn, bool writes);
  void add(const std::string& name, HookFn fn, bool writes) { add(parse_hook_name(name), std::move(fn), writes); }

  bool empty() const { return hooks_.empty(); }
  bool has(HookStack stack, HookSite site, int layer) const;
  bool writes(HookStack stack, HookSite site, int layer) const;
  // Calls every hook at that point, in the order they were added.
  void fire(HookStack stack, HookSite site, int layer, HookTensor t) const;

 private:
  struct Entry {
    HookPoint point;
    HookFn fn;
    bool writes;
  };
  std::vector<Entry> hooks_;
};

// The one-flag test at each site: no Hooks object, or none at this point.
inline bool hooked(const Hooks* hooks, HookStack stack, HookSite site, int layer) {
  return hooks && !hooks->empty() && hooks->has(stack, site, layer);
}

}  // namespace attnscope
