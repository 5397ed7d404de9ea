// Embind declarations: the Model object JavaScript holds (config + encoder + tokenizer of one
// checkpoint, no global state), the ByteBuffer JavaScript streams weight bytes into, and two
// diagnostics. Only glue lives here; every entry point goes through guarded() (convert.h), so
// C++ errors reach JavaScript as Error objects with a .code, never as a trap.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config.h"
#include "convert.h"
#include "encoder.h"
#include "error.h"
#include "safetensors.h"
#include "tokenizer/bert_tokenizer.h"
#include "weights.h"

namespace attnscope::bindings {
namespace {

using emscripten::val;

// Raw bytes in wasm memory. JavaScript writes the safetensors file straight into it (chunk by
// chunk while downloading), so the file never exists as a second JS-side copy; the Model frees
// it as soon as the weights are converted to f32.
class ByteBuffer {
 public:
  explicit ByteBuffer(size_t size) : size_(size), data_(static_cast<uint8_t*>(std::malloc(size ? size : 1))) {
    if (!data_) {
      throw Error("E_TOO_LARGE", "cannot allocate " + std::to_string(size) +
                                     " bytes in WebAssembly memory (wasm32 is limited to 4 GB)");
    }
  }
  ~ByteBuffer() { release(); }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;

  size_t size() const { return size_; }
  const uint8_t* data() const { return data_; }

  // A Uint8Array over [offset, offset + length) of the buffer. Valid only until the next wasm
  // allocation (heap growth detaches it): take a fresh view for every chunk.
  val view(double offset, double length) const {
    if (!data_) throw Error("E_INPUT", "ByteBuffer already released");
    if (offset < 0 || length < 0 || offset + length > static_cast<double>(size_)) {
      throw Error("E_INPUT", "ByteBuffer view [" + std::to_string(offset) + ", +" +
                                 std::to_string(length) + ") outside " + std::to_string(size_) + " bytes");
    }
    return val(emscripten::typed_memory_view(static_cast<size_t>(length), data_ + static_cast<size_t>(offset)));
  }

  void release() {
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
  }

 private:
  size_t size_;
  uint8_t* data_;
};

ByteBuffer* create_byte_buffer(double size) {
  return guarded([&] {
    if (!(size >= 0) || size > static_cast<double>(std::numeric_limits<uint32_t>::max())) {
      throw Error("E_TOO_LARGE", "a buffer of " + std::to_string(size) +
                                     " bytes does not fit in WebAssembly memory (wasm32 is limited to 4 GB)");
    }
    return new ByteBuffer(static_cast<size_t>(size));
  });
}

// One loaded checkpoint. Built in the order that fails cheapest first: config, tokenizer, then
// the weights (the only big allocation).
class Model {
 public:
  Model(ModelConfig config, Encoder encoder, tok::BertTokenizer tokenizer)
      : encoder_(std::move(encoder)), tokenizer_(std::move(tokenizer)), config_(std::move(config)) {}

  val config() const { return guarded([&] { return config_to_js(config_); }); }
  bool has_mlm_head() const { return encoder_.has_mlm_head(); }
  int tokenizer_vocab_size() const { return static_cast<int>(tokenizer_.vocab_size()); }

  val encode(const val& text_js, const val& pair, int max_length) const {
    return guarded([&] {
      if (max_length < 0) throw Error("E_INPUT", "maxLength must be >= 0, got " + std::to_string(max_length));
      const std::string text = string_from_js(text_js);
      std::optional<std::string> pair_text;
      if (!pair.isUndefined() && !pair.isNull()) pair_text = string_from_js(pair);
      tok::Encoding encoding =
          pair_text ? tokenizer_.encode(text, std::string_view(*pair_text), max_length)
                    : tokenizer_.encode(text, std::nullopt, max_length);
      return encoding_to_js(encoding);
    });
  }

  // options: {hiddenStates, qkv, valueNorms} booleans (the JS layer passes all of them).
  val forward(const val& ids, const val& token_types, const val& attention_mask, const val& options) const {
    return guarded([&] {
      ForwardOptions forward_options;
      forward_options.attentions = true;
      forward_options.hidden_states = options["hiddenStates"].as<bool>();
      forward_options.qkv = options["qkv"].as<bool>();
      forward_options.value_norms = options["valueNorms"].as<bool>();
      ForwardResult result = encoder_.forward(int32_vector_from_js(ids), int32_vector_from_js(token_types),
                                              int32_vector_from_js(attention_mask), forward_options);
      val out = val::object();
      out.set("layers", val(result.layers));
      out.set("heads", val(result.heads));
      out.set("tokens", val(result.tokens));
      out.set("hiddenSize", val(result.hidden));
      out.set("headDim", val(result.head_dim));
      out.set("attentions", to_float32_array(result.attentions));
      out.set("hidden", to_float32_array(result.hidden_out));
      if (forward_options.hidden_states) out.set("hiddenStates", to_float32_array(result.hidden_states));
      if (forward_options.qkv) {
        out.set("q", to_float32_array(result.q));
        out.set("k", to_float32_array(result.k));
        out.set("v", to_float32_array(result.v));
      }
      if (forward_options.value_norms) out.set("valueNorms", to_float32_array(result.value_norms));
      return out;
    });
  }

  // Masked-LM logits (rows, V) for `rows` hidden vectors (rows × C, e.g. just the [MASK]
  // positions: the head is position-wise, so there is no need to score every token).
  val mlm_logits(const val& hidden_rows, int rows) const {
    return guarded([&] {
      std::vector<float> hidden = float_vector_from_js(hidden_rows);
      if (rows <= 0 || hidden.size() != static_cast<size_t>(rows) * config_.hidden_size) {
        throw Error("E_INPUT", "mlmLogits needs rows x hidden_size = " + std::to_string(rows) + " x " +
                                   std::to_string(config_.hidden_size) + " values, got " +
                                   std::to_string(hidden.size()));
      }
      return to_float32_array(encoder_.mlm_logits(hidden, rows));
    });
  }

  // The special tokens' names as the tokenizer files set them ([CLS], [SEP], [PAD], [MASK], [UNK]
  // for every BERT checkpoint seen so far, but tokenizer_config.json may rename them).
  val special_tokens() const {
    const tok::TokenizerSettings& s = tokenizer_.settings();
    val out = val::object();
    out.set("cls", val(s.cls_token));
    out.set("sep", val(s.sep_token));
    out.set("pad", val(s.pad_token));
    out.set("mask", val(s.mask_token));
    out.set("unk", val(s.unk_token));
    return out;
  }

  int token_to_id(const std::string& token) const { return tokenizer_.token_to_id(token); }

  std::string id_to_token(int id) const {
    return guarded([&] {
      if (id < 0 || static_cast<size_t>(id) >= tokenizer_.vocab_size()) {
        throw Error("E_INPUT", "token id " + std::to_string(id) + " outside the vocabulary (size " +
                                   std::to_string(tokenizer_.vocab_size()) + ")");
      }
      return tokenizer_.id_to_token(id);
    });
  }

 private:
  Encoder encoder_;
  tok::BertTokenizer tokenizer_;
  ModelConfig config_;
};

Model* create_model(const val& config_json, ByteBuffer& weights_bytes, const val& vocab_txt,
                    const val& tokenizer_json, const val& tokenizer_config_json) {
  return guarded([&] {
    ModelConfig config = parse_config(string_from_js(config_json));
    tok::BertTokenizer tokenizer = tok::BertTokenizer::from_files(
        string_from_js(vocab_txt), string_from_js(tokenizer_json), string_from_js(tokenizer_config_json));
    if (tokenizer.vocab_size() > static_cast<size_t>(config.vocab_size)) {
      throw Error("E_TOKENIZER", "the vocabulary has " + std::to_string(tokenizer.vocab_size()) +
                                     " tokens but config.json says vocab_size = " +
                                     std::to_string(config.vocab_size) + ": tokenizer and model do not match");
    }
    ModelWeights weights;
    {
      SafeTensors tensors(weights_bytes.data(), weights_bytes.size());
      weights = load_weights(config, tensors);
    }
    weights_bytes.release();  // the f32 copies are all we keep: free the file before going on
    Encoder encoder(config, std::move(weights));
    return new Model(std::move(config), std::move(encoder), std::move(tokenizer));
  });
}

// Bytes of wasm heap in use by malloc, and the size of the wasm memory (it never shrinks).
// Validates config.json before anything is downloaded, so a wrong model fails fast.
val parse_config_js(const val& config_json) {
  return guarded([&] { return config_to_js(parse_config(string_from_js(config_json))); });
}

// Builds the tokenizer once and returns its vocabulary size, so bad tokenizer files fail before
// the weights are downloaded (the Model builds its own again; it is small next to the weights).
int check_tokenizer(const val& vocab_txt, const val& tokenizer_json, const val& tokenizer_config_json) {
  return guarded([&] {
    return static_cast<int>(tok::BertTokenizer::from_files(string_from_js(vocab_txt), string_from_js(tokenizer_json),
                                                           string_from_js(tokenizer_config_json))
                                .vocab_size());
  });
}

val heap_stats() {
  struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("inUse", val(static_cast<double>(info.uordblks)));
  out.set("memoryBytes", val(static_cast<double>(emscripten_get_heap_size())));
  return out;
}

val build_info() {
  val out = val::object();
  out.set("target", val("wasm32"));
#ifdef __wasm_simd128__
  out.set("simd", val(true));
#else
  out.set("simd", val(false));
#endif
  out.set("exceptions", val("wasm"));
  out.set("compiler", val(__VERSION__));
  return out;
}

}  // namespace
}  // namespace attnscope::bindings

EMSCRIPTEN_BINDINGS(attnscope) {
  using namespace emscripten;
  using namespace attnscope::bindings;

  class_<ByteBuffer>("ByteBuffer")
      .constructor(&create_byte_buffer, allow_raw_pointers())
      .function("size", &ByteBuffer::size)
      .function("view", &ByteBuffer::view)
      .function("release", &ByteBuffer::release);

  class_<Model>("Model")
      .constructor(&create_model, allow_raw_pointers())
      .function("config", &Model::config)
      .function("hasMlmHead", &Model::has_mlm_head)
      .function("tokenizerVocabSize", &Model::tokenizer_vocab_size)
      .function("encode", &Model::encode)
      .function("forward", &Model::forward)
      .function("mlmLogits", &Model::mlm_logits)
      .function("specialTokens", &Model::special_tokens)
      .function("tokenToId", &Model::token_to_id)
      .function("idToToken", &Model::id_to_token);

  function("parseConfig", &parse_config_js);
  function("checkTokenizer", &check_tokenizer);
  function("heapStats", &heap_stats);
  function("buildInfo", &build_info);
}
