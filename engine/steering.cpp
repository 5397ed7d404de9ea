// Steering vectors and the hook that adds them (steering.h).
#include "steering.h"

#include <cmath>

#include "error.h"

namespace attnscope {

namespace {

// The mean over rows of the residual stream entering `layer` of `stack` in one run: `run(hooks)`
// runs it with the reading hook.
template <typename Run>
std::vector<float> mean_of_run(HookStack stack, int layer, int layers, int C, Run run) {
  if (layer < 0 || layer >= layers)
    throw Error("E_INPUT", "steering layer " + std::to_string(layer) + " is outside [0, " + std::to_string(layers) + ")");
  std::vector<double> sum(C, 0.0);
  int rows = 0;
  Hooks read;
  read.add({stack, HookSite::ResidPre, layer}, [&](const HookPoint&, HookTensor& t) {
    for (int r = 0; r < t.rows; ++r)
      for (int i = 0; i < C; ++i) sum[i] += t.data[static_cast<size_t>(r) * t.width + i];
    rows = t.rows;
  }, false);
  run(&read);
  std::vector<float> mean(C);
  for (int i = 0; i < C; ++i) mean[i] = static_cast<float>(sum[i] / rows);
  return mean;
}

std::vector<float> difference(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> v(a.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = a[i] - b[i];
  return v;
}

}  // namespace

std::vector<float> mean_resid_pre(const Transformer& model, int layer, const std::vector<int32_t>& ids) {
  const ModelConfig& c = model.config();
  return mean_of_run(HookStack::Model, layer, c.num_layers, c.hidden_size, [&](const Hooks* hooks) {
    ForwardOptions options;
    options.attentions = false;
    options.hooks = hooks;
    model.forward(ids, {}, {}, options);
  });
}

std::vector<float> seq2seq_steering_vector(const Seq2Seq& model, int layer, const EncoderOutput& encoder,
                                           const std::vector<int32_t>& from, const std::vector<int32_t>& to) {
  const Seq2SeqConfig& c = model.config();
  auto mean = [&](const std::vector<int32_t>& ids) {
    return mean_of_run(HookStack::Decoder, layer, c.decoder_layers, c.d_model, [&](const Hooks* hooks) {
      KvCache cache;
      Seq2SeqRunOptions options;
      options.hooks = hooks;
      model.decode(ids, encoder, cache, options);
    });
  };
  return difference(mean(to), mean(from));
}

std::vector<float> steering_vector(const Transformer& model, int layer, const std::vector<int32_t>& from,
                                   const std::vector<int32_t>& to) {
  return difference(mean_resid_pre(model, layer, to), mean_resid_pre(model, layer, from));
}

void check_steering(const Steering& s, int layers, int width) {
  if (s.layer < 0 || s.layer >= layers)
    throw Error("E_INPUT", "steering layer " + std::to_string(s.layer) + " is outside [0, " + std::to_string(layers) + ")");
  if (s.vector.size() != static_cast<size_t>(width))
    throw Error("E_INPUT", "steering vector has " + std::to_string(s.vector.size()) + " values, the residual stream " +
                               std::to_string(width));
  for (size_t i = 0; i < s.vector.size(); ++i)
    if (!std::isfinite(s.vector[i]))
      throw Error("E_INPUT", "steering vector value " + std::to_string(i) + " is not a finite number");
  if (!std::isfinite(s.strength)) throw Error("E_INPUT", "steering strength is not a finite number");
}

Hooks steering_hooks(const Steering& s) {
  Hooks hooks;
  hooks.add({s.stack, HookSite::ResidPre, s.layer}, [&s](const HookPoint&, HookTensor& t) {
    for (int r = 0; r < t.rows; ++r) {
      float* row = t.data + static_cast<size_t>(r) * t.width;
      for (int i = 0; i < t.width; ++i) row[i] += s.strength * s.vector[i];
    }
  }, true);
  return hooks;
}

}  // namespace attnscope
