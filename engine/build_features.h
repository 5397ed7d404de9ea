// What a wasm build carries. Every build carries everything except two lighter ones, chosen by
// js/api/wasm.js from config.json before the wasm is fetched:
// - the core build (ATTNSCOPE_CORE_BUILD: dist/attnscope-core*.wasm, for any model that is not an
//   encoder–decoder and whose weights are not int8) leaves out the int8 GEMM, the
//   encoder–decoders and Marian's SentencePiece files;
// - the encoder build (ATTNSCOPE_ENCODER_BUILD, which implies the core one:
//   dist/attnscope-encoder.wasm, for BERT and DistilBERT, what an embedded figure shows most)
//   also leaves out the decoders (GPT-2, the Llama family: their layers, generation, sampling,
//   the one-row GEMV, the other layer shapes) and every tokenizer but WordPiece (BPE, Unigram,
//   byte-level, Split, Regex patterns and their compiler, NFC's composition table,
//   SentencePiece's precompiled normalizer and its grapheme tables), and the analyses an embedded
//   grid never runs (the logit lens, direct logit attribution, the information flow, activation
//   patching, steering): js/api/model.js moves a model to the core build the first time one is
//   asked for (buildInfo().analyses says whether a build has them).
// The code that reaches them tests these constants, so in those builds the linker finds it unused
// and drops it. A source that tests them includes this file itself (CMakeLists.txt compiles the
// files that do once per build).
#pragma once
#include <string>

#include "error.h"

namespace attnscope {

#if defined(ATTNSCOPE_ENCODER_BUILD)
inline constexpr bool kBuildHasQ8 = false;
inline constexpr bool kBuildHasSeq2Seq = false;
inline constexpr bool kBuildHasDecoders = false;
inline constexpr bool kBuildHasWordPieceOnly = true;
inline constexpr bool kBuildHasAnalyses = false;
inline constexpr const char* kBuildName = "encoder";
#elif defined(ATTNSCOPE_CORE_BUILD)
inline constexpr bool kBuildHasQ8 = false;
inline constexpr bool kBuildHasSeq2Seq = false;
inline constexpr bool kBuildHasDecoders = true;
inline constexpr bool kBuildHasWordPieceOnly = false;
inline constexpr bool kBuildHasAnalyses = true;
inline constexpr const char* kBuildName = "core";
#else
inline constexpr bool kBuildHasQ8 = true;
inline constexpr bool kBuildHasSeq2Seq = true;
inline constexpr bool kBuildHasDecoders = true;
inline constexpr bool kBuildHasWordPieceOnly = false;
inline constexpr bool kBuildHasAnalyses = true;
inline constexpr const char* kBuildName = "full";
#endif

// The words every "not in this build" error starts its second half with: js/api/load.js looks for
// them to move a model the encoder build refused (a tokenizer its choice could not foresee) to the
// core build.
inline constexpr const char* kNotInBuild = "is not in the ";

// E_CONFIG for a feature this build left out: only a caller that skipped js/api/wasm.js's choice (or a
// file the choice could not foresee) meets it.
[[noreturn]] inline void throw_not_in_build(const std::string& what) {
  throw Error("E_CONFIG", what + " " + kNotInBuild + kBuildName + " wasm build (dist/attnscope-" + kBuildName +
                              ".wasm); the full build (dist/attnscope.wasm) runs it");
}

}  // namespace attnscope
