// MarianTokenizer.convert_tokens_to_string over SentencePiece's DecodePieces.
#include "tokenizer/sentencepiece_decoder.h"

#include "tokenizer/replace_all.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {
namespace {

const std::string kSpaceSymbol = "\u2581";

// SentencePieceProcessor::Decode(pieces).
std::string decode_pieces(const std::vector<std::string>& pieces, const MarianDecoding& d) {
  std::string text;
  bool is_bos_ws = true, bos_ws_seen = false;
  for (const std::string& piece : pieces) {
    if (bos_ws_seen || !text.empty()) is_bos_ws = false;
    bos_ws_seen = false;
    auto it = d.piece_types.find(piece);
    // A piece the model lacks has the unknown piece's id: written as it is.
    const SpmPiece::Type type = it == d.piece_types.end() ? SpmPiece::Type::Unknown : it->second;
    if (type == SpmPiece::Type::Control) continue;
    if (type == SpmPiece::Type::Unknown) {
      text += piece == d.unk_piece ? d.unk_surface : piece;
      continue;
    }
    std::string_view rest = piece;
    if (is_bos_ws && d.strip_first_space && rest.compare(0, kSpaceSymbol.size(), kSpaceSymbol) == 0) {
      rest.remove_prefix(kSpaceSymbol.size());
      bos_ws_seen = !d.remove_extra_whitespaces;
    }
    text += replace_all(std::string(rest), kSpaceSymbol, " ");
  }
  return text;
}

// Python's str.isspace for one code point.
bool python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::string python_strip(const std::string& s) {
  const std::vector<SpannedChar> chars = decode_utf8(s);
  size_t begin = 0, end = chars.size();
  while (begin < end && python_space(chars[begin].cp)) ++begin;
  while (end > begin && python_space(chars[end - 1].cp)) --end;
  std::string out;
  for (size_t i = begin; i < end; ++i) append_utf8(out, chars[i].cp);
  return out;
}

// transformers' PreTrainedTokenizerBase.clean_up_tokenization.
std::string clean_up(std::string s) {
  static const std::pair<const char*, const char*> rules[] = {
      {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
      {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : rules) s = replace_all(std::move(s), from, to);
  return s;
}

}  // namespace

MarianDecoding::MarianDecoding(const SpmModel& model, std::unordered_set<std::string> specials, bool clean_up)
    : unk_piece(model.pieces[static_cast<size_t>(model.unk_id)].piece),
      unk_surface(model.unk_surface),
      strip_first_space(model.normalizer.add_dummy_prefix || model.normalizer.remove_extra_whitespaces),
      remove_extra_whitespaces(model.normalizer.remove_extra_whitespaces),
      special_tokens(std::move(specials)),
      clean_up_tokenization_spaces(clean_up) {
  for (const SpmPiece& p : model.pieces) piece_types.emplace(p.piece, p.type);
}

std::string decode_marian(const std::vector<std::string>& tokens, const MarianDecoding& d) {
  std::string out;
  std::vector<std::string> run;
  for (const std::string& t : tokens) {
    if (d.special_tokens.count(t)) {
      out += decode_pieces(run, d) + t + " ";
      run.clear();
    } else {
      run.push_back(t);
    }
  }
  out += decode_pieces(run, d);
  out = python_strip(replace_all(std::move(out), kSpaceSymbol, " "));
  return d.clean_up_tokenization_spaces ? clean_up(std::move(out)) : out;
}

}  // namespace attnscope::tok
