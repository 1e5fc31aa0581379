"""trama in Python: a trace's tables as Apache Arrow, its analyses, its viewer.

    import trama
    t = trama.open("run.otf2")            # any trace trama reads
    t.states().to_pandas()                # the tables of `trama export parquet`
    t.time_per_state().rows               # `trama stats states`, as Arrow tables
    t.comm_matrix().pairs                 # `trama stats comm`
    trama.view(t)                         # the viewer of `trama view`

Every function calls trama's Rust libraries: reading and simulating
(`trama-open`), the analyses (`trama-analysis`, whose results are the JSON
documents of `trama stats ... --format json`), the viewer. Tables cross to
pyarrow without a copy (the Arrow C stream interface). The guide is
docs/python.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence, Tuple, Union

import pyarrow as pa
import pyarrow.compute as pc

from . import _trama
from ._trama import TraceError

__all__ = [
    "open",
    "view",
    "Trace",
    "TraceError",
    "StateProfile",
    "CommMatrix",
    "WaitMatrix",
    "Slices",
    "View",
]

Window = Union[None, str, Tuple[Optional[float], Optional[float]]]

# The size field is guessed from the links' user-defined fields.
AUTO = "auto"


def _window(w: Window) -> Optional[str]:
    """A window as `trama --window` takes it: "START:END" (either side empty)."""
    if w is None or isinstance(w, str):
        return w
    a, b = w
    return f"{'' if a is None else repr(float(a))}:{'' if b is None else repr(float(b))}"


def open(
    path,
    *,
    lenient: bool = False,
    sort_window: Optional[float] = None,
    window: Window = None,
    strip_quotes: bool = False,
    stop_at: Optional[float] = None,
    ignore_incomplete_links: bool = False,
    no_imbrication: bool = False,
    no_strict: bool = False,
    threads: int = 0,
    user_fields: bool = True,
) -> "Trace":
    """Opens, reads and simulates a trace, held in memory.

    Any input `trama dump` reads, told from its content: Pajé text (plain,
    gzip, zstd), `.ptb`, OTF2 (the anchor `.otf2`), Paraver (`.prv`), the
    proposal's `.rst`, and the sources of `trama merge` (OpenTS, Ganglia,
    PCP, sched, CLOG-2, ...). The options are the reading flags of the
    command line: `lenient` (--lenient), `sort_window` (--sort-window),
    `window` (--window: only what overlaps it is read where the format
    allows, and it is the analyses' default window; the wait states,
    critical path and delays of a `.ptb` read so are refused, as they
    match MPI calls across the whole run: open it whole and give them the
    window), `strip_quotes`,
    `stop_at` (-a), `ignore_incomplete_links` (-z), `no_imbrication` (-i),
    `no_strict` (-n), `threads` (-j). `user_fields` keeps the user-defined
    fields (a message's size, for bytes and rates).

    Raises `TraceError` (with `file`, `line`, `offset`) for an invalid
    trace, `FileNotFoundError` for a path that does not exist.
    """
    inner = _trama.open(
        str(path),
        lenient=lenient,
        sort_window=sort_window,
        window=_window(window),
        strip_quotes=strip_quotes,
        stop_at=stop_at,
        ignore_incomplete_links=ignore_incomplete_links,
        no_imbrication=no_imbrication,
        no_strict=no_strict,
        threads=threads,
        user_fields=user_fields,
    )
    return Trace(inner)


class View(str):
    """The URL of a running viewer (a `str`); a link in Jupyter."""

    _viewer: object

    def _repr_html_(self) -> str:
        return f'<a href="{self}" target="_blank" rel="noopener">trama view: {self}</a>'

    def stop(self) -> None:
        """Stops serving."""
        self._viewer.stop()


def view(trace_or_path, *, port: Optional[int] = None, **options) -> View:
    """Serves a trace (a `Trace`, or a path opened with `options`) with the
    viewer of `trama view`, on 127.0.0.1 (the first free port from 8060,
    or `port`), until the process ends or `.stop()`; returns its URL."""
    t = trace_or_path if isinstance(trace_or_path, Trace) else open(trace_or_path, **options)
    v = t._inner.view(port=port)
    url = View(v.url)
    url._viewer = v
    return url


@dataclass
class StateProfile:
    """Time per state (`trama stats states`): `rows`, one per container,
    state type and value (count, total, exclusive, inclusive, mean, min,
    max, share of the window); `imbalance`, the load imbalance per state type and
    value across containers (their exclusive times)."""

    window: Tuple[float, float]
    level: Optional[str]
    rows: pa.Table
    imbalance: pa.Table
    notes: list = field(default_factory=list)


@dataclass
class CommMatrix:
    """Messages per pair of containers (`trama stats comm`): `pairs` (from,
    to, count, bytes, rate in bit/s) over `containers`."""

    window: Tuple[float, float]
    level: Optional[str]
    size_field: Optional[str]
    containers: list
    pairs: pa.Table
    unplaced: int
    without_size: int

    def to_numpy(self, metric: str = "count"):
        """The square matrix of `metric` (count, bytes or rate), rows the
        senders and columns the receivers in the order of `containers`."""
        import numpy as np

        index = {c: i for i, c in enumerate(self.containers)}
        m = np.zeros((len(index), len(index)))
        for p in self.pairs.to_pylist():
            m[index[p["from"]], index[p["to"]]] = p[metric] or 0
        return m


@dataclass
class WaitMatrix:
    """Who waited for whom (`trama stats wait`): `rows`, one per waiting
    container and sender with non-zero seconds; `totals`, each container's
    time and waiting."""

    window: Tuple[float, float]
    patterns: list
    waiting_states: list
    senders: list
    rows: pa.Table
    totals: pa.Table
    notes: list = field(default_factory=list)


@dataclass
class Slices:
    """Per time slice and container (`trama stats slices`): `states`,
    exclusive seconds per value; `messages`, messages sent and received."""

    window: Tuple[float, float]
    length: float
    starts: list
    states: pa.Table
    messages: pa.Table


_PROFILE = pa.schema(
    [
        ("container", pa.string()),
        ("container_type", pa.string()),
        ("containers", pa.int64()),
        ("state_type", pa.string()),
        ("value", pa.string()),
        ("count", pa.int64()),
        ("total", pa.float64()),
        ("exclusive", pa.float64()),
        ("inclusive", pa.float64()),
        ("mean", pa.float64()),
        ("min", pa.float64()),
        ("max", pa.float64()),
        ("share", pa.float64()),
    ]
)
_IMBALANCE = pa.schema(
    [
        ("state_type", pa.string()),
        ("value", pa.string()),
        ("containers", pa.int64()),
        ("mean", pa.float64()),
        ("max", pa.float64()),
        ("imbalance", pa.float64()),
        ("stddev", pa.float64()),
    ]
)
_PAIRS = pa.schema(
    [
        ("from", pa.string()),
        ("to", pa.string()),
        ("count", pa.int64()),
        ("bytes", pa.float64()),
        ("rate", pa.float64()),
    ]
)
_WAITS = pa.schema(
    [
        ("container", pa.string()),
        ("sender", pa.string()),
        ("seconds", pa.float64()),
        ("share_of_time", pa.float64()),
        ("share_of_waiting", pa.float64()),
    ]
)
_ORDER = pa.schema(
    [
        ("host", pa.string()),
        ("host_sent_off_host", pa.int64()),
        ("process", pa.string()),
        ("process_sent_off_host", pa.int64()),
    ]
)


def _span(doc: dict) -> Tuple[float, float]:
    return (doc["window"]["start"], doc["window"]["end"])


class Trace:
    """A trace held in memory (see `trama.open`)."""

    def __init__(self, inner):
        self._inner = inner

    def __repr__(self) -> str:
        a, b = self.span
        return f"<trama.Trace {self.name!r} [{a}, {b}] s>"

    @property
    def name(self) -> str:
        """The input's path."""
        return self._inner.name

    @property
    def span(self) -> Tuple[float, float]:
        """The trace's start and end, in seconds."""
        return self._inner.span

    @property
    def warnings(self) -> list:
        """What reading it warned of."""
        return self._inner.warnings

    # The tables of `trama export parquet` (docs/parquet.md), each with the
    # partition column (`type`; `kind` for the types, `pattern` for the wait
    # states) as its last column.

    def table(self, name: str) -> pa.Table:
        """The table `name`: containers, states, events, links, variables,
        types, wait_states or critical_path."""
        return self._inner.table(name).read_all()

    def containers(self) -> pa.Table:
        """One row per container (the root included)."""
        return self.table("containers")

    def states(self) -> pa.Table:
        """One row per state."""
        return self.table("states")

    def events(self) -> pa.Table:
        """One row per event."""
        return self.table("events")

    def links(self) -> pa.Table:
        """One row per link."""
        return self.table("links")

    def variables(self) -> pa.Table:
        """One row per value of a variable, from one change to the next."""
        return self.table("variables")

    def types(self) -> pa.Table:
        """One row per type of the type hierarchy."""
        return self.table("types")

    def wait_states(self) -> pa.Table:
        """One row per wait state of the MPI run (Scalasca's patterns, the
        instances of `trama stats waits`): the waiting container, the one
        waited for, the waiting call's region and times, the waiting's
        `start_ns`, `end_ns`, `duration_ns`, and the `pattern`. Empty when
        the trace has no MPI process."""
        return self.table("wait_states")

    def critical_path(self) -> pa.Table:
        """One row per segment of the run's critical path (`trama stats
        critical-path`), in time order: container, `value` (the region the
        time is credited to, null outside any state), `start_ns`, `end_ns`,
        `duration_ns`, and the container's `type`. The durations add up to
        the run's length. Empty when the trace has no MPI process."""
        return self.table("critical_path")

    def _size_field(self, size_field: Optional[str]) -> Optional[str]:
        if size_field == AUTO:
            return self._inner.guess_size_field() if self._inner.user_fields else None
        return size_field

    def messages(
        self, window: Window = None, size_field: Optional[str] = AUTO, link_types: Sequence[str] = ()
    ) -> pa.Table:
        """Every message the communication matrix counts: sender and
        receiver (`from_id`, `from`, `to_id`, `to`), `start_ns`, `end_ns` and
        `size` in bytes (from `size_field`; guessed by default)."""
        return self._inner.messages(
            window=_window(window),
            size_field=self._size_field(size_field),
            link_types=list(link_types),
        ).read_all()

    def stats(self, analysis: str, **options) -> dict:
        """The JSON document of `trama stats ANALYSIS --format json` as a
        dict (any analysis: states, comm, order, info, wait, kiviat, slices,
        graph, waits, critical-path, delays). `options` are those of the
        command line with underscores: window, level, size_field, waiting,
        slices, slice_length, instants, at, link_types, instances (waits),
        by (waits, critical-path: "container" or "region")."""
        doc, _ = self._stats(analysis, **options)
        return doc

    def _stats(self, analysis: str, window: Window = None, **options) -> Tuple[dict, list]:
        for k in ("waiting", "link_types"):
            if k in options:
                options[k] = list(options[k])
        text, notes = self._inner.stats(analysis, window=_window(window), **options)
        return json.loads(text), notes

    # The analyses.

    def time_per_state(self, window: Window = None, level: Optional[str] = None) -> StateProfile:
        """Time per state per container, state type and value, with the load
        imbalance (`trama stats states`; `level` rolls rows up to the
        containers of that type)."""
        doc, notes = self._stats("states", window=window, level=level)
        return StateProfile(
            window=_span(doc),
            level=doc["level"],
            rows=pa.Table.from_pylist(doc["rows"], schema=_PROFILE),
            imbalance=pa.Table.from_pylist(doc["imbalance"], schema=_IMBALANCE),
            notes=notes,
        )

    def flat_profile(
        self, window: Window = None, per_container: bool = False, how: str = "sum"
    ) -> pa.Table:
        """The flat profile: per state type and value, the count and the
        total, exclusive and inclusive seconds of the containers that have
        it, added up (`how="sum"`) or their mean (`how="mean"`, pipit's
        `flat_profile()`); the rows per container with `per_container`."""
        rows = self.time_per_state(window).rows
        if per_container:
            return rows
        keys = ["state_type", "value"]
        metrics = ["count", "total", "exclusive", "inclusive"]
        t = rows.group_by(keys, use_threads=False).aggregate([(c, how) for c in metrics])
        t = t.rename_columns(keys + metrics)
        return t.sort_by([("exclusive", "descending"), ("state_type", "ascending"), ("value", "ascending")])

    def load_imbalance(self, window: Window = None, level: Optional[str] = None) -> pa.Table:
        """Per state type and value: the containers, mean and largest
        exclusive time, max / mean - 1 and the standard deviation."""
        return self.time_per_state(window, level).imbalance

    def comm_matrix(
        self,
        window: Window = None,
        level: Optional[str] = None,
        size_field: Optional[str] = AUTO,
        link_types: Sequence[str] = (),
    ) -> CommMatrix:
        """Messages per pair of containers (`trama stats comm`), with bytes
        and rates from `size_field` (guessed by default; None: counts only)."""
        doc, _ = self._stats(
            "comm",
            window=window,
            level=level,
            size_field=self._size_field(size_field),
            link_types=link_types,
        )
        return CommMatrix(
            window=_span(doc),
            level=doc["level"],
            size_field=doc["size_field"],
            containers=doc["containers"],
            pairs=pa.Table.from_pylist(doc["pairs"], schema=_PAIRS),
            unplaced=doc["unplaced"],
            without_size=doc["without_size"],
        )

    def message_histogram(
        self, bins: int = 20, window: Window = None, size_field: Optional[str] = AUTO
    ) -> pa.Table:
        """The messages' sizes in `bins` equal bins from the smallest to the
        largest (pipit's `message_histogram`): `low`, `high`, `count`."""
        sizes = pc.drop_null(self.messages(window, size_field)["size"])
        if len(sizes) == 0:
            return pa.table({"low": pa.array([], pa.float64()), "high": pa.array([], pa.float64()),
                             "count": pa.array([], pa.int64())})
        lo, hi = pc.min(sizes).as_py(), pc.max(sizes).as_py()
        width = (hi - lo) / bins if hi > lo else 1.0
        index = pc.cast(pc.floor(pc.divide(pc.subtract(sizes, lo), width)), pa.int64())
        index = pc.min_element_wise(index, bins - 1)
        counts = [0] * bins
        for v in pc.value_counts(index).to_pylist():
            counts[v["values"]] = v["counts"]
        edges = [lo + i * width for i in range(bins)] + [hi if hi > lo else lo + 1.0]
        return pa.table({"low": edges[:-1], "high": edges[1:], "count": pa.array(counts, pa.int64())})

    def slices(
        self, n: Optional[int] = None, length: Optional[float] = None, window: Window = None
    ) -> Slices:
        """Per time slice and container: exclusive seconds per state value,
        messages sent and received (`trama stats slices`; `n` slices, 25 by
        default, or slices of `length` seconds)."""
        doc, _ = self._stats("slices", window=window, slices=n, slice_length=length)
        starts, values = doc["starts"], doc["values"]
        states = {"slice": [], "start": [], "container": [], "value": [], "seconds": []}
        msgs = {"slice": [], "start": [], "container": [], "sent": [], "received": []}
        for r in doc["rows"]:
            s = r["slice"]
            for v, x in zip(values, r["seconds"]):
                for k, y in zip(states, (s, starts[s], r["container"], v, x)):
                    states[k].append(y)
            for k, y in zip(msgs, (s, starts[s], r["container"], r["sent"], r["received"])):
                msgs[k].append(y)
        return Slices(
            window=_span(doc),
            length=doc["length"],
            starts=starts,
            states=pa.table(states, schema=pa.schema([("slice", pa.int64()), ("start", pa.float64()),
                                                      ("container", pa.string()), ("value", pa.string()),
                                                      ("seconds", pa.float64())])),
            messages=pa.table(msgs, schema=pa.schema([("slice", pa.int64()), ("start", pa.float64()),
                                                      ("container", pa.string()), ("sent", pa.int64()),
                                                      ("received", pa.int64())])),
        )

    def time_profile(self, bins: int = 50, window: Window = None, normalized: bool = False) -> pa.Table:
        """Exclusive seconds per state value in each of `bins` equal time
        bins, added up over the containers (pipit's `time_profile`):
        `bin`, `start`, `end`, `value`, `seconds`; with `normalized`, the
        share of the bin's time of every container that has states in the
        window (pipit's `normalized=True`)."""
        s = self.slices(n=bins, window=window)
        t = s.states.group_by(["slice", "start", "value"], use_threads=False).aggregate([("seconds", "sum")])
        t = t.rename_columns(["slice", "start", "value", "seconds"]).sort_by(
            [("slice", "ascending"), ("value", "ascending")]
        )
        seconds = t["seconds"]
        if normalized:
            containers = len(set(s.states["container"].to_pylist()))
            seconds = pc.divide(seconds, s.length * containers) if s.length > 0 else seconds
        end = pc.add(t["start"], s.length)
        return pa.table({"bin": t["slice"], "start": t["start"], "end": end,
                         "value": t["value"], "seconds": seconds})

    def idle_time(
        self, values: Iterable[str] = ("Idle",), mpi: bool = False, window: Window = None
    ) -> pa.Table:
        """Per container holding states, the exclusive seconds in states of
        the given `values` (and in every `MPI_...` state with `mpi`), as
        pipit's `idle_time(idle_functions, mpi_events)`: `container`, `idle`."""
        rows = self.time_per_state(window).rows
        wanted = pc.is_in(rows["value"], value_set=pa.array(list(values), pa.string()))
        if mpi:
            wanted = pc.or_(wanted, pc.starts_with(rows["value"], "MPI_"))
        idle = pc.if_else(wanted, rows["exclusive"], 0.0)
        t = pa.table({"container": rows["container"], "idle": idle})
        t = t.group_by(["container"], use_threads=False).aggregate([("idle", "sum")])
        return t.rename_columns(["container", "idle"])

    def wait_matrix(
        self, window: Window = None, waiting: Sequence[str] = (), link_types: Sequence[str] = ()
    ) -> WaitMatrix:
        """Who waited for whom (`trama stats wait`): on an MPI run its wait
        states, each to the process waited for; else (or with `waiting`)
        waiting states (values matching `waiting`, or blocking calls)
        attributed to the sender of the last message received during them."""
        doc, notes = self._stats("wait", window=window, waiting=waiting, link_types=link_types)
        rows, totals = [], []
        for r in doc["rows"]:
            totals.append({"container": r["container"], "time": r["time"], "waiting": r["waiting"]})
            for i, sender in enumerate(doc["senders"]):
                if r["seconds"][i] != 0:
                    rows.append({"container": r["container"], "sender": sender,
                                 "seconds": r["seconds"][i], "share_of_time": r["share_of_time"][i],
                                 "share_of_waiting": r["share_of_waiting"][i]})
        return WaitMatrix(
            window=_span(doc),
            patterns=doc["patterns"],
            waiting_states=doc["waiting_states"],
            senders=doc["senders"],
            rows=pa.Table.from_pylist(rows, schema=_WAITS),
            totals=pa.Table.from_pylist(totals, schema=pa.schema(
                [("container", pa.string()), ("time", pa.float64()), ("waiting", pa.float64())])),
            notes=notes,
        )

    def order(self, window: Window = None, level: Optional[str] = None) -> pa.Table:
        """Hosts (containers of type `level`, else chosen from the trace) by
        the messages they put on the network, each with its processes
        (`trama stats order`)."""
        doc, _ = self._stats("order", window=window, level=level)
        rows = [
            {"host": h["host"], "host_sent_off_host": h["sent_off_host"],
             "process": p, "process_sent_off_host": n}
            for h in doc["hosts"]
            for p, n in h["processes"]
        ]
        return pa.Table.from_pylist(rows, schema=_ORDER)

    def view(self, port: Optional[int] = None) -> View:
        """Serves this trace with the viewer (see `trama.view`)."""
        return view(self, port=port)
