// Embind glue of seq2seq_model.h. Results leave as copies (fresh typed arrays): a run's arrays stay
// valid whatever the module does next.
#include "seq2seq_model.h"

#include <emscripten/bind.h>

#include <optional>

#include "convert.h"
#include "error.h"

namespace attnscope::bindings {

using emscripten::val;

ModelConfig seq2seq_stream_config(const Seq2SeqConfig& config) {
  ModelConfig stream;
  stream.tie_word_embeddings = config.tie_word_embeddings;
  return stream;
}

emscripten::val stack_trace_to_js(const Seq2SeqStackTrace& t, const Seq2SeqStack& stack,
                                  const std::vector<std::vector<float>>& self_values,
                                  const std::vector<std::vector<float>>* cross_values) {
  auto put = [](val& object, const char* name, const std::vector<float>& data) {
    if (!data.empty()) object.set(name, to_float32_array(data));
  };
  auto norm_js = [](const LayerNormParams& n) {
    val pair = val::object();
    pair.set("gamma", to_float32_array(n.gamma));
    if (!n.beta.empty()) pair.set("beta", to_float32_array(n.beta));
    return pair;
  };
  val layers = val::array(), norms = val::array();
  for (size_t l = 0; l < t.layers.size(); ++l) {
    const Seq2SeqLayerTrace& y = t.layers[l];
    val layer = val::object();
    put(layer, "selfAttentionInputNorm", y.self_attention_input_norm);
    put(layer, "selfAttentionOutput", y.self_attention_output);
    put(layer, "selfAttentionResidual", y.self_attention_residual);
    put(layer, "selfAttentionNorm", y.self_attention_norm);
    put(layer, "crossAttentionInputNorm", y.cross_attention_input_norm);
    put(layer, "crossAttentionOutput", y.cross_attention_output);
    put(layer, "crossAttentionResidual", y.cross_attention_residual);
    put(layer, "crossAttentionNorm", y.cross_attention_norm);
    put(layer, "ffnInputNorm", y.ffn_input_norm);
    put(layer, "ffnPreActivation", y.ffn_pre_activation);
    put(layer, "ffnIntermediate", y.ffn_intermediate);
    put(layer, "ffnOutput", y.ffn_output);
    put(layer, "ffnResidual", y.ffn_residual);
    put(layer, "output", y.output);
    // What each head's weights average (Σ α v): the self-attention's values of every key so far
    // and (decoders) the cross-attention's of every source position.
    if (l < self_values.size()) put(layer, "selfValues", self_values[l]);
    if (cross_values) put(layer, "crossValues", (*cross_values)[l]);
    layers.call<void>("push", layer);
    const Layer& w = stack.layers[l];
    val n = val::object();
    n.set("selfAttention", norm_js(w.self.norm));
    if (cross_values) n.set("crossAttention", norm_js(w.cross.norm));
    n.set("ffn", norm_js(w.ffn.norm));
    norms.call<void>("push", n);
  }
  val out = val::object();
  out.set("embeddings", to_float32_array(t.embeddings));
  out.set("layers", layers);
  put(out, "finalNorm", t.final_norm);
  val norm_params = val::object();
  norm_params.set("layers", norms);
  if (!stack.final_norm.gamma.empty()) norm_params.set("final", norm_js(stack.final_norm));
  out.set("norms", norm_params);
  return out;
}

Seq2SeqRunOptions head_masks_from_js(const val& js_options) {
  auto mask = [&](const char* name) {
    const val m = js_options[name];
    return m.isUndefined() || m.isNull() ? std::vector<float>{} : float_vector_from_js(m);
  };
  Seq2SeqRunOptions options;
  options.head_mask = mask("headMask");
  options.decoder_head_mask = mask("decoderHeadMask");
  options.cross_attn_head_mask = mask("crossAttnHeadMask");
  return options;
}

val value_norms_to_js(const std::vector<const float*>& values, const std::vector<const AttentionWeights*>& weights,
                      int keys) {
  const int L = static_cast<int>(values.size());
  const int H = L ? weights[0]->layout.heads : 0, C = L ? weights[0]->o.out : 0;
  std::vector<float> norms(static_cast<size_t>(L) * H * keys), scratch(static_cast<size_t>(keys) * C);
  for (int l = 0; l < L; ++l)
    value_norms_forward(norms.data() + static_cast<size_t>(l) * H * keys, scratch.data(), values[l], *weights[l], keys);
  return to_float32_array(norms);
}

StackRecorder::StackRecorder(HookStack stack, int layers, int heads, int head_dim, bool qkv, bool values)
    : stack_(stack), heads_(heads), head_dim_(head_dim) {
  if (qkv) q_.resize(layers), k_.resize(layers), v_.resize(layers);
  if (values) values_.resize(layers);
}

void StackRecorder::install(Hooks& hooks) {
  // (T, H·dh) rows of heads side by side → one (H, T, dh) block per layer.
  auto by_head = [this](std::vector<std::vector<float>>& into) {
    return [this, &into](const HookPoint& p, HookTensor& t) {
      std::vector<float>& out = into[p.layer];
      out.resize(static_cast<size_t>(t.rows) * t.width);
      for (int h = 0; h < heads_; ++h)
        for (int r = 0; r < t.rows; ++r)
          std::copy_n(t.data + static_cast<size_t>(r) * t.width + h * head_dim_, head_dim_,
                      out.data() + (static_cast<size_t>(h) * t.rows + r) * head_dim_);
    };
  };
  for (int l = 0; l < static_cast<int>(q_.size()); ++l) {
    hooks.add({stack_, HookSite::Q, l}, by_head(q_), false);
    hooks.add({stack_, HookSite::K, l}, by_head(k_), false);
    hooks.add({stack_, HookSite::V, l}, by_head(v_), false);
  }
  for (int l = 0; l < static_cast<int>(values_.size()); ++l)
    hooks.add({stack_, HookSite::V, l}, [this](const HookPoint& p, HookTensor& t) {
      values_[p.layer].assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width);
    }, false);
}

emscripten::val StackRecorder::qkv_to_js() const {
  auto joined = [](const std::vector<std::vector<float>>& layers) {
    std::vector<float> all;
    for (const auto& l : layers) all.insert(all.end(), l.begin(), l.end());
    return to_float32_array(all);
  };
  val out = val::object();
  out.set("q", joined(q_));
  out.set("k", joined(k_));
  out.set("v", joined(v_));
  return out;
}

Seq2SeqModel* create_seq2seq_model(const val& config_json, WeightUpload& weights, const tok::TokenizerFiles& files) {
  Seq2SeqConfig config = parse_seq2seq_config(string_from_js(config_json));
  tok::Tokenizer tokenizer = tok::Tokenizer::from_files(files);
  std::optional<tok::Tokenizer> target = tok::Tokenizer::target_from_files(files);
  Seq2Seq engine(config, load_seq2seq_weights(config, weights.stream(), weights.precision()));
  weights.release_untaken();
  return new Seq2SeqModel(std::move(config), std::move(engine), std::move(tokenizer), std::move(target));
}

}  // namespace attnscope::bindings

EMSCRIPTEN_BINDINGS(attnscope_seq2seq) {
  using namespace emscripten;
  using namespace attnscope::bindings;
  class_<Seq2SeqModel>("Seq2SeqModel")
      .function("config", &Seq2SeqModel::config)
      .function("encode", &Seq2SeqModel::encode_text)
      .function("encodeTarget", &Seq2SeqModel::encode_target)
      .function("hasTargetTokenizer", &Seq2SeqModel::has_target_tokenizer)
      .function("run", &Seq2SeqModel::run)
      .function("logitLens", &Seq2SeqModel::logit_lens)
      .function("attribution", &Seq2SeqModel::attribution)
      .function("start", &Seq2SeqModel::start)
      .function("step", &Seq2SeqModel::step)
      .function("nextToken", &Seq2SeqModel::next_token)
      .function("setThreads", &Seq2SeqModel::set_threads)
      .function("startPatch", &Seq2SeqModel::start_patch)
      .function("patchRow", &Seq2SeqModel::patch_row)
      .function("endPatch", &Seq2SeqModel::end_patch)
      .function("steeringVector", &Seq2SeqModel::steering_vector)
      .function("setSteering", &Seq2SeqModel::set_steering)
      .function("clearSteering", &Seq2SeqModel::clear_steering)
      .function("tokenToId", &Seq2SeqModel::token_to_id)
      .function("idToToken", &Seq2SeqModel::id_to_token)
      .function("decode", &Seq2SeqModel::decode)
      .function("tokenizerVocabSize", &Seq2SeqModel::tokenizer_vocab_size);
  function("isSeq2SeqConfig", optional_override([](const val& text) {
             return attnscope::is_seq2seq_config(string_from_js(text));
           }));
  // An encoder-decoder's config.json checked as the model's loader checks it, and its position
  // limit (the default maxLength of a tokenizer loaded without the weights).
  function("seq2seqMaxTokens", optional_override([](const val& text) {
             return guarded([&] { return attnscope::parse_seq2seq_config(string_from_js(text)).max_tokens(); });
           }));
}
