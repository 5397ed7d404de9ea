// Which encoder–decoder family a config belongs to (a file of its own, so that a build without
// the encoder–decoders links none of them).
#include "models/seq2seq_family.h"

namespace attnscope {

const Seq2SeqModelFamily& seq2seq_family(const Seq2SeqConfig& config) {
  return config.family == Seq2SeqFamily::T5 ? t5_family(config) : bart_family(config);
}

}  // namespace attnscope
