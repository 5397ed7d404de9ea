// Activation patching on an encoder–decoder (seq2seq_patching.h) through the stacks' hook points.
#include "seq2seq_patching.h"

#include <algorithm>

#include "error.h"

namespace attnscope {

namespace {

[[noreturn]] void bad_input(const std::string& message) { throw Error("E_INPUT", message); }

}  // namespace

Seq2SeqPatchingRun::Seq2SeqPatchingRun(const Seq2Seq& model, Seq2SeqPatchingInput input)
    : model_(model), input_(std::move(input)) {
  const Seq2SeqConfig& c = model.config();
  const size_t clean_len = input_.clean_source.size(), corrupted_len = input_.corrupted_source.size();
  if (clean_len != corrupted_len)
    bad_input("the clean source has " + std::to_string(clean_len) + " tokens and the corrupted one " +
              std::to_string(corrupted_len) + ": patching needs the same token length");
  if (input_.decoder_ids.empty()) bad_input("no decoder ids: patching reads the logit difference at the last target position");
  for (auto [id, name] : {std::pair{input_.answer, "answer"}, std::pair{input_.wrong, "wrong"}})
    if (id < 0 || id >= c.vocab_size)
      bad_input(std::string(name) + " token id " + std::to_string(id) + " is out of vocab range [0, " +
                std::to_string(c.vocab_size) + ")");
  if (input_.answer == input_.wrong)
    bad_input("answer and wrong are the same token (" + std::to_string(input_.answer) + "): their logit difference is 0");
  const bool encoder = input_.stack == HookStack::Encoder;
  if (!encoder && input_.stack != HookStack::Decoder) bad_input("an encoder–decoder patches the encoder's or the decoder's sites");
  layers_ = encoder ? c.encoder_layers : c.decoder_layers;
  heads_ = encoder ? c.encoder_heads : c.decoder_heads;
  head_dim_ = encoder ? c.encoder_head_dim() : c.decoder_head_dim();
  queries_ = static_cast<int>(encoder ? clean_len : input_.decoder_ids.size());
  columns_ = patch_site_by_head(input_.site) ? heads_ : queries_;

  Hooks read;
  clean_site_.resize(layers_);
  for (int l = 0; l < layers_; ++l)
    read.add({input_.stack, patch_hook_site(input_.site), l}, [this, l](const HookPoint&, HookTensor& t) {
      clean_site_[l].assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width);
    }, false);
  Seq2SeqRunOptions options;
  options.hooks = encoder ? &read : nullptr;
  const EncoderOutput clean_encoder = model_.encode(input_.clean_source, options);
  clean_ld_ = decoder_ld(clean_encoder, encoder ? nullptr : &read);
  corrupted_encoder_ = model_.encode(input_.corrupted_source);
  corrupted_ld_ = decoder_ld(corrupted_encoder_, nullptr);
}

double Seq2SeqPatchingRun::decoder_ld(const EncoderOutput& encoder, const Hooks* hooks) const {
  KvCache cache;
  Seq2SeqRunOptions options;
  options.hooks = hooks;
  const DecoderOutput out = model_.decode(input_.decoder_ids, encoder, cache, options);
  const int C = model_.config().d_model;
  const std::vector<float> logits = model_.logits(out.hidden.data() + static_cast<size_t>(out.tokens - 1) * C, 1);
  return static_cast<double>(logits[input_.answer]) - logits[input_.wrong];
}

std::vector<double> Seq2SeqPatchingRun::patched_lds(int layer) const {
  if (layer < 0 || layer >= layers_)
    bad_input("layer " + std::to_string(layer) + " is outside [0, " + std::to_string(layers_) + ")");
  const float* clean = clean_site_[layer].data();
  std::vector<double> lds(columns_);
  for (int column = 0; column < columns_; ++column) {
    Hooks patch;
    patch.add({input_.stack, patch_hook_site(input_.site), layer}, [&](const HookPoint&, HookTensor& t) {
      write_patch_cell(input_.site, column, head_dim_, queries_, clean, t);
    }, true);
    if (input_.stack == HookStack::Decoder) {
      lds[column] = decoder_ld(corrupted_encoder_, &patch);
    } else {
      Seq2SeqRunOptions options;
      options.hooks = &patch;
      lds[column] = decoder_ld(model_.encode(input_.corrupted_source, options), nullptr);
    }
  }
  return lds;
}

}  // namespace attnscope
