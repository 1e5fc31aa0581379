#!/usr/bin/env bash
# Benchmark of the Python package against pipit (not a test): a synthetic
# OTF2 archive of RANKS MPI ranks written by the OTF2 library
# (bench/otf2/gen_archive.c, without metrics, which pipit's reader cannot
# take), read and analysed by bench/python_bench.py on each side — the
# archive read, the flat profile (mean exclusive time per function over
# the ranks) and the communication matrix (bytes per pair of ranks) — the
# two interleaved (A B A B …). Prints each run's seconds per step and peak
# RSS, the medians and their ratio, and whether the two sides' profiles
# and matrices agree.
#
#   bench/python.sh                          64 ranks × 20,000 events
#   RANKS=64 EVENTS=100000 bench/python.sh
#   PIPIT_SRC=DIR bench/python.sh            pipit's source (hpcgroup/pipit on GitHub;
#                                            its PyPI name holds an empty package)
#   REPEAT=5 bench/python.sh                 runs of each (default 3)
#
# trama's side: the package built by maturin in release into a virtual
# environment (bench-data/py-trama) with pyarrow. pipit's side: Debian's
# python3 with python3-otf2 (pipit reads OTF2 through it), pipit, numpy
# and pandas in bench-data/py-pipit. Without PIPIT_SRC only trama's side
# is measured.
set -euo pipefail
# shellcheck source=bench/timing.sh
. "$(dirname "${BASH_SOURCE[0]}")/timing.sh"
data=${BENCH_DATA:-$root/bench-data}
ranks=${RANKS:-64}
events=${EVENTS:-20000}
repeat=${REPEAT:-3}
mkdir -p "$data"

# shellcheck source=bench/otf2/gen.sh
. "$root/bench/otf2/gen.sh"
archive=$data/otf2-${ranks}x1x${events}-nometrics
anchor=$archive/traces.otf2
[ -f "$anchor" ] || "$gen" "$archive" "$ranks" 1 "$events" 0
echo "== $anchor: $(du -sh "$archive" | cut -f1), $ranks ranks"

tv=$data/py-trama
if [ ! -x "$tv/bin/python" ]; then
    python3 -m venv "$tv"
    "$tv/bin/pip" install -q 'maturin==1.16.0' 'pyarrow==26.0.1'
fi
rm -rf "$data/wheels"
VIRTUAL_ENV=$tv "$tv/bin/maturin" build --quiet --release -m crates/apps/python/Cargo.toml -o "$data/wheels" -i "$tv/bin/python"
"$tv/bin/pip" install -q --force-reinstall --no-deps "$data"/wheels/trama-*.whl

sides=(trama)
if [ -n "${PIPIT_SRC:-}" ]; then
    pv=$data/py-pipit
    if [ ! -x "$pv/bin/python" ]; then
        /usr/bin/python3 -c 'import otf2' || { echo "python3-otf2 not found (apt-get install python3-otf2)" >&2; exit 1; }
        /usr/bin/python3 -m venv --system-site-packages "$pv"
        "$pv/bin/pip" install -q numpy pandas "$PIPIT_SRC"
    fi
    sides+=(pipit)
else
    echo "(PIPIT_SRC not set: pipit is not measured)"
fi

out=$data/python-bench.jsonl
: > "$out"
for _ in $(seq "$repeat"); do
    for side in "${sides[@]}"; do
        py=$tv/bin/python
        [ "$side" = trama ] || py=$pv/bin/python
        tf=$(mktemp)
        (cd /tmp && /usr/bin/time -o "$tf" -f "%M" "$py" "$root/bench/python_bench.py" "$side" "$anchor") \
            | python3 -c 'import json,sys; d=json.load(sys.stdin); d["rss_mb"]=int(open(sys.argv[1]).read().split()[-1])/1024; print(json.dumps(d))' "$tf" \
            | tee -a "$out" | python3 -c 'import json,sys; print("{side:6} read {read:8.3f} s  flat profile {flat:7.3f} s  comm matrix {comm:7.3f} s  peak {rss_mb:7.1f} MB".format(**json.load(sys.stdin)))'
        rm -f "$tf"
    done
done

python3 "$root/bench/python_bench.py" summary "$out"
