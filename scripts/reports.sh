#!/usr/bin/env bash
# Regenerates the reports in data/ from the release build:
#   data/spin_generation.{md,json}  twirl verify spin (Sutherland & Sutherland's statements)
#   data/lam_theorem.{md,json}      twirl verify lam --max 10 (Lam's Theorem 1.1)
#   data/lam_orientation.{md,json}  twirl verify lam --max 6 --orient (the orientation variant)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
# `verify` exits 1 when a statement disagrees with the exact counts (Lam's Theorem 1.1 does on
# b = 3 boards): a finding to record, not a failure of the script.
verify() {
    local code=0
    target/release/twirl verify "$@" || code=$?
    [ "$code" -le 1 ] || exit "$code"
}
verify spin --json data/spin_generation.json > data/spin_generation.md
verify lam --max 10 --json data/lam_theorem.json > data/lam_theorem.md
verify lam --max 6 --orient --json data/lam_orientation.json > data/lam_orientation.md
echo "wrote data/spin_generation, data/lam_theorem and data/lam_orientation (.md and .json)"
