"""The tables: the same rows as `trama dump` and the same columns and
content as `trama export parquet`, for every format."""

import re

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import trama
from conftest import run

TABLES = ["containers", "states", "events", "links", "variables", "types", "wait_states", "critical_path"]
# The partition column of each table.
KEYS = {"types": "kind", "wait_states": "pattern"}
NUM, G = r"(-?\d+\.\d{9})", r"([-+0-9.e]+|-?inf|nan)"
LINE = {
    "Container": rf"^Container, (.*?), (.*), {G}, {G}, {G}, (.*)$",
    "State": rf"^State, (.*?), (.*), {NUM}, {NUM}, {NUM}, {NUM}, (.*)$",
    "Event": rf"^Event, (.*?), (.*), {NUM}, (.*)$",
    "Link": rf"^Link, (.*?), (.*), {NUM}, {NUM}, {NUM}, (.*), (.*?), (.*?), ([^,]*)$",
    "Variable": rf"^Variable, (.*?), (.*), {NUM}, {NUM}, {NUM}, {NUM}$",
}
KIND = {"Container": "containers", "State": "states", "Event": "events", "Link": "links", "Variable": "variables"}


def plain(t: pa.Table) -> pa.Table:
    """`t` with its dictionary columns as plain strings."""
    cols = [c.cast(pa.string()) if pa.types.is_dictionary(c.type) else c for c in t.columns]
    return pa.table(cols, names=t.column_names)


def exported(tmp_path, path, *flags):
    """The tables of `trama export parquet PATH FLAGS`, read back with the
    partition column as a string."""
    out = tmp_path / "export"
    run("export", "parquet", path, "-o", out, *flags)
    tables = {}
    for name in TABLES:
        key = KEYS.get(name, "type")
        part = ds.partitioning(pa.schema([(key, pa.string())]), flavor="hive")
        t = ds.dataset(out / name, format="parquet", partitioning=part).to_table()
        # An empty table's partition is the default one (NULL).
        tables[name] = t.filter(ds.field(key).is_valid()) if t.num_rows == 0 else t
    return tables


def sort_keys(name):
    if name in ("containers", "types"):
        return [("id", "ascending")]
    if name == "wait_states":
        return [(k, "ascending") for k in ("pattern", "container_id", "start_ns", "call_start_ns")]
    if name == "critical_path":
        return [("start_ns", "ascending")]
    return [("type_id", "ascending"), ("container_id", "ascending"), ("seq", "ascending")]


def test_tables_equal_the_parquet_export(sample, tmp_path):
    """Regression: every table has the export's columns, types and rows."""
    t = trama.open(sample)
    expected = exported(tmp_path, sample)
    for name in TABLES:
        got = plain(t.table(name))
        want = expected[name]
        assert got.column_names == want.column_names, name
        want = want.select(got.column_names).cast(got.schema)
        assert got.num_rows == want.num_rows, name
        keys = sort_keys(name)
        assert got.sort_by(keys).equals(want.sort_by(keys)), f"{sample.name}: {name}"


def dump_rows(path, *flags):
    """`trama dump -l 9` of `path`: per table, the lines' fields."""
    rows = {v: [] for v in KIND.values()}
    # Type names and values may hold ", ": the numbers tell the fields apart.
    for line in run("dump", "-l", "9", path, *flags).stdout.splitlines():
        kind = line.split(", ", 1)[0]
        m = re.match(LINE[kind], line)
        assert m, line
        rows[KIND[kind]].append(list(m.groups()))
    return rows


def label(s):
    """A name as the tables give it (PajeNG keeps quotes in names)."""
    return s[1:-1] if len(s) >= 2 and s[0] == s[-1] == '"' else s


def ns(s):
    return round(float(s) * 1e9)


def test_tables_hold_the_rows_of_dump(sample):
    """Regression: as many rows of each kind as `trama dump` prints, with
    the same containers, types, values and times (to the nanosecond)."""
    t = trama.open(sample)
    dump = dump_rows(sample)
    containers = t.containers().to_pylist()
    by_id = {c["id"]: c for c in containers}
    assert len(containers) == len(dump["containers"])
    got = sorted(
        (by_id[c["parent_id"]]["name"] if c["parent_id"] is not None else "0", c["type"], c["name"])
        for c in containers
    )
    assert got == sorted((label(f[0]), label(f[1]), label(f[5])) for f in dump["containers"])

    def close(a, b):
        assert len(a) == len(b)
        for x, y in zip(sorted(a), sorted(b)):
            assert x[:-1] == y[:-1] and abs(x[-1] - y[-1]) <= 1, (x, y)

    for name, row in [
        ("states", lambda r: (r["container"], r["type"], r["value"], r["level"], r["start_ns"])),
        ("events", lambda r: (r["container"], r["type"], r["value"], r["time_ns"])),
        ("links", lambda r: (r["container"], r["type"], r["value"], r["start_container"],
                             r["end_container"], r["key"], r["start_ns"])),
        ("variables", lambda r: (r["container"], r["type"], r["start_ns"])),
    ]:
        mine = [row(r) for r in t.table(name).to_pylist()]
        theirs = []
        for f in dump[name]:
            if name == "states":
                theirs.append((label(f[0]), label(f[1]), label(f[6]), round(float(f[5])), ns(f[2])))
            elif name == "events":
                theirs.append((label(f[0]), label(f[1]), label(f[3]), ns(f[2])))
            elif name == "links":
                ends = [None if x == "NULL" else label(x) for x in f[6:8]]
                theirs.append((label(f[0]), label(f[1]), label(f[5]), *ends, f[8], ns(f[2])))
            else:
                theirs.append((label(f[0]), label(f[1]), ns(f[2])))
        close(mine, theirs)


def test_a_ptb_gives_the_tables_of_its_text(ptb):
    """Regression: trama's binary format reads into the same tables as the
    text it was made from."""
    from conftest import SAMPLES, TRACES

    a, b = trama.open(ptb), trama.open(SAMPLES / TRACES[3])
    for name in TABLES:
        keys = sort_keys(name)
        assert a.table(name).sort_by(keys).equals(b.table(name).sort_by(keys)), name


def test_tables_convert_to_pandas_and_polars(sample):
    """Regression: the usual Arrow routes work, row for row."""
    t = trama.open(sample)
    states = t.states()
    pd = pytest.importorskip("pandas")
    df = states.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == states.num_rows
    if states.num_rows:
        assert df["value"].iloc[0] == states["value"][0].as_py()
    pl = pytest.importorskip("polars")
    assert pl.from_arrow(states).height == states.num_rows


def test_wait_states_and_critical_path_equal_the_export_and_trama_stats(mpi_runs):
    """Regression: `wait_states()` and `critical_path()` are the export's
    tables, hold the instances of `trama stats waits` and the segments of
    `trama stats critical-path`, and the segments add up to the run."""
    from conftest import stats_json

    traces = [mpi_runs / "waits.paje", mpi_runs / "chain.paje"]
    if (mpi_runs / "waits/traces.otf2").exists():
        traces.append(mpi_runs / "waits/traces.otf2")
    for i, path in enumerate(traces):
        t = trama.open(path)
        out = mpi_runs.parent / f"export-{i}"
        out.mkdir(exist_ok=True)
        expected = exported(out, path)
        for name in ("wait_states", "critical_path"):
            got = plain(t.table(name))
            want = expected[name].select(got.column_names).cast(got.schema)
            keys = sort_keys(name)
            assert got.num_rows > 0 and got.sort_by(keys).equals(want.sort_by(keys)), (path, name)
        waits = stats_json("waits", path, "--instances", "1000000")["instances"]
        rows = t.wait_states().to_pylist()
        key = lambda p, c, w, r, s, d: (p, c, w, r, s, d)
        assert sorted(
            key(r["pattern"], r["container"], r["waited_for"], r["region"], r["start_ns"], r["duration_ns"])
            for r in rows
        ) == sorted(
            key(w["pattern"], w["container"], w["waited_for"], w["region"], ns(w["start"]),
                ns(w["start"] + w["duration"]) - ns(w["start"]))
            for w in waits
        ), path
        cp = stats_json("critical-path", path)
        segs = t.critical_path().sort_by("start_ns").to_pylist()
        assert [(s["container"], s["value"], s["start_ns"], s["end_ns"]) for s in segs] == [
            (s["container"], s["value"], ns(s["start"]), ns(s["end"])) for s in cp["segments"]
        ], path
        a, b = t.span
        assert sum(s["duration_ns"] for s in segs) == ns(b) - ns(a)

