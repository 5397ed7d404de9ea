// Safetensors parsing and validation. Every check runs on the header before any tensor byte is
// read, and every arithmetic step on sizes is overflow-checked: this code is fuzzed and must turn
// any input into either tensors or an E_SAFETENSORS error.
#include "safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "error.h"
#include "json_reader.h"

namespace attnscope {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& message) { throw Error("E_SAFETENSORS", "safetensors: " + message); }

struct DTypeInfo {
  const char* name;
  DType dtype;
  size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {"F32", DType::F32, 4}, {"F16", DType::F16, 2}, {"BF16", DType::BF16, 2}, {"F64", DType::F64, 8},
    {"I64", DType::I64, 8}, {"I32", DType::I32, 4}, {"I16", DType::I16, 2},   {"I8", DType::I8, 1},
    {"U64", DType::U64, 8}, {"U32", DType::U32, 4}, {"U16", DType::U16, 2},   {"U8", DType::U8, 1},
    {"BOOL", DType::BOOL, 1},
};

const DTypeInfo& info(DType dtype) {
  for (const auto& d : kDTypes)
    if (d.dtype == dtype) return d;
  return kDTypes[0];  // unreachable: every enumerator is in the table
}

// Reads a JSON integer ≥ 0 that fits in int64 without any float→int conversion.
bool read_non_negative(const json& v, uint64_t& out) {
  if (v.is_number_unsigned()) {
    out = v.get<uint64_t>();
  } else if (v.is_number_integer()) {
    const int64_t s = v.get<int64_t>();
    if (s < 0) return false;
    out = static_cast<uint64_t>(s);
  } else {
    return false;
  }
  return out <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}

}  // namespace

uint64_t read_le_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

const char* dtype_name(DType dtype) { return info(dtype).name; }
size_t dtype_size(DType dtype) { return info(dtype).size; }
bool is_float(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F64;
}

int64_t shape_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;  // validated at parse time not to overflow
  return n;
}

void check_shape(const std::string& name, const std::vector<int64_t>& actual, const std::vector<int64_t>& expected) {
  if (actual != expected)
    throw Error("E_WEIGHTS", "tensor \"" + name + "\" has shape " + shape_string(actual) + ", expected " +
                                 shape_string(expected));
}

SafeTensors::SafeTensors(const uint8_t* data, size_t size) {
  if (data == nullptr || size < 8)
    fail("file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  const uint64_t header_len = read_le_u64(data);
  if (header_len > size - 8)
    fail("header length " + std::to_string(header_len) + " runs past the end of the " +
         std::to_string(size) + "-byte file");
  if (header_len > kMaxSafetensorsHeaderBytes)
    fail("header length " + std::to_string(header_len) + " is absurdly large (limit " +
         std::to_string(kMaxSafetensorsHeaderBytes) + ")");
  const uint8_t* buffer = data + 8 + header_len;
  for (auto& [name, e] : parse_safetensors_header(data + 8, header_len, size - 8 - header_len)) {
    TensorView view{e.dtype, std::move(e.shape), buffer + e.begin, static_cast<size_t>(e.end - e.begin)};
    tensors_.emplace(name, std::move(view));
  }
}

std::map<std::string, TensorEntry> parse_safetensors_header(const uint8_t* json_bytes, size_t json_size,
                                                            uint64_t buffer_size) {
  const char* header_begin = reinterpret_cast<const char*>(json_bytes);
  json header;
  try {
    header = read_json(std::string_view(header_begin, json_size));
  } catch (const json::exception& e) {
    fail(std::string("header is not valid JSON (") + e.what() + ")");
  }
  if (!header.is_object()) fail("header must be a JSON object");

  std::map<std::string, TensorEntry> entries;
  std::vector<std::pair<std::pair<uint64_t, uint64_t>, std::string>> ranges;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;  // free-form string map; nothing we need from it
    const std::string where = "tensor \"" + name + "\"";
    if (!entry.is_object()) fail(where + ": entry must be an object");

    auto dt = entry.find("dtype");
    if (dt == entry.end() || !dt->is_string()) fail(where + ": missing or non-string \"dtype\"");
    const std::string dtype_str = dt->get<std::string>();
    const DTypeInfo* dtype = nullptr;
    for (const auto& d : kDTypes)
      if (dtype_str == d.name) dtype = &d;
    if (!dtype) fail(where + ": unknown dtype \"" + dtype_str + "\"");

    auto sh = entry.find("shape");
    if (sh == entry.end() || !sh->is_array()) fail(where + ": \"shape\" must be a list of non-negative integers");
    TensorEntry view{dtype->dtype, {}, 0, 0};
    uint64_t numel = 1;
    for (const auto& d : *sh) {
      uint64_t dim;
      if (!read_non_negative(d, dim)) fail(where + ": \"shape\" must be a list of non-negative integers, got " + json_brief(*sh));
      if (dim != 0 && numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / dim)
        fail(where + ": shape " + json_brief(*sh) + " has too many elements");
      numel *= dim;
      view.shape.push_back(static_cast<int64_t>(dim));
    }

    auto off = entry.find("data_offsets");
    if (off == entry.end() || !off->is_array() || off->size() != 2)
      fail(where + ": \"data_offsets\" must be a list [begin, end]");
    uint64_t begin, end;
    if (!read_non_negative((*off)[0], begin) || !read_non_negative((*off)[1], end))
      fail(where + ": \"data_offsets\" must be non-negative integers, got " + json_brief(*off));
    if (end < begin) fail(where + ": data_offsets end " + std::to_string(end) + " < begin " + std::to_string(begin));
    if (end > buffer_size)
      fail(where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
           "] out of range (data section is " + std::to_string(buffer_size) + " bytes)");
    const uint64_t nbytes = end - begin;
    if (numel > std::numeric_limits<uint64_t>::max() / dtype->size || numel * dtype->size != nbytes)
      fail(where + ": " + std::to_string(nbytes) + " bytes but shape " + shape_string(view.shape) +
           " of " + dtype->name + " needs " + std::to_string(numel) + " × " + std::to_string(dtype->size));

    view.begin = begin;
    view.end = end;
    ranges.push_back({{begin, end}, name});
    entries.emplace(name, std::move(view));
  }

  // Overlap check: sort by begin; each tensor must start at or after the previous one's end.
  // Empty tensors occupy no bytes and cannot overlap anything.
  std::sort(ranges.begin(), ranges.end());
  const std::pair<std::pair<uint64_t, uint64_t>, std::string>* prev = nullptr;
  for (const auto& r : ranges) {
    if (r.first.first == r.first.second) continue;
    if (prev && r.first.first < prev->first.second)
      fail("tensors \"" + prev->second + "\" and \"" + r.second + "\" overlap (bytes [" +
           std::to_string(prev->first.first) + ", " + std::to_string(prev->first.second) + ") and [" +
           std::to_string(r.first.first) + ", " + std::to_string(r.first.second) + "))");
    prev = &r;
  }
  return entries;
}

const TensorView& SafeTensors::get(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Error("E_WEIGHTS", "missing tensor \"" + name + "\"");
  return it->second;
}

std::vector<float> SafeTensors::to_f32(const std::string& name,
                                       const std::vector<int64_t>& expected_shape) const {
  const TensorView& t = get(name);
  check_shape(name, t.shape, expected_shape);
  const size_t n = static_cast<size_t>(t.numel());
  std::vector<float> out(n);
  convert_to_f32(out.data(), t.data, n, t.dtype, name);
  check_finite(out.data(), n, name, t.shape);
  return out;
}

std::vector<uint16_t> SafeTensors::to_f16(const std::string& name,
                                          const std::vector<int64_t>& expected_shape) const {
  const TensorView& t = get(name);
  check_shape(name, t.shape, expected_shape);
  const size_t n = static_cast<size_t>(t.numel());
  std::vector<uint16_t> out(n);
  convert_to_f16(out.data(), t.data, n, t.dtype, name);
  check_finite(out.data(), n, name, t.shape, t.dtype != DType::F16);
  return out;
}

void convert_to_f16(uint16_t* out, const uint8_t* bytes, size_t n, DType dtype, const std::string& name) {
  if (!is_float(dtype))
    fail("tensor \"" + name + "\" has dtype " + dtype_name(dtype) +
         ", which cannot be used as floating-point weights");
  if (dtype == DType::F16) {
    if (n) std::memcpy(out, bytes, n * 2);
    return;
  }
  // Through f32 in small blocks (exact for F32 and BF16; F64 rounds twice, far below f16's ulp).
  float block[256];
  const size_t es = dtype_size(dtype);
  for (size_t i = 0; i < n; i += 256) {
    const size_t m = n - i < 256 ? n - i : 256;
    convert_to_f32(block, bytes + i * es, m, dtype, name);
    f32_to_f16(out + i, block, m);
  }
}

void convert_to_f32(float* out, const uint8_t* bytes, size_t n, DType dtype, const std::string& name) {
  // memcpy per element: tensor data in a safetensors file has no alignment guarantee.
  switch (dtype) {
    case DType::F32:
      if (n) std::memcpy(out, bytes, n * 4);
      break;
    case DType::F16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, 2);
        out[i] = f16_to_f32(h);
      }
      break;
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, bytes + 2 * i, 2);
        out[i] = bf16_to_f32(b);
      }
      break;
    case DType::F64:
      for (size_t i = 0; i < n; ++i) {
        double d;
        std::memcpy(&d, bytes + 8 * i, 8);
        out[i] = static_cast<float>(d);
      }
      break;
    default:
      fail("tensor \"" + name + "\" has dtype " + dtype_name(dtype) +
           ", which cannot be used as floating-point weights");
  }
}

namespace {

[[noreturn]] void not_finite(size_t at, const char* what, const std::string& name, const std::vector<int64_t>& shape) {
  std::string where = "element " + std::to_string(at);
  if (shape.size() == 2 && shape[1] > 0)
    where += " (row " + std::to_string(at / shape[1]) + ", column " + std::to_string(at % shape[1]) + ")";
  throw Error("E_WEIGHTS", "tensor \"" + name + "\" has " + what + " at " + where +
                               ": weights must be finite numbers");
}

}  // namespace

void check_finite(const float* values, size_t n, const std::string& name, const std::vector<int64_t>& shape) {
  // The exponent bits, all ones for NaN and ±Inf, OR-reduced in integers (a loop that vectorises);
  // a failure is looked up again to name it.
  uint32_t all_ones = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, values + i, 4);
    all_ones |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  if (!all_ones) return;
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(values[i])) not_finite(i, std::isnan(values[i]) ? "NaN" : "an infinite value", name, shape);
}

void check_finite(const uint16_t* halves, size_t n, const std::string& name, const std::vector<int64_t>& shape,
                  bool converted) {
  for (size_t i = 0; i < n; ++i)
    if ((halves[i] & 0x7c00) == 0x7c00)  // exponent all ones: ±Inf or NaN in binary16
      not_finite(i,
                 (halves[i] & 0x03ff) ? "NaN"
                 : converted          ? "a value over float16's 65504 (load it in f32)"
                                      : "an infinite value",
                 name, shape);
}

// bfloat16 is the top half of a binary32.
float bf16_to_f32(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace attnscope
