#!/usr/bin/env bash
# Runs every AttnScope test on a fresh Debian machine (as root): set-up, native build under
# ASan/UBSan with the Catch2 suite, the WebAssembly build with the node:test suites (engine,
# tokenizer parity against @huggingface/tokenizers, API, CLI, package), the Playwright page tests
# in Debian's Chromium, and the libFuzzer targets. Exits non-zero if any step fails.
#   FUZZ_SECONDS=N   seconds per fuzz target (default 5: a smoke run of each target in CI, which must
#                    stay under 20 minutes; longer campaigns are run by hand)
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "setup failed"; exit 1; }

# Each step's output is also kept in a log, so the summary at the end can repeat which tests failed
# and why: a CI transcript is often read from its tail, far below the failure.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0; failed=0; failures=() failure_logs=()
step() {  # step NAME COMMAND...
  local name=$1; shift
  echo; echo "=== $name"
  local t0=$SECONDS log="$logs/$((passed + failed)).log"
  if "$@" 2>&1 | tee "$log"; then   # the command's status, not tee's (pipefail, above)
    passed=$((passed + 1)); echo "=== $name: ok ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "=== $name: FAILED ($((SECONDS - t0)) s)"
    failure_logs+=("$log")
  fi
}
# The failed tests of a node:test (TAP) log, each with the first line of its error; other logs'
# last lines.
summarize_failure() {
  if grep -q '^ *not ok ' "$1"; then
    # a multi-line error (error: |-) is printed with its next four lines
    awk '/^ *not ok /{print; want=1; next}
         want && /^ *error: /{print; more = /error: [|>]/ ? 4 : 0; want=0; next}
         more > 0 {print; more--}' "$1" | cut -c1-400 | head -80
  else
    tail -n 15 "$1"
  fi
}
has_files() { compgen -G "$1" >/dev/null; }
# A test file that stops making progress (a page that never answers, a hook that never returns)
# fails after this long, named, instead of holding the run until CI's own limit kills it without
# a word (node:test reports files in order, so one stuck file hides every later file's output).
# The longest files take ~100 s under two-at-a-time load.
file_timeout=--test-timeout=420000

# The two builds run side by side: each asks for both cores, but much of the wasm build is linking
# and wasm-opt on one core, which the native compile fills. The native build's output is shown
# when it is waited for.
native_log=$logs/native-build.log
bash scripts/build.sh native >"$native_log" 2>&1 &
native_pid=$!
step "build wasm (beside the native build)" bash scripts/build.sh wasm
wait "$native_pid"; native_status=$?
step "build native (beside the wasm build)" bash -c 'cat "$1"; exit "$2"' _ "$native_log" "$native_status"
step "catch2 (native, asan+ubsan)" ctest --test-dir build/native --output-on-failure -j2 --timeout 900
if has_files "tests/js/*.test.js"; then
  step "node:test (wasm, api, cli, tokenizer parity)" node --test $file_timeout --test-concurrency=2 tests/js/
fi
# The relaxed-SIMD (FMA, int8 relaxed dot) build is what Chromium runs (the Playwright tests below)
# and what the package loads in Node 20 (js/platform-node.js turns V8's flag on), so the suite
# above ran it through the API; the plain build, which other engines get, runs the q8 accuracy and
# q8 fixture tests again. The kernel harnesses load a build directory themselves: the relaxed one
# needs the flag on the command line (the files run directly so it applies).
step "q8 accuracy (plain SIMD128 build)" env ATTNSCOPE_RELAXED_SIMD=0 node --test $file_timeout tests/js/q8-accuracy.test.js
step "q8 fixtures (plain SIMD128 build)" env ATTNSCOPE_RELAXED_SIMD=0 node --test $file_timeout tests/js/q8-fixtures.test.js
step "kernels (relaxed SIMD build)" env ATTNSCOPE_WASM_BUILD=build/wasm-relaxed \
  node --experimental-wasm-relaxed-simd tests/js/kernels-simd.test.js
step "int8 kernels (relaxed SIMD build)" env ATTNSCOPE_WASM_BUILD=build/wasm-relaxed \
  node --experimental-wasm-relaxed-simd tests/js/kernels-q8.test.js
# The Python package (python/attnscope): its figures against the CLI's for the same attentions, its
# notebook HTML, pip install ./python; Debian's python3, where python3-torch is.
step "python package (figures equal the CLI's, notebook HTML, pip install)" /usr/bin/python3 -m unittest discover -s tests/python -v
if has_files "tests/e2e/*.test.js"; then
  # Two files at a time (most of a page test is waiting on runs and frames, which overlap well on
  # two cores), except those that compare timings (frame gaps, key-to-paint, a generation's pace)
  # or load a model of hundreds of MB (big-model), which run alone afterwards. The bundles were
  # built by the wasm step: the files do not rebuild them (ATTNSCOPE_E2E_PREBUILT). hub runs alone
  # too: beside another file its loads missed their 30–60 s waits in two runs of 2 December (alone:
  # 6/6 in 20 s); why the pairing starves it is not yet known.
  timed=(big-model decoder heads-view hub long-input seq2seq-stream typing-latency)
  together=() alone=()
  for f in tests/e2e/*.test.js; do
    name=$(basename "$f" .test.js)
    if [[ " ${timed[*]} " == *" $name "* ]]; then alone+=("$f"); else together+=("$f"); fi
  done
  node web/build.mjs >/dev/null
  step "playwright (chromium, two files at a time)" env ATTNSCOPE_E2E_PREBUILT=1 \
    node --test $file_timeout --test-concurrency=2 "${together[@]}"
  step "playwright (chromium, timing tests one at a time)" env ATTNSCOPE_E2E_PREBUILT=1 \
    node --test $file_timeout --test-concurrency=1 "${alone[@]}"
fi
if has_files "tests/fuzz/*.cpp"; then
  step "fuzz targets (${FUZZ_SECONDS:-5} s each, two at a time)" bash scripts/fuzz-smoke.sh
fi

echo
echo "steps: $passed passed, $failed failed"
if ((failed)); then
  for i in "${!failures[@]}"; do
    echo "  failed: ${failures[$i]}"
    summarize_failure "${failure_logs[$i]}" | sed 's/^/    /'
  done
  exit 1
fi
