// Marian's SentencePiece files (source.spm, target.spm, vocab.json): MarianTokenizer parity, and
// the .spm protobuf reader on bad input. The reference (tests/fixtures/tokenizer/marian/
// expected.json, from make_marian_spm.py) is SentencePiece itself (python3-sentencepiece) with
// MarianTokenizer's rules around it: pieces, ids (</s> appended) and decodes, for three models
// with different normalization settings.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "error.h"
#include "test_engine_support.h"
#include "tokenizer/sentencepiece_model.h"
#include "tokenizer/tokenizer.h"

using namespace attnscope::tok;

namespace {

const std::string kDir = std::string(ATTNSCOPE_FIXTURES_DIR) + "/tokenizer/marian/";

std::string file(const std::string& name) { return attnscope::test::read_text(kDir + name); }

struct MarianFiles {
  std::string source = file("source.spm"), target = file("target.spm"), identity = file("identity.spm");
  std::string vocab = file("vocab.json"), config = file("tokenizer_config.json");
  TokenizerFiles with(const std::string& source_spm, const std::string& target_spm) const {
    TokenizerFiles f;
    f.vocab_json = vocab;
    f.tokenizer_config_json = config;
    f.source_spm = source_spm;
    f.target_spm = target_spm;
    return f;
  }
};

// The protobuf bytes of a tiny ModelProto, written by hand.
std::string varint(uint64_t v) {
  std::string out;
  do {
    out += static_cast<char>((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return out;
}
std::string field(uint32_t number, const std::string& bytes) { return varint(number << 3 | 2) + varint(bytes.size()) + bytes; }
std::string varint_field(uint32_t number, uint64_t v) { return varint(number << 3) + varint(v); }
std::string piece(const std::string& text, float score, int type) {
  std::string score_bytes(4, '\0');
  std::memcpy(score_bytes.data(), &score, 4);
  return field(1, field(1, text) + varint(2 << 3 | 5) + score_bytes + varint_field(3, static_cast<uint64_t>(type)));
}
std::string tiny_model() {
  return piece("<unk>", 0, 2) + piece("</s>", 0, 3) + piece("\u2581hi", -1, 1) + piece("\u2581", -2, 1) +
         piece("h", -3, 1) + piece("i", -3, 1) + field(3, varint_field(3, 1));
}

void expect_error(const std::function<void()>& fn, const std::string& needle) {
  attnscope::test::expect_error(fn, "E_TOKENIZER", needle);
}

}  // namespace

TEST_CASE("Marian .spm: pieces and ids as MarianTokenizer (SentencePiece + vocab.json + </s>)", "[tokenizer][marian]") {
  const MarianFiles m;
  const nlohmann::json expected = nlohmann::json::parse(file("expected.json"));
  const std::pair<const char*, Tokenizer> sides[] = {
      {"source", Tokenizer::from_files(m.with(m.source, m.target))},
      {"target", *Tokenizer::target_from_files(m.with(m.source, m.target))},
      {"identity", Tokenizer::from_files(m.with(m.identity, m.target))},
  };
  for (const auto& [side, tokenizer] : sides) {
    const nlohmann::json& cases = expected["sides"][side]["cases"];
    REQUIRE(cases.size() >= 500);
    CHECK(tokenizer.vocab_size() == expected["vocab_size"].get<size_t>());
    size_t differ = 0;
    for (const auto& c : cases) {
      const std::string text = c["text"];
      const Encoding e = tokenizer.encode(text);
      const auto want_tokens = c["tokens"].get<std::vector<std::string>>();
      const auto want_ids = c["ids"].get<std::vector<int32_t>>();
      if (e.tokens != want_tokens || e.ids != want_ids) {
        if (++differ <= 5) {
          INFO(side << " " << nlohmann::json(text).dump() << "\n  want " << nlohmann::json(want_tokens).dump()
                    << "\n  got  " << nlohmann::json(e.tokens).dump());
          CHECK(e.tokens == want_tokens);
          CHECK(e.ids == want_ids);
        }
      }
    }
    INFO(side << ": " << differ << " of " << cases.size() << " strings differ");
    CHECK(differ == 0);
    for (const auto& d : expected["sides"][side]["decodes"]) {
      INFO(side << " decode " << d["ids"].dump());
      CHECK(tokenizer.decode(d["ids"].get<std::vector<int32_t>>()) == d["text"].get<std::string>());
    }
  }
}

TEST_CASE("Marian .spm: offsets cover the input each piece came from", "[tokenizer][marian]") {
  const MarianFiles m;
  const Tokenizer t = Tokenizer::from_files(m.with(m.source, m.target));
  const Encoding e = t.encode(">>de<< Hi  there");  // the code, then pieces of "Hi" and "there"
  REQUIRE(e.tokens.front() == ">>de<<");
  CHECK(e.offsets.front() == std::pair<int32_t, int32_t>{0, 6});
  CHECK(e.offsets.back() == std::pair<int32_t, int32_t>{0, 0});  // </s>
  CHECK(e.offsets[e.offsets.size() - 2].second == 16);
}

TEST_CASE("Marian files: only with tokenizer.json absent; the target side only for Marian", "[tokenizer][marian]") {
  const MarianFiles m;
  TokenizerFiles f = m.with(m.source, m.target);
  CHECK(Tokenizer::target_from_files(f).has_value());
  f.source_spm = {};
  CHECK_FALSE(Tokenizer::target_from_files(f).has_value());
  f = m.with(m.source, "");
  expect_error([&] { Tokenizer::target_from_files(f); }, "target.spm");
  f = m.with(m.source, m.target);
  f.vocab_json = R"({"</s>": 0, "<pad>": 1})";
  expect_error([&] { Tokenizer::from_files(f); }, "unk_token '<unk>' is not in vocab.json");
  f = m.with(m.source, m.target);
  f.tokenizer_config_json = R"({"separate_vocabs": true})";
  expect_error([&] { Tokenizer::from_files(f); }, "separate_vocabs");
  f.tokenizer_config_json = R"({"tokenizer_class": "T5Tokenizer"})";
  expect_error([&] { Tokenizer::from_files(f); }, "T5Tokenizer");
}

TEST_CASE("SentencePiece model reader: a hand-written model", "[tokenizer][marian]") {
  const SpmModel model = parse_spm_model(tiny_model(), "x.spm");
  REQUIRE(model.pieces.size() == 6);
  CHECK(model.unk_id == 0);
  CHECK(model.pieces[1].type == SpmPiece::Type::Control);
  CHECK(model.pieces[2].score == -1.0f);
  CHECK(model.normalizer.add_dummy_prefix);
  CHECK(model.normalizer.precompiled_charsmap.empty());
  // Unknown fields of every wire type are skipped, as protobuf does.
  const std::string extra = varint_field(9, 5) + varint(10 << 3 | 1) + std::string(8, 'x') + varint(11 << 3 | 5) +
                            std::string(4, 'y') + field(12, "zz");
  CHECK(parse_spm_model(extra + tiny_model(), "x.spm").pieces.size() == 6);
}

TEST_CASE("SentencePiece model reader: malformed, truncated and unsupported files are E_TOKENIZER", "[tokenizer][marian]") {
  const std::string good = tiny_model();
  expect_error([] { parse_spm_model("", "source.spm"); }, "source.spm is empty");
  // Every truncation of a valid model fails cleanly (or parses a shorter valid prefix).
  for (size_t n = 1; n < good.size(); ++n) {
    try {
      (void)parse_spm_model(good.substr(0, n), "source.spm");
    } catch (const attnscope::Error& e) {
      CHECK(e.code() == "E_TOKENIZER");
      CHECK(std::string(e.what()).find("source.spm") != std::string::npos);
    }
  }
  expect_error([] { parse_spm_model(std::string(11, '\xFF'), "s.spm"); }, "longer than 10 bytes");
  expect_error([] { parse_spm_model("\x0A\x7F" "ab", "s.spm"); }, "runs past the end");
  expect_error([] { parse_spm_model("\x0B", "s.spm"); }, "wire type 3");
  expect_error([] { parse_spm_model(std::string("\x00\x01", 2), "s.spm"); }, "field number 0");
  expect_error([] { parse_spm_model(varint_field(1, 3), "s.spm"); }, "pieces has wire type 0");
  expect_error([] { parse_spm_model(piece("a", 0, 1), "s.spm"); }, "no unknown piece");
  expect_error([&] { parse_spm_model(good + piece("<unk2>", 0, 2), "s.spm"); }, "more than one unknown piece");
  expect_error([&] { parse_spm_model(good + piece("h", 0, 1), "s.spm"); }, "'h' is defined twice");
  expect_error([&] { parse_spm_model(good + piece("", 0, 1), "s.spm"); }, "is empty");
  expect_error([&] { parse_spm_model(good + piece("q", 0, 9), "s.spm"); }, "piece type 9");
  expect_error([&] { parse_spm_model(good + piece("q", std::numeric_limits<float>::quiet_NaN(), 1), "s.spm"); }, "finite");
  expect_error([&] { parse_spm_model(good + piece("<x>", 0, 4), "s.spm"); }, "user-defined");
  expect_error([&] { parse_spm_model(good + piece("<0x41>", 0, 6), "s.spm"); }, "byte piece");
  expect_error([&] { parse_spm_model(good + field(2, varint_field(3, 2)), "target.spm"); }, "target.spm is a SentencePiece BPE model");
  expect_error([&] { parse_spm_model(good + field(2, varint_field(3, 3)), "s.spm"); }, "WORD model");
  expect_error([&] { parse_spm_model(good + field(2, varint_field(3, 4)), "s.spm"); }, "CHAR model");
  expect_error([&] { parse_spm_model(good + field(2, varint_field(35, 1)), "s.spm"); }, "byte_fallback");
  expect_error([&] { parse_spm_model(good + field(2, varint_field(24, 1)), "s.spm"); }, "treat_whitespace_as_suffix");
  expect_error([&] { parse_spm_model(good + field(5, field(2, "abcd")), "s.spm"); }, "denormalizer_spec");
  // A charsmap that is not a trie fails when the tokenizer is built from it.
  const MarianFiles m;
  const std::string bad_charsmap = good + field(3, field(2, std::string("\x10\x00\x00\x00", 4)));
  expect_error([&] { Tokenizer::from_files(m.with(bad_charsmap, m.target)); }, "precompiled_charsmap");
  // Text files given as .spm (a JSON file, a tokenizer.json by mistake) are named, not crashed on.
  expect_error([&] { Tokenizer::from_files(m.with(m.vocab, m.target)); }, "source.spm is not a SentencePiece model");
}
