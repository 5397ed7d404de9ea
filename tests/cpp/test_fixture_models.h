// Helpers shared by the Catch2 tests that read the fixture scripts' model folders
// (tests/fixtures/<family>/<model>/: config.json, model.safetensors, inputs.json, expected.*).
#pragma once
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "transformer.h"
#include "weights.h"

namespace attnscope::test {

// The model folders under `root` holding a file named `marker` (inputs.json: a golden fixture;
// model.safetensors: any weights), by name and sorted, so a test's order does not depend on the
// file system's.
inline std::vector<std::string> fixture_models(const std::string& root, const std::string& marker = "inputs.json") {
  std::vector<std::string> models;
  for (const auto& e : std::filesystem::directory_iterator(root))
    if (e.is_directory() && std::filesystem::exists(e.path() / marker)) models.push_back(e.path().filename().string());
  std::sort(models.begin(), models.end());
  return models;
}

inline std::vector<int32_t> ints(const nlohmann::json& j) { return j.get<std::vector<int32_t>>(); }

// The encoder or decoder in `dir` (config_text, when given, replaces its config.json).
inline Transformer load_transformer(const std::string& dir, WeightPrecision precision = WeightPrecision::F32,
                                    const std::string& config_text = "") {
  const ModelConfig config = parse_config(config_text.empty() ? read_text(dir + "/config.json") : config_text);
  const auto bytes = read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  return Transformer(config, load_weights(config, tensors, precision));
}

}  // namespace attnscope::test
