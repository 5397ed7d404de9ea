// Reader for the safetensors format: an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets}}, then the raw bytes. It validates everything before any
// tensor is touched (header inside the file, offsets in range and non-overlapping, byte size =
// product(shape) * dtype size) and converts F32/F16/BF16 to f32. It does not own the bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "half.h"

namespace attnscope {

// F32/F16/BF16 (and F64) convert to f32. The other safetensors dtypes are recognised so a
// checkpoint that also stores integer buffers (e.g. BERT's I64 `position_ids`) still opens; asking
// for one of those as f32 is an E_SAFETENSORS error naming the dtype.
enum class DType { F32, F16, BF16, F64, I64, I32, I16, I8, U64, U32, U16, U8, BOOL };
const char* dtype_name(DType dtype);

size_t dtype_size(DType dtype);
bool is_float(DType dtype);  // F32, F16, BF16, F64: what to_f32 converts

// "[768, 3072]"
std::string shape_string(const std::vector<int64_t>& shape);

// Product of the dimensions (shapes are validated at parse time not to overflow).
int64_t shape_numel(const std::vector<int64_t>& shape);

// E_WEIGHTS naming the tensor and both shapes when `actual` is not `expected`.
void check_shape(const std::string& name, const std::vector<int64_t>& actual, const std::vector<int64_t>& expected);

// One header entry: where the tensor's bytes are within the data section (after the header).
struct TensorEntry {
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
  int64_t numel() const { return shape_numel(shape); }
};

// Parses and validates a safetensors JSON header (the bytes after the 8-byte length) for a data
// section of `data_size` bytes: dtypes known, shapes non-negative without overflow, byte sizes
// matching, offsets inside the data section and not overlapping. Throws E_SAFETENSORS.
std::map<std::string, TensorEntry> parse_safetensors_header(const uint8_t* json, size_t json_size,
                                                            uint64_t data_size);

// The header length field must not exceed this (bert-large's header is ~40 kB): a corrupt
// length then fails at once instead of making a reader wait for or parse 100 MB of "JSON".
constexpr uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20;
uint64_t read_le_u64(const uint8_t* p);

// E_WEIGHTS naming the tensor and the first element that is NaN or ±Inf (with its row and column
// for a matrix): a checkpoint with such a weight would give NaN or uniform attention that looks
// like a result. The f16 form also catches a finite f32 weight too large for float16 (> 65504).
void check_finite(const float* values, size_t n, const std::string& name, const std::vector<int64_t>& shape);
// `converted`: the halves were rounded from a wider dtype (an infinity may be an overflow there).
void check_finite(const uint16_t* halves, size_t n, const std::string& name, const std::vector<int64_t>& shape,
                  bool converted);

// Converts `n` elements of `dtype` (unaligned bytes) to f32. E_SAFETENSORS for non-float dtypes.
void convert_to_f32(float* out, const uint8_t* bytes, size_t n, DType dtype, const std::string& name);
// The same to f16 bits: F16 is copied, the other float dtypes are rounded (f32_to_f16).
void convert_to_f16(uint16_t* out, const uint8_t* bytes, size_t n, DType dtype, const std::string& name);

struct TensorView {
  DType dtype;
  std::vector<int64_t> shape;
  const uint8_t* data;   // points into the caller's buffer
  size_t nbytes;
  int64_t numel() const { return shape_numel(shape); }
};

class SafeTensors {
 public:
  // Throws Error("E_SAFETENSORS", ...). `data` must outlive this object.
  SafeTensors(const uint8_t* data, size_t size);

  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  const TensorView& get(const std::string& name) const;  // E_WEIGHTS "missing tensor <name>"
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }

  // Copies the tensor into f32, checking its shape equals `expected_shape` (E_WEIGHTS naming the
  // tensor, the expected and the actual shape otherwise).
  std::vector<float> to_f32(const std::string& name, const std::vector<int64_t>& expected_shape) const;
  std::vector<uint16_t> to_f16(const std::string& name, const std::vector<int64_t>& expected_shape) const;

 private:
  std::map<std::string, TensorView> tensors_;
};

float bf16_to_f32(uint16_t b);

}  // namespace attnscope
