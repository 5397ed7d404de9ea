// Each family's layers as flow.h reads them.
#include "flow_models.h"

namespace attnscope {

FlowRecorder flow_recorder(const Transformer& model, const std::vector<float>& head_mask) {
  const ModelConfig& c = model.config();
  std::vector<FlowLayer> layers(c.num_layers);
  for (int l = 0; l < c.num_layers; ++l) {
    const AttentionWeights& w = model.layer(l).self;
    layers[l].o = &w.o;
    layers[l].layout = w.layout;
    // Post-norm: the feed-forward adds to the attention sum's LayerNorm.
    if (model.spec().placement == NormPlacement::After) layers[l].attention_norm = &w.norm;
  }
  return FlowRecorder(HookStack::Model, std::move(layers), static_cast<float>(c.layer_norm_eps), head_mask);
}

namespace {

// Post-norm stacks also give the norm after each attention sublayer (flow.h).
std::vector<FlowLayer> stack_layers(const LayerSpec& spec, const Seq2SeqStack& stack, bool cross) {
  const bool post_norm = spec.placement == NormPlacement::After;
  std::vector<FlowLayer> layers(stack.layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    const Layer& w = stack.layers[l];
    layers[l].o = &w.self.o;
    layers[l].layout = w.self.layout;
    if (post_norm) layers[l].attention_norm = &w.self.norm;
    if (cross) {
      layers[l].cross_o = &w.cross.o;
      layers[l].cross_layout = w.cross.layout;
      if (post_norm) layers[l].cross_norm = &w.cross.norm;
    }
  }
  return layers;
}

}  // namespace

FlowRecorder encoder_flow_recorder(const Seq2Seq& model, const Seq2SeqRunOptions& options) {
  return FlowRecorder(HookStack::Encoder, stack_layers(model.spec(), model.weights().encoder, false),
                      static_cast<float>(model.config().eps), options.head_mask);
}

FlowRecorder decoder_flow_recorder(const Seq2Seq& model, const EncoderOutput& encoder, const Seq2SeqRunOptions& options) {
  FlowRecorder recorder(HookStack::Decoder, stack_layers(model.spec(), model.weights().decoder, true),
                        static_cast<float>(model.config().eps), options.decoder_head_mask, options.cross_attn_head_mask);
  recorder.set_cross_values(&encoder.cross_v);
  return recorder;
}

StackFlow information_flow(const Transformer& model, const std::vector<int32_t>& ids,
                           const std::vector<int32_t>& token_types, const std::vector<int32_t>& attention_mask,
                           const std::vector<float>& head_mask) {
  FlowRecorder recorder = flow_recorder(model, head_mask);
  Hooks hooks;
  recorder.install(hooks);
  ForwardOptions options;
  options.head_mask = head_mask;
  options.hooks = &hooks;
  model.forward(ids, token_types, attention_mask, options);
  return recorder.take();
}

Seq2SeqFlow information_flow(const Seq2Seq& model, const std::vector<int32_t>& source,
                             const std::vector<int32_t>& target, const Seq2SeqRunOptions& options) {
  Seq2SeqFlow out;
  Seq2SeqRunOptions run = options;
  {
    FlowRecorder recorder = encoder_flow_recorder(model, options);
    Hooks hooks;
    recorder.install(hooks);
    run.hooks = &hooks;
    const EncoderOutput encoder = model.encode(source, run);
    out.encoder = recorder.take();
    FlowRecorder decoder = decoder_flow_recorder(model, encoder, options);
    Hooks decoder_hooks;
    decoder.install(decoder_hooks);
    run.hooks = &decoder_hooks;
    KvCache cache;
    model.decode(target, encoder, cache, run);
    out.decoder = decoder.take();
  }
  return out;
}

}  // namespace attnscope
