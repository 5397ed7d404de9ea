// libFuzzer target for the BERT tokenizer: arbitrary bytes (invalid UTF-8 included) as a single
// text or a pair, with and without max_length, through two tokenizers (uncased with added tokens
// using lstrip/rstrip/single_word/normalized; cased without CJK padding). Checks the Encoding's
// invariants: parallel arrays, ids inside the vocabulary, offsets inside the input, template and
// truncation lengths. attnscope::Error is an allowed outcome only for an impossible max_length.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.h"
#include "tokenizer/bert_tokenizer.h"

using attnscope::tok::BertTokenizer;
using attnscope::tok::Encoding;

namespace {

#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) abort(); \
  } while (0)

const char* kVocabJson = R"({"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"[MASK]":4,"a":5,"##a":6,"b":7,"##b":8,
  "the":9,"##e":10,"e":11,".":12,",":13,"\u1112":14,"##\u1161":15,"##\u11ab":16,"\u4e2d":17,"i":18,"##\u0307":19,
  "\u00e9":20,"##\u00e9":21,"<x>":22,"\ud83d\ude00":23,"##\ud83d\ude00":24,"\u0130":25,"ab":26,"##ab":27})";

std::string tokenizer_json(bool lowercase, bool cjk) {
  return std::string(R"({"normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":)") +
         (cjk ? "true" : "false") + R"(,"strip_accents":null,"lowercase":)" + (lowercase ? "true" : "false") +
         R"(},"pre_tokenizer":{"type":"BertPreTokenizer"},
  "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":12,
           "vocab":)" + kVocabJson + R"(},
  "post_processor":{"type":"BertProcessing","cls":["[CLS]",2],"sep":["[SEP]",3]},
  "added_tokens":[
    {"id":4,"content":"[MASK]","special":true,"normalized":false},
    {"id":22,"content":"<x>","special":true,"normalized":false,"lstrip":true,"rstrip":true},
    {"id":28,"content":"AB","special":false,"normalized":true,"single_word":true},
    {"id":29,"content":"\u00c9t\u00e9","special":false,"normalized":true}]})";
}

const BertTokenizer& tokenizer(int which) {
  static const BertTokenizer uncased = BertTokenizer::from_files("", tokenizer_json(true, true), "");
  static const BertTokenizer cased = BertTokenizer::from_files("", tokenizer_json(false, false), "");
  return which ? cased : uncased;
}

void check(const Encoding& e, const BertTokenizer& t, size_t len_a, size_t len_b, bool pair, int max_length) {
  const size_t n = e.ids.size();
  FUZZ_CHECK(e.tokens.size() == n && e.type_ids.size() == n && e.offsets.size() == n &&
             e.special_tokens_mask.size() == n);
  FUZZ_CHECK(n >= (pair ? 3u : 2u));
  if (max_length > 0) FUZZ_CHECK(n <= static_cast<size_t>(max_length));
  else FUZZ_CHECK(e.num_truncated == 0);
  FUZZ_CHECK(e.num_truncated >= 0);
  FUZZ_CHECK(e.ids.front() == 2 && e.ids.back() == 3);
  for (size_t i = 0; i < n; ++i) {
    FUZZ_CHECK(e.ids[i] >= 0 && static_cast<size_t>(e.ids[i]) < t.vocab_size());
    FUZZ_CHECK(e.type_ids[i] == 0 || (pair && e.type_ids[i] == 1));
    const auto [start, end] = e.offsets[i];
    // UTF-16 length never exceeds the byte length (1 unit per 1–3 bytes, 2 per 4, 1 per bad byte).
    const size_t limit = e.type_ids[i] == 0 ? len_a : len_b;
    FUZZ_CHECK(start >= 0 && start <= end && static_cast<size_t>(end) <= limit);
    if (e.special_tokens_mask[i]) FUZZ_CHECK(start == 0 && end == 0);
    else FUZZ_CHECK(start < end);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // Byte 0: bit 0 pair, bit 1 which tokenizer, bits 2–7 max_length (0 = none). Byte 1: where the
  // pair splits. The rest is the text.
  const bool pair = data[0] & 1;
  const int which = (data[0] >> 1) & 1;
  const int max_length = data[0] >> 2;
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
  const size_t cut = pair ? (text.size() * data[1]) / 255 : text.size();
  const std::string a = text.substr(0, cut), b = text.substr(cut);
  const BertTokenizer& t = tokenizer(which);
  try {
    const Encoding e = pair ? t.encode(a, std::string_view(b), max_length) : t.encode(a, std::nullopt, max_length);
    check(e, t, a.size(), b.size(), pair, max_length);
  } catch (const attnscope::Error& err) {
    // Only an impossible max_length may fail: 1–2 tokens for a single, 1–3 for a pair.
    FUZZ_CHECK(err.code() == "E_INPUT" && max_length > 0 && max_length < (pair ? 3 : 2));
  }
  return 0;
}
