#!/usr/bin/env bash
# Full-enumeration benchmark on the release build, each puzzle searched board by board
# (--symmetry off) and by symmetry classes (--symmetry on): wall time, boards/s and peak
# resident memory, checked against the targets (NRP (3,4,2) <= 40 s, Spinpossible 3x3 <= 4 s,
# Spinpossible 2x5 by classes <= 300 MiB, peak memory <= table + 25% + 100 MiB, and by classes
# no slower than by boards, with the ratio of times and of peak memory printed).
# Usage: scripts/bench.sh [PUZZLE...]
# Exits 1 if a histogram total is wrong; a missed time or memory target is reported, not fatal.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/twirl
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }

declare -A expected=([nrp:3x4:2]=479001600 [spin:3x3]=185794560 [nrp:4x4:3]=812851200 [spin:2x5]=3715891200)
declare -A target_s=([nrp:3x4:2]=40 [spin:3x3]=4)
declare -A target_class_mib=([spin:2x5]=300)
puzzles=("$@")
[ ${#puzzles[@]} -gt 0 ] || puzzles=(nrp:3x4:2 spin:3x3)

status=0
printf '%-12s %-8s %12s %9s %12s %10s %10s %s\n' puzzle symmetry boards seconds boards/s peak_MiB table_MiB verdict
for p in "${puzzles[@]}"; do
  for mode in off on; do
    json=$(mktemp) err=$(mktemp)
    /usr/bin/time -f '%e %M' -o "$err" "$bin" bfs "$p" --symmetry "$mode" --json "$json" -q >/dev/null
    read -r wall rss_kib <"$err"
    states=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["states"])' "$json")
    table=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["table_bytes"])' "$json")
    rate=$(python3 -c "print(f'{$states/$wall:.3e}')")
    peak_mib=$((rss_kib / 1024))
    table_mib=$((table / 1048576))
    verdict=ok
    if [ -n "${expected[$p]:-}" ] && [ "$states" != "${expected[$p]}" ]; then
        verdict="WRONG COUNT (expected ${expected[$p]})"; status=1
    fi
    if [ "$mode" = off ] && [ -n "${target_s[$p]:-}" ] && python3 -c "import sys; sys.exit(0 if $wall > ${target_s[$p]} else 1)"; then
        verdict="$verdict; slower than the ${target_s[$p]} s target"
    fi
    if [ "$mode" = on ] && [ -n "${target_class_mib[$p]:-}" ] && [ "$peak_mib" -gt "${target_class_mib[$p]}" ]; then
        verdict="$verdict; above the ${target_class_mib[$p]} MiB target"
    fi
    limit_kib=$(( table * 125 / 100 / 1024 + 100 * 1024 ))
    [ "$rss_kib" -le "$limit_kib" ] || verdict="$verdict; memory above table+25%+100MiB"
    if [ "$mode" = off ]; then
        off_wall=$wall off_rss=$rss_kib
    else
        ratios=$(python3 -c "print(f'time {$wall/$off_wall:.2f}x, memory {$rss_kib/$off_rss:.3f}x of boards')")
        verdict="$verdict ($ratios)"
        if python3 -c "import sys; sys.exit(0 if $wall > $off_wall else 1)"; then
            verdict="$verdict; slower than by boards"
        fi
    fi
    printf '%-12s %-8s %12s %9s %12s %10s %10s %s\n' "$p" "$mode" "$states" "$wall" "$rate" "$peak_mib" "$table_mib" "$verdict"
    rm -f "$json" "$err"
  done
done
exit $status
