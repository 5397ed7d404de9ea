// A family of the encoder–decoders (BART with Marian, T5) as the shared pass (seq2seq.h,
// layer.h) needs it: both stacks' layer as data and what is its own — how a stack's embeddings
// are made, the head's scale. Each is one file of engine/models/; seq2seq_family() picks a
// config's.
#pragma once
#include <cstdint>
#include <vector>

#include "layer.h"
#include "seq2seq_config.h"
#include "weights.h"

namespace attnscope {

struct Seq2SeqStack;

struct Seq2SeqModelFamily {
  LayerSpec layer;
  // x (T, C) = the embeddings of `ids` at positions first.. as the stack's layer 0 reads them.
  void (*embed)(float* x, const Seq2SeqConfig& config, const WeightMatrix& shared, const Seq2SeqStack& stack,
                const std::vector<int32_t>& ids, int first);
  // T5 scales the last hidden state by d_model^-0.5 before a tied head (Mesh TensorFlow's convention).
  bool rescales_tied_head;
  // What bounds the positions, for messages ("": only memory does).
  const char* position_limit;
};

const Seq2SeqModelFamily& bart_family(const Seq2SeqConfig& config);  // BART, Marian
const Seq2SeqModelFamily& t5_family(const Seq2SeqConfig& config);
const Seq2SeqModelFamily& seq2seq_family(const Seq2SeqConfig& config);

// x (T, C) = scale · the rows of `ids` in the shared embedding matrix (f32, or f16 widened).
void scaled_token_embeddings(float* x, const WeightMatrix& shared, const std::vector<int32_t>& ids, int C,
                             float scale);

}  // namespace attnscope
