#!/usr/bin/env bash
# Builds the native engine, tests, tools and fuzz targets (build/native), and the WebAssembly
# module plus the page and embed bundles (build/wasm → dist/).
# Usage: scripts/build.sh [native|wasm|all]   (default all)
#   wasm also builds the same modules with the GEMM on relaxed-SIMD FMA (build/wasm-relaxed →
#   dist/attnscope-relaxed.wasm), which browsers with relaxed SIMD load instead.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)

if [[ $what == native || $what == all ]]; then
  # One clang tree for the Catch2 tests, the native tools and the libFuzzer targets, all under
  # ASan + UBSan (the fixtures are small, the checks are worth it). -O1 -g1 keeps the Eigen-heavy
  # compile short on a 2-core machine while leaving usable stack traces.
  cmake -S . -B build/native -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DATTNSCOPE_FUZZ=ON >/dev/null
  cmake --build build/native -j"$jobs"
fi

if [[ $what == wasm || $what == all ]]; then
  # Debian's emcc runs its JS tools with Node and needs Debian's node modules (acorn).
  export NODE_PATH=/usr/share/nodejs
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
    -DEigen3_DIR=/usr/share/eigen3/cmake -DATTNSCOPE_TESTS=OFF >/dev/null
  cmake --build build/wasm -j"$jobs"
  # The relaxed-SIMD twin: clang 14 emits the pre-standard fma opcode, rewritten to the standard
  # relaxed_madd (checked under Node's flag). Its JavaScript glue is the plain build's, byte for byte.
  emcmake cmake -S . -B build/wasm-relaxed -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_RELAXED_SIMD=ON \
    -DEigen3_DIR=/usr/share/eigen3/cmake -DATTNSCOPE_TESTS=OFF >/dev/null
  cmake --build build/wasm-relaxed -j"$jobs"
  node --experimental-wasm-relaxed-simd scripts/relaxed-simd-opcodes.mjs build/wasm-relaxed/*.wasm
  cmp -s build/wasm/attnscope.mjs build/wasm-relaxed/attnscope.mjs ||
    { echo "build/wasm and build/wasm-relaxed produced different attnscope.mjs glue" >&2; exit 1; }
  # The multi-threaded twins (pthreads over a shared memory): Node and cross-origin isolated pages
  # load them when more than one thread is asked for. Only the API module is built in these trees.
  for variant in mt mt-relaxed; do
    relaxed=OFF; [[ $variant == *relaxed ]] && relaxed=ON
    emcmake cmake -S . -B build/wasm-$variant -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_THREADS=ON \
      -DATTNSCOPE_RELAXED_SIMD=$relaxed -DEigen3_DIR=/usr/share/eigen3/cmake -DATTNSCOPE_TESTS=OFF >/dev/null
    cmake --build build/wasm-$variant -j"$jobs" --target attnscope_wasm
  done
  node --experimental-wasm-relaxed-simd scripts/relaxed-simd-opcodes.mjs build/wasm-mt-relaxed/attnscope-mt.wasm
  cmp -s build/wasm-mt/attnscope-mt.mjs build/wasm-mt-relaxed/attnscope-mt.mjs ||
    { echo "build/wasm-mt and build/wasm-mt-relaxed produced different attnscope-mt.mjs glue" >&2; exit 1; }
  mkdir -p dist
  cp build/wasm/attnscope.mjs build/wasm/attnscope.wasm dist/
  cp build/wasm-relaxed/attnscope.wasm dist/attnscope-relaxed.wasm
  cp build/wasm-mt/attnscope-mt.mjs build/wasm-mt/attnscope-mt.wasm build/wasm-mt/attnscope-mt.worker.js dist/
  cp build/wasm-mt-relaxed/attnscope-mt.wasm dist/attnscope-mt-relaxed.wasm
  # The page bundle (dist/explorer.js, dist/worker.js), the <attn-scope> element and the
  # single-file embed (dist/attnscope-element.js, dist/attnscope-embed.html).
  node web/build.mjs
  node scripts/build-embed.mjs
fi

