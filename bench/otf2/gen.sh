# shellcheck shell=bash
# Builds bench/otf2/gen_archive.c against Debian's libotf2-trace-dev when
# needed (sourced by bench/otf2.sh and bench/python.sh, with $root and
# $data set); sets gen, the generator's path.
command -v otf2-config >/dev/null || { echo "otf2-config not found (apt-get install libotf2-trace-dev)" >&2; exit 1; }
gen=$data/gen_archive
if [ ! -x "$gen" ] || [ "$root/bench/otf2/gen_archive.c" -nt "$gen" ]; then
    # shellcheck disable=SC2046
    cc -O2 -o "$gen" "$root/bench/otf2/gen_archive.c" $(otf2-config --cflags) $(otf2-config --ldflags) $(otf2-config --libs)
fi
