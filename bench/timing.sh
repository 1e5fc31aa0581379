# shellcheck shell=bash disable=SC2034
# What the interleaved benchmarks (bench/export.sh, bench/otf2.sh,
# bench/python.sh) share; sourced. Goes to the repository's root, sets
#   root    the repository
# and defines:
#   trama_bin         sets bin: $TRAMA, else trama built in release
#   run label cmd...  runs cmd, its output thrown away; sets W (wall s),
#                     C (cpu s), M (peak MB) and prints them after the label
#                     (in $label_width columns, default 24)
#   median            the median of the numbers on standard input
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

trama_bin() {
    if [ -n "${TRAMA:-}" ]; then
        bin=$TRAMA
    else
        cargo build --release -q -p trama
        bin=$root/target/release/trama
    fi
}

run() {
    local label=$1; shift
    local tf t0 t1
    tf=$(mktemp)
    t0=$(date +%s%N)
    /usr/bin/time -o "$tf" -f "%U %S %M" "$@" >/dev/null 2>&1 || echo "!! failed: $*"
    t1=$(date +%s%N)
    read -r W C M < <(awk -v a="$t0" -v b="$t1" '{printf "%.2f %.2f %.1f\n", (b-a)/1e9, $1+$2, $3/1024}' "$tf")
    rm -f "$tf"
    printf "%-${label_width:-24}s wall %7.2f s  cpu %7.2f s  peak %7.1f MB\n" "$label" "$W" "$C" "$M"
}

median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
