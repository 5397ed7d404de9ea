// The engine's one way to read JSON text (config.json, the safetensors header, tokenizer.json,
// tokenizer_config.json, vocab.json) into an nlohmann::json, and to name a value in an error.
// nlohmann compiles its parser once per way of calling it (json::parse builds two, with and
// without a callback, each ~10 KB of wasm) and its printer for dump(): every reader comes here,
// so the wasm holds one parser and no printer.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attnscope {

// Files deeper than this are refused while parsing: copying or walking a JSON value recurses once
// per level, and no real config or tokenizer file comes near it.
constexpr int kMaxJsonDepth = 64;

// What read_json throws for a file nested deeper than kMaxJsonDepth. A json::exception, so a
// caller that reports "not valid JSON" reports this too.
class JsonTooDeep : public nlohmann::json::exception {
 public:
  JsonTooDeep();
};

// Parses the whole of `text` as one JSON value (RFC 8259: no comments, nothing after the value).
// Throws nlohmann::json::exception (parse_error naming the byte, or JsonTooDeep).
nlohmann::json read_json(std::string_view text);

// A value for an error message, as dump() would write it but never whole when long (a file may
// hold megabytes): a string quoted, a number or literal as written, an array's items ("[2,3]"),
// an object as "an object"; cut at ~80 bytes.
std::string json_brief(const nlohmann::json& value);

}  // namespace attnscope
