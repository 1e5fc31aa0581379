#!/usr/bin/env bash
# The binary-format experiment of the original proposal, repeated on traces
# made by ../shared/tools/gen_trace.py: file size, `trama check` (read and
# simulate) and `trama dump` on the text and on its binary conversions.
#
#   bench/binary.sh [LINES...]      default: 1000000 10000000
#   REPEAT=3 bench/binary.sh        best of N runs (default 3)
#
# Formats: text; trama's .ptb with plain strings, interned strings (both
# uncompressed) and interned + zstd (level 1, the default); the seed's
# libRastro binary Pajé in both string modes when `trama convert --to rastro`
# exists.
set -euo pipefail
# shellcheck source=bench/common.sh
. "$(dirname "$0")/common.sh"

for n in "${sizes[@]}"; do
    f=$data/trace_$n.paje
    [ -f "$f" ] || python3 "$gen" --lines "$n" -o "$f"
    tsize=$(stat -L -c %s "$f")
    echo "== $f ($n lines)"
    printf "%-26s %12s %7s %10s %9s %10s %9s\n" format bytes size check "x text" dump "x text"
    read -r cw _ _ _ < <(measure "$repeat" "$bin" check --no-progress "$f")
    read -r dw _ _ _ < <(FRESH="$data/bdump_text.txt" measure "$repeat" "$bin" dump --no-progress "$f" -o "$data/bdump_text.txt")
    printf "%-26s %12d %6.1f%% %9.3fs %9s %9.3fs %9s\n" text "$tsize" 100 "$cw" - "$dw" -
    variants=("ptb plain:--strings plain --level 0" "ptb interned:--strings interned --level 0" "ptb interned+zstd:--strings interned")
    if "$bin" convert --help | grep -q rastro; then
        variants+=("rastro plain:--to rastro --strings plain" "rastro interned:--to rastro --strings interned")
    fi
    for v in "${variants[@]}"; do
        name=${v%%:*}; opts=${v#*:}
        ext=ptb; [[ $name == rastro* ]] && ext=rst
        out=$data/trace_$n.${name// /_}.$ext
        rm -f "$out"
        # shellcheck disable=SC2086
        # shellcheck disable=SC2086
        if ! why=$("$bin" convert --no-progress $opts "$f" "$out" 2>&1); then
            printf "%-26s not convertible: %s\n" "$name" "$(echo "$why" | head -1)"
            continue
        fi
        # shellcheck disable=SC2086
        read -r vw _ _ _ < <(FRESH="$out" measure "$repeat" "$bin" convert --no-progress $opts "$f" "$out")
        size=$(stat -c %s "$out")
        read -r bw _ _ _ < <(measure "$repeat" "$bin" check --no-progress "$out")
        read -r bd _ _ _ < <(FRESH="$data/bdump_bin.txt" measure "$repeat" "$bin" dump --no-progress "$out" -o "$data/bdump_bin.txt")
        cmp -s "$data/bdump_text.txt" "$data/bdump_bin.txt" || echo "!! $name: dump differs from the text's"
        awk -v n="$name" -v b="$size" -v t="$tsize" -v c="$bw" -v tc="$cw" -v d="$bd" -v td="$dw" -v cv="$vw" 'BEGIN{
            printf "%-26s %12d %6.1f%% %9.3fs %8.2fx %9.3fs %8.2fx   (conversion %.3fs)\n",
                   n, b, 100*b/t, c, tc/c, d, td/d, cv }'
        if [ "$name" = "ptb interned+zstd" ]; then
            # A window of 1 % of the span, in the middle of the trace.
            span=$("$bin" check --no-progress "$out" | awk '/time span/{print $5}')
            ws=$(awk -v s="$span" 'BEGIN{printf "%.6f", s*0.5}')
            we=$(awk -v s="$span" 'BEGIN{printf "%.6f", s*0.51}')
            read -r tw _ _ _ < <(FRESH="$data/bwin_text.txt" measure "$repeat" "$bin" dump --no-progress -s "$ws" -e "$we" "$f" -o "$data/bwin_text.txt")
            read -r bw2 _ _ _ < <(FRESH="$data/bwin_bin.txt" measure "$repeat" "$bin" dump --no-progress -s "$ws" -e "$we" "$out" -o "$data/bwin_bin.txt")
            cmp -s "$data/bwin_text.txt" "$data/bwin_bin.txt" || echo "!! window dumps differ"
            blocks=$(TRAMA_TIMINGS=1 "$bin" dump --no-progress -s "$ws" -e "$we" "$out" -o /dev/null 2>&1 | awk '/window read/{print $5" of "$7}')
            awk -v a="$ws" -v b="$we" -v t="$tw" -v w="$bw2" -v k="$blocks" 'BEGIN{
                printf "%-26s dump -s %s -e %s: text %.2fs, ptb %.3fs (%.0fx), blocks read: %s\n",
                       "window (1 % of the span)", a, b, t, w, t/w, k }'
        fi
    done
done
