// Helpers shared by the engine's Catch2 tests: read fixture files, build safetensors bytes in
// memory, and compare arrays reporting the worst element by its named coordinates
// (e.g. layer, head, row, col) with expected, got and the max error.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "error.h"

namespace attnscope::test {

// Runs fn, requiring it to throw attnscope::Error with `code` and a message containing `needle`
// (the message must name the problem, so a user learns what is wrong).
inline void expect_error(const std::function<void()>& fn, const std::string& code, const std::string& needle) {
  try {
    fn();
  } catch (const Error& e) {
    INFO("message: " << e.what());
    CHECK(e.code() == code);
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
    return;
  }
  FAIL("expected attnscope::Error " << code << " mentioning \"" << needle << "\", nothing was thrown");
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline std::string read_text(const std::string& path) {
  auto b = read_bytes(path);
  return {b.begin(), b.end()};
}

// A safetensors file from a header string and a data section, for malformed-file tests.
// The names in a fixture list file, one a line (tests/fixtures/engine/models.txt, written by the
// fixture script with the checkpoints): tests compare what they found with it, so a fixture tree
// missing a model fails instead of testing less.
inline std::vector<std::string> listed_names(const std::string& path) {
  std::vector<std::string> names;
  std::istringstream lines(read_text(path));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) names.push_back(line);
  return names;
}

// How many files in `dir` end with `suffix` (a golden fixture's expected outputs, one per case).
inline size_t count_files(const std::string& dir, const std::string& suffix) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) ++n;
  }
  return n;
}

inline std::vector<uint8_t> safetensors_file(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> out(8 + header.size() + data_bytes, 0);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  return out;
}

struct Mismatch {
  double max_error = 0.0;
  size_t index = 0;
  bool nan = false;
};

inline Mismatch worst(const std::vector<float>& expected, const std::vector<float>& got) {
  Mismatch m;
  for (size_t i = 0; i < expected.size() && i < got.size(); ++i) {
    if (std::isnan(got[i]) || std::isnan(expected[i])) {
      m.nan = true;
      m.index = i;
      m.max_error = INFINITY;
      return m;
    }
    const double e = std::fabs(static_cast<double>(expected[i]) - got[i]);
    if (e > m.max_error) {
      m.max_error = e;
      m.index = i;
    }
  }
  return m;
}

// Checks |expected − got| ≤ tol everywhere; on failure names the worst element's coordinates.
// Returns the max error so callers can report it.
inline double check_close(const std::string& what, const std::vector<float>& expected,
                          const std::vector<float>& got, const std::vector<int64_t>& shape,
                          const std::vector<std::string>& axes, double tol) {
  INFO(what);
  REQUIRE(got.size() == expected.size());
  const Mismatch m = worst(expected, got);
  std::ostringstream where;
  size_t rest = m.index;
  std::vector<int64_t> coord(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coord[d] = static_cast<int64_t>(rest % shape[d]);
    rest /= shape[d];
  }
  for (size_t d = 0; d < shape.size(); ++d) where << (d ? ", " : "") << axes[d] << " " << coord[d];
  INFO("worst at " << where.str() << ": expected " << expected[m.index] << ", got " << got[m.index]
                   << ", max error " << m.max_error << " (tolerance " << tol << ")");
  CHECK(!m.nan);
  CHECK(m.max_error <= tol);
  return m.max_error;
}

}  // namespace attnscope::test
