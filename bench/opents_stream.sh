#!/usr/bin/env bash
# Streaming an OpenTS (T-system) XML trace of several GB: `trama view
# --stream` with a client reading every frame (bench/stream.py, frames of
# 0.04 s: one per slice), then `trama check` of the same file. Prints the
# frames, wall time and the server's peak RSS (VmHWM), and check's wall
# time, CPU time and peak RSS (/usr/bin/time -v).
#
# The trace is written by trama-gen's example gen_opents (a simulated
# divide-and-conquer run, messages per destination) into bench-data/ when
# it is not there yet.
#
#   bench/opents_stream.sh                    2G, 8 ranks, seed 1
#   SIZE=4G RANKS=16 SEED=3 bench/opents_stream.sh
#   TRAMA=target/release/trama bench/opents_stream.sh   the binary (default: the ci build)
#   DT=0.04 bench/opents_stream.sh            seconds of trace per frame
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
data=${BENCH_DATA:-$root/bench-data}
size=${SIZE:-2G}
ranks=${RANKS:-8}
seed=${SEED:-1}
dt=${DT:-0.04}
bin=${TRAMA:-target/ci/trama}
mkdir -p "$data"
[ -x "$bin" ] || cargo build --profile ci -q -p trama

trace=$data/opents_${size}_r${ranks}_s${seed}.xml
if [ ! -f "$trace" ]; then
    cargo build --release -q -p trama-gen --example gen_opents
    target/release/examples/gen_opents --ranks "$ranks" --size "$size" --seed "$seed" -o "$trace"
fi
echo "== $trace ($(du -h "$trace" | cut -f1), $(stat -c %s "$trace") bytes), $bin, $(nproc) cores"

echo "-- trama view --stream, a client reading every frame of $dt s (bench/stream.py)"
TRAMA=$bin python3 bench/stream.py "$trace" "$dt"

echo "-- trama check"
tf=$(mktemp)
trap 'rm -f "$tf"' EXIT
/usr/bin/time -v -o "$tf" "$bin" check "$trace" 2>&1 | tail -n 5 | sed 's/^/   /' || echo "!! check failed" >&2
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tf")
user=$(awk -F': ' '/User time/ {print $2}' "$tf")
sys=$(awk -F': ' '/System time/ {print $2}' "$tf")
rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$tf")
printf "check: wall=%.2f s cpu=%.2f s peak_rss=%d MB\n" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
