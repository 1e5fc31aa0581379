"""The analyses: each equals `trama stats ... --format json`; pipit's
ping-pong trace gives the communication pipit's own tests expect."""

import re
import shutil
import subprocess

import pytest

import trama
from conftest import PING_PONG, SAMPLES, TRACES, run, stats_json

ANALYSES = ["states", "comm", "wait", "slices", "order", "kiviat", "info", "graph"]


def test_every_analysis_equals_trama_stats_json(sample):
    """Regression: each analysis is the document of `trama stats`."""
    t = trama.open(sample)
    for a in ANALYSES:
        try:
            want = stats_json(a, sample)
        except AssertionError:
            # The command line refuses it (no hosts to choose, say): so
            # does the package.
            with pytest.raises(trama.TraceError):
                t.stats(a)
            continue
        assert t.stats(a) == want, f"{sample.name}: {a}"


def test_typed_analyses_hold_the_documents_rows(sample):
    """Regression: the Arrow tables of the analyses hold the rows of the
    JSON documents, column for column."""
    t = trama.open(sample)
    states = stats_json("states", sample)
    p = t.time_per_state()
    assert p.rows.to_pylist() == states["rows"]
    assert p.imbalance.to_pylist() == states["imbalance"]
    assert t.load_imbalance().to_pylist() == states["imbalance"]
    assert p.window == (states["window"]["start"], states["window"]["end"])
    comm = stats_json("comm", sample)
    m = t.comm_matrix(size_field=None)
    assert m.pairs.to_pylist() == comm["pairs"] and m.containers == comm["containers"]
    wait = stats_json("wait", sample)
    w = t.wait_matrix()
    cells = sum(1 for r in wait["rows"] for x in r["seconds"] if x != 0)
    assert w.rows.num_rows == cells
    assert w.totals.to_pylist() == [
        {"container": r["container"], "time": r["time"], "waiting": r["waiting"]} for r in wait["rows"]
    ]
    s = stats_json("slices", sample, "--slices", "7")
    sl = t.slices(n=7)
    assert sl.starts == s["starts"]
    assert sl.states.num_rows == len(s["rows"]) * len(s["values"])
    assert sl.messages["sent"].to_pylist() == [r["sent"] for r in s["rows"]]


def test_analysis_options_are_those_of_the_command_line():
    """Regression: window, level, slices, waiting and link types mean what
    the flags mean."""
    path = SAMPLES / TRACES[3]
    t = trama.open(path)
    assert t.stats("states", window="0.5:2") == stats_json("states", path, "--window", "0.5:2")
    assert t.stats("states", window=(0.5, None)) == stats_json("states", path, "--window", "0.5:")
    assert t.stats("slices", slices=3) == stats_json("slices", path, "--slices", "3")
    assert t.stats("wait", waiting=["Exec"]) == stats_json("wait", path, "--waiting", "Exec")
    w = trama.open(path, window="1:3")
    assert w.stats("comm") == stats_json("comm", path, "--window", "1:3")
    levels = [r["name"] for r in t.types().to_pylist() if r["kind"] == "container" and r["depth"] == 1]
    lvl = levels[0]
    assert t.stats("states", level=lvl) == stats_json("states", path, "--level", lvl)


def test_pipit_ping_pong_communication_matrix():
    """Regression: pipit's tests on its ping-pong trace expect 4,177,920
    bytes and 8 messages in each direction."""
    t = trama.open(PING_PONG)
    m = t.comm_matrix()
    assert m.size_field == "Size"
    pairs = m.pairs.to_pylist()
    assert len(pairs) == 2
    for p in pairs:
        assert p["count"] == 8 and p["bytes"] == 4177920
    assert {(p["from"], p["to"]) for p in pairs} == {
        (m.containers[0], m.containers[1]),
        (m.containers[1], m.containers[0]),
    }
    assert t.stats("comm", size_field="Size") == stats_json("comm", PING_PONG, "--size-field", "Size")
    msgs = t.messages()
    assert msgs.num_rows == 16 and sum(msgs["size"].to_pylist()) == 2 * 4177920
    h = t.message_histogram(bins=10)
    assert sum(h["count"].to_pylist()) == 16
    assert h["low"][0].as_py() == min(msgs["size"].to_pylist())
    assert h["high"][9].as_py() == max(msgs["size"].to_pylist())


def test_profiles_add_up_the_rows():
    """Regression: the flat profile adds up the containers' rows; the time
    profile adds up the slices' containers; idle time picks the values."""
    t = trama.open(PING_PONG)
    rows = t.time_per_state().rows.to_pylist()
    flat = {(r["state_type"], r["value"]): r for r in t.flat_profile().to_pylist()}
    for key, f in flat.items():
        mine = [r for r in rows if (r["state_type"], r["value"]) == key]
        assert f["count"] == sum(r["count"] for r in mine)
        assert f["exclusive"] == pytest.approx(sum(r["exclusive"] for r in mine))
    assert len(flat) == len({(r["state_type"], r["value"]) for r in rows})
    doc = stats_json("slices", PING_PONG, "--slices", "5")
    tp = t.time_profile(bins=5).to_pylist()
    for r in tp:
        k = doc["values"].index(r["value"])
        want = sum(x["seconds"][k] for x in doc["rows"] if x["slice"] == r["bin"])
        assert r["seconds"] == pytest.approx(want)
        assert r["end"] == pytest.approx(r["start"] + doc["length"])
    idle = {r["container"]: r["idle"] for r in t.idle_time(values=["MPI_Recv"]).to_pylist()}
    for c, v in idle.items():
        assert v == pytest.approx(sum(r["exclusive"] for r in rows if r["container"] == c and r["value"] == "MPI_Recv"))


def test_time_profile_equals_pipits_ground_truth():
    """Regression: on the ping-pong trace, 62 bins from the first event to
    the last, the normalized time profile is what pipit's tests take from
    Vampir's Function Summary chart."""
    # pipit's bins span the archive's records, from its clock's start to
    # the last record (PROGRAM_END, which trama does not map): the clock's
    # length, as the OTF2 library's otf2-print reads it.
    if shutil.which("otf2-print") is None:
        pytest.skip("otf2-print (Debian's otf2-tools) not found")
    defs = subprocess.run(["otf2-print", "-G", str(PING_PONG)], capture_output=True, text=True).stdout
    clock = re.search(r"Ticks per Seconds: (\d+), Global Offset: \d+, Length: (\d+)", defs)
    end = int(clock.group(2)) / int(clock.group(1))
    t = trama.open(PING_PONG)
    tp = t.time_profile(bins=62, window=(0.0, end), normalized=True).to_pylist()
    share = {(r["bin"], r["value"]): r["seconds"] for r in tp}
    main, init = "int main(int, char**)", "MPI_Init"
    truth = {
        0: {main: 0.00299437, init: 0.93999815, "MPI_Send": 0.0, "MPI_Recv": 0.0},
        60: {main: 0.39464799, init: 0.14843661, "MPI_Send": 0.24594134, "MPI_Recv": 0.21017099,
             "MPI_Comm_size": 0.00046047, "MPI_Comm_rank": 0.00034261, "MPI_Finalize": 0.0},
        61: {main: 0.43560727, init: 0.0, "MPI_Send": 0.29640222, "MPI_Recv": 0.24300865,
             "MPI_Comm_size": 0.0, "MPI_Comm_rank": 0.0, "MPI_Finalize": 0.01614835},
    }
    for b in range(1, 60):
        truth[b] = {main: 0.0, init: 1.0, "MPI_Send": 0.0, "MPI_Finalize": 0.0}
    for b, values in truth.items():
        for v, x in values.items():
            assert share.get((b, v), 0.0) == pytest.approx(x, rel=1e-5, abs=1e-8), (b, v)


WHY = ["waits", "critical-path", "delays"]


def test_why_analyses_equal_trama_stats_json(mpi_runs):
    """Regression: `waits`, `critical-path` and `delays` (with their
    options `instances` and `by`) are the documents of `trama stats`, on
    MPI runs of every kind: generated (Pajé, and OTF2 when it could be
    written), pipit's Score-P ping-pong, SimGrid's SMPI replay."""
    traces = [mpi_runs / "waits.paje", mpi_runs / "chain.paje", PING_PONG,
              SAMPLES / "paje-real/simgrid/smpi-replay.paje"]
    if (mpi_runs / "waits/traces.otf2").exists():
        traces.append(mpi_runs / "waits/traces.otf2")
    for path in traces:
        t = trama.open(path)
        for a in WHY:
            assert t.stats(a) == stats_json(a, path), (path, a)
        assert t.stats("waits", instances=5, by="region") == stats_json(
            "waits", path, "--instances", "5", "--by", "region"
        ), path
        assert t.stats("critical-path", by="container") == stats_json(
            "critical-path", path, "--by", "container"
        ), path
    generated = trama.open(traces[0])
    assert generated.stats("waits")["rows"] and generated.stats("critical-path")["segments"]
    with pytest.raises(trama.TraceError):
        generated.stats("waits", by="rank")


def test_why_analyses_refuse_a_ptb_read_for_a_window_only(mpi_runs, tmp_path):
    """Regression: a `.ptb` opened with a window holds only what its
    keyframes on give, which loses MPI calls begun before: the wait
    states would be wrong, so they are refused with what to do instead;
    read whole, the window given to the call equals `trama stats`."""
    ptb = tmp_path / "waits.ptb"
    run("convert", mpi_runs / "waits.paje", ptb)
    part = trama.open(ptb, window="0.01:")
    for a in WHY:
        with pytest.raises(trama.TraceError, match="whole run"):
            part.stats(a)
    assert part.stats("states") == stats_json("states", ptb, "--window", "0.01:")
    whole = trama.open(ptb)
    assert whole.stats("waits", window="0.01:") == stats_json("waits", ptb, "--window", "0.01:")


def test_otf2_collectives_keep_their_root_by_default(mpi_runs):
    """Regression: an OTF2 archive opened with the default options keeps
    the user-defined fields that give a collective its root, so that Late
    Broadcast and Early Reduce are found, as by `trama stats waits`;
    `user_fields=False` drops them (and the roots)."""
    path = mpi_runs / "waits/traces.otf2"
    if not path.exists():
        pytest.skip("no Python with the OTF2 module (python3-otf2) to write the archive")
    patterns = lambda doc: {r["pattern"] for r in doc["rows"]}
    found = trama.open(path).stats("waits")
    assert {"late_broadcast", "early_reduce"} <= patterns(found)
    assert found == stats_json("waits", path)
    bare = trama.open(path, user_fields=False).stats("waits")
    assert not {"late_broadcast", "early_reduce"} & patterns(bare)
