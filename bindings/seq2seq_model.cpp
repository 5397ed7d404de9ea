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

emscripten::val seq2seq_trace_to_js(const Seq2Seq& engine, const DecoderOutput& dec, const EncoderOutput& enc,
                                    const DecoderCache& cache) {
  auto put = [](val& object, const char* name, const std::vector<float>& data) {
    if (!data.empty()) object.set(name, to_float32_array(data));
  };
  auto norm_js = [](const LayerNormParams& n) {
    val pair = val::object();
    pair.set("gamma", to_float32_array(n.gamma));
    if (!n.beta.empty()) pair.set("beta", to_float32_array(n.beta));
    return pair;
  };
  const Seq2SeqDecoderTrace& t = dec.trace;
  const Seq2SeqStack& stack = engine.weights().decoder;
  val layers = val::array(), norms = val::array();
  for (size_t l = 0; l < t.layers.size(); ++l) {
    const Seq2SeqDecoderLayerTrace& y = t.layers[l];
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
    // and the cross-attention's of every source position.
    put(layer, "selfValues", cache.v[l]);
    put(layer, "crossValues", enc.cross_v[l]);
    layers.call<void>("push", layer);
    const Seq2SeqLayer& w = stack.layers[l];
    val n = val::object();
    n.set("selfAttention", norm_js(w.self.norm));
    n.set("crossAttention", norm_js(w.cross.norm));
    n.set("ffn", norm_js(w.ffn_norm));
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
      .function("start", &Seq2SeqModel::start)
      .function("step", &Seq2SeqModel::step)
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
