# shellcheck shell=bash disable=SC2034
# What the benchmarks (bench/run.sh, bench/binary.sh) share; sourced with
# the script's arguments. Goes to the repository's root, builds trama in
# release, and sets:
#   root    the repository
#   gen     the trace generator (../shared/tools/gen_trace.py, or $GEN_TRACE)
#   data    where traces and outputs go (bench-data, or $BENCH_DATA)
#   repeat  runs of each measure, the best kept ($REPEAT, default 3)
#   sizes   the traces' line counts (the arguments; default 1000000 10000000)
#   bin     the trama binary
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
gen=${GEN_TRACE:-$root/../shared/tools/gen_trace.py}
data=${BENCH_DATA:-$root/bench-data}
repeat=${REPEAT:-3}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
mkdir -p "$data"
cargo build --release -q
bin=$root/target/release/trama

measure() { # count cmd... → "wall user sys rss_kb" of the fastest run (wall in ms precision)
    local count=$1; shift
    local best=""
    for _ in $(seq "$count"); do
        local r tf t0 t1
        tf=$(mktemp)
        # A fresh output each run: truncating the last run's output is not the command's work.
        [ -z "${FRESH:-}" ] || rm -f "$FRESH"
        t0=$(date +%s%N)
        /usr/bin/time -o "$tf" -f "%U %S %M" "$@" >/dev/null 2>&1 || echo "!! failed: $*" >&2
        t1=$(date +%s%N)
        r="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}') $(tail -1 "$tf")"; rm -f "$tf"
        if [ -z "$best" ] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then
            best=$r
        fi
    done
    echo "$best"
}
