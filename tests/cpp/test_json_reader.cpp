// json_reader.h: the one JSON reader every file the engine reads goes through. Expected values
// are RFC 8259's (escapes, surrogate pairs, nothing after the value, no comments), not the
// reader's own output; each file's reader turns a failure into its own error code.
#include <catch2/catch.hpp>

#include <string>

#include "config.h"
#include "json_reader.h"
#include "safetensors.h"
#include "seq2seq_config.h"
#include "test_engine_support.h"
#include "tokenizer/tokenizer.h"

using namespace attnscope;
using attnscope::test::expect_error;

namespace {

std::string nested_arrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

bool refused(const std::string& text) {
  try {
    read_json(text);
  } catch (const nlohmann::json::exception&) {
    return true;
  }
  return false;
}

}  // namespace

TEST_CASE("read_json: values, escapes and surrogate pairs as RFC 8259 defines them", "[json]") {
  const auto v = read_json(R"( {"a": [1, -2, 350.0e-2, true, null, "\u00e9\ud83d\ude00\n\"\\\/"], "b": {}} )");
  REQUIRE(v.is_object());
  const auto& a = v["a"];
  CHECK(a[0].get<int64_t>() == 1);
  CHECK(a[1].get<int64_t>() == -2);
  CHECK(a[2].get<double>() == 3.5);
  CHECK(a[3].get<bool>());
  CHECK(a[4].is_null());
  // é is C3 A9 in UTF-8; U+1F600 (the pair D83D DE00) is F0 9F 98 80.
  CHECK(a[5].get<std::string>() == "\xC3\xA9\xF0\x9F\x98\x80\n\"\\/");
  CHECK(v["b"].is_object());
  CHECK(read_json("18446744073709551615").get<uint64_t>() == 18446744073709551615ull);
}

TEST_CASE("read_json: refuses what is not one JSON value", "[json]") {
  CHECK(refused(""));
  CHECK(refused("{} {}"));                  // a second value
  CHECK(refused("{\"a\": 1,}"));            // trailing comma
  CHECK(refused("{\"a\": 1} // note"));     // comments
  CHECK(refused("\"\\ud800\""));            // a lone high surrogate
  CHECK(refused("\"\\ude00\""));            // a lone low surrogate
  CHECK(refused("[01]"));                   // leading zero
  CHECK(refused("\"tab\there\""));          // a raw control character in a string
  CHECK(refused("{'a': 1}"));
}

TEST_CASE("read_json: refuses nesting past kMaxJsonDepth, in every file that reads JSON", "[json]") {
  CHECK_NOTHROW(read_json(nested_arrays(kMaxJsonDepth)));
  CHECK_THROWS_AS(read_json(nested_arrays(kMaxJsonDepth + 1)), JsonTooDeep);
  CHECK_THROWS_AS(read_json("{\"a\":" + nested_arrays(kMaxJsonDepth) + "}"), JsonTooDeep);
  const std::string deep = "{\"model_type\": \"bert\", \"x\": " + nested_arrays(kMaxJsonDepth) + "}";
  expect_error([&] { parse_config(deep); }, "E_CONFIG", "nests deeper than 64 levels");
  expect_error([&] { parse_seq2seq_config(deep); }, "E_CONFIG", "nests deeper than 64 levels");
  CHECK_FALSE(is_seq2seq_config("{\"model_type\": \"t5\", \"x\": " + nested_arrays(kMaxJsonDepth) + "}"));
  expect_error([&] { tok::Tokenizer::from_files({"", "", "", nested_arrays(kMaxJsonDepth + 1), ""}); }, "E_TOKENIZER",
               "tokenizer.json nests deeper than 64 levels");
  const std::string header = "{\"x\": " + nested_arrays(kMaxJsonDepth) + "}";
  expect_error([&] { parse_safetensors_header(reinterpret_cast<const uint8_t*>(header.data()), header.size(), 0); },
               "E_SAFETENSORS", "nests deeper than 64 levels");
}

TEST_CASE("json_brief: a value named in an error without printing it whole", "[json]") {
  CHECK(json_brief(read_json("\"chunked_attention\"")) == "\"chunked_attention\"");
  CHECK(json_brief(read_json("0.1")) == "0.1");
  CHECK(json_brief(read_json("768.0")) == "768.0");   // a float, as the error must show
  CHECK(json_brief(read_json("1e-12")) == "1e-12");
  CHECK(json_brief(read_json("1.0000001")) == "1.0000001");
  CHECK(json_brief(read_json("-7")) == "-7");
  CHECK(json_brief(read_json("true")) == "true");
  CHECK(json_brief(read_json("null")) == "null");
  CHECK(json_brief(read_json("{\"a\": 1}")) == "an object");
  CHECK(json_brief(read_json("[2, 3.0, \"x\"]")) == "[2,3.0,\"x\"]");
  std::string long_array = "[1";
  for (int i = 0; i < 500; ++i) long_array += ",1";
  CHECK(json_brief(read_json(long_array + "]")).size() < 100);
  const std::string long_string = "\"" + std::string(200, 'x') + "\"";
  CHECK(json_brief(read_json(long_string)) == "\"" + std::string(79, 'x') + "...");
}
