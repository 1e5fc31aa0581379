#!/usr/bin/env python3
"""Streams a trace through `trama view --stream` while a client reads every
frame as fast as the server cuts them; prints the frames, the wall time and
the server's peak resident memory (VmHWM).

    bench/stream.py TRACE [DT]     (TRAMA=path/to/trama, default target/release/trama)
"""
import json, os, re, signal, subprocess, sys, time, urllib.request

trace = sys.argv[1]
dt = sys.argv[2] if len(sys.argv) > 2 else "0.01"
trama = os.environ.get("TRAMA", "target/release/trama")
p = subprocess.Popen([trama, "view", "--stream", "--no-open", "--port", "0", "--rate", dt,
                      "--play-speed", "1", trace], stdout=subprocess.PIPE, text=True)
url = None
while url is None:
    line = p.stdout.readline()
    m = re.search(r"http://\S+", line)
    if m:
        url = m.group(0)
start = time.time()
after, frames, peak = -1, 0, 0
def hwm():
    with open(f"/proc/{p.pid}/status") as f:
        for l in f:
            if l.startswith("VmHWM"):
                return int(l.split()[1]) // 1024
    return 0
while True:
    j = json.load(urllib.request.urlopen(f"{url}api/stream?after={after}&version=1"))
    f = j["frames"]
    frames += len(f)
    if f:
        after = f[-1]["k"]
    if not f and j["done"]:
        if j["error"]:
            print("error:", j["error"])
        break
    if not f:
        time.sleep(0.005)
wall = time.time() - start
peak = hwm()
p.send_signal(signal.SIGINT)
p.wait()
print(f"frames={frames} wall={wall:.2f} s peak_rss={peak} MB trace_time={j['time']}")
