#!/bin/sh
# Seeds fuzz/corpus/{reader,simulate}/ (git-ignored) with the conformance
# traces (those under 100 KB) and a few generated traces.
#   fuzz/seed-corpus.sh [CONFORMANCE_DIR]
# CONFORMANCE_DIR defaults to shared/conformance/pajeng beside the repository.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
conf=${1:-$here/../../shared/conformance/pajeng}
mkdir -p "$here/corpus/reader" "$here/corpus/simulate"
n=0
for f in "$conf"/*.trace; do
    [ -f "$f" ] || continue
    [ "$(wc -c < "$f")" -le 102400 ] || continue
    name=$(basename "$f" .trace)
    cp "$f" "$here/corpus/reader/$name"
    # simulate reads its options from the first byte: a few combinations.
    for flags in 00 01 10 84 28 41; do
        { printf "\\$(printf %03o 0x$flags)"; cat "$f"; } > "$here/corpus/simulate/$name-$flags"
    done
    n=$((n + 1))
done
# Generated traces (crate trama-gen), when cargo can build the example.
gen=$(cd "$here/.." && cargo build -q -p trama-gen --example gen 2>/dev/null && echo target/debug/examples/gen || true)
if [ -n "$gen" ]; then
    for seed in 1 2 3 4 5 6 7 8; do
        "$here/../$gen" "$seed" varied 150 > "$here/corpus/reader/gen-$seed"
        { printf '\000'; cat "$here/corpus/reader/gen-$seed"; } > "$here/corpus/simulate/gen-$seed-00"
        { printf '\001'; cat "$here/corpus/reader/gen-$seed"; } > "$here/corpus/simulate/gen-$seed-01"
    done
fi
echo "seeded $n conformance traces${gen:+ and 8 generated ones} into $here/corpus"
