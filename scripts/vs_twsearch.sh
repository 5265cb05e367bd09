#!/usr/bin/env bash
# twirl against twsearch on twsearch's own sample definitions, side by side in one run:
# `twirl bfs def:FILE` (symmetry as twirl chooses by default) and `twsearch -g FILE`, the same
# number of threads each, one after the other per sample. Prints wall time and peak resident
# memory of each, the ratio (twsearch's time over twirl's: above 1 twirl is faster), and
# checks that the histograms agree (exit 1 if one differs). twirl's histogram is read from its
# standard output, not from --json: a JSON report of a search by classes also counts the
# classes exactly, extra work that twsearch does not do (0.1 s of the 2x2x2's CPU).
# Times are wall clock to the millisecond, read from bash's own clock ($EPOCHREALTIME): a
# `date` before and after each program added 3-4 ms of its own start to both (the small
# samples take 10-30 ms). With --runs N each program runs N times in turn and the median time
# is quoted (the small samples move by 10-20% from run to run), the largest peak memory.
# Usage: TWSEARCH=/path/to/twsearch-checkout scripts/vs_twsearch.sh [--threads N] [--runs N] [SAMPLE...]
#   SAMPLE is a name in samples/main (default: 2x2x2 skewb pyraminx tangram dino ufo).
#   The checkout must be built (`make build`); GNU time (/usr/bin/time) is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
threads=2
runs=1
while [[ "${1:-}" == --* ]]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "unknown option $1: expected --threads N or --runs N" >&2; exit 2 ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "--runs: expected a positive count, found $runs" >&2; exit 2; }
samples=("$@")
[[ ${#samples[@]} -gt 0 ]] || samples=(2x2x2 skewb pyraminx tangram dino ufo)
tws_dir=${TWSEARCH:?set TWSEARCH to a built rokicki/twsearch checkout}
tws="$tws_dir/build/bin/twsearch"
[[ -x "$tws" ]] || { echo "expected a built twsearch at $tws, found none (make build)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
cargo build --release --quiet
bin=target/release/twirl
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $threads threads each"
printf '%-18s %14s %10s %10s %10s %10s %8s\n' sample boards twirl_s twirl_MiB twsearch_s tws_MiB ratio
# The median of "start end" pairs of clock readings, in seconds.
median() { LC_ALL=C python3 -c 'import sys, statistics as s; print(f"{s.median(float(b) - float(a) for a, b in (p.split() for p in sys.argv[1:])):.6f}")' "$@"; }
status=0
for s in "${samples[@]}"; do
  file="$tws_dir/samples/main/$s.tws"
  # Wall times from bash's clock, peak memory from GNU time; N runs each, in turn.
  t1=() t2=() m1=0 m2=0
  for ((r = 0; r < runs; r++)); do
    a=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$dir/t1" "$bin" bfs "def:$file" --threads "$threads" -q \
      >"$dir/twirl.out"
    b=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$dir/t2" "$tws" -t "$threads" -g "$file" >"$dir/tws.out" 2>&1
    c=$EPOCHREALTIME
    t1+=("$a $b") t2+=("$b $c")
    read -r k <"$dir/t1"; ((k > m1)) && m1=$k
    read -r k <"$dir/t2"; ((k > m2)) && m2=$k
  done
  w1=$(median "${t1[@]}")
  w2=$(median "${t2[@]}")
  boards=$(python3 - "$dir/twirl.out" "$dir/tws.out" <<'PY'
import re, sys
# The table's rows: distance, boards, cumulative, seconds.
mine = [int(m.group(1)) for m in re.finditer(r"^ *\d+ +(\d+) +\d+ +[\d.]+$", open(sys.argv[1]).read(), re.M)]
theirs = [int(m.group(1)) for m in re.finditer(r"^Dist \d+ cnt (\d+)", open(sys.argv[2]).read(), re.M)]
while theirs and theirs[-1] == 0:  # twsearch may report the first empty distance too
    theirs.pop()
if mine != theirs:
    print(f"histograms differ: twirl {mine}, twsearch {theirs}", file=sys.stderr)
    sys.exit(1)
print(sum(mine))
PY
  ) || { status=1; continue; }
  ratio=$(python3 -c "print(f'{$w2 / max($w1, 0.001):.2f}')")
  printf '%-18s %14s %10.3f %10s %10.3f %10s %8s\n' "$s" "$boards" "$w1" $((m1 / 1024)) "$w2" $((m2 / 1024)) "$ratio"
done
exit $status
