// libFuzzer target for the tokenizer loaders: arbitrary bytes as tokenizer.json, vocab.txt,
// vocab.json + merges.txt, or Marian's SentencePiece model + vocab.json (each with an optional
// tokenizer_config.json) — malformed, truncated,
// wrong types, huge numbers, deep nesting, pathological Split/Replace regexes. Loading must end
// in a Tokenizer or Error("E_TOKENIZER"), never a crash, another exception, a hang or a huge
// allocation. A tokenizer that loads then encodes a few fixed texts (pairs and truncation
// included) and decodes the ids; encoding may only fail with E_TOKENIZER (a regex out of its
// step budget) or E_INPUT (a max_length too small for the template).
//
// Input: byte 0 picks the layout (0 tokenizer.json, 1 vocab.txt, 2 vocab.json + merges.txt, 3
// Marian: a .spm model as both source.spm and target.spm, with vocab.json); the rest is the files
// in order (tokenizer.json / vocab.txt / vocab.json / the .spm, then merges.txt / vocab.json, then
// tokenizer_config.json), separated by the line "@@@". The Marian layout runs the target
// tokenizer through the same checks. Other values of byte 0 are the layout modulo 4.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8_text.h"

using attnscope::tok::Encoding;
using attnscope::tok::Tokenizer;
using attnscope::tok::TokenizerFiles;

namespace {

#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) abort(); \
  } while (0)

std::vector<std::string_view> split_files(std::string_view rest) {
  std::vector<std::string_view> parts;
  const std::string_view sep = "\n@@@\n";
  while (parts.size() < 2) {
    const size_t at = rest.find(sep);
    if (at == std::string_view::npos) break;
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + sep.size());
  }
  parts.push_back(rest);
  while (parts.size() < 3) parts.emplace_back();
  return parts;
}

void check_encoding(const Encoding& e, const Tokenizer& t, size_t units_a, size_t units_b, int max_length) {
  const size_t n = e.ids.size();
  FUZZ_CHECK(e.tokens.size() == n && e.token_texts.size() == n && e.type_ids.size() == n &&
             e.offsets.size() == n && e.special_tokens_mask.size() == n);
  if (max_length > 0) FUZZ_CHECK(n <= static_cast<size_t>(max_length));
  for (size_t i = 0; i < n; ++i) {
    FUZZ_CHECK(e.ids[i] >= 0 && static_cast<size_t>(e.ids[i]) < t.vocab_size());
    const auto [start, end] = e.offsets[i];
    FUZZ_CHECK(start >= 0 && start <= end && static_cast<size_t>(end) <= std::max(units_a, units_b));
  }
}

void exercise(const Tokenizer& t) {
  static const char* const texts[] = {
      "Hello world, it's 2024!",
      "  a\tb\n\nc  ",
      "\xEC\x95\x88\xEB\x85\x95 \xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB caf\xC3\xA9 e\xCC\x81",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
      "<s>[CLS]<|endoftext|><mask> \xFF\xFE x",
  };
  // Every offset must stay inside its text's UTF-16 length.
  auto units_of = [](const char* text) {
    const auto chars = attnscope::tok::decode_utf8(text);
    return chars.empty() ? size_t{0} : static_cast<size_t>(chars.back().end);
  };
  for (const char* text : texts) {
    const size_t units = units_of(text);
    for (int max_length : {0, 3}) {
      try {
        const Encoding e = t.encode(text, std::nullopt, max_length);
        check_encoding(e, t, units, 0, max_length);
        (void)t.decode(e.ids);
        for (int32_t id : e.ids) (void)t.token_text(id);
      } catch (const attnscope::Error& err) {
        FUZZ_CHECK(err.code() == "E_TOKENIZER" || (err.code() == "E_INPUT" && max_length > 0));
      }
    }
  }
  try {
    const Encoding e = t.encode(texts[0], std::string_view(texts[1]), 0);
    check_encoding(e, t, units_of(texts[0]), units_of(texts[1]), 0);
  } catch (const attnscope::Error& err) {
    FUZZ_CHECK(err.code() == "E_TOKENIZER");
  }
  for (int32_t id : {0, 1, static_cast<int32_t>(t.vocab_size()) - 1}) {
    if (id >= 0 && static_cast<size_t>(id) < t.vocab_size()) (void)t.decode({id});
  }
  (void)t.special_tokens();
  (void)t.token_to_id("a");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int layout = data[0] % 4;
  const std::vector<std::string_view> files =
      split_files(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  TokenizerFiles f;
  if (layout == 0) {
    f.tokenizer_json = files[0];
    f.tokenizer_config_json = files[2];
  } else if (layout == 1) {
    f.vocab_txt = files[0];
    f.tokenizer_config_json = files[2];
  } else if (layout == 2) {
    f.vocab_json = files[0];
    f.merges_txt = files[1];
    f.tokenizer_config_json = files[2];
  } else {
    f.source_spm = files[0];
    f.target_spm = files[0];
    f.vocab_json = files[1];
    f.tokenizer_config_json = files[2];
  }
  try {
    const Tokenizer t = Tokenizer::from_files(f);
    exercise(t);
    if (auto target = Tokenizer::target_from_files(f)) exercise(*target);
  } catch (const attnscope::Error& err) {
    FUZZ_CHECK(err.code() == "E_TOKENIZER");
  }
  return 0;
}
