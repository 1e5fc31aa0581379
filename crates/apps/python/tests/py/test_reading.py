"""Opening: the reading options of the command line, errors as the command
line prints them, and the viewer."""

import shutil
import urllib.request

import pytest

import trama
from conftest import PING_PONG, SAMPLES, TRACES, run, stats_json

BUGGY = SAMPLES / "paje-real/starpu/pajengr-starpu.buggy.trace"


def cli_error(*args):
    """The message `trama` prints for a failure, without `trama: error: `."""
    p = run(*args, check=False)
    assert p.returncode != 0
    lines = [l for l in p.stderr.splitlines() if not l.startswith("trama: warning")]
    text = "\n".join(lines)
    assert text.startswith("trama: error: ")
    return text[len("trama: error: "):]


def test_a_text_error_carries_file_and_line():
    """Regression: an invalid Pajé line is a TraceError with the message,
    the file and the line `trama` gives."""
    with pytest.raises(trama.TraceError) as e:
        trama.open(BUGGY)
    assert str(e.value) == cli_error("dump", BUGGY)
    assert e.value.file == str(BUGGY)
    assert e.value.line is not None and f":{e.value.line}:" in str(e.value)
    assert e.value.offset is None


def test_a_binary_error_carries_the_offset(tmp_path):
    """Regression: a damaged OTF2 archive is a TraceError with the byte
    offset `trama` gives."""
    bad = tmp_path / "pp"
    shutil.copytree(PING_PONG.parent, bad)
    anchor = bad / "traces.otf2"
    anchor.write_bytes(anchor.read_bytes()[:200])
    with pytest.raises(trama.TraceError) as e:
        trama.open(anchor)
    assert str(e.value) == cli_error("dump", anchor)
    assert e.value.offset is not None and f"byte {e.value.offset}" in str(e.value)
    assert e.value.line is None


def test_a_missing_file_is_file_not_found(tmp_path):
    """Regression: a path that does not exist raises FileNotFoundError."""
    missing = tmp_path / "none.paje"
    with pytest.raises(FileNotFoundError) as e:
        trama.open(missing)
    assert e.value.filename == str(missing)
    assert str(missing) in cli_error("dump", missing)


def test_lenient_reads_what_strict_refuses():
    """Regression: lenient=True is --lenient: the trace reads, with the
    warnings and the rows of `trama dump --lenient`."""
    t = trama.open(BUGGY, lenient=True)
    assert t.warnings
    lines = run("dump", "--lenient", BUGGY).stdout.splitlines()
    states = sum(1 for l in lines if l.startswith("State,"))
    assert t.states().num_rows == states
    assert t.stats("states") == stats_json("states", BUGGY, "--lenient")


def test_reading_flags_change_what_is_read():
    """Regression: strip_quotes, stop_at, no_imbrication read as the
    flags do."""
    path = SAMPLES / TRACES[4]
    for kwargs, flags in [
        ({"strip_quotes": True}, ["--strip-quotes"]),
        ({"stop_at": 0.5}, ["-a", "0.5"]),
        ({"no_imbrication": True}, ["-i"]),
        ({"threads": 1}, ["-j", "1"]),
    ]:
        t = trama.open(path, **kwargs)
        assert t.stats("states") == stats_json("states", path, *flags), kwargs


def test_sort_window_reorders_a_text_trace(tmp_path, ptb):
    """Regression: sort_window is --sort-window, and a .ptb refuses it as
    the command line does."""
    path = SAMPLES / TRACES[0]
    t = trama.open(path, sort_window=0.5)
    assert t.stats("states") == stats_json("states", path, "--sort-window", "0.5")
    with pytest.raises(trama.TraceError) as e:
        trama.open(ptb, sort_window=0.5)
    assert str(e.value) == cli_error("dump", "--sort-window", "0.5", ptb)


def test_view_serves_the_trace():
    """Regression: trama.view starts the viewer and returns its URL, a link
    in Jupyter; the page and its API answer."""
    t = trama.open(PING_PONG)
    url = trama.view(t)
    try:
        assert url.startswith("http://127.0.0.1:")
        assert f'href="{url}"' in url._repr_html_()
        with urllib.request.urlopen(url) as r:
            assert r.status == 200 and b"<html" in r.read().lower()
        with urllib.request.urlopen(url + "api/meta") as r:
            assert r.status == 200 and b"MPI Rank 0" in r.read()
    finally:
        url.stop()
    other = trama.view(PING_PONG)
    try:
        assert other != url and other.startswith("http://127.0.0.1:")
    finally:
        other.stop()
