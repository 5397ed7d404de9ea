#!/usr/bin/env bash
# Installs everything AttnScope builds and tests with on a fresh Debian machine (run as root):
# Debian packages (compilers, Emscripten, Eigen, Catch2, Chromium, ...) and the npm packages in
# package-lock.json. Safe to re-run: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake make g++ clang lld libclang-rt-14-dev   # native build, sanitizers, libFuzzer
  emscripten                                # WebAssembly build (3.1.6, clang/lld 14)
  libeigen3-dev catch2 nlohmann-json3-dev   # engine and test dependencies (header-only)
  unicode-data                              # the UCD files for the tokenizer table generators
  chromium chromium-headless-shell fonts-nanum  # the page tests (headless shell) and Korean UI text
  python3-torch python3-numpy libopenblas0-pthread  # independent PyTorch references in API tests
  python3-sentencepiece python3-protobuf    # Unigram fixtures (tests/fixtures/tokenizer/make_unigram.py)
  python3-pip python3-ipython python3-ipykernel jupyter-nbconvert python3-jsonschema  # python/ tests, notebook run
  nodejs npm
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm may come from elsewhere (this machine has them outside dpkg): skip if on PATH.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<< "${missing[*]}"
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund
fi
