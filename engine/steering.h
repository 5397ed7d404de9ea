// Steering (activation addition, Turner et al. 2023): strength · v added to the residual stream
// entering one layer at every position run — the prompt's and each generated token's. v is given,
// or the difference of two texts' mean residual streams entering that layer, each text run alone.
// Both are hook users (hooks.h); generation applies the hooks to every Transformer::extend step.
#pragma once
#include <cstdint>
#include <vector>

#include "hooks.h"
#include "seq2seq.h"
#include "transformer.h"

namespace attnscope {

// Mean over positions of blocks.<layer>.hook_resid_pre of `ids` run alone (C values).
// E_INPUT for a layer outside [0, L) and forward()'s errors.
std::vector<float> mean_resid_pre(const Transformer& model, int layer, const std::vector<int32_t>& ids);

// v = mean_resid_pre(to) − mean_resid_pre(from).
std::vector<float> steering_vector(const Transformer& model, int layer, const std::vector<int32_t>& from,
                                   const std::vector<int32_t>& to);

// Encoder–decoders: the same over the decoder, each id list run alone as the decoder's input over
// `encoder` (the source being generated from): mean of decoder.blocks.<layer>.hook_resid_pre.
std::vector<float> seq2seq_steering_vector(const Seq2Seq& model, int layer, const EncoderOutput& encoder,
                                           const std::vector<int32_t>& from, const std::vector<int32_t>& to);

// What a steered run adds: strength · vector at blocks.<layer>.hook_resid_pre (of `stack`).
struct Steering {
  int layer = 0;
  std::vector<float> vector;  // C values
  float strength = 0;
  HookStack stack = HookStack::Model;
};

// E_INPUT unless layer is in [0, layers), vector has `width` finite values and strength is finite.
void check_steering(const Steering& steering, int layers, int width);

// One writing hook adding strength · vector to every row at the steered layer. `steering` must
// outlive the hooks.
Hooks steering_hooks(const Steering& steering);

}  // namespace attnscope
