// What a wasm build carries. Every build carries everything except the core build
// (ATTNSCOPE_CORE_BUILD: dist/attnscope-core*.wasm, what a page loads for any model that is not
// an encoder–decoder and whose weights are not int8; js/wasm.js chooses), which leaves out the
// int8 GEMM, the encoder–decoders and Marian's SentencePiece files. The code that reaches them
// tests these constants, so in the core build the linker finds them unused and drops them.
#pragma once
#include <string>

#include "error.h"

namespace attnscope {

#ifdef ATTNSCOPE_CORE_BUILD
inline constexpr bool kBuildHasQ8 = false;
inline constexpr bool kBuildHasSeq2Seq = false;
inline constexpr const char* kBuildName = "core";
#else
inline constexpr bool kBuildHasQ8 = true;
inline constexpr bool kBuildHasSeq2Seq = true;
inline constexpr const char* kBuildName = "full";
#endif

// E_CONFIG for a feature the core build left out: only a caller that skipped js/wasm.js's
// choice (or a file the choice could not foresee) meets it.
[[noreturn]] inline void throw_not_in_build(const std::string& what) {
  throw Error("E_CONFIG", what + " is not in the core wasm build (dist/attnscope-core.wasm); the full build "
                                 "(dist/attnscope.wasm) runs it");
}

}  // namespace attnscope
