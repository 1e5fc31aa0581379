#!/usr/bin/env bash
# Merges N sources of about 1M events each (the 1M-line synthetic trace of
# ../shared/tools/gen_trace.py, each copy placed under a host of its own by
# the plan) and reports time, records per second and peak memory.
# Usage: bench/merge.sh [N] (default 64). Needs `cargo build --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-64}
data=bench-data
trace=$data/trace_1M.paje
mkdir -p "$data"
if [ ! -f "$trace" ]; then
  python3 ../shared/tools/gen_trace.py --lines 1000000 --seed 1 -o "$trace"
fi
plan=$data/merge-$n.toml
{
  echo 'hierarchy = ["host", "node", "process"]'
  for i in $(seq 1 "$n"); do
    echo '[[source]]'
    echo "name = \"s$i\""
    echo 'kind = "paje"'
    echo "files = [\"trace_1M.paje\"]"
    echo 'levels = { NODE = "node", PROCESS = "process" }'
    echo "host = \"h$i\""
  done
} > "$plan"
/usr/bin/time -f "%e s elapsed, %M KB max RSS" target/release/trama merge --no-progress --plan "$plan" -o - 2>&1 >/dev/null | tail -2
