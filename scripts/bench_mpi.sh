#!/usr/bin/env bash
# Scaling of the distributed engine on this machine: one search run locally, then under
# `mpirun -np P` for P = 1..4 (one worker thread per process): wall time, the search's own
# seconds (`elapsed_seconds`: without mpirun's start, MPI's finalize, the setup and the
# report), boards/s, the largest peak resident memory of one process, and the ranks sent
# between processes per board. Checks every histogram against the local one.
# Usage: scripts/bench_mpi.sh [PUZZLE [extra bfs flags...]]   (default: nrp:3x4:2)
# Needs Open MPI (mpirun) and GNU time; builds with the cargo feature `mpi`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --features mpi
bin=target/release/twirl
command -v mpirun >/dev/null || { echo "needs Open MPI's mpirun" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
puzzle=${1:-nrp:3x4:2}
shift || true
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

search_s() { python3 -c 'import json,sys; print(format(json.load(open(sys.argv[1]))["elapsed_seconds"], ".3f"))' "$1"; }
printf '%-10s %9s %9s %12s %14s %16s\n' processes seconds search_s boards/s peak_MiB/proc sent/board
/usr/bin/time -f '%e %M' -o "$dir/time" "$bin" bfs "$puzzle" "$@" --threads 1 -q \
  --json "$dir/local.json" >/dev/null
read -r wall rss <"$dir/time"
states=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["states"])' "$dir/local.json")
printf '%-10s %9s %9s %12s %14s %16s\n' local "$wall" "$(search_s "$dir/local.json")" "$(python3 -c "print(f'{$states/$wall:.3e}')")" \
  $((rss / 1024)) 0
for np in 1 2 3 4; do
  start=$(date +%s.%N)
  # Each process under its own GNU time: the largest resident set is the per-process peak.
  mpirun --allow-run-as-root --oversubscribe -np "$np" \
    /usr/bin/time -f '%M' -a -o "$dir/rss$np" \
    "$bin" bfs "$puzzle" "$@" --threads 1 --json "$dir/np$np.json" >/dev/null 2>"$dir/err$np"
  wall=$(python3 -c "import time; print(f'{time.time() - $start:.2f}')")
  peak=$(sort -n "$dir/rss$np" | tail -n 1)
  sent=$({ grep -o '^distance [0-9]* ([a-z]*): [0-9]*' "$dir/err$np" || true; } | awk '{s += $4} END {print s + 0}')
  python3 - "$dir/local.json" "$dir/np$np.json" <<'PY' || { echo "np=$np: histogram differs" >&2; exit 1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(a["histogram"] != b["histogram"])
PY
  printf '%-10s %9s %9s %12s %14s %16s\n' "$np" "$wall" "$(search_s "$dir/np$np.json")" "$(python3 -c "print(f'{$states/$wall:.3e}')")" \
    $((peak / 1024)) "$(python3 -c "print(f'{$sent/$states:.3f}')")"
done
