// A safetensors file read as it arrives (a download, a file read in chunks): each tensor the
// model uses is converted to its final precision (f32, or f16 for the weight matrices of an F16
// load, and of a Q8 load until its layers are quantized) straight into its own buffer while its bytes stream past, and everything else is
// skipped. The file never sits in memory whole, so loading peaks at about the weights plus one
// chunk instead of file + weights (2x for an f32 checkpoint).
// Validation is the same as SafeTensors' (it shares the header parser); a file that ends early
// is an E_SAFETENSORS error naming the tensor it cut short.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config.h"
#include "safetensors.h"
#include "weights.h"

namespace attnscope {

class WeightStream : public TensorSource {
 public:
  // file_size: the announced size in bytes, or 0 when unknown (checked by finish()).
  // precision: how weight matrices (weight_is_matrix) will be taken; pass load_weights() the same.
  WeightStream(ModelConfig config, uint64_t file_size, WeightPrecision precision = WeightPrecision::F32);

  // Called once, as soon as the header is parsed and before any tensor is allocated (with the
  // bytes the used tensors will take in memory): the place to refuse a model that cannot fit,
  // or to grow the heap once. May throw; the error propagates out of feed().
  void on_header(std::function<void(uint64_t weight_bytes)> callback) { on_header_ = std::move(callback); }

  // The next `n` bytes of the file. Throws E_SAFETENSORS for a bad header (as soon as it is
  // complete) or for bytes past the announced size.
  void feed(const uint8_t* data, size_t n);

  // After the last byte: E_SAFETENSORS if the file stopped before a tensor the model uses ended.
  void finish();

  // The checkpoint's tensors that were kept for the model but that load_weights() did not take, in
  // file order: tensors of a layer past config.json's layer count, or of a part the model does
  // not have. Worth a warning (transformers warns of "weights not used"); read before release().
  std::vector<std::string> untaken() const;

  // Frees whatever load_weights() did not take (e.g. a duplicate decoder bias).
  void release();

  // Once the header is parsed: what the used tensors take in memory (the memory loading needs).
  uint64_t weight_bytes() const { return weight_bytes_; }

  bool has(const std::string& name) const override;
  // Hands the tensor over (it is moved out; converted first if it was kept in the other
  // precision). E_WEIGHTS for a wrong shape, E_SAFETENSORS for a non-float dtype, as
  // SafeTensors::to_f32.
  std::vector<float> take_f32(const std::string& name, const std::vector<int64_t>& shape) override;
  std::vector<uint16_t> take_f16(const std::string& name, const std::vector<int64_t>& shape) override;

 private:
  struct Tensor {
    std::string name;
    TensorEntry entry;
    bool half = false;            // kept as f16 bits (`halves`) instead of f32 (`values`)
    std::vector<float> values;    // filled as the bytes arrive
    std::vector<uint16_t> halves;
    uint8_t carry[8] = {};      // an element split across two feeds (F16/BF16/F64)
    size_t carry_bytes = 0;
    bool complete = false;
    bool taken = false;
  };

  void parse_header();
  void consume(Tensor& t, uint64_t offset_in_tensor, const uint8_t* bytes, size_t n);
  Tensor& completed(const std::string& name, const std::vector<int64_t>& shape);

  ModelConfig config_;
  uint64_t file_size_;
  uint64_t pos_ = 0;             // bytes fed so far
  std::vector<uint8_t> header_;  // the 8-byte length and the JSON, until parsed
  bool parsed_ = false;
  uint64_t data_start_ = 0;      // file offset of the data section
  WeightPrecision precision_;
  uint64_t weight_bytes_ = 0;
  std::map<std::string, TensorEntry> entries_;  // every tensor in the header
  std::vector<Tensor> loads_;                   // the ones to convert, by file offset
  size_t next_ = 0;                             // first entry of loads_ not yet complete
  std::map<std::string, size_t> load_index_;    // name → loads_ index
  std::function<void(uint64_t)> on_header_;
};

}  // namespace attnscope
