// Information flow (flow.h) of each family's pass: the FlowRecorder that reads a Transformer's
// (BERT, GPT-2, the Llama family) or an encoder–decoder's stacks, and one-call runs for readers
// that need nothing else from the pass (the tests, the native tools).
#pragma once
#include <cstdint>
#include <vector>

#include "flow.h"
#include "seq2seq.h"
#include "transformer.h"

namespace attnscope {

// head_mask: ForwardOptions::head_mask, (L, H) or empty.
FlowRecorder flow_recorder(const Transformer& model, const std::vector<float>& head_mask);
// The encoder's (head_mask) and the decoder's (decoder_head_mask, cross_attn_head_mask) of an
// encoder–decoder; the decoder's cross-attention reads `encoder`'s values, which must outlive it.
FlowRecorder encoder_flow_recorder(const Seq2Seq& model, const Seq2SeqRunOptions& options);
FlowRecorder decoder_flow_recorder(const Seq2Seq& model, const EncoderOutput& encoder, const Seq2SeqRunOptions& options);

// One forward pass (as Transformer::forward, E_INPUT alike) and its flow.
StackFlow information_flow(const Transformer& model, const std::vector<int32_t>& ids,
                           const std::vector<int32_t>& token_types, const std::vector<int32_t>& attention_mask,
                           const std::vector<float>& head_mask = {});

struct Seq2SeqFlow {
  StackFlow encoder, decoder;
};
// The encoder over `source` and the decoder over `target` (decoder_start_token_id first), from an
// empty cache.
Seq2SeqFlow information_flow(const Seq2Seq& model, const std::vector<int32_t>& source,
                             const std::vector<int32_t>& target, const Seq2SeqRunOptions& options = {});

}  // namespace attnscope
