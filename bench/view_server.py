"""What the benchmarks of `trama view` (bench/view.py, bench/view_load.py)
share: waiting for a started server's trace to be ready."""
import json, sys, time, urllib.request


def ready(p, tries=None):
    """The address and meta of the server `p` (a `trama view --port 0`
    started with its standard output piped as text) once its trace is
    ready, asked every 20 ms (at most `tries` times when given); exits
    with the server's error when the reading failed."""
    url = p.stdout.readline().split()[-1]
    n = 0
    while tries is None or n < tries:
        n += 1
        s = json.load(urllib.request.urlopen(url + "api/progress"))
        if s["state"] == "ready":
            break
        if s["state"] == "failed":
            sys.exit(s["error"])
        time.sleep(0.02)
    return url, json.load(urllib.request.urlopen(url + "api/meta"))
