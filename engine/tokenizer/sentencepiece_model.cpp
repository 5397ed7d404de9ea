// The protobuf wire format, read only as far as ModelProto needs: varints (at most 10 bytes),
// fixed32/fixed64, length-delimited fields bounded by their enclosing message. Unknown fields are
// skipped as protobuf does; groups (wire types 3, 4) and wire types 6, 7 are malformed.
#include "tokenizer/sentencepiece_model.h"

#include <cmath>
#include <cstring>
#include <unordered_set>

#include "error.h"
#include "tokenizer/json_fields.h"

namespace attnscope::tok {
namespace {

constexpr uint32_t kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5;

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& where) : bytes_(bytes), where_(where) {}
  bool done() const { return pos_ >= bytes_.size(); }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("E_TOKENIZER", where_ + " is not a SentencePiece model: " + what + " (at byte " + std::to_string(pos_) + ")");
  }

  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) fail("a number is cut off (truncated file?)");
      const auto byte = static_cast<uint8_t>(bytes_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    fail("a number is longer than 10 bytes");
  }

  // The next field's (number, wire type).
  std::pair<uint32_t, uint32_t> tag() {
    const uint64_t key = varint();
    const uint64_t number = key >> 3;
    if (number == 0 || number > 0x1FFFFFFF) fail("field number " + std::to_string(number) + " is invalid");
    return {static_cast<uint32_t>(number), static_cast<uint32_t>(key & 7)};
  }

  std::string_view bytes() {
    const uint64_t length = varint();
    if (length > bytes_.size() - pos_) {
      fail("a field of " + std::to_string(length) + " bytes runs past the end (" + std::to_string(bytes_.size() - pos_) +
           " left; truncated file?)");
    }
    const std::string_view out = bytes_.substr(pos_, static_cast<size_t>(length));
    pos_ += static_cast<size_t>(length);
    return out;
  }

  uint32_t fixed32() {
    if (bytes_.size() - pos_ < 4) fail("a 4-byte field is cut off (truncated file?)");
    uint32_t v = 0;
    for (int k = 3; k >= 0; --k) v = (v << 8) | static_cast<uint8_t>(bytes_[pos_ + static_cast<size_t>(k)]);
    pos_ += 4;
    return v;
  }

  void skip(uint32_t wire) {
    switch (wire) {
      case kVarint: varint(); return;
      case kFixed64:
        if (bytes_.size() - pos_ < 8) fail("an 8-byte field is cut off (truncated file?)");
        pos_ += 8;
        return;
      case kBytes: bytes(); return;
      case kFixed32: fixed32(); return;
      default: fail("wire type " + std::to_string(wire) + " is not used by SentencePiece");
    }
  }

  void expect(uint32_t wire, uint32_t want, const char* field) {
    if (wire != want) fail(std::string(field) + " has wire type " + std::to_string(wire) + ", not " + std::to_string(want));
  }

  bool boolean(uint32_t wire, const char* field) {
    expect(wire, kVarint, field);
    return varint() != 0;
  }

 private:
  std::string_view bytes_;
  std::string where_;
  size_t pos_ = 0;
};

SpmPiece parse_piece(std::string_view bytes, const std::string& where) {
  Reader r(bytes, where);
  SpmPiece p;
  while (!r.done()) {
    const auto [number, wire] = r.tag();
    if (number == 1) {
      r.expect(wire, kBytes, "piece");
      p.piece = std::string(r.bytes());
    } else if (number == 2) {
      r.expect(wire, kFixed32, "score");
      const uint32_t bits = r.fixed32();
      std::memcpy(&p.score, &bits, sizeof p.score);
    } else if (number == 3) {
      r.expect(wire, kVarint, "type");
      const uint64_t type = r.varint();
      if (type < 1 || type > 6) r.fail("piece type " + std::to_string(type) + " is not one SentencePiece defines");
      p.type = static_cast<SpmPiece::Type>(type);
    } else {
      r.skip(wire);
    }
  }
  return p;
}

// TrainerSpec: only what changes encoding is read (model_type 3, treat_whitespace_as_suffix 24,
// byte_fallback 35) or decoding (unk_surface 44); the rest describes training.
void parse_trainer(std::string_view bytes, const std::string& file, SpmModel& m) {
  Reader r(bytes, file + " trainer_spec");
  while (!r.done()) {
    const auto [number, wire] = r.tag();
    if (number == 3) {
      r.expect(wire, kVarint, "model_type");
      const uint64_t type = r.varint();
      if (type != 1) {
        const char* names[] = {"?", "UNIGRAM", "BPE", "WORD", "CHAR"};
        const std::string name = type < 5 ? names[type] : "type " + std::to_string(type);
        throw Error("E_TOKENIZER", file + " is a SentencePiece " + name + " model: AttnScope reads Unigram models only");
      }
    } else if (number == 24) {
      if (r.boolean(wire, "treat_whitespace_as_suffix")) {
        throw Error("E_TOKENIZER", file + ": treat_whitespace_as_suffix is not supported");
      }
    } else if (number == 44) {
      r.expect(wire, kBytes, "unk_surface");
      m.unk_surface = std::string(r.bytes());
    } else if (number == 35) {
      if (r.boolean(wire, "byte_fallback")) {
        throw Error("E_TOKENIZER", file + ": byte_fallback SentencePiece models are not supported");
      }
    } else {
      r.skip(wire);
    }
  }
}

SpmNormalizerSpec parse_normalizer(std::string_view bytes, const std::string& where) {
  Reader r(bytes, where);
  SpmNormalizerSpec spec;
  while (!r.done()) {
    const auto [number, wire] = r.tag();
    switch (number) {
      case 1: r.expect(wire, kBytes, "name"); spec.name = std::string(r.bytes()); break;
      case 2: r.expect(wire, kBytes, "precompiled_charsmap"); spec.precompiled_charsmap = std::string(r.bytes()); break;
      case 3: spec.add_dummy_prefix = r.boolean(wire, "add_dummy_prefix"); break;
      case 4: spec.remove_extra_whitespaces = r.boolean(wire, "remove_extra_whitespaces"); break;
      case 5: spec.escape_whitespaces = r.boolean(wire, "escape_whitespaces"); break;
      default: r.skip(wire);
    }
  }
  return spec;
}

void validate(SpmModel& m, const std::string& file) {
  auto fail = [&](const std::string& what) { throw Error("E_TOKENIZER", file + ": " + what); };
  if (m.pieces.empty()) fail("the SentencePiece model has no pieces");
  std::unordered_set<std::string_view> seen;
  for (size_t id = 0; id < m.pieces.size(); ++id) {
    const SpmPiece& p = m.pieces[id];
    const std::string where = "piece " + std::to_string(id) + " '" + p.piece + "'";
    if (p.piece.empty()) fail("piece " + std::to_string(id) + " is empty");
    if (!seen.insert(p.piece).second) fail(where + " is defined twice");
    if (!std::isfinite(p.score)) fail(where + " has a score that is not a finite number");
    if (p.type == SpmPiece::Type::UserDefined) fail(where + " is a user-defined symbol, which AttnScope does not support");
    if (p.type == SpmPiece::Type::Byte) fail(where + " is a byte piece (byte_fallback), which AttnScope does not support");
    if (p.type == SpmPiece::Type::Unknown) {
      if (m.unk_id >= 0) fail("more than one unknown piece ('" + m.pieces[static_cast<size_t>(m.unk_id)].piece + "', '" + p.piece + "')");
      m.unk_id = static_cast<int32_t>(id);
    }
  }
  if (m.unk_id < 0) fail("the SentencePiece model has no unknown piece");
}

}  // namespace

SpmModel parse_spm_model(std::string_view bytes, const std::string& file) {
  if (bytes.empty()) throw Error("E_TOKENIZER", file + " is empty");
  Reader r(bytes, file);
  SpmModel m;
  while (!r.done()) {
    const auto [number, wire] = r.tag();
    if (number == 1) {
      r.expect(wire, kBytes, "pieces");
      if (m.pieces.size() >= static_cast<size_t>(json_fields::kMaxVocab)) r.fail("too many pieces");
      m.pieces.push_back(parse_piece(r.bytes(), file + " piece " + std::to_string(m.pieces.size())));
    } else if (number == 2) {
      r.expect(wire, kBytes, "trainer_spec");
      parse_trainer(r.bytes(), file, m);
    } else if (number == 3) {
      r.expect(wire, kBytes, "normalizer_spec");
      m.normalizer = parse_normalizer(r.bytes(), file + " normalizer_spec");
    } else if (number == 5) {
      r.expect(wire, kBytes, "denormalizer_spec");
      if (!parse_normalizer(r.bytes(), file + " denormalizer_spec").precompiled_charsmap.empty()) {
        throw Error("E_TOKENIZER", file + ": denormalization rules (denormalizer_spec) are not supported");
      }
    } else {
      r.skip(wire);
    }
  }
  validate(m, file);
  return m;
}

}  // namespace attnscope::tok
