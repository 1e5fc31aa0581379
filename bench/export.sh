#!/usr/bin/env bash
# Benchmark of `trama export` (not a test): the Perfetto and Chrome JSON
# exports of a Pajé trace against `trama dump` and `trama dump --stream` of
# the same trace, interleaved (A B C D A B C D …) so that a drift of the
# machine's speed weighs on all alike. Prints each run's wall and CPU
# seconds and peak RSS (`/usr/bin/time`), the outputs' sizes, then the
# medians.
#
#   bench/export.sh                       bench-data/trace_10000000.paje
#   bench/export.sh path/to/trace.paje
#   REPEAT=5 bench/export.sh              runs of each (default 3)
#   TRAMA=target/ci/trama bench/export.sh a trama binary already built
#   OUT=/some/dir bench/export.sh         where outputs go (default a temporary directory)
set -euo pipefail
# shellcheck source=bench/timing.sh
. "$(dirname "${BASH_SOURCE[0]}")/timing.sh"
trace=${1:-${BENCH_DATA:-$root/bench-data}/trace_10000000.paje}
repeat=${REPEAT:-3}
[ -f "$trace" ] || { echo "no trace at $trace (../shared/tools/gen_trace.py --lines 10000000 -o $trace)" >&2; exit 1; }
trama_bin
out=${OUT:-$(mktemp -d)}
trap '[ -z "${OUT:-}" ] && rm -rf "$out"' EXIT
echo "== $trace: $(du -h "$trace" | cut -f1); $bin; outputs in $out"

label_width=28

labels=("trama dump" "trama dump --stream" "trama export perfetto" "trama export chrome-json")
cmds=(
    "$bin dump --no-progress $trace -o $out/dump.txt"
    "$bin dump --no-progress --stream $trace -o $out/stream.txt"
    "$bin export perfetto --no-progress $trace -o $out/out.perfetto-trace"
    "$bin export chrome-json --no-progress $trace -o $out/out.json"
)
declare -A ws cs ms
for _ in $(seq "$repeat"); do
    for i in "${!cmds[@]}"; do
        # shellcheck disable=SC2086
        run "${labels[$i]}" ${cmds[$i]}
        ws[$i]+="$W "; cs[$i]+="$C "; ms[$i]+="$M "
    done
done
echo "== outputs"
ls -l "$out" | awk 'NR>1 {printf "%-22s %8.1f MB\n", $NF, $5/1e6}'
echo "== medians of $repeat runs"
for i in "${!cmds[@]}"; do
    printf '%-28s wall %7.2f s  cpu %7.2f s  peak %7.1f MB\n' "${labels[$i]}" \
        "$(tr ' ' '\n' <<<"${ws[$i]}" | grep . | median)" \
        "$(tr ' ' '\n' <<<"${cs[$i]}" | grep . | median)" \
        "$(tr ' ' '\n' <<<"${ms[$i]}" | grep . | median)"
done
