#!/usr/bin/env bash
# The generic path against the native one: each puzzle is searched as twirl's built-in spec
# and as the definition `twirl export-def` writes for it, read back with `def:FILE`. Prints
# wall time, boards/s and peak resident memory of each, the ratio, and checks the histograms
# agree. Symmetry is off on both sides: the question is the
# cost of the generic model, not of the symmetry reduction.
# Usage: scripts/bench_def.sh [--threads N]   (default: all cores)
# Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/twirl
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
extra=("$@")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# spec, metric of the native search; the exported file is htm, searched with the metric too.
cases=("nrp:3x4:2 qtm" "nrp:3x4:2 htm" "spin:3x3 htm")
printf '%-12s %-6s %-7s %9s %12s %9s %7s\n' puzzle metric path seconds boards/s peak_MiB ratio
for case in "${cases[@]}"; do
  read -r spec metric <<<"$case"
  file="$dir/$(echo "$spec" | tr ':' '_').tws"
  "$bin" export-def "$spec" --metric htm -o "$file"
  run() { # label, puzzle, json
    /usr/bin/time -f '%e %M' -o "$dir/time" "$bin" bfs "$2" --metric "$metric" --symmetry off \
      -q --json "$3" "${extra[@]}" >/dev/null
    read -r wall rss <"$dir/time"
    echo "$wall $rss"
  }
  read -r nw nr < <(run native "$spec" "$dir/native.json")
  read -r dw dr < <(run def "def:$file" "$dir/def.json" "${@}")
  python3 - "$dir/native.json" "$dir/def.json" <<'PY' || { echo "$spec $metric: histograms differ" >&2; exit 1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(a["histogram"] != b["histogram"])
PY
  states=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["states"])' "$dir/native.json")
  rate() { python3 -c "print(f'{$states/$1:.3e}')"; }
  printf '%-12s %-6s %-7s %9s %12s %9s %7s\n' "$spec" "$metric" native "$nw" "$(rate "$nw")" $((nr / 1024)) 1.00
  printf '%-12s %-6s %-7s %9s %12s %9s %7s\n' "$spec" "$metric" def "$dw" "$(rate "$dw")" $((dr / 1024)) \
    "$(python3 -c "print(f'{$dw/$nw:.2f}')")"
done

# Side by side with twsearch on the same files, when it is found ($TWSEARCH or on PATH):
# `twsearch -g` (htm; `-q` for qtm) against `twirl bfs def:FILE`, same thread count.
tws=${TWSEARCH:-$(command -v twsearch || true)}
[ -n "$tws" ] || { echo "(twsearch not found: set TWSEARCH to compare)"; exit 0; }
threads=$(nproc)
for ((i = 0; i < ${#extra[@]}; i++)); do
  [ "${extra[$i]}" = --threads ] && threads=${extra[$((i + 1))]}
done
cp data/definitions/cube2.tws "$dir/cube2.tws"
echo
printf '%-26s %-6s %12s %12s %7s\n' file metric twirl_s twsearch_s ratio
for case in "cube2.tws htm" "cube2.tws qtm" "nrp_3x4_2.tws qtm" "spin_3x3.tws htm"; do
  read -r name metric <<<"$case"
  q=(); [ "$metric" = qtm ] && q=(-q)
  /usr/bin/time -f '%e' -o "$dir/t1" "$bin" bfs "def:$dir/$name" --metric "$metric" -q \
    --threads "$threads" >/dev/null
  /usr/bin/time -f '%e' -o "$dir/t2" "$tws" -t "$threads" "${q[@]}" -g "$dir/$name" >/dev/null
  a=$(tail -n 1 "$dir/t1"); b=$(tail -n 1 "$dir/t2")
  printf '%-26s %-6s %12s %12s %7s\n' "$name" "$metric" "$a" "$b" "$(python3 -c "print(f'{$b/$a:.2f}')")"
done
