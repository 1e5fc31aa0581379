#!/usr/bin/env python3
"""Loads `trama view` with many clients at once and measures the server's
memory and the latency of its replies.

Usage: bench/view_load.py TRAMA TRACE [CLIENTS [WINDOWS [HALF_OPEN]]]

CLIENTS threads (default 200) each ask for WINDOWS random windows (default
5: a random span of 0.1 % to 10 % of the run, 3 × 1920 columns, 46 rows) on
one connection per query, all started at once. The server's RSS is sampled
every 20 ms; replies are counted by status (503 = shed, retried by no one
here, unless RETRY=1 is in the environment: then a client asks again after
the Retry-After delay, and the latency is the whole wait). Then HALF_OPEN connections (default 1000) send half a request line
and nothing more: how many the server still holds open 5 s, 15 s and 45 s
later. Every address is 127.0.0.1; every loop is bounded."""
import json, os, random, socket, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.request
from view_server import ready


def rss(pid):
    out = {}
    for line in open(f"/proc/{pid}/status"):
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            out[k] = int(v.split()[0]) // 1024
    return out


def start(trama, trace, cache):
    p = subprocess.Popen([trama, "view", "--no-open", "--no-progress", "--port", "0",
                          "--cache", cache, "--blocks", trace],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url, meta = ready(p, tries=6000)
    return p, url, meta


def client(url, meta, n, seed, lat, status):
    rnd = random.Random(seed)
    t0, t1, rows = meta["start"], meta["end"], len(meta["rows"])
    for _ in range(n):
        span = (t1 - t0) * 10 ** rnd.uniform(-3, -1)
        a = t0 + rnd.random() * (t1 - t0 - span)
        r0 = rnd.randrange(0, max(1, rows - 45))
        q = (f"{url}api/timeline?start={a}&end={a + span}&width={3 * 1920}"
             f"&rows={r0}-{min(rows - 1, r0 + 45)}")
        s = time.perf_counter()
        for _ in range(1000):
            try:
                with urllib.request.urlopen(q, timeout=300) as r:
                    r.read()
                    code = r.status
            except urllib.error.HTTPError as e:
                code = e.code
                if code == 503 and RETRY:
                    time.sleep(float(e.headers.get("Retry-After", "1")))
                    continue
            except OSError as e:
                code = type(e).__name__
            break
        lat.append(time.perf_counter() - s)
        status[code] = status.get(code, 0) + 1


def open_count(sockets):
    """How many of `sockets` the server has not closed."""
    n = 0
    for s in sockets:
        s.setblocking(False)
        try:
            n += s.recv(1) != b""
        except BlockingIOError:
            n += 1
        except OSError:
            pass
    return n


RETRY = os.environ.get("RETRY") == "1"
trama, trace = sys.argv[1], sys.argv[2]
clients = int(sys.argv[3]) if len(sys.argv) > 3 else 200
windows = int(sys.argv[4]) if len(sys.argv) > 4 else 5
half_open = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
with tempfile.TemporaryDirectory() as cache:
    p, url, meta = start(trama, trace, cache)
    before = rss(p.pid)
    peak = [before["VmRSS"]]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss(p.pid)["VmRSS"])
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    lat, status = [], {}
    threads = [threading.Thread(target=client, args=(url, meta, windows, i, lat, status))
               for i in range(clients)]
    s = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - s
    done.set()
    sampler.join()
    after = rss(p.pid)
    lat.sort()
    pick = lambda q: 1e3 * lat[min(len(lat) - 1, int(q * len(lat)))]
    print(f"{clients} clients x {windows} windows in {wall:.1f} s; replies {status}")
    print(f"RSS ready {before['VmRSS']} MB, peak {max(peak[0], after['VmHWM'])} MB, "
          f"after {after['VmRSS']} MB")
    print(f"latency median {pick(0.5):.0f} ms, p95 {pick(0.95):.0f} ms, p99 {pick(0.99):.0f} ms")
    host, port = url.split("/")[2].rsplit(":", 1)
    held = []
    for _ in range(half_open):
        c = socket.create_connection((host, int(port)))
        c.sendall(b"GET /" + url.split("/")[3].encode() + b"/api/me")
        held.append(c)
    start_t = time.perf_counter()
    for at in (5, 15, 45):
        time.sleep(max(0, at - (time.perf_counter() - start_t)))
        print(f"half-open connections still open after {at} s: {open_count(held)} of {half_open}")
    for c in held:
        c.close()
    p.terminate()
    p.wait()
