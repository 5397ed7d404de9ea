// libFuzzer target for the tokenizers: arbitrary bytes (invalid UTF-8 included) as a single text
// or a pair, with and without max_length, through four tokenizers — WordPiece uncased with added
// tokens using lstrip/rstrip/single_word/normalized; WordPiece cased without CJK padding; byte-level
// BPE RoBERTa-style (RobertaProcessing, trim_offsets, add_prefix_space, <mask> lstrip) and GPT-2-
// style (no template, ignore_merges) over pathological merges (a a → aa → aaaa → ..., repeated
// merges). Checks the Encoding's invariants: parallel arrays, ids inside the vocabulary, offsets
// inside the input and in order, template and truncation lengths. attnscope::Error is an allowed
// outcome only for an impossible max_length. BPE shares this target to keep CI time flat.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/tokenizer.h"

using attnscope::tok::Encoding;
using attnscope::tok::Tokenizer;

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

// A byte-level vocabulary: every byte, then merges that chain (a a → aa, aa aa → aaaa, ...), meet
// in the middle (Ġ a / Ġa a), repeat, and touch multi-byte characters (Hangul, emoji bytes).
std::string bpe_tokenizer_json(bool roberta) {
  const auto& b2u = attnscope::tok::byte_to_unicode();
  nlohmann::json vocab = nlohmann::json::object();
  int next = 0;
  if (roberta) for (const char* s : {"<s>", "<pad>", "</s>", "<unk>"}) vocab[s] = next++;
  for (const std::string& c : b2u) vocab[c] = next++;
  const std::string a = "a", g = b2u[' '], e0 = b2u[0xEC], e1 = b2u[0x95], e2 = b2u[0x88];
  const std::vector<std::pair<std::string, std::string>> merges = {
      {a, a}, {a + a, a + a}, {a + a + a + a, a + a + a + a}, {g, a}, {g + a, a}, {a, a}, {g, g},
      {g + g, g + g}, {e0, e1}, {e0 + e1, e2}, {"b", "b"}, {a, "b"}, {"b", a}, {a + "b", a + "b"}};
  nlohmann::json merge_list = nlohmann::json::array();
  for (const auto& [l, r] : merges) {
    if (!vocab.contains(l + r)) vocab[l + r] = next++;
    merge_list.push_back(l + " " + r);
  }
  if (roberta) vocab["<mask>"] = next++;
  nlohmann::json doc = {{"normalizer", nullptr},
                        {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", roberta}, {"use_regex", true}}},
                        {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"ignore_merges", !roberta},
                                   {"vocab", vocab}, {"merges", merge_list}}}};
  if (roberta) {
    doc["post_processor"] = {{"type", "RobertaProcessing"}, {"sep", {"</s>", 2}}, {"cls", {"<s>", 0}},
                             {"trim_offsets", true}, {"add_prefix_space", true}};
    doc["added_tokens"] = {{{"id", 0}, {"content", "<s>"}, {"special", true}, {"normalized", true}},
                           {{"id", 2}, {"content", "</s>"}, {"special", true}, {"normalized", true}},
                           {{"id", vocab["<mask>"]}, {"content", "<mask>"}, {"special", true}, {"lstrip", true}}};
  } else {
    doc["post_processor"] = {{"type", "ByteLevel"}, {"trim_offsets", false}};
    doc["added_tokens"] = {{{"id", next}, {"content", "<|endoftext|>"}, {"special", true}, {"rstrip", true}}};
  }
  return doc.dump();
}

const Tokenizer& tokenizer(int which) {
  static const Tokenizer uncased = Tokenizer::from_files({"", "", "", tokenizer_json(true, true), ""});
  static const Tokenizer cased = Tokenizer::from_files({"", "", "", tokenizer_json(false, false), ""});
  static const Tokenizer roberta = Tokenizer::from_files({"", "", "", bpe_tokenizer_json(true), ""});
  static const Tokenizer gpt2 = Tokenizer::from_files({"", "", "", bpe_tokenizer_json(false), ""});
  const Tokenizer* all[] = {&uncased, &cased, &roberta, &gpt2};
  return *all[which];
}

// Template tokens around the sequences: [CLS] A [SEP] (B [SEP]), <s> A </s> (</s> B </s>), none.
size_t template_tokens(int which, bool pair) {
  if (which < 2) return pair ? 3 : 2;
  if (which == 2) return pair ? 4 : 2;
  return 0;
}

void check(const Encoding& e, const Tokenizer& t, int which, size_t len_a, size_t len_b, bool pair,
           int max_length) {
  const size_t n = e.ids.size();
  FUZZ_CHECK(e.tokens.size() == n && e.token_texts.size() == n && e.type_ids.size() == n &&
             e.offsets.size() == n && e.special_tokens_mask.size() == n);
  FUZZ_CHECK(n >= template_tokens(which, pair));
  if (max_length > 0) FUZZ_CHECK(n <= static_cast<size_t>(max_length));
  else FUZZ_CHECK(e.num_truncated == 0);
  FUZZ_CHECK(e.num_truncated >= 0);
  if (which < 2) FUZZ_CHECK(e.ids.front() == 2 && e.ids.back() == 3);
  if (which == 2) FUZZ_CHECK(e.ids.front() == 0 && e.ids.back() == 2);
  // Which sequence token i is from: WordPiece and GPT-2 say it by type id; RoBERTa's are all 0,
  // so count template tokens (B follows the third: <s> A </s></s>).
  size_t specials = 0;
  int32_t last_start[2] = {0, 0};
  for (size_t i = 0; i < n; ++i) {
    FUZZ_CHECK(e.ids[i] >= 0 && static_cast<size_t>(e.ids[i]) < t.vocab_size());
    FUZZ_CHECK(e.type_ids[i] == 0 || (pair && e.type_ids[i] == 1));
    const auto [start, end] = e.offsets[i];
    if (e.special_tokens_mask[i]) {
      FUZZ_CHECK(start == 0 && end == 0);
      ++specials;
      continue;
    }
    const int seq = which == 2 ? (pair && specials >= 3) : e.type_ids[i];
    // UTF-16 length never exceeds the byte length (1 unit per 1–3 bytes, 2 per 4, 1 per bad byte).
    const size_t limit = seq == 0 ? len_a : len_b;
    FUZZ_CHECK(start >= 0 && start <= end && static_cast<size_t>(end) <= limit);
    if (which < 2 || which == 3) FUZZ_CHECK(start < end);  // only trim_offsets may empty a span
    if (which >= 2) {
      FUZZ_CHECK(start >= last_start[seq]);  // byte-level spans are in order
      last_start[seq] = start;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // Byte 0: bit 0 pair, bits 1–2 which tokenizer, bits 3–7 max_length (0 = none). Byte 1: where
  // the pair splits. The rest is the text.
  const bool pair = data[0] & 1;
  const int which = (data[0] >> 1) & 3;
  const int max_length = data[0] >> 3;
  const std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
  const size_t cut = pair ? (text.size() * data[1]) / 255 : text.size();
  const std::string a = text.substr(0, cut), b = text.substr(cut);
  const Tokenizer& t = tokenizer(which);
  try {
    const Encoding e = pair ? t.encode(a, std::string_view(b), max_length) : t.encode(a, std::nullopt, max_length);
    check(e, t, which, a.size(), b.size(), pair, max_length);
  } catch (const attnscope::Error& err) {
    // Only an impossible max_length may fail: fewer than the template's special tokens.
    FUZZ_CHECK(err.code() == "E_INPUT" && max_length > 0 &&
               static_cast<size_t>(max_length) < template_tokens(which, pair));
  }
  return 0;
}
