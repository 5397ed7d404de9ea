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

Seq2SeqModel* create_seq2seq_model(const val& config_json, WeightStream& weights, WeightPrecision precision,
                                   const std::string files[5]) {
  Seq2SeqConfig config = parse_seq2seq_config(string_from_js(config_json));
  tok::Tokenizer tokenizer = tok::Tokenizer::from_files({files[0], files[1], files[2], files[3], files[4]});
  Seq2Seq engine(config, load_seq2seq_weights(config, weights, precision));
  weights.release();
  return new Seq2SeqModel(std::move(config), std::move(engine), std::move(tokenizer));
}

}  // namespace attnscope::bindings

EMSCRIPTEN_BINDINGS(attnscope_seq2seq) {
  using namespace emscripten;
  using namespace attnscope::bindings;
  class_<Seq2SeqModel>("Seq2SeqModel")
      .function("config", &Seq2SeqModel::config)
      .function("encode", &Seq2SeqModel::encode_text)
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
}
