// Post-processor stage: [CLS] A [SEP] (B [SEP]) with type ids 0/1 and special-token mask, and
// longest_first truncation (expected lengths from tokenizers' own Rust unit tests), counted in
// num_truncated.
#include <catch2/catch.hpp>

#include "error.h"
#include "tokenizer/tokenizer.h"

using namespace attnscope::tok;

namespace {
std::vector<Token> seq(int n, int first_id) {
  std::vector<Token> out;
  for (int i = 0; i < n; ++i) out.push_back(Token{"t" + std::to_string(first_id + i), first_id + i, i, i + 1});
  return out;
}
const PostProcessor kBert = PostProcessor::bert("[CLS]", 101, "[SEP]", 102);
}  // namespace

TEST_CASE("post_processor: single and pair templates", "[tokenizer][post_processor]") {
  Encoding e;
  kBert.apply(seq(2, 10), std::nullopt, 0, e);
  CHECK(e.ids == std::vector<int32_t>{101, 10, 11, 102});
  CHECK(e.type_ids == std::vector<int32_t>{0, 0, 0, 0});
  CHECK(e.special_tokens_mask == std::vector<uint8_t>{1, 0, 0, 1});
  CHECK(e.offsets[0] == std::pair<int32_t, int32_t>{0, 0});
  CHECK(e.offsets[2] == std::pair<int32_t, int32_t>{1, 2});
  kBert.apply(seq(2, 10), seq(1, 20), 0, e);
  CHECK(e.tokens == std::vector<std::string>{"[CLS]", "t10", "t11", "[SEP]", "t20", "[SEP]"});
  CHECK(e.type_ids == std::vector<int32_t>{0, 0, 0, 0, 1, 1});
  CHECK(e.special_tokens_mask == std::vector<uint8_t>{1, 0, 0, 1, 0, 1});
  CHECK(e.num_truncated == 0);
  kBert.apply({}, std::vector<Token>{}, 0, e);  // empty pair is still a pair
  CHECK(e.tokens == std::vector<std::string>{"[CLS]", "[SEP]", "[SEP]"});
}

TEST_CASE("post_processor: longest_first lengths match tokenizers' Rust tests", "[tokenizer][post_processor]") {
  // tokenizers/src/utils/truncation.rs, truncate_encodings_longest_first, max_length 7:
  // lengths 0 (empty), 2 (short), 4 (medium), 8 (long).
  struct Case { size_t a, b, want_a, want_b; };
  const Case cases[] = {
      {0, 0, 0, 0}, {0, 2, 0, 2}, {0, 4, 0, 4}, {0, 8, 0, 7}, {2, 0, 2, 0}, {2, 2, 2, 2},
      {2, 4, 2, 4}, {2, 8, 2, 5}, {4, 0, 4, 0}, {4, 2, 4, 2}, {4, 4, 3, 4}, {4, 8, 3, 4},
      {8, 0, 7, 0}, {8, 2, 5, 2}, {8, 4, 4, 3}, {8, 8, 3, 4}};
  for (const Case& c : cases) {
    INFO(c.a << " + " << c.b);
    CHECK(longest_first_lengths(c.a, c.b, 7) == std::pair<size_t, size_t>{c.want_a, c.want_b});
  }
}

TEST_CASE("post_processor: truncation counts special tokens and reports what it dropped", "[tokenizer][post_processor]") {
  Encoding e;
  kBert.apply(seq(10, 10), std::nullopt, 5, e);
  CHECK(e.ids == std::vector<int32_t>{101, 10, 11, 12, 102});
  CHECK(e.num_truncated == 7);
  kBert.apply(seq(10, 10), seq(6, 30), 9, e);  // budget 6 → 3 + 3
  CHECK(e.ids.size() == 9);
  CHECK(e.num_truncated == 10);
  CHECK(e.ids == std::vector<int32_t>{101, 10, 11, 12, 102, 30, 31, 32, 102});
  kBert.apply(seq(3, 10), std::nullopt, 5, e);  // fits exactly
  CHECK(e.num_truncated == 0);
  CHECK(e.ids.size() == 5);
  kBert.apply(seq(3, 10), std::nullopt, 2, e);  // only the special tokens fit
  CHECK(e.ids == std::vector<int32_t>{101, 102});
  CHECK(e.num_truncated == 3);
}

TEST_CASE("post_processor: impossible max_length is an E_INPUT error", "[tokenizer][post_processor]") {
  Encoding e;
  auto code_of = [&](auto fn) {
    try { fn(); } catch (const attnscope::Error& err) { return err.code(); }
    return std::string("no error");
  };
  CHECK(code_of([&] { kBert.apply(seq(3, 10), std::nullopt, 1, e); }) == "E_INPUT");
  CHECK(code_of([&] { kBert.apply(seq(3, 10), seq(2, 20), 2, e); }) == "E_INPUT");
  CHECK(code_of([&] { kBert.apply(seq(3, 10), std::nullopt, -4, e); }) == "E_INPUT");
}
