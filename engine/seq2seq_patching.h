// Activation patching (patching.h's definitions) on an encoder–decoder: the clean and the corrupted
// run share the decoder's input (decoder_start_token_id, then the target) and differ in the source
// (of the same token length); LD is read at the last target position. The sites are the decoder's
// (decoder.blocks.l.…: columns are target positions or decoder heads; head and pattern are the
// self-attention's) or the encoder's (encoder.blocks.l.…: source positions or encoder heads). A
// decoder cell reuses the corrupted source's encoder output and reruns the decoder; an encoder cell
// reruns both stacks.
#pragma once
#include <cstdint>
#include <vector>

#include "patching.h"
#include "seq2seq.h"

namespace attnscope {

struct Seq2SeqPatchingInput {
  std::vector<int32_t> clean_source, corrupted_source;  // equal lengths
  std::vector<int32_t> decoder_ids;                     // decoder_start_token_id, then the target
  int32_t answer = 0, wrong = 0;
  PatchSite site = PatchSite::ResidPre;
  HookStack stack = HookStack::Decoder;                 // whose sites: Decoder or Encoder
};

class Seq2SeqPatchingRun {
 public:
  // Runs both. E_INPUT for sources of unequal lengths (naming both), no decoder ids, answer = wrong
  // or either outside the vocabulary, a stack other than Encoder or Decoder, and encode()'s and
  // decode()'s errors.
  Seq2SeqPatchingRun(const Seq2Seq& model, Seq2SeqPatchingInput input);

  int layers() const { return layers_; }
  int columns() const { return columns_; }
  int position() const { return static_cast<int>(input_.decoder_ids.size()) - 1; }
  double clean_ld() const { return clean_ld_; }
  double corrupted_ld() const { return corrupted_ld_; }
  std::vector<double> patched_lds(int layer) const;
  std::vector<double> scores(const std::vector<double>& lds) const { return patch_scores(lds, clean_ld_, corrupted_ld_); }

 private:
  // LD at the last decoder position of a decoder run over `encoder` (with `hooks`, or none).
  double decoder_ld(const EncoderOutput& encoder, const Hooks* hooks) const;

  const Seq2Seq& model_;
  Seq2SeqPatchingInput input_;
  int layers_ = 0, columns_ = 0, heads_ = 0, head_dim_ = 0, queries_ = 0;
  double clean_ld_ = 0, corrupted_ld_ = 0;
  EncoderOutput corrupted_encoder_;
  std::vector<std::vector<float>> clean_site_;  // per layer: the clean run's hook tensor at the site
};

}  // namespace attnscope
