#!/usr/bin/env bash
# Optimal solving against twsearch, side by side in one run: the same N uniformly random boards
# (twirl's `random:SEED:I`, as `twirl sample` draws them), the same threads and the same
# memory budget for the pruning tables.
#
#   TWSEARCH=/path/to/twsearch scripts/bench_optimal.sh            # Twiddle 4x4, qtm, 20 boards
#   N=50 MEM_MB=1024 PUZZLE=nrp:4x4:2 scripts/bench_optimal.sh
#   PATTERNS=~/.cache/twirl/patterns scripts/bench_optimal.sh    # reuse twirl's stored tables
#
# Both tools build their tables once first (timed apart; twsearch keeps its table in
# ~/.cache/twsearch, twirl in --patterns DIR: $PATTERNS, else a temporary one); then the solves of the N
# boards are timed. twsearch gets the boards as move sequences (the inverse of a constructive solution,
# in its move names) on `-s`, in quarter turns (`-q`). Every optimal length of twirl must equal
# twsearch's, or the script fails.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20}
SEED=${SEED:-1}
THREADS=${THREADS:-2}
MEM_MB=${MEM_MB:-256}
PUZZLE=${PUZZLE:-nrp:4x4:2}
tws=${TWSEARCH:-$(command -v twsearch || true)}
cargo build --release -q
twirl=$PWD/target/release/twirl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
patterns=${PATTERNS:-$work/patterns}
lscpu | grep -m1 'Model name' || true
echo "# $PUZZLE qtm, $N boards (seed $SEED), $THREADS threads, tables up to $MEM_MB MiB"

t0=$(date +%s.%N)
"$twirl" solve "$PUZZLE" random:"$SEED":0 --method optimal --patterns "$patterns" \
    --max-memory "${MEM_MB}M" --threads "$THREADS" --quiet >/dev/null
t1=$(date +%s.%N)
/usr/bin/time -f "%e %M" -o "$work/twirl.time" "$twirl" sample "$PUZZLE" -n "$N" --seed "$SEED" \
    --patterns "$patterns" --max-memory "${MEM_MB}M" --threads "$THREADS" \
    --record "$work/twirl.jsonl" --quiet >"$work/twirl.out"
read -r twirl_s twirl_kb <"$work/twirl.time"
printf 'twirl:    table %.1f s; %s boards solved in %s s (peak %d MiB)\n' \
    "$(echo "$t1 - $t0" | bc)" "$N" "$twirl_s" "$((twirl_kb / 1024))"
[ -n "$tws" ] || { echo "(twsearch not found: set TWSEARCH to compare)"; exit 0; }

"$twirl" export-def "$PUZZLE" --metric htm -o "$work/p.tws" >/dev/null
# A scramble per board: its constructive solution inverted (reversed, each turn undone), in
# twsearch's names (R1C1, R1C1', and R1C12 for a half turn).
for ((i = 0; i < N; i++)); do
    "$twirl" solve "$PUZZLE" random:"$SEED":"$i" --method constructive --metric htm --json
done | python3 -c '
import json, sys
for line in sys.stdin:
    moves = json.loads(line)["moves"]
    inv = []
    for m in reversed(moves):
        if m.endswith("^2"): inv.append(m[:-2] + "2")
        elif m.endswith("'"'"'"): inv.append(m[:-1])
        else: inv.append(m + "'"'"'")
    print(" ".join(inv))
' >"$work/scrambles.txt"
# twsearch's table first (built, or read from its cache in ~/.cache/twsearch), on one move.
(cd "$work" && t0=$(date +%s.%N) && echo "R1C1" | "$tws" -q -t "$THREADS" -M "$MEM_MB" -s p.tws \
    >/dev/null 2>&1 && t1=$(date +%s.%N) && echo "$t1 - $t0" | bc >tws.build)
(cd "$work" && /usr/bin/time -f "%e %M" -o tws.time "$tws" -q -t "$THREADS" -M "$MEM_MB" -s p.tws \
    <scrambles.txt >tws.out 2>&1)
read -r tws_s tws_kb <"$work/tws.time"
printf 'twsearch: table %.1f s; %s boards solved in %s s (peak %d MiB)\n' \
    "$(cat "$work/tws.build")" "$N" "$tws_s" "$((tws_kb / 1024))"
# Lengths: twirl's record (by index) against twsearch's solutions (in input order).
python3 - "$work/twirl.jsonl" "$work/tws.out" <<'PY'
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1])][1:]
ours = [r["distance"] for r in sorted(rec, key=lambda r: r["index"])]
import re
# twsearch ends each solve with "Found N solution(s) max depth D".
theirs = [int(m.group(1)) for line in open(sys.argv[2])
          if (m := re.match(r"Found \d+ solutions? max depth (\d+)", line))]
if theirs and ours != theirs:
    sys.exit(f"lengths differ: twirl {ours} twsearch {theirs}")
print("lengths:", " ".join(map(str, ours)), "(equal)" if theirs else "(twsearch output not parsed)")
PY
echo "ratio (twsearch / twirl solve time): $(echo "scale=2; $tws_s / $twirl_s" | bc)"
