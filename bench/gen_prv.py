#!/usr/bin/env python3
"""Writes a large synthetic Paraver trace (.prv with its .pcf and .row) for
speed measurements of trama's Paraver reader: TASKS tasks of one thread on
NODES nodes, each alternating states (running, waiting, ...), with user
events (type/value pairs) and point-to-point communications between tasks,
in time order.

    bench/gen_prv.py RECORDS OUT.prv [--tasks 64] [--nodes 8] [--seed 1]
"""
import argparse, heapq, random

ap = argparse.ArgumentParser()
ap.add_argument("records", type=int)
ap.add_argument("out")
ap.add_argument("--tasks", type=int, default=64)
ap.add_argument("--nodes", type=int, default=8)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rng = random.Random(a.seed)
T, N = a.tasks, a.nodes
per_node = (T + N - 1) // N
cpus = ",".join(str(per_node) for _ in range(N))
# The records first (to know the end time), then the header.
recs = []
clock = [0] * T
n = 0
heap = [(0, t) for t in range(T)]
pending = []  # (recv_time, line) of communications, in time order
out = []
while n < a.records:
    now, t = heapq.heappop(heap)
    dur = rng.randint(1_000, 200_000)
    state = rng.choice([1, 1, 1, 3, 5, 9, 12])
    cpu = t + 1
    task = t + 1
    out.append((now, f"1:{cpu}:1:{task}:1:{now}:{now + dur}:{state}"))
    n += 1
    if rng.random() < 0.3:
        ev = rng.choice([50000001, 50000002, 60000019])
        out.append((now, f"2:{cpu}:1:{task}:1:{now}:{ev}:{rng.randint(0, 40)}:40000003:{rng.randint(1, 9)}"))
        n += 1
    if rng.random() < 0.2:
        other = rng.randrange(T)
        if other != t:
            lat = rng.randint(500, 50_000)
            size = rng.choice([8, 64, 1024, 65536])
            recv = now + lat
            out.append((now, f"3:{cpu}:1:{task}:1:{now}:{now}:{other + 1}:1:{other + 1}:1:{recv}:{recv}:{size}:{rng.randint(0, 99)}"))
            n += 1
    heapq.heappush(heap, (now + dur, t))
out.sort(key=lambda r: r[0])
end = max(r[0] for r in out) + 200_000
tasks = ",".join(f"1:{(i // per_node) + 1}" for i in range(T))
with open(a.out, "w") as f:
    f.write(f"#Paraver (26/11/2026 at 00:00):{end}_ns:{N}({cpus}):1:{T}({tasks})\n")
    for _, line in out:
        f.write(line + "\n")
base = a.out[:-4] if a.out.endswith(".prv") else a.out
with open(base + ".pcf", "w") as f:
    f.write("STATES\n0 Idle\n1 Running\n3 Waiting a message\n5 Synchronization\n9 Group communication\n12 I/O\n\n")
    f.write("EVENT_TYPE\n0 50000001 MPI Point-to-point\nVALUES\n0 End\n")
    f.write("\n".join(f"{v} MPI_call_{v}" for v in range(1, 41)) + "\n\n")
    f.write("EVENT_TYPE\n0 50000002 MPI Collective\n0 60000019 User function\n0 40000003 Flushing\n")
with open(base + ".row", "w") as f:
    f.write(f"LEVEL NODE SIZE {N}\n" + "\n".join(f"node{i}" for i in range(N)) + "\n\n")
    f.write(f"LEVEL THREAD SIZE {T}\n" + "\n".join(f"THREAD 1.{i + 1}.1" for i in range(T)) + "\n")
