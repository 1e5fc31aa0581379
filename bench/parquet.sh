#!/usr/bin/env bash
# trama export parquet against trama dump and trama convert (.ptb) on one
# trace: wall time, processor time, peak resident memory (/usr/bin/time -v)
# and output size.
#
#   bench/parquet.sh [TRACE]          default: bench-data/trace_10000000.paje
#   TRAMA_BIN=target/ci/trama bench/parquet.sh …   the binary (default: the ci build)
#   OUT=/tmp/trama-bench-parquet …                 where the outputs go (removed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-bench-data/trace_10000000.paje}
bin=${TRAMA_BIN:-target/ci/trama}
out=${OUT:-/tmp/trama-bench-parquet}
[ -x "$bin" ] || cargo build --profile ci -q -p trama
[ -f "$trace" ] || { echo "no trace $trace (bench/run.sh makes them)" >&2; exit 1; }
mkdir -p "$out"
# Only what this script writes there is removed.
cleanup() { rm -rf "$out/pq" "$out/dump.txt" "$out/stream.txt" "$out/trace.ptb" "$out/time.txt"; rmdir "$out" 2>/dev/null || true; }
trap cleanup EXIT

run() { # name output cmd... → one line of the table
    local name=$1 target=$2; shift 2
    /usr/bin/time -v -o "$out/time.txt" "$@" >/dev/null 2>&1 || { echo "!! failed: $*" >&2; return 1; }
    local wall user sys rss size
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out/time.txt")
    user=$(awk -F': ' '/User time/ {print $2}' "$out/time.txt")
    sys=$(awk -F': ' '/System time/ {print $2}' "$out/time.txt")
    rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$out/time.txt")
    size=$(du -sb "$target" | cut -f1)
    printf "%-28s %9.2f s %9.2f s %8.0f MiB %10.1f MiB\n" "$name" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))" "$(echo "$size / 1048576" | bc -l)"
}

echo "== $trace ($(du -h "$trace" | cut -f1)), $bin, $(nproc) cores"
printf "%-28s %11s %11s %12s %14s\n" command wall cpu "peak RSS" output
run "export parquet" "$out/pq" "$bin" export parquet --no-progress "$trace" -o "$out/pq"
run "dump (in memory)" "$out/dump.txt" "$bin" dump --no-progress "$trace" -o "$out/dump.txt"
run "dump --stream" "$out/stream.txt" "$bin" dump --stream --no-progress "$trace" -o "$out/stream.txt"
run "convert to .ptb" "$out/trace.ptb" "$bin" convert --no-progress "$trace" "$out/trace.ptb"
echo "rows per table:"
"$bin" export parquet --no-progress "$trace" -o "$out/pq" 2>&1 | sed 's/^/  /'
echo "files and row groups: $(find "$out/pq" -name '*.parquet' | wc -l) files"
