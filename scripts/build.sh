#!/usr/bin/env bash
# Builds the native engine, tests, tools and fuzz targets (build/native), and the WebAssembly
# module plus the page and embed bundles (build/wasm → dist/).
# Usage: scripts/build.sh [native|wasm|bench|all]   (default all)
#   wasm also links the same modules with the GEMM on relaxed-SIMD FMA (build/wasm-relaxed →
#   dist/attnscope-relaxed.wasm), which browsers with relaxed SIMD load instead, the core pair
#   (build/wasm-core[-relaxed] → dist/attnscope-core[-relaxed].wasm: no q8, no encoder–decoders;
#   what pages load for the other models), the encoder build (build/wasm-encoder →
#   dist/attnscope-encoder.wasm: the core build without the decoders and every tokenizer but
#   WordPiece; what pages load for BERT and DistilBERT) and the multi-threaded pair (build/wasm-mt,
#   build/wasm-mt-relaxed): what the package, the page and the tests load.
#   bench links the benchmarks' own modules beside them (build/wasm[-relaxed]/attnscope-bench.*,
#   for `npm run bench` and bench/gemm-q8.mjs, bench/relaxed-simd.mjs); all does every part.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)

if [[ $what == native || $what == all ]]; then
  # One clang tree for the Catch2 tests, the native tools and the libFuzzer targets, all under
  # ASan + UBSan (the fixtures are small, the checks are worth it). -O1 -g1 keeps the Eigen-heavy
  # compile short on a 2-core machine while leaving usable stack traces.
  # lld links the sanitized test binary in a third of GNU ld's time (0.9 against 3.1 s CPU).
  cmake -S . -B build/native -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DATTNSCOPE_FUZZ=ON >/dev/null
  cmake --build build/native -j"$jobs"
fi

if [[ $what == wasm || $what == all ]]; then
  # Debian's emcc runs its JS tools with Node and needs Debian's node modules (acorn).
  export NODE_PATH=/usr/share/nodejs
  # Two trees, single- and multi-threaded (pthreads over a shared memory: Node and cross-origin
  # isolated pages load it when more than one thread is asked for; only the API module is built
  # there). Each links its modules twice: SIMD128 in build/wasm[-mt] and, with the GEMM on
  # relaxed-SIMD FMA and int8 dot products, in build/wasm[-mt]-relaxed (CMakeLists.txt compiles
  # only the kernels twice). clang 14 emits pre-standard relaxed opcodes, rewritten to the standard
  # ones (checked under Node's flag); the twins' JavaScript glue must be the same byte for byte.
  for tree in wasm wasm-mt; do
    threads=OFF targets=(--target attnscope_wasm attnscope_wasm_relaxed attnscope_wasm_core attnscope_wasm_core_relaxed
      attnscope_wasm_encoder kernels_simd_harness kernels_simd_harness_relaxed)
    [[ $tree == wasm-mt ]] && threads=ON targets=(--target attnscope_wasm attnscope_wasm_relaxed)
    emcmake cmake -S . -B build/$tree -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_THREADS=$threads \
      -DATTNSCOPE_RELAXED_DIR="$PWD/build/$tree-relaxed" -DEigen3_DIR=/usr/share/eigen3/cmake \
      -DATTNSCOPE_TESTS=OFF >/dev/null
    cmake --build build/$tree -j"$jobs" "${targets[@]}"
    twins=(build/$tree-relaxed)
    [[ $tree == wasm ]] && twins+=(build/wasm-core build/wasm-core-relaxed)
    node --experimental-wasm-relaxed-simd scripts/relaxed-simd-opcodes.mjs build/$tree-relaxed/*.wasm
    [[ $tree == wasm ]] && node --experimental-wasm-relaxed-simd scripts/relaxed-simd-opcodes.mjs build/wasm-core-relaxed/*.wasm
    # The loaders give every build of a kind the one glue (dist/attnscope.mjs for the core builds too).
    for twin in "${twins[@]}"; do
      for glue in "$twin"/*.mjs; do
        cmp -s "$glue" "build/$tree/$(basename "$glue")" ||
          { echo "$glue differs from build/$tree/$(basename "$glue")" >&2; exit 1; }
      done
    done
    # The encoder build calls fewer JavaScript functions (no sampling options to read), so its
    # glue lists fewer imports: the shared glue must provide every one it asks for.
    if [[ $tree == wasm ]]; then
      node -e '
        const fs = require("fs");
        const imports = (f) => new Set([...fs.readFileSync(f, "utf8").match(/var asmLibraryArg=\{([^}]*)\}/)[1].matchAll(/"(\w+)":/g)].map((m) => m[1]));
        const shared = imports("build/wasm/attnscope.mjs");
        const missing = [...imports("build/wasm-encoder/attnscope.mjs")].filter((name) => !shared.has(name));
        if (missing.length) { console.error(`build/wasm-encoder imports what dist/attnscope.mjs lacks: ${missing}`); process.exit(1); }'
    fi
  done
  mkdir -p dist
  cp build/wasm/attnscope.mjs build/wasm/attnscope.wasm dist/
  cp build/wasm-relaxed/attnscope.wasm dist/attnscope-relaxed.wasm
  cp build/wasm-core/attnscope.wasm dist/attnscope-core.wasm
  cp build/wasm-core-relaxed/attnscope.wasm dist/attnscope-core-relaxed.wasm
  cp build/wasm-encoder/attnscope.wasm dist/attnscope-encoder.wasm
  cp build/wasm-mt/attnscope-mt.mjs build/wasm-mt/attnscope-mt.wasm build/wasm-mt/attnscope-mt.worker.js dist/
  cp build/wasm-mt-relaxed/attnscope-mt.wasm dist/attnscope-mt-relaxed.wasm
  # The page bundle (dist/explorer.js, dist/worker.js), the <attn-scope> element and the
  # single-file embed (dist/attnscope-element.js, dist/attnscope-embed.html).
  node web/build.mjs
  node scripts/build-embed.mjs
fi

if [[ $what == bench || $what == all ]]; then
  [[ -f build/wasm/CMakeCache.txt ]] || { echo "bench: run scripts/build.sh wasm first (it configures build/wasm)" >&2; exit 1; }
  NODE_PATH=/usr/share/nodejs cmake --build build/wasm -j"$jobs" --target attnscope_bench attnscope_bench_relaxed
  NODE_PATH=/usr/share/nodejs node --experimental-wasm-relaxed-simd scripts/relaxed-simd-opcodes.mjs build/wasm-relaxed/attnscope-bench.wasm
fi

