#!/usr/bin/env bash
# A smoke run of every libFuzzer target in build/native/tests (fuzz_*), each for FUZZ_SECONDS
# (default 5) from a copy of its seed corpus (tests/fuzz/corpus/<name>), two targets at a time: a
# libFuzzer run uses one core. Prints each target's log under its name and "=== name: ok|FAILED";
# exits non-zero if any target found a crash, a leak or a timeout. Longer campaigns are run by hand.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-5}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

run_one() {  # run_one TARGET LOG
  local target=$1 log=$2 name work status
  name=$(basename "$target")
  work=$(mktemp -d)
  [[ -d tests/fuzz/corpus/${name#fuzz_} ]] && cp -r "tests/fuzz/corpus/${name#fuzz_}"/. "$work"/
  "$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 "$work" >"$log" 2>&1
  status=$?
  rm -rf "$work"
  return $status
}

targets=()
for target in build/native/tests/fuzz_*; do [[ -x $target ]] && targets+=("$target"); done
if ((${#targets[@]} == 0)); then echo "no fuzz targets in build/native/tests" >&2; exit 1; fi

failures=()
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for target in "${targets[@]:i:2}"; do
    run_one "$target" "$logs/$(basename "$target").log" & pids+=("$!:$(basename "$target")")
  done
  for entry in "${pids[@]}"; do
    name=${entry#*:}
    echo "=== $name (${seconds} s)"
    if wait "${entry%%:*}"; then
      grep -E '^(Done|stat::)' "$logs/$name.log"
      echo "=== $name: ok"
    else
      failures+=("$name")
      echo "=== $name: FAILED (its log is at the end)"
    fi
  done
done
# A failure's whole log (the crash, its input, the sanitizer's summary) last, where a reader of the
# transcript's tail finds it.
for name in "${failures[@]}"; do
  echo; echo "=== $name: FAILED"; cat "$logs/$name.log"
done
((${#failures[@]} == 0))
