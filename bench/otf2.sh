#!/usr/bin/env bash
# Benchmark of trama's OTF2 reader (not a test): a synthetic archive written
# by the OTF2 library (bench/otf2/gen_archive.c, built against Debian's
# libotf2-trace-dev), read by `trama check` and by `otf2-print > /dev/null`
# (Debian's otf2-tools), the two interleaved (A B A B …) so that a drift of
# the machine's speed weighs on both alike. Prints each run's wall and CPU
# seconds and peak RSS, then the medians and their ratio.
#
#   bench/otf2.sh                      8 processes × 8 threads × 1M events (64M events)
#   PROCESSES=2 THREADS=4 EVENTS=100000 bench/otf2.sh
#   REPEAT=5 bench/otf2.sh             runs of each (default 3)
#   TRAMA=target/ci/trama bench/otf2.sh   a trama binary already built
set -euo pipefail
# shellcheck source=bench/timing.sh
. "$(dirname "${BASH_SOURCE[0]}")/timing.sh"
data=${BENCH_DATA:-$root/bench-data}
processes=${PROCESSES:-8}
threads=${THREADS:-8}
events=${EVENTS:-1000000}
repeat=${REPEAT:-3}
mkdir -p "$data"

command -v otf2-print >/dev/null || { echo "otf2-print not found (apt-get install otf2-tools)" >&2; exit 1; }
# shellcheck source=bench/otf2/gen.sh
. "$root/bench/otf2/gen.sh"
trama_bin

archive=$data/otf2-${processes}x${threads}x${events}
anchor=$archive/traces.otf2
[ -f "$anchor" ] || "$gen" "$archive" "$processes" "$threads" "$events"
echo "== $anchor: $(du -sh "$archive" | cut -f1), $((processes * threads)) locations"

tw=() tc=() ow=() oc=()
for _ in $(seq "$repeat"); do
    run "trama check" "$bin" check --no-progress "$anchor"; tw+=("$W"); tc+=("$C")
    run "otf2-print > /dev/null" sh -c "exec otf2-print '$anchor' > /dev/null"; ow+=("$W"); oc+=("$C")
done
mt=$(printf '%s\n' "${tw[@]}" | median); mo=$(printf '%s\n' "${ow[@]}" | median)
ct=$(printf '%s\n' "${tc[@]}" | median); co=$(printf '%s\n' "${oc[@]}" | median)
awk -v mt="$mt" -v mo="$mo" -v ct="$ct" -v co="$co" 'BEGIN{
    printf "median wall: trama check %.2f s, otf2-print %.2f s", mt, mo
    if (mt > 0) printf ": %.1f× faster", mo / mt
    printf "\nmedian cpu:  trama check %.2f s, otf2-print %.2f s", ct, co
    if (ct > 0) printf ": %.1f× less", co / ct
    printf "\n" }'
