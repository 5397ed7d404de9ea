// The decoder stage: each step rewrites the token list (tokenizers' decode_chain), and the
// result is concatenated.
#include "tokenizer/decoder_stage.h"

#include "tokenizer/byte_level.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/replace_all.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

using namespace json_fields;

namespace {

using Step = DecoderStep;

char32_t one_char(const std::string& text, const std::string& where) {
  const std::vector<SpannedChar> chars = decode_utf8(text);
  if (chars.size() != 1) fail(where + " must be one character");
  return chars[0].cp;
}

size_t get_count(const json& section, const char* key, const std::string& where) {
  auto it = section.find(key);
  if (it == section.end() || it->is_null()) return 0;
  return static_cast<size_t>(get_int(*it, where + "." + key, 0, 1 << 20));
}

Step parse_step(const json& section) {
  const std::string type = type_name(section, "decoder");
  Step step;
  if (type == "ByteLevel") {
    step.kind = Step::Kind::ByteLevel;
  } else if (type == "WordPiece") {
    step.kind = Step::Kind::WordPiece;
    step.prefix = get_string(section, "prefix", "##", "decoder WordPiece");
    step.cleanup = get_bool(section, "cleanup", true, "decoder WordPiece");
  } else if (type == "Metaspace") {
    step.kind = Step::Kind::Metaspace;
    step.replacement = one_char(get_string(section, "replacement", "\u2581", "decoder Metaspace"), "decoder Metaspace replacement");
    const bool legacy_prefix = get_bool(section, "add_prefix_space", true, "decoder Metaspace");
    step.prepend = get_string(section, "prepend_scheme", legacy_prefix ? "always" : "never", "decoder Metaspace") != "never";
  } else if (type == "Replace") {
    step.kind = Step::Kind::Replace;
    const json& pattern = member(section, "pattern");
    if (!pattern.is_object() || !pattern.contains("String")) fail("decoder Replace supports only a {\"String\": ...} pattern");
    step.pattern = get_string(pattern, "String", "", "decoder Replace pattern");
    if (step.pattern.empty()) fail("decoder Replace pattern must not be empty");
    step.content = get_string(section, "content", "", "decoder Replace");
  } else if (type == "ByteFallback") {
    step.kind = Step::Kind::ByteFallback;
  } else if (type == "Fuse") {
    step.kind = Step::Kind::Fuse;
  } else if (type == "Strip") {
    step.kind = Step::Kind::Strip;
    step.content = get_string(section, "content", " ", "decoder Strip");
    one_char(step.content, "decoder Strip content");
    step.start = get_count(section, "start", "decoder Strip");
    step.stop = get_count(section, "stop", "decoder Strip");
  } else {
    fail("decoder '" + type + "' is not supported: AttnScope reproduces ByteLevel, WordPiece, Metaspace, Replace, "
         "ByteFallback, Fuse, Strip and Sequences of them");
  }
  return step;
}

// Bytes read as UTF-8, each maximal invalid subpart as U+FFFD (Rust's from_utf8_lossy).
std::string lossy_utf8(const std::string& bytes) {
  std::string out;
  for (const SpannedChar& c : decode_utf8(bytes)) append_utf8(out, c.cp);
  return out;
}

std::string wordpiece_cleanup(std::string s) {
  static const std::pair<const char*, const char*> rules[] = {
      {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"},
      {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : rules) s = replace_all(std::move(s), from, to);
  return s;
}

// "<0x0A>" → 0x0A; -1 when the token is not a byte token.
int byte_token(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  int v = 0;
  for (size_t i = 3; i < 5; ++i) {
    const char h = t[i];
    const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

std::vector<std::string> byte_fallback(std::vector<std::string> tokens) {
  std::vector<std::string> out;
  std::string pending;
  auto flush = [&] {
    if (pending.empty()) return;
    const std::vector<SpannedChar> chars = decode_utf8(pending);
    bool valid = true;
    std::string back;
    for (const SpannedChar& c : chars) append_utf8(back, c.cp);
    valid = back == pending;
    if (valid) out.push_back(pending);
    else for (size_t i = 0; i < pending.size(); ++i) out.push_back("\xEF\xBF\xBD");  // one U+FFFD per byte
    pending.clear();
  };
  for (std::string& t : tokens) {
    const int b = byte_token(t);
    if (b >= 0) {
      pending += static_cast<char>(b);
    } else {
      flush();
      out.push_back(std::move(t));
    }
  }
  flush();
  return out;
}

std::vector<std::string> run_step(const Step& step, std::vector<std::string> tokens) {
  switch (step.kind) {
    case Step::Kind::ByteLevel: {
      // A token whose characters are not all mapped bytes (an added token) keeps its own bytes.
      std::string bytes, piece;
      for (const std::string& t : tokens) bytes += unicode_to_bytes(t, piece) ? piece : t;
      return {lossy_utf8(bytes)};
    }
    case Step::Kind::WordPiece:
      for (size_t i = 0; i < tokens.size(); ++i) {
        if (i != 0) {
          if (tokens[i].compare(0, step.prefix.size(), step.prefix) == 0) tokens[i].erase(0, step.prefix.size());
          else tokens[i].insert(0, " ");
        }
        if (step.cleanup) tokens[i] = wordpiece_cleanup(std::move(tokens[i]));
      }
      return tokens;
    case Step::Kind::Metaspace:
      for (size_t i = 0; i < tokens.size(); ++i) {
        std::string out;
        for (const SpannedChar& c : decode_utf8(tokens[i])) {
          if (c.cp != step.replacement) append_utf8(out, c.cp);
          else if (!(i == 0 && step.prepend)) out += ' ';
        }
        tokens[i] = std::move(out);
      }
      return tokens;
    case Step::Kind::Replace:
      for (std::string& t : tokens) t = replace_all(std::move(t), step.pattern, step.content);
      return tokens;
    case Step::Kind::ByteFallback: return byte_fallback(std::move(tokens));
    case Step::Kind::Fuse: {
      std::string all;
      for (const std::string& t : tokens) all += t;
      return {all};
    }
    case Step::Kind::Strip: {
      const char32_t content = decode_utf8(step.content).front().cp;
      for (std::string& t : tokens) {
        const std::vector<SpannedChar> chars = decode_utf8(t);
        size_t begin = 0, end = chars.size();
        while (begin < step.start && begin < end && chars[begin].cp == content) ++begin;
        while (chars.size() - end < step.stop && end > begin && chars[end - 1].cp == content) --end;
        std::string out;
        for (size_t i = begin; i < end; ++i) append_utf8(out, chars[i].cp);
        t = std::move(out);
      }
      return tokens;
    }
    case Step::Kind::Marian: return {decode_marian(tokens, *step.marian)};
  }
  return tokens;
}

}  // namespace

Decoder Decoder::byte_level() {
  Decoder d;
  d.steps_.push_back(Step{});
  return d;
}

Decoder Decoder::wordpiece(const std::string& prefix, bool cleanup) {
  Decoder d;
  Step step;
  step.kind = Step::Kind::WordPiece;
  step.prefix = prefix;
  step.cleanup = cleanup;
  d.steps_.push_back(std::move(step));
  return d;
}

Decoder Decoder::marian(MarianDecoding decoding) {
  Decoder d;
  Step step;
  step.kind = Step::Kind::Marian;
  step.marian = std::make_shared<const MarianDecoding>(std::move(decoding));
  d.steps_.push_back(std::move(step));
  return d;
}

Decoder Decoder::from_json(const json& section) {
  Decoder d;
  for (const json& member : sequence_members(section, "decoders", "decoder")) d.steps_.push_back(parse_step(member));
  return d;
}

std::string Decoder::decode(std::vector<std::string> tokens) const {
  std::string out;
  if (steps_.empty()) {
    for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  for (const Step& step : steps_) tokens = run_step(step, std::move(tokens));
  for (const std::string& t : tokens) out += t;
  return out;
}

}  // namespace attnscope::tok
