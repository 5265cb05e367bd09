#!/usr/bin/env bash
# A file-backed table larger than the memory the process may use: runs `twirl bfs` inside a
# memory cgroup whose limit is a third of the table, and checks the histogram against an
# in-memory run. Needs root and a cgroup memory controller (v1 or v2).
#
#   scripts/larger_than_ram.sh [PUZZLE] [LIMIT_MIB]     default: nrp:4x4:3 (194 MiB table), 64
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-nrp:4x4:3}
limit_mib=${2:-64}
cargo build --release --quiet
twirl=$PWD/target/release/twirl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -w /sys/fs/cgroup/memory ]; then                       # cgroup v1
  cg=/sys/fs/cgroup/memory/twirl-$$
  mkdir "$cg"
  echo $((limit_mib << 20)) > "$cg/memory.limit_in_bytes"
  peak() { cat "$cg/memory.max_usage_in_bytes"; }
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ]; then      # cgroup v2
  cg=/sys/fs/cgroup/twirl-$$
  mkdir "$cg"
  echo $((limit_mib << 20)) > "$cg/memory.max"
  peak() { cat "$cg/memory.peak" 2>/dev/null || echo unknown; }
else
  echo "no writable memory cgroup here (needs root); nothing tested" >&2
  exit 2
fi
cleanup() { rmdir "$cg" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

"$twirl" bfs "$spec" -q --symmetry off --json "$work/ram.json" > /dev/null
start=$(date +%s.%N)
sh -c "echo \$\$ > $cg/cgroup.procs; exec $twirl bfs $spec -q --symmetry off --table $work/t.tbl --json $work/file.json" > /dev/null
end=$(date +%s.%N)
table=$(stat -c %s "$work/t.tbl")
python3 - "$work/ram.json" "$work/file.json" <<PY
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["histogram"] == b["histogram"], "histograms differ"
print(f"$spec: table file {$table / 2**20:.0f} MiB, cgroup limit $limit_mib MiB, "
      f"peak charged {int('$(peak)') / 2**20 if '$(peak)'.isdigit() else '?'} MiB, "
      f"{$end - $start:.1f} s (in RAM: {a['elapsed_seconds']:.1f} s); histograms identical")
PY
