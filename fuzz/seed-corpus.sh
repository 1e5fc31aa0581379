#!/bin/sh
# Seeds fuzz/corpus/{reader,simulate,ptb}/ (git-ignored) with the
# conformance traces (those under 100 KB) and a few generated traces; ptb
# gets their binary conversions (small blocks, so that keyframes abound).
#   fuzz/seed-corpus.sh [CONFORMANCE_DIR]
# CONFORMANCE_DIR defaults to shared/conformance/pajeng beside the repository.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
conf=${1:-$here/../../shared/conformance/pajeng}
mkdir -p "$here/corpus/reader" "$here/corpus/simulate" "$here/corpus/ptb"
trama=$(cd "$here/.." && cargo build -q --release -p trama 2>/dev/null && echo "$here/../target/release/trama" || true)
to_ptb() {
    [ -n "$trama" ] || return 0
    for level in 0 3; do
        "$trama" convert --no-progress --level "$level" --block-events 16 "$1" "$here/corpus/ptb/$2-$level.ptb" 2>/dev/null || true
    done
}
n=0
for f in "$conf"/*.trace; do
    [ -f "$f" ] || continue
    [ "$(wc -c < "$f")" -le 102400 ] || continue
    name=$(basename "$f" .trace)
    cp "$f" "$here/corpus/reader/$name"
    to_ptb "$f" "$name"
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
        cp "$here/corpus/reader/gen-$seed" "$here/corpus/gen-$seed.paje"
        to_ptb "$here/corpus/gen-$seed.paje" "gen-$seed"
        rm -f "$here/corpus/gen-$seed.paje"
    done
fi
echo "seeded $n conformance traces${gen:+ and 8 generated ones} into $here/corpus"
