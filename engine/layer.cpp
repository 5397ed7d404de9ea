// The one layer of layer.h over the blocks.
#include "layer.h"

#include <algorithm>

#include "build_features.h"
#include "error.h"
#include "rotary.h"

namespace attnscope {

namespace {

// The encoder build runs the BERT family's layer alone (its configs are the only ones it reads):
// with the other families' shapes constant-false there, the compiler drops their steps.
constexpr bool kOtherLayerShapes = kBuildHasDecoders || kBuildHasSeq2Seq;
bool rms_norm(const LayerSpec& spec) { return kOtherLayerShapes && spec.norm == NormKind::RmsNorm; }
bool rotary(const LayerSpec& spec) { return kOtherLayerShapes && spec.positions == Positions::Rotary; }
bool gated(const LayerSpec& spec) { return kOtherLayerShapes && spec.ffn == FeedForwardKind::Gated; }

// The trace's copy of a step (nothing when that step is not traced: `to` is null).
void keep(std::vector<float>* to, const float* from, size_t n) {
  if (to) to->assign(from, from + n);
}

// Where a traced step the fused kernels never store goes (a sublayer's output before its
// residual, a pre-activation); null when it is not traced.
float* traced_slot(std::vector<float>* slot, size_t n) {
  if (!slot) return nullptr;
  slot->resize(n);
  return slot->data();
}

}  // namespace

void LayerPass::norm(float* out, const float* inp, const LayerNormParams& params) const {
  const int C = static_cast<int>(params.gamma.size());
  if (rms_norm(spec))
    rms_norm_forward(out, inp, params, T, C, eps);
  else
    layer_norm_forward(out, inp, params, T, C, eps);
}

namespace {

// Where a sublayer's output goes before its residual add: the trace's slot, else (hooked) the
// scratch the hook reads and writes; null: fused into the GEMM's store.
float* sublayer_out(const LayerPass& pass, std::vector<float>* traced, HookSite site, size_t n) {
  if (traced) return traced_slot(traced, n);
  return pass.on(site) ? pass.a.sublayer.data() : nullptr;
}

SublayerEdit sublayer_edit(const LayerPass& pass, HookSite site, int width) {
  if (!pass.on(site)) return {};
  return [&pass, site, width](float* out) { pass.fire(site, out, pass.T, width); };
}

}  // namespace

void LayerPass::attention(const AttentionWeights& w, const KeysValues& kv, float* probs, const AttentionMask& mask,
                          bool cross, const AttentionTraceSlots& tr) {
  const HeadLayout& layout = w.layout;
  const int C = w.o.out;
  const size_t TC = static_cast<size_t>(T) * C, TQ = static_cast<size_t>(T) * w.q.out;
  const float* in = x;
  if (spec.placement == NormPlacement::Before) {
    norm(a.ln.data(), x, w.norm);
    in = a.ln.data();
    keep(tr.input_norm, in, TC);
  }
  float* q = a.q.data();
  if (kv.k_new) {  // self-attention: these positions' keys and values join the earlier ones
    const size_t TKV = static_cast<size_t>(T) * w.k.out;
    float *k_new = kv.k_new, *v_new = kv.v_new;
    qkv_projection_forward(q, k_new, v_new, in, w, T);
    keep(tr.q, q, TQ);
    keep(tr.k, k_new, TKV);
    keep(tr.v, v_new, TKV);
    if (!w.q_norm.gamma.empty()) {
      head_rms_norm_forward(q, w.q_norm.gamma, T, layout.heads, layout.head_dim, eps);
      head_rms_norm_forward(k_new, w.k_norm.gamma, T, layout.kv_heads, layout.head_dim, eps);
      keep(tr.q_norm, q, TQ);
      keep(tr.k_norm, k_new, TKV);
    }
    if (rotary(spec)) {
      rotary_forward(q, T, layout.heads, layout.head_dim, w.q.out, a.rope_cos, a.rope_sin);
      rotary_forward(k_new, T, layout.kv_heads, layout.head_dim, w.k.out, a.rope_cos, a.rope_sin);
      keep(tr.q_rotated, q, TQ);
      keep(tr.k_rotated, k_new, TKV);
    }
    // As the scores use them; written ones are what the heads then read.
    fire(HookSite::Q, q, T, w.q.out);
    fire(HookSite::K, k_new, T, w.k.out);
    fire(HookSite::V, v_new, T, w.v.out);
  } else {  // cross-attention: the keys and values are the source's
    linear_forward(q, in, w.q, T);
  }
  const HookSite pattern = cross ? HookSite::CrossPattern : HookSite::Pattern;
  AttentionSources* sources = cross ? cross_sources : self_sources;
  if (sources) {  // maps on demand: q and k as the scores use them, and each row's statistics
    if (on(pattern)) throw Error("E_INTERNAL", "a hooked pattern needs its maps kept (maps_on_demand)");
    std::copy_n(q, TQ, sources->q_of(layer));
    std::copy_n(kv.k, static_cast<size_t>(kv.keys) * layout.kv_width(), sources->k_of(layer));
  }
  attention_heads_forward(a.ctx.data(), probs, q, kv.k, kv.v, layout, mask, T, kv.keys,
                          sources ? sources->stats_of(layer) : nullptr);
  // A written pattern weights the values anew.
  if (on(pattern)) {
    fire(pattern, probs, layout.heads * T, kv.keys);
    if (hooks->writes(stack, pattern, layer))
      attention_context_forward(a.ctx.data(), probs, kv.v, layout, mask.head_mask, T, kv.keys);
  }
  fire(cross ? HookSite::CrossZ : HookSite::Z, a.ctx.data(), T, w.q.out);
  keep(tr.context, a.ctx.data(), TQ);
  const HookSite out = cross ? HookSite::CrossAttnOut : HookSite::AttnOut;
  attention_output_forward(a.sum.data(), a.ctx.data(), w.o, /*residual=*/x, T, sublayer_out(*this, tr.output, out, TC),
                           sublayer_edit(*this, out, C));
  fire(cross ? HookSite::ResidMidCross : HookSite::ResidMid, a.sum.data(), T, C);
  keep(tr.residual, a.sum.data(), TC);
  if (spec.placement == NormPlacement::After) {
    norm(x, a.sum.data(), w.norm);
    keep(tr.norm, x, TC);
  } else {
    std::copy_n(a.sum.data(), TC, x);  // sum keeps it too: the next sublayer's residual
  }
}

void LayerPass::feed_forward(const FeedForwardWeights& w, const FeedForwardTraceSlots& tr) {
  const int C = w.out.out;
  const size_t TC = static_cast<size_t>(T) * C, TF = static_cast<size_t>(T) * w.in.out;
  // Pre-norm: x ← x + FFN(N(x)), the residual read from sum (which holds x after an attention
  // sublayer), so the output can go straight to x. Post-norm: sum = x + FFN(x), then x ← N(sum).
  const bool before = spec.placement == NormPlacement::Before;
  const float* in = x;
  if (before) {
    norm(a.ln.data(), x, w.norm);
    in = a.ln.data();
    keep(tr.input_norm, in, TC);
  }
  float* out = before ? x : a.sum.data();
  const float* residual = before ? a.sum.data() : x;
  float* sublayer = sublayer_out(*this, tr.output, HookSite::MlpOut, TC);
  const SublayerEdit edit = sublayer_edit(*this, HookSite::MlpOut, C);
  if (gated(spec)) {
    const GatedFfnTrace parts{traced_slot(tr.pre_activation, TF), traced_slot(tr.gate_activated, TF),
                              traced_slot(tr.up, TF)};
    gated_ffn_forward(out, a.ff.data(), a.gate.data(), in, w, act, residual, T, sublayer, parts, edit);
  } else {
    ffn_forward(out, a.ff.data(), in, w, act, residual, T, sublayer, traced_slot(tr.pre_activation, TF), edit);
  }
  keep(tr.intermediate, a.ff.data(), TF);
  keep(tr.residual, out, TC);
  if (!before) norm(x, a.sum.data(), w.norm);
}

void LayerPass::run(const Layer& w, const KeysValues& self_kv, float* probs, const AttentionMask& mask,
                    const KeysValues* cross_kv, float* cross_probs, const AttentionMask& cross_mask,
                    const LayerTraceSlots& trace, const char* name) {
  const int C = w.self.o.out;
  fire(HookSite::ResidPre, x, T, C);
  attention(w.self, self_kv, probs, mask, false, trace.self);
  if (cross_kv) attention(w.cross, *cross_kv, cross_probs, cross_mask, true, trace.cross);
  feed_forward(w.ffn, trace.ffn);
  fire(HookSite::ResidPost, x, T, C);
  keep(trace.output, x, static_cast<size_t>(T) * C);
  check_layer_output(x, T, C, name, layer);
}

}  // namespace attnscope
