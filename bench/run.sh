#!/usr/bin/env bash
# End-to-end benchmark of trama on synthetic Pajé traces made by
# ../shared/tools/gen_trace.py. Prints wall time, CPU time, peak RSS, MB/s of
# input and events/s for `trama dump` (to a file), `trama check`, and
# `trama dump --stream`, and the same for PajeNG's pj_dump when installed.
#
#   bench/run.sh [LINES...]        default: 1000000 10000000
#   REPEAT=3 bench/run.sh          best of N runs (default 3)
#   PJ_DUMP=0 bench/run.sh         skip pj_dump
set -euo pipefail
# shellcheck source=bench/common.sh
. "$(dirname "$0")/common.sh"

report() { # name bytes events wall user sys rss
    awk -v n="$1" -v b="$2" -v e="$3" -v w="$4" -v u="$5" -v s="$6" -v m="$7" 'BEGIN{
        printf "%-34s %7.2f s  cpu %6.2f s  rss %7.1f MB  %7.1f MB/s  %6.2f M events/s\n",
               n, w, u+s, m/1024, b/1e6/w, e/1e6/w }'
}

for n in "${sizes[@]}"; do
    f=$data/trace_$n.paje
    [ -f "$f" ] || python3 "$gen" --lines "$n" -o "$f"
    bytes=$(stat -L -c %s "$f")
    events=$(grep -vc '^[%#]' "$f" || true)
    echo "== $f: $n lines, $bytes bytes, $events events"
    out=$data/out_$n.txt
    read -r w u s m < <(measure "$repeat" "$bin" dump --no-progress "$f" -o "$out");          report "trama dump (to file)" "$bytes" "$events" "$w" "$u" "$s" "$m"
    read -r w u s m < <(measure "$repeat" "$bin" dump --no-progress -j1 "$f" -o "$out.j1");   report "trama dump -j1" "$bytes" "$events" "$w" "$u" "$s" "$m"
    read -r w u s m < <(measure "$repeat" "$bin" check --no-progress "$f");                   report "trama check" "$bytes" "$events" "$w" "$u" "$s" "$m"
    read -r w u s m < <(measure "$repeat" "$bin" dump --no-progress --stream "$f" -o "$out.s"); report "trama dump --stream" "$bytes" "$events" "$w" "$u" "$s" "$m"
    cmp -s "$out" "$out.j1" || echo "!! -j1 output differs"
    if [ "${PJ_DUMP:-1}" != 0 ] && command -v pj_dump >/dev/null; then
        read -r w u s m < <(measure 1 pj_dump "$f");                         report "pj_dump $(dpkg-query -W -f '${Version}' pajeng 2>/dev/null)" "$bytes" "$events" "$w" "$u" "$s" "$m"
        read -r w u s m < <(measure 1 pj_dump -q "$f");                      report "pj_dump -q" "$bytes" "$events" "$w" "$u" "$s" "$m"
        pj_dump "$f" | cmp -s - "$out" && echo "   output identical to pj_dump's" || echo "   output differs from pj_dump's (see quoting notes)"
    fi
    rm -f "$out" "$out.j1" "$out.s"
done
