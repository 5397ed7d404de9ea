#!/usr/bin/env bash
# Builds the native engine + tests (build/native) and the WebAssembly module plus the page and
# embed bundles (build/wasm → dist/).
# Usage: scripts/build.sh [native|wasm|all]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)

if [[ $what == native || $what == all ]]; then
  # Tests run under ASan + UBSan: the golden fixtures are small, the checks are worth it.
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNSCOPE_SANITIZE=ON >/dev/null
  cmake --build build/native -j"$jobs"
fi

if [[ $what == wasm || $what == all ]]; then
  # Debian's emcc runs its JS tools with Node and needs Debian's node modules (acorn).
  export NODE_PATH=/usr/share/nodejs
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release \
    -DEigen3_DIR=/usr/share/eigen3/cmake -DATTNSCOPE_TESTS=OFF >/dev/null
  cmake --build build/wasm -j"$jobs"
  mkdir -p dist
  cp build/wasm/attnscope.mjs build/wasm/attnscope.wasm dist/
  # The page bundle (dist/explorer.js, dist/worker.js), the <attn-scope> element and the
  # single-file embed (dist/attnscope-element.js, dist/attnscope-embed.html).
  node web/build.mjs
  node scripts/build-embed.mjs
fi

if [[ $what == fuzz ]]; then
  cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DATTNSCOPE_FUZZ=ON >/dev/null
  cmake --build build/fuzz -j"$jobs"
fi
