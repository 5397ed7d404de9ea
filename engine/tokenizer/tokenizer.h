// The one tokenizer the rest of AttnScope uses: Hugging Face's pipeline of stages, run by one loop
// as tokenizers' src/tokenizer/mod.rs runs it — added tokens split out → normalizer →
// pre-tokenizer → model → post-processor (truncation, template, offset trimming) — with a decoder
// for the way back. Each stage is its own small type read from its own tokenizer.json section
// (normalizer_stage.h, pre_tokenizer_stage.h, model_stage.h, post_processor.h, decoder_stage.h);
// the older vocab.txt and vocab.json + merges.txt files build the same stages (legacy_files.cpp),
// and so do Marian's SentencePiece files (marian_files.cpp).
// Ids and tokens are identical to Hugging Face's; offsets are UTF-16 code-unit spans of the input
// (JavaScript string indices). Invalid UTF-8 is replaced by U+FFFD per maximal invalid subpart —
// the string JavaScript's TextDecoder builds.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/added_tokens.h"
#include "tokenizer/decoder_stage.h"
#include "tokenizer/encoding.h"
#include "tokenizer/model_stage.h"
#include "tokenizer/normalizer_stage.h"
#include "tokenizer/post_processor.h"
#include "tokenizer/pre_tokenizer_stage.h"

namespace attnscope::tok {

// The tokenizer files of a Hugging Face model folder; absent ones are empty.
struct TokenizerFiles {
  std::string_view vocab_txt;              // WordPiece
  std::string_view vocab_json;             // BPE, with merges_txt
  std::string_view merges_txt;
  std::string_view tokenizer_json;         // any kind; wins over the others
  std::string_view tokenizer_config_json;  // settings and special tokens
  std::string_view source_spm;             // Marian: SentencePiece model bytes, with vocab_json
  std::string_view target_spm;             // Marian: the target side's (its decoder's text)
};

// Names of the special tokens ("" when the tokenizer has none of that role).
struct SpecialTokens {
  std::string cls, sep, pad, mask, unk;
};

// What tokenizer_config.json (or BertTokenizer's defaults) says for a bare vocab.txt.
struct BertSettings {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<bool> strip_accents;  // unset: follows lowercase (HF semantics)
  bool lowercase = true;
  std::string unk_token = "[UNK]", cls_token = "[CLS]", sep_token = "[SEP]";
  std::string pad_token = "[PAD]", mask_token = "[MASK]";
  std::string continuing_subword_prefix = "##";
  int max_input_chars_per_word = 100;
};

class Tokenizer {
 public:
  // tokenizer.json when given; otherwise vocab.txt (WordPiece) or vocab.json + merges.txt
  // (byte-level BPE), with tokenizer_config.json. Throws Error("E_TOKENIZER") naming anything it
  // would not reproduce exactly, or when no usable set is given.
  static Tokenizer from_files(const TokenizerFiles& files);
  // The tokenizer of target text where the files have a separate one (Marian's target.spm, used
  // only when there is no tokenizer.json); otherwise none: target text is tokenized as source text.
  static std::optional<Tokenizer> target_from_files(const TokenizerFiles& files);
  // vocab.txt (one token per line, id = line number) with BertTokenizer's stages and settings.
  static Tokenizer from_vocab_txt(std::string_view vocab_txt, const BertSettings& settings);

  // max_length 0 = no truncation; otherwise HF "longest_first" truncation, counted in
  // Encoding::num_truncated. A text far longer than max_length is tokenized piece by piece
  // (space_cuts.h) where the stages allow it: tokens past the limit are counted, never kept.
  Encoding encode(std::string_view text, const std::optional<std::string_view>& pair = std::nullopt,
                  int max_length = 0) const;
  int32_t token_to_id(std::string_view token) const;  // -1 when absent
  const std::string& id_to_token(int32_t id) const;    // throws Error("E_INPUT") out of range
  // Readable form of a vocabulary entry for labels: byte-level entries decoded ("Ġthe" → "␣the"),
  // SentencePiece's '▁' shown as '␣'; WordPiece entries and added tokens as they are.
  std::string token_text(int32_t id) const;
  // The text of a sequence of ids, as Hugging Face's decode with special tokens kept: the
  // decoder stage over their tokens. Throws Error("E_INPUT") for an id outside the vocabulary.
  std::string decode(const std::vector<int32_t>& ids) const;
  size_t vocab_size() const { return vocab_.size(); }
  SpecialTokens special_tokens() const { return special_; }
  bool is_byte_level() const { return pre_tokenizer_.byte_level(); }

 private:
  Tokenizer() = default;
  static Tokenizer from_tokenizer_json(std::string_view tokenizer_json, std::string_view tokenizer_config_json);
  static Tokenizer from_vocab_txt_files(std::string_view vocab_txt, std::string_view tokenizer_config_json);
  static Tokenizer from_vocab_json(std::string_view vocab_json, std::string_view merges_txt,
                                   std::string_view tokenizer_config_json);
  // MarianTokenizer over one side's .spm (source.spm or target.spm) and the shared vocab.json.
  static Tokenizer from_marian_files(const TokenizerFiles& files, bool target);
  static Tokenizer marian_files(const TokenizerFiles& files, bool target);  // from_marian_files where the build has it
  // Lays the added tokens over the model's vocabulary, builds their matchers and names the
  // special tokens' roles the files left unnamed; every builder ends here.
  void finish_setup();
  void lay_out_vocabulary();          // model tokens + added tokens by id; template ids checked
  void build_added_token_matchers();  // raw and normalized tries
  void name_special_tokens();         // roles left unnamed: from the model, template, conventions
  // Whether every stage lets a text be cut at space cuts (space_cuts.h); set up once.
  bool stages_keep_space_cuts() const;
  // text's tokens, the first `keep` kept (with their labels) and all of them counted.
  SequenceTokens tokenize_sequence(std::string_view text, size_t keep) const;
  // The tokens of one piece of a text: `piece` begins `units_before` UTF-16 units into the text
  // (the whole text's first piece when 0) and its length in units is added to units_before.
  // labels: fill Token::readable (not needed for tokens only counted).
  std::vector<Token> tokenize_piece(std::string_view piece, int32_t& units_before, bool labels) const;
  // MarianTokenizer.remove_language_code: a text segment starting ">>xx<<" gives that code as
  // one token (vocab.json's id, else unk); returns where the rest of the segment begins.
  size_t split_language_code(const std::vector<SpannedChar>& chars, const TextSegment& seg, std::vector<Token>& out) const;
  std::string readable(const std::string& token) const;

  std::vector<AddedToken> added_;
  AddedTokenMatcher raw_matcher_;         // added tokens with normalized = false
  AddedTokenMatcher normalized_matcher_;  // added tokens with normalized = true
  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  Model model_;
  PostProcessor post_processor_;
  Decoder decoder_;
  std::vector<std::string> vocab_;  // id → token: the model's vocabulary with the added tokens
  SpecialTokens special_;
  bool language_codes_ = false;  // Marian: split_language_code on every text segment
  bool space_cuts_ = false;      // stages_keep_space_cuts(): long texts are tokenized piece by piece
};

}  // namespace attnscope::tok
