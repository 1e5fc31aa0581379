"""One side of bench/python.sh: reads an OTF2 archive with trama's Python
package or with pipit, computes the flat profile (mean exclusive time per
function over the processes) and the communication matrix (bytes per pair
of ranks), and prints the seconds each step took and the results as JSON.

    python bench/python_bench.py trama|pipit ARCHIVE/traces.otf2
    python bench/python_bench.py summary RUNS.jsonl
"""

import json
import statistics
import sys
import time


def run_trama(anchor):
    import trama

    t0 = time.perf_counter()
    t = trama.open(anchor)
    t1 = time.perf_counter()
    flat = t.flat_profile(how="mean")
    t2 = time.perf_counter()
    comm = t.comm_matrix(level="Process")
    t3 = time.perf_counter()
    profile = {r["value"]: r["exclusive"] for r in flat.to_pylist()}
    rank = {c: int(c.rsplit(" ", 1)[1]) for c in comm.containers}
    matrix = {f"{rank[p['from']]}->{rank[p['to']]}": p["bytes"] for p in comm.pairs.to_pylist()}
    return (t1 - t0, t2 - t1, t3 - t2), profile, matrix


def run_pipit(anchor):
    import os

    from pipit import Trace

    t0 = time.perf_counter()
    t = Trace.from_otf2(os.path.dirname(anchor))
    t1 = time.perf_counter()
    flat = t.flat_profile()
    t2 = time.perf_counter()
    comm = t.comm_matrix()
    t3 = time.perf_counter()
    profile = {name: float(v) / 1e9 for name, v in flat["time.exc"].items()}
    matrix = {
        f"{i}->{j}": float(comm[i][j])
        for i in range(comm.shape[0])
        for j in range(comm.shape[1])
        if comm[i][j] != 0
    }
    return (t1 - t0, t2 - t1, t3 - t2), profile, matrix


def summary(path):
    """The medians of the runs in `path` (one JSON line each), the ratio,
    and whether both sides found the same profile and matrix."""
    runs = [json.loads(l) for l in open(path)]
    by = {}
    for r in runs:
        by.setdefault(r["side"], []).append(r)
    med = {}
    for side, rs in by.items():
        total = statistics.median(r["read"] + r["flat"] + r["comm"] for r in rs)
        med[side] = (total, statistics.median(r["rss_mb"] for r in rs))
        print(f"median {side}: read + flat profile + comm matrix {total:.3f} s, peak {med[side][1]:.1f} MB")
    if "pipit" in med:
        (tt, tm), (pt, pm) = med["trama"], med["pipit"]
        print(f"trama: {pt / tt:.0f}x faster than pipit, {pm / tm:.1f}x less memory")
        a, b = by["trama"][0], by["pipit"][0]
        def rel(x, y):
            return abs(x - y) / max(abs(x), abs(y), 1e-300)
        assert a["profile"].keys() == b["profile"].keys(), (a["profile"].keys(), b["profile"].keys())
        assert a["matrix"].keys() == b["matrix"].keys()
        dp = max(rel(a["profile"][k], b["profile"][k]) for k in a["profile"])
        dm = max(rel(a["matrix"][k], b["matrix"][k]) for k in a["matrix"])
        print(f"same results: flat profile of {len(a['profile'])} functions (largest relative difference {dp:.1e}), "
              f"matrix of {len(a['matrix'])} pairs ({dm:.1e})")


def main():
    if sys.argv[1] == "summary":
        summary(sys.argv[2])
        return
    side, anchor = sys.argv[1], sys.argv[2]
    (read, flat, comm), profile, matrix = (run_trama if side == "trama" else run_pipit)(anchor)
    print(json.dumps({"side": side, "read": read, "flat": flat, "comm": comm,
                      "profile": profile, "matrix": matrix}))


if __name__ == "__main__":
    main()
