#!/usr/bin/env python3
"""Measures `trama view` on a trace: time from start to the first window
(the trace ready and the whole run answered), the server's memory, and the
latency of window queries at several zooms, as the page asks for them
(three screens of 1920 columns: the visible window padded by one screen
on each side).

Usage: bench/view.py TRAMA TRACE [extra `trama view` flags...]
The cache (converted traces, saved summaries) goes to a fresh temporary
directory: the first start is a first view; a second start then reads
what the first saved."""
import gzip, json, os, random, statistics, subprocess, sys, tempfile, time, urllib.request
from view_server import ready

def status(pid):
    out = {}
    for line in open(f"/proc/{pid}/status"):
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[k] = int(v.split()[0]) // 1024
    return out

def start(trama, trace, cache, extra):
    p = subprocess.Popen([trama, "view", "--no-open", "--no-progress", "--port", "0",
                          "--cache", cache, trace, *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    t0 = time.perf_counter()
    url, meta = ready(p)
    a, b = meta["start"], meta["end"]
    urllib.request.urlopen(f"{url}api/timeline?start={a}&end={b}&width={3*1920}&rows=0-45").read()
    return p, url, meta, time.perf_counter() - t0

# What the client accepts: `ENCODING=gzip bench/view.py …` to compare.
ENCODING = os.environ.get("ENCODING", "zstd")
# The reply's own encoding: compact (`TRTC`, as the page asks) or plain
# (`TRTL`): `BODY=plain bench/view.py …`.
BODY = os.environ.get("BODY", "compact")

def decoded(wire, coding):
    if coding == "gzip":
        return gzip.decompress(wire)
    if coding == "zstd":
        return subprocess.run(["zstd", "-dc"], input=wire, capture_output=True, check=True).stdout
    return wire

def windows(url, meta, n=100):
    t0, t1, rows = meta["start"], meta["end"], len(meta["rows"])
    random.seed(1)
    for frac in (1.0, 0.3, 0.1, 0.03, 0.01, 1e-3):
        lat, size, sent = [], [], []
        for _ in range(n):
            span = (t1 - t0) * frac
            a = t0 + random.random() * (t1 - t0 - span)
            r0 = random.randrange(0, max(1, rows - 45))
            q = f"{url}api/timeline?start={a - span}&end={a + 2 * span}&width={3 * 1920}&rows={r0}-{min(rows - 1, r0 + 45)}&encoding={BODY}"
            s = time.perf_counter()
            # As a browser asks (ENCODING: zstd, gzip or identity), the
            # wire's bytes counted.
            reply = urllib.request.urlopen(urllib.request.Request(q, headers={"Accept-Encoding": ENCODING}))
            wire = reply.read()
            lat.append(time.perf_counter() - s)
            size.append(len(decoded(wire, reply.headers.get("Content-Encoding"))))
            sent.append(len(wire))
        lat.sort()
        print(f"| {frac:g} | {1e3 * lat[n // 2]:.1f} ms | {1e3 * lat[n * 95 // 100]:.1f} ms "
              f"| {statistics.median(size) / 1e6:.2f} MB | {statistics.median(sent) / 1e6:.3f} MB "
              f"| {sorted(sent)[n * 95 // 100] / 1e6:.3f} MB |")

trama, trace, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
with tempfile.TemporaryDirectory() as cache:
    for run in ("first view", "second view (summary saved)"):
        p, url, meta, first = start(trama, trace, cache, extra)
        m = status(p.pid)
        print(f"{run}: first window after {first:.2f} s; RSS {m['VmRSS']} MB "
              f"(anonymous {m['RssAnon']}, file {m['RssFile']}), peak {m['VmHWM']} MB")
        if run == "first view":
            print(f"| window (of the run) | median | 95th percentile (target 50 ms) | reply ({BODY}) | on the wire, {ENCODING} (target 1 MB) | on the wire, 95th percentile |")
            print("|---|---:|---:|---:|---:|---:|")
            windows(url, meta)
            m = status(p.pid)
            print(f"after the queries: RSS {m['VmRSS']} MB (anonymous {m['RssAnon']}), peak {m['VmHWM']} MB")
        p.terminate()
        p.wait()
