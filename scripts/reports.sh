#!/usr/bin/env bash
# Regenerates the reports in data/ from the release build:
#   data/spin_generation.{md,json}  twirl verify spin (Sutherland & Sutherland's statements)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
target/release/twirl verify spin --json data/spin_generation.json > data/spin_generation.md
echo "wrote data/spin_generation.md and data/spin_generation.json"
