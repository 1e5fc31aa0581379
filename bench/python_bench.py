"""One side of bench/python.sh: reads an OTF2 archive with trama's Python
package or with pipit, computes the flat profile (mean exclusive time per
function over the processes) and the communication matrix (bytes per pair
of ranks), and prints the seconds each step took and the results as JSON.

    python bench/python_bench.py trama|pipit ARCHIVE/traces.otf2
"""

import json
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


def main():
    side, anchor = sys.argv[1], sys.argv[2]
    (read, flat, comm), profile, matrix = (run_trama if side == "trama" else run_pipit)(anchor)
    print(json.dumps({"side": side, "read": read, "flat": flat, "comm": comm,
                      "profile": profile, "matrix": matrix}))


if __name__ == "__main__":
    main()
