// WeightStream: header bytes are gathered until the JSON is complete, then validated by the same
// parser SafeTensors uses; after that every fed byte is routed by its file offset to the tensor
// it belongs to (converted to its final precision in place) or skipped.
#include "weight_stream.h"

#include <algorithm>
#include <cstring>

#include "error.h"
#include "kernels/packed_linear_wasmsimd.h"

namespace attnscope {

namespace {
[[noreturn]] void fail(const std::string& message) { throw Error("E_SAFETENSORS", "safetensors: " + message); }
}  // namespace

WeightStream::WeightStream(ModelConfig config, uint64_t file_size, WeightPrecision precision)
    : config_(std::move(config)), file_size_(file_size), precision_(precision) {}

void WeightStream::feed(const uint8_t* data, size_t n) {
  if (file_size_ && n > file_size_ - pos_)
    fail("more than the announced " + std::to_string(file_size_) + " bytes");
  while (n > 0) {
    if (!parsed_) {
      // The 8-byte header length, then the JSON header it announces.
      const uint64_t want = header_.size() < 8 ? 8 : 8 + read_le_u64(header_.data());
      const size_t take = static_cast<size_t>(std::min<uint64_t>(n, want - header_.size()));
      header_.insert(header_.end(), data, data + take);
      data += take;
      n -= take;
      pos_ += take;
      if (header_.size() == 8) {
        const uint64_t len = read_le_u64(header_.data());
        if (len > kMaxSafetensorsHeaderBytes)
          fail("header length " + std::to_string(len) + " is absurdly large (limit " +
               std::to_string(kMaxSafetensorsHeaderBytes) + ")");
        if (file_size_ && len > file_size_ - 8)
          fail("header length " + std::to_string(len) + " runs past the end of the " +
               std::to_string(file_size_) + "-byte file");
        header_.reserve(8 + len);
      }
      if (header_.size() >= 8 && header_.size() == 8 + read_le_u64(header_.data())) parse_header();
      continue;
    }
    if (next_ == loads_.size()) {  // nothing more the model needs: skip the rest
      pos_ += n;
      return;
    }
    Tensor& t = loads_[next_];
    const uint64_t at = pos_ - data_start_;  // offset in the data section
    if (at < t.entry.begin) {                // bytes of a tensor we skip, or padding
      const size_t skip = static_cast<size_t>(std::min<uint64_t>(n, t.entry.begin - at));
      data += skip;
      n -= skip;
      pos_ += skip;
      continue;
    }
    const size_t take = static_cast<size_t>(std::min<uint64_t>(n, t.entry.end - at));
    consume(t, at - t.entry.begin, data, take);
    data += take;
    n -= take;
    pos_ += take;
    if (at + take == t.entry.end) {
      t.complete = true;
      ++next_;
    }
  }
}

void WeightStream::parse_header() {
  const uint64_t len = header_.size() - 8;
  data_start_ = 8 + len;
  const uint64_t data_size = file_size_ ? file_size_ - data_start_ : UINT64_MAX - data_start_;
  entries_ = parse_safetensors_header(header_.data() + 8, static_cast<size_t>(len), data_size);
  for (const auto& [name, entry] : entries_) {
    if (!is_float(entry.dtype) || !weight_is_used(config_, name)) continue;
    Tensor t;
    t.name = name;
    t.entry = entry;
    t.half = precision_ != WeightPrecision::F32 && weight_is_matrix(config_, name, entry.shape.size());
    weight_bytes_ += static_cast<uint64_t>(entry.numel()) * (t.half ? 2 : 4);
    loads_.push_back(std::move(t));
  }
  std::sort(loads_.begin(), loads_.end(),
            [](const Tensor& a, const Tensor& b) { return a.entry.begin < b.entry.begin; });
  // Empty tensors are complete before any byte; the loop in feed() needs every remaining
  // entry of loads_ to have bytes still to come.
  auto empty = std::stable_partition(loads_.begin(), loads_.end(),
                                     [](const Tensor& t) { return t.entry.begin == t.entry.end; });
  for (auto it = loads_.begin(); it != empty; ++it) it->complete = true;
  next_ = static_cast<size_t>(empty - loads_.begin());
  for (size_t i = 0; i < loads_.size(); ++i) load_index_[loads_[i].name] = i;
  std::vector<uint8_t>().swap(header_);
  parsed_ = true;
  if (on_header_) on_header_(weight_bytes_);
}

void WeightStream::consume(Tensor& t, uint64_t offset, const uint8_t* bytes, size_t n) {
  const size_t es = dtype_size(t.entry.dtype);
  const size_t numel = static_cast<size_t>(t.entry.numel());
  const bool matrix = t.entry.shape.size() == 2;  // reserve the slack that lets pack_linear pack in place
  if (t.half && t.halves.empty()) {
    if (matrix) t.halves.reserve(numel + kernels::kWeightSlackHalves);
    t.halves.resize(numel);
  } else if (!t.half && t.values.empty()) {
    if (matrix) t.values.reserve(numel + kernels::kWeightSlackFloats);
    t.values.resize(numel);
  }
  // Bytes that are already the final representation go straight into place, whatever the split.
  if (!t.half && t.entry.dtype == DType::F32) {
    std::memcpy(reinterpret_cast<uint8_t*>(t.values.data()) + offset, bytes, n);
    return;
  }
  if (t.half && t.entry.dtype == DType::F16) {
    std::memcpy(reinterpret_cast<uint8_t*>(t.halves.data()) + offset, bytes, n);
    return;
  }
  auto convert = [&](size_t element, const uint8_t* from, size_t count) {
    if (t.half)
      convert_to_f16(t.halves.data() + element, from, count, t.entry.dtype, t.name);
    else
      convert_to_f32(t.values.data() + element, from, count, t.entry.dtype, t.name);
  };
  size_t element = static_cast<size_t>(offset / es);
  if (t.carry_bytes) {  // finish the element the previous feed cut in two
    const size_t fill = std::min(n, es - t.carry_bytes);
    std::memcpy(t.carry + t.carry_bytes, bytes, fill);
    t.carry_bytes += fill;
    bytes += fill;
    n -= fill;
    if (t.carry_bytes < es) return;
    convert(element, t.carry, 1);
    t.carry_bytes = 0;
    ++element;
  }
  const size_t whole = n / es;
  convert(element, bytes, whole);
  t.carry_bytes = n - whole * es;
  std::memcpy(t.carry, bytes + whole * es, t.carry_bytes);
}

void WeightStream::finish() {
  if (!parsed_)
    fail("the file ended after " + std::to_string(pos_) + " bytes, inside its header");
  if (file_size_ && pos_ != file_size_)
    fail("got " + std::to_string(pos_) + " of the announced " + std::to_string(file_size_) + " bytes");
  if (next_ < loads_.size()) {
    const Tensor& t = loads_[next_];
    fail("the file ended after " + std::to_string(pos_) + " bytes, inside tensor \"" + t.name +
         "\" (its data runs to byte " + std::to_string(data_start_ + t.entry.end) + ")");
  }
}

std::vector<std::string> WeightStream::untaken() const {
  std::vector<std::string> names;
  for (const Tensor& t : loads_)
    if (!t.taken) names.push_back(t.name);
  return names;
}

void WeightStream::release() {
  std::vector<Tensor>().swap(loads_);
  load_index_.clear();
  next_ = 0;
}

bool WeightStream::has(const std::string& name) const { return entries_.count(name) != 0; }

WeightStream::Tensor& WeightStream::completed(const std::string& name, const std::vector<int64_t>& shape) {
  auto entry = entries_.find(name);
  if (entry == entries_.end()) throw Error("E_WEIGHTS", "missing tensor \"" + name + "\"");
  check_shape(name, entry->second.shape, shape);
  if (!is_float(entry->second.dtype))
    fail("tensor \"" + name + "\" has dtype " + dtype_name(entry->second.dtype) +
         ", which cannot be used as floating-point weights");
  auto index = load_index_.find(name);
  if (index == load_index_.end())  // weight_is_used() said no: a bug, not the file's fault
    throw Error("E_INTERNAL", "tensor \"" + name + "\" was skipped while streaming but is needed");
  Tensor& t = loads_[index->second];
  if (!t.complete) fail("tensor \"" + name + "\" is incomplete: call finish() before taking tensors");
  if (t.taken) throw Error("E_INTERNAL", "tensor \"" + name + "\" was already taken");
  t.taken = true;
  return t;
}

std::vector<float> WeightStream::take_f32(const std::string& name, const std::vector<int64_t>& shape) {
  Tensor& t = completed(name, shape);
  if (!t.half) {
    check_finite(t.values.data(), t.values.size(), name, t.entry.shape);
    return std::move(t.values);
  }
  check_finite(t.halves.data(), t.halves.size(), name, t.entry.shape, t.entry.dtype != DType::F16);
  std::vector<float> values(t.halves.size());  // kept as f16 but wanted as f32 (exact)
  f16_to_f32(values.data(), t.halves.data(), values.size());
  std::vector<uint16_t>().swap(t.halves);
  return values;
}

std::vector<uint16_t> WeightStream::take_f16(const std::string& name, const std::vector<int64_t>& shape) {
  Tensor& t = completed(name, shape);
  if (!t.half) {  // kept as f32 but wanted as f16
    t.halves.resize(t.values.size());
    f32_to_f16(t.halves.data(), t.values.data(), t.halves.size());
    std::vector<float>().swap(t.values);
  }
  check_finite(t.halves.data(), t.halves.size(), name, t.entry.shape, t.entry.dtype != DType::F16);
  return std::move(t.halves);
}

}  // namespace attnscope
