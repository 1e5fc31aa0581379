#!/bin/sh
# Seeds fuzz/corpus/{reader,simulate,ptb,otf2}/ (git-ignored) with the
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
# otf2: archives written by Debian's python3-otf2 (when installed), framed
# as the target reads them: the anchor's flag, then each file with its
# u16 length (global definitions, location 0's events and local
# definitions, location 1's).
if /usr/bin/python3 -c 'import otf2' 2>/dev/null; then
    mkdir -p "$here/corpus/otf2"
    frame() { python3 -c 'import sys, struct
out = sys.stdout.buffer
out.write(b"\x00")
for f in sys.argv[1:]:
    try: data = open(f, "rb").read()[:16000]
    except OSError: data = b""
    out.write(struct.pack("<H", len(data)) + data)' "$@"; }
    for it in 1 3; do
        dir=$(mktemp -d)
        /usr/bin/python3 "$here/../crates/gen/otf2/write_archive.py" "$dir/a" "$it"
        frame "$dir/a/traces.def" "$dir/a/traces/0.evt" "$dir/a/traces/0.def" \
            "$dir/a/traces/1.evt" "$dir/a/traces/1.def" > "$here/corpus/otf2/written-$it"
        rm -rf "$dir"
    done
fi
echo "seeded $n conformance traces${gen:+ and 8 generated ones} into $here/corpus"
