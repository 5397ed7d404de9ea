// A text longer than the model can take: tokenized in pieces cut at spaces
// (space_cuts.h), it must give exactly what tokenizing it whole gives — every token within the
// limit, num_truncated, and without a limit all of it — while holding only a piece at a time.
// The whole-text reference is the same tokenizer with one inert normalizer step added (a Replace
// of "\x01\x02", absent from the text), which is not one of the steps that allow cuts: it
// tokenizes the old way, whole. Hugging Face parity of long texts: tests/js/tokenize-bounded.test.js.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heap_meter.h"
#include "test_engine_support.h"
#include "tokenizer/space_cuts.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8_text.h"

using namespace attnscope::tok;
using namespace attnscope::test;
using nlohmann::json;

namespace {

const std::string kRoot = std::string(ATTNSCOPE_FIXTURES_DIR) + "/../..";

// Varied text: words that WordPiece splits, contractions, numbers, punctuation, accents, CJK,
// emoji, runs of spaces, newlines and tabs, and the models' special tokens written in the text.
std::string long_text(size_t bytes, const std::string& special) {
  static const char* const parts[] = {
      "The quick brown fox jumps over the lazy dog.", "I'm sure they'll say it's fine, WE'RE NOT.",
      "In 2024, 3.14159 x 1,000,000 = 3141590 roughly.", "unbelievably antidisestablishmentarianism",
      "def f(x):\n    return x ** 2  # square\n\n", "\xEC\x95\x88\xEB\x85\x95 \xE4\xB8\x96\xE7\x95\x8C",
      "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB ok", "Ca va tr\xC3\xA8s bien, na\xC3\xAFve fa\xC3\xA7" "ade.",
      "\t\tindented\t\n   spaced   out   words   ", "e\xCC\x81t\xC3\xA9 caf\xC3\xA9", "x  y", "a\xC2\xA0" "b",
  };
  std::string text;
  uint32_t state = 12345;
  while (text.size() < bytes) {
    state = state * 1664525u + 1013904223u;
    const size_t pick = (state >> 8) % (std::size(parts) + 1);
    text += pick == std::size(parts) ? special : parts[pick];
    text += (state >> 20) % 7 == 0 ? "" : " ";
  }
  return text;
}

// The same tokenizer.json with the inert step that makes the tokenizer tokenize whole.
std::string uncut(const std::string& tokenizer_json) {
  json t = json::parse(tokenizer_json);
  const json inert = {{"type", "Replace"}, {"pattern", {{"String", "\x01\x02"}}}, {"content", ""}};
  if (t["normalizer"].is_null()) t["normalizer"] = inert;
  else if (t["normalizer"]["type"] == "Sequence") t["normalizer"]["normalizers"].push_back(inert);
  else t["normalizer"] = {{"type", "Sequence"}, {"normalizers", {t["normalizer"], inert}}};
  return t.dump();
}

// tokenizer.json as BertConverter writes it for the bundled vocab.txt (lowercase, [CLS] A [SEP]).
std::string bert_json(const std::string& vocab_txt) {
  json vocab = json::object();
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < vocab_txt.size()) {
    const size_t eol = vocab_txt.find('\n', pos);
    lines.push_back(vocab_txt.substr(pos, eol - pos));
    pos = eol == std::string::npos ? vocab_txt.size() : eol + 1;
  }
  for (size_t i = 0; i < lines.size(); ++i) vocab[lines[i]] = i;
  json added = json::array();
  for (const char* s : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    added.push_back({{"id", vocab[s]}, {"content", s}, {"single_word", false}, {"lstrip", false}, {"rstrip", false},
                     {"normalized", false}, {"special", true}});
  }
  return json{{"added_tokens", added},
              {"normalizer", {{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true},
                              {"strip_accents", nullptr}, {"lowercase", true}}},
              {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
              {"post_processor", {{"type", "BertProcessing"}, {"sep", {"[SEP]", vocab["[SEP]"]}}, {"cls", {"[CLS]", vocab["[CLS]"]}}}},
              {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
              {"model", {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
                         {"max_input_chars_per_word", 100}, {"vocab", vocab}}}}
      .dump();
}

struct Case {
  const char* name;
  Tokenizer cut;    // as loaded: long texts in pieces
  Tokenizer whole;  // the reference
  std::string special;
};

std::vector<Case> cases() {
  const std::string vocab_txt = read_text(kRoot + "/model/vocab.txt");
  const std::string gpt2 = read_text(kRoot + "/model-causal/tokenizer.json");
  json roberta_offsets = json::parse(gpt2);  // ByteLevel offset trimming with add_prefix_space
  roberta_offsets["pre_tokenizer"]["add_prefix_space"] = true;
  roberta_offsets["post_processor"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}};
  const std::string t5 = read_text(std::string(ATTNSCOPE_FIXTURES_DIR) + "/tokenizer/unigram/t5.tokenizer.json");
  const std::string marian = read_text(std::string(ATTNSCOPE_FIXTURES_DIR) + "/tokenizer/unigram/marian.tokenizer.json");
  std::vector<Case> out;
  out.push_back({"BERT (bundled vocab.txt)", Tokenizer::from_files({vocab_txt, "", "", "", read_text(kRoot + "/model/tokenizer_config.json")}),
                 Tokenizer::from_files({"", "", "", uncut(bert_json(vocab_txt))}), "[MASK]"});
  out.push_back({"GPT-2 (bundled)", Tokenizer::from_files({"", "", "", gpt2}), Tokenizer::from_files({"", "", "", uncut(gpt2)}),
                 "<|endoftext|>"});
  out.push_back({"GPT-2 with trimmed offsets and a prefix space", Tokenizer::from_files({"", "", "", roberta_offsets.dump()}),
                 Tokenizer::from_files({"", "", "", uncut(roberta_offsets.dump())}), "<|endoftext|>"});
  out.push_back({"T5 Unigram", Tokenizer::from_files({"", "", "", t5}), Tokenizer::from_files({"", "", "", uncut(t5)}), "</s>"});
  out.push_back({"Marian Unigram (WhitespaceSplit + Metaspace)", Tokenizer::from_files({"", "", "", marian}),
                 Tokenizer::from_files({"", "", "", uncut(marian)}), "</s>"});
  return out;
}

void check_same(const Encoding& want, const Encoding& got) {
  REQUIRE(got.ids.size() == want.ids.size());
  // Token by token (with the token's text and offsets in the message) only to report the first
  // difference: tens of thousands of assertions per text are what made this file slow under ASan.
  const bool same = got.ids == want.ids && got.offsets == want.offsets;
  for (size_t i = 0; !same && i < want.ids.size(); ++i) {
    INFO("token " << i << ": want " << want.tokens[i] << " [" << want.offsets[i].first << ", " << want.offsets[i].second
                  << "), got " << got.tokens[i] << " [" << got.offsets[i].first << ", " << got.offsets[i].second << ")");
    REQUIRE(got.ids[i] == want.ids[i]);
    REQUIRE(got.offsets[i] == want.offsets[i]);
  }
  CHECK(got.tokens == want.tokens);
  CHECK(got.token_texts == want.token_texts);
  CHECK(got.type_ids == want.type_ids);
  CHECK(got.special_tokens_mask == want.special_tokens_mask);
  CHECK(got.num_truncated == want.num_truncated);
}

}  // namespace

TEST_CASE("space cuts: a single ASCII space between ASCII letters or digits", "[tokenizer][long]") {
  CHECK(next_space_cut("ab cd", 0) == 2);
  CHECK(next_space_cut("ab cd", 3) == 5);
  CHECK(next_space_cut("a  b, c d", 0) == 7);   // not in a run of spaces, nor after punctuation
  CHECK(next_space_cut(" a b", 0) == 2);        // not at the start
  CHECK(next_space_cut("\xC3\xA9 b 1 2", 0) == 4);  // not after a non-ASCII letter
  CHECK(next_space_cut("ab ", 0) == 3);          // none: the end
}

TEST_CASE("long texts: pieces give the whole text's tokens, the limit's and num_truncated", "[tokenizer][long]") {
  const std::string text = long_text(2 * kPieceBytes + 1000, "");  // two cuts
  for (Case& c : cases()) {
    const std::string special_text = long_text(2 * kPieceBytes + 1000, c.special);
    for (const std::string* t : {&text, &special_text}) {
      INFO(c.name << (t == &text ? "" : " with special tokens in the text"));
      // Under ASan each encode of this text takes a while: the text without special tokens gets
      // the whole-text comparison and the limits around the cut; the one with them all the rest.
      const bool every_case = t == &special_text;
      const Encoding whole = c.whole.encode(*t, std::nullopt, 0);
      REQUIRE(whole.ids.size() > 20000);
      check_same(whole, c.cut.encode(*t, std::nullopt, 0));
      // Limits: small, at the first cut (and one token either side), inside a word past it.
      const size_t cut = next_space_cut(*t, kPieceBytes);
      const int32_t cut_units = decode_utf8(std::string_view(*t).substr(0, cut)).back().end;
      int at_cut = 0;
      while (whole.offsets[static_cast<size_t>(at_cut)].second <= cut_units) ++at_cut;
      int in_word = at_cut + 100;
      while (whole.offsets[static_cast<size_t>(in_word)].second != whole.offsets[static_cast<size_t>(in_word) + 1].first ||
             whole.special_tokens_mask[static_cast<size_t>(in_word) + 1]) {
        ++in_word;
      }
      // Each limit costs the reference a whole-text encode: the text without special tokens takes
      // the limits either side of the cut, the one with them a small one, the cut and past it.
      const std::vector<int> limits = every_case ? std::vector<int>{8, at_cut, in_word + 1}
                                                 : std::vector<int>{at_cut - 1, at_cut + 1, in_word + 1};
      for (int limit : limits) {
        INFO("max_length " << limit);
        check_same(c.whole.encode(*t, std::nullopt, limit), c.cut.encode(*t, std::nullopt, limit));
      }
      // Pairs: longest_first needs both totals.
      if (!every_case) continue;
      const std::string short_text = "a short second text";
      for (int limit : {16}) {
        INFO("pair, max_length " << limit);
        check_same(c.whole.encode(*t, std::string_view(short_text), limit), c.cut.encode(*t, std::string_view(short_text), limit));
        check_same(c.whole.encode(short_text, std::string_view(*t), limit), c.cut.encode(short_text, std::string_view(*t), limit));
        check_same(c.whole.encode(*t, std::string_view(*t), limit), c.cut.encode(*t, std::string_view(*t), limit));
      }
    }
  }
}

TEST_CASE("long texts: truncated, a text costs a piece's memory, not the whole text's", "[tokenizer][long]") {
  // 2 MB: ~25 MB of characters whole (the old path), 16 MB allowed; small enough for ASan in CI.
  const std::string text = long_text(size_t{2} << 20, "");
  std::vector<Case> all = cases();
  for (Case& c : all) {
    INFO(c.name);
    int64_t peak = 0;
    Encoding e;
    {
      const HeapMeter meter;
      e = c.cut.encode(text, std::nullopt, 512);
      peak = meter.peak_bytes();
    }
    CHECK(e.ids.size() == 512);
    CHECK(e.num_truncated > 250000);
    CHECK(peak < (int64_t{16} << 20));
  }
  // The bound tells the two paths apart at this size: tokenized whole, the same text costs more.
  const HeapMeter meter;
  all.front().whole.encode(text, std::nullopt, 512);
  CHECK(meter.peak_bytes() > (int64_t{16} << 20));
}

TEST_CASE("long texts: a stage that could join across a cut keeps the text whole", "[tokenizer][long]") {
  // Strip on the left, Prepend, an added token holding a space: each would see the pieces
  // differ. The text's first cut falls inside "the lazy", one piece in.
  const std::string t5 = read_text(std::string(ATTNSCOPE_FIXTURES_DIR) + "/tokenizer/unigram/t5.tokenizer.json");
  json strip_left = json::parse(t5);
  strip_left["normalizer"]["normalizers"][1]["strip_left"] = true;
  json prepend = json::parse(t5);
  prepend["normalizer"]["normalizers"].push_back({{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}});
  json spaced = json::parse(t5);
  spaced["added_tokens"].push_back({{"id", 5}, {"content", "the lazy"}, {"single_word", false}, {"lstrip", false},
                                    {"rstrip", false}, {"normalized", false}, {"special", false}});
  const std::string text = std::string(kPieceBytes, ',') + " the lazy dog " + long_text(kPieceBytes, "</s>");
  REQUIRE(text.substr(next_space_cut(text, kPieceBytes) - 3, 8) == "the lazy");
  for (const json* t : {&strip_left, &prepend, &spaced}) {
    const Tokenizer cut = Tokenizer::from_files({"", "", "", t->dump()});
    const Tokenizer whole = Tokenizer::from_files({"", "", "", uncut(t->dump())});
    check_same(whole.encode(text, std::nullopt, 0), cut.encode(text, std::nullopt, 0));
  }
}

TEST_CASE("long texts: which stages allow cuts", "[tokenizer][long]") {
  const auto normalizer = [](const char* section) { return Normalizer::from_json(json::parse(section)).keeps_space_cuts(); };
  CHECK(normalizer("null"));
  CHECK(normalizer(R"({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true})"));
  CHECK(normalizer(R"({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}, {"type": "Strip", "strip_left": false, "strip_right": true}]})"));
  CHECK(normalizer(R"({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "\u2581"})"));
  CHECK_FALSE(normalizer(R"({"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"})"));  // the space is no longer one
  CHECK_FALSE(normalizer(R"({"type": "Replace", "pattern": {"Regex": " +$"}, "content": ""})"));     // an anchor sees the piece's end
  CHECK_FALSE(normalizer(R"({"type": "Replace", "pattern": {"String": "a b"}, "content": "x"})"));
  CHECK_FALSE(normalizer(R"({"type": "Strip", "strip_left": true, "strip_right": false})"));
  CHECK_FALSE(normalizer(R"({"type": "Prepend", "prepend": "\u2581"})"));
  const auto pre = [](const char* section) { return PreTokenizer::from_json(json::parse(section)).cuts_at_spaces(); };
  CHECK(pre(R"({"type": "BertPreTokenizer"})"));
  CHECK(pre(R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true})"));
  CHECK(pre(R"({"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": true}, {"type": "WhitespaceSplit"}]})"));
  CHECK(pre(R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": true})"));
  // Llama 3's and Qwen3's pre_tokenizer sections as their tokenizer.json files write them.
  CHECK(pre(R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}]})"));
  CHECK(pre(R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]})"));
  CHECK_FALSE(pre("null"));
  CHECK_FALSE(pre(R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false})"));
  CHECK_FALSE(pre(R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": false})"));
  CHECK_FALSE(pre(R"({"type": "Split", "pattern": {"Regex": "\\w+ \\w+"}, "behavior": "Isolated", "invert": false})"));
}
