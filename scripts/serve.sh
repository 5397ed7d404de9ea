#!/usr/bin/env bash
# Sets up a fresh Debian machine (as root), builds the WebAssembly engine and serves the explorer
# page on http://localhost:${PORT:-8080}/ with the bundled model. Once built, `npm start` serves it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh wasm
exec npm start
