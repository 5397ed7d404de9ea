// Native tokenizer tool for the parity tests (tests/js/tokenizer-parity.test.js,
// tests/js/tokenizer-bpe-parity.test.js): loads a tokenizer (WordPiece or BPE) from Hugging Face
// files and encodes one JSON input per stdin line, one JSON result per stdout line. Not a
// user-facing CLI (the npm package has that).
//   attnscope_tokenize_native [--vocab vocab.txt] [--vocab-json vocab.json] [--merges merges.txt]
//                             [--tokenizer-json tokenizer.json]
//                             [--tokenizer-config tokenizer_config.json] [--max-length N]
//                             [--time 1]   (adds "encode_us", the encode call's wall time)
// Input lines: "text" | ["text", "pair"] | {"text": ..., "pair": ..., "max_length": N}; raw bytes
// (invalid UTF-8) as {"text_hex": "41ff", "pair_hex": ...} instead of text/pair.
// Output lines: {"tokens","token_texts","ids","token_type_ids","offsets","special_tokens_mask",
// "num_truncated"} or {"error","code"}.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "error.h"
#include "tokenizer/tokenizer.h"

using nlohmann::json;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw attnscope::Error("E_TOKENIZER", "cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void print(const json& j) {
  std::cout << j.dump(-1, ' ', false, json::error_handler_t::replace) << '\n' << std::flush;
}

std::string from_hex(const std::string& hex) {
  if (hex.size() % 2) throw attnscope::Error("E_INPUT", "odd-length hex string");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

json encode_line(const attnscope::tok::Tokenizer& tokenizer, const std::string& line,
                 int default_max_length, bool timed) {
  const json input = json::parse(line);
  std::string text;
  std::optional<std::string> pair;
  int max_length = default_max_length;
  if (input.is_string()) {
    text = input.get<std::string>();
  } else if (input.is_array() && input.size() == 2 && input[0].is_string() && input[1].is_string()) {
    text = input[0].get<std::string>();
    pair = input[1].get<std::string>();
  } else if (input.is_object() && ((input.contains("text") && input["text"].is_string()) ||
                                    (input.contains("text_hex") && input["text_hex"].is_string()))) {
    text = input.contains("text_hex") ? from_hex(input["text_hex"].get<std::string>()) : input["text"].get<std::string>();
    if (input.contains("pair") && input["pair"].is_string()) pair = input["pair"].get<std::string>();
    if (input.contains("pair_hex") && input["pair_hex"].is_string()) pair = from_hex(input["pair_hex"].get<std::string>());
    if (input.contains("max_length")) max_length = input["max_length"].get<int>();
  } else {
    throw attnscope::Error("E_INPUT", "expected a JSON string, [text, pair] or {text, pair, max_length}");
  }
  const auto t0 = std::chrono::steady_clock::now();
  const attnscope::tok::Encoding e =
      pair ? tokenizer.encode(text, std::string_view(*pair), max_length) : tokenizer.encode(text, std::nullopt, max_length);
  const auto encode_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
  json offsets = json::array();
  for (const auto& [start, end] : e.offsets) offsets.push_back({start, end});
  json out{{"tokens", e.tokens},           {"token_texts", e.token_texts}, {"ids", e.ids},
              {"token_type_ids", e.type_ids}, {"offsets", offsets},
              {"special_tokens_mask", e.special_tokens_mask}, {"num_truncated", e.num_truncated}};
  if (timed) out["encode_us"] = encode_us;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string vocab, vocab_json, merges, tokenizer_json, config;
  int max_length = 0;
  bool timed = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw attnscope::Error("E_INPUT", "missing value after " + arg);
      const std::string value = argv[++i];
      if (arg == "--vocab") vocab = read_file(value);
      else if (arg == "--vocab-json") vocab_json = read_file(value);
      else if (arg == "--merges") merges = read_file(value);
      else if (arg == "--tokenizer-json") tokenizer_json = read_file(value);
      else if (arg == "--tokenizer-config") config = read_file(value);
      else if (arg == "--max-length") max_length = std::stoi(value);
      else if (arg == "--time") timed = value == "1";
      else throw attnscope::Error("E_INPUT", "unknown argument " + arg);
    }
  } catch (const attnscope::Error& e) {
    print({{"error", e.what()}, {"code", e.code()}});
    return 2;
  } catch (const std::exception& e) {
    print({{"error", e.what()}, {"code", "E_INPUT"}});
    return 2;
  }

  std::optional<attnscope::tok::Tokenizer> tokenizer;
  try {
    tokenizer = attnscope::tok::Tokenizer::from_files({vocab, vocab_json, merges, tokenizer_json, config});
  } catch (const attnscope::Error& e) {
    print({{"error", e.what()}, {"code", e.code()}});
    return 2;
  }

  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    try {
      print(encode_line(*tokenizer, line, max_length, timed));
    } catch (const attnscope::Error& e) {
      print({{"error", e.what()}, {"code", e.code()}});
    } catch (const json::exception& e) {
      print({{"error", std::string("bad input line: ") + e.what()}, {"code", "E_INPUT"}});
    } catch (const std::exception& e) {
      print({{"error", std::string("bad input line: ") + e.what()}, {"code", "E_INPUT"}});
    }
  }
  return 0;
}
