#!/usr/bin/python3
"""Writes small OTF2 archives of known content with Debian's python3-otf2,
each about one point of trama's mapping, for trama's tests.

    write_case.py CASE DIR

DIR/traces.otf2 is the anchor. Times are ticks of a microsecond clock
(1,000,000 ticks per second); the writer sets the clock's global offset
to the first time written and its length to the last time minus the
first, unless a case says otherwise.

counters: one process ("MPI Rank 0") with one thread ("Master thread").
  Enter "main" at 100, Leave at 100 + 10 * 302. At 100 + 10 * (k + 1),
  k = 0 … 299, a metric event of one class with three members:
  "energy_count" [J], UINT64: 127896927659027 + 1001 * k;
  "offset" [ns], INT64: -131000000000000 - 7 * k;
  "power" [W], DOUBLE: 250.123456789 + k / 1024.
  At 100 + 10 * 301 a last value of "energy_count" alone (a class of one
  member): 9007199254740993 (2^53 + 1, which a double cannot hold: the
  nearest, 2^53, is read).

collectives: four processes "MPI Rank R" (R = 0 … 3), one thread each,
  ranks of MPI_COMM_WORLD. Per iteration i (0, 1, 2), base = 1000 * i + 1000:
  rank R: Enter MPI_Allreduce at base + 10 * R, MpiCollectiveBegin at
  base + 10 * R + 1, MpiCollectiveEnd (ALLREDUCE, 8 bytes each way) at
  base + 299, Leave at base + 300;
  rank 1: Enter MPI_Send at base + 450, MpiSend (to rank 0, tag 5, 64
  bytes) at base + 455, Leave at base + 460;
  rank 0: Enter MPI_Recv at base + 400, MpiRecv (from rank 1, tag 5, 64
  bytes) at base + 499, Leave at base + 500.
  Rank 0 waits 300 + 100 ticks per iteration: its collective is inside its
  MPI_Allreduce region.

leaves: one process ("MPI Rank 0") with one thread ("Master thread"):
  Enter A 10, Enter B 20, Leave A 30 (a region below the innermost),
  Leave B 40;
  Enter C 50, Leave D 60 (a region not open);
  Enter E 70, Enter F 80, Enter G 90, Leave E 100 (two regions above it),
  Leave G 110, Leave F 120;
  Enter H 130, Leave H 140.

end: one process ("MPI Rank 0") with one thread ("Master thread"):
  ProgramBegin at 100, Enter main 200, Leave main 700, ProgramEnd at 900;
  the clock's offset is 100 and its length 1100 (to tick 1200): the
  trace ends after its last event.
"""

import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, LocationGroupType, Paradigm, RegionRole, Type

UNDEFINED = 0xFFFFFFFF


def process(d, name="MPI Rank 0"):
    node = d.system_tree_node("node", class_name="node")
    return d.location_group(name, system_tree_parent=node,
                            location_group_type=LocationGroupType.PROCESS)


def counters(trace):
    d = trace.definitions
    loc = d.location("Master thread", group=process(d))
    main = d.region("main", region_role=RegionRole.FUNCTION)
    energy = d.metric_member("energy_count", unit="J", value_type=Type.UINT64)
    offset = d.metric_member("offset", unit="ns", value_type=Type.INT64)
    power = d.metric_member("power", unit="W", value_type=Type.DOUBLE)
    mclass = d.metric_class([energy, offset, power])
    alone = d.metric_class([energy])
    w = trace.event_writer_from_location(loc)
    w.enter(100, main)
    for k in range(300):
        w.metric(100 + 10 * (k + 1), mclass,
                 [127896927659027 + 1001 * k, -131000000000000 - 7 * k,
                  250.123456789 + k / 1024])
    w.metric(100 + 10 * 301, alone, [9007199254740993])
    w.leave(100 + 10 * 302, main)


def collectives(trace):
    d = trace.definitions
    node = d.system_tree_node("node", class_name="node")
    locs = []
    for r in range(4):
        g = d.location_group("MPI Rank %d" % r, system_tree_parent=node,
                             location_group_type=LocationGroupType.PROCESS)
        locs.append(d.location("Master thread", group=g))
    regions = {n: d.region(n, region_role=RegionRole.FUNCTION, paradigm=Paradigm.MPI)
               for n in ["MPI_Allreduce", "MPI_Send", "MPI_Recv"]}
    d.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS,
            paradigm=Paradigm.MPI, members=locs)
    world_group = d.group("world", group_type=GroupType.COMM_GROUP,
                          paradigm=Paradigm.MPI, members=[0, 1, 2, 3])
    world = d.comm("MPI_COMM_WORLD", group=world_group)
    writers = [trace.event_writer_from_location(loc) for loc in locs]
    for i in range(3):
        base = 1000 * i + 1000
        for r, w in enumerate(writers):
            w.enter(base + 10 * r, regions["MPI_Allreduce"])
            w.mpi_collective_begin(base + 10 * r + 1)
            w.mpi_collective_end(base + 299, CollectiveOp.ALLREDUCE, world, UNDEFINED, 8, 8)
            w.leave(base + 300, regions["MPI_Allreduce"])
        writers[0].enter(base + 400, regions["MPI_Recv"])
        writers[1].enter(base + 450, regions["MPI_Send"])
        writers[1].mpi_send(base + 455, 0, world, 5, 64)
        writers[1].leave(base + 460, regions["MPI_Send"])
        writers[0].mpi_recv(base + 499, 1, world, 5, 64)
        writers[0].leave(base + 500, regions["MPI_Recv"])


def leaves(trace):
    d = trace.definitions
    loc = d.location("Master thread", group=process(d))
    r = {n: d.region(n, region_role=RegionRole.FUNCTION) for n in "ABCDEFGH"}
    w = trace.event_writer_from_location(loc)
    for t, what, name in [(10, "enter", "A"), (20, "enter", "B"), (30, "leave", "A"),
                          (40, "leave", "B"), (50, "enter", "C"), (60, "leave", "D"),
                          (70, "enter", "E"), (80, "enter", "F"), (90, "enter", "G"),
                          (100, "leave", "E"), (110, "leave", "G"), (120, "leave", "F"),
                          (130, "enter", "H"), (140, "leave", "H")]:
        getattr(w, what)(t, r[name])


def end(trace):
    d = trace.definitions
    loc = d.location("Master thread", group=process(d))
    main = d.region("main", region_role=RegionRole.FUNCTION)
    w = trace.event_writer_from_location(loc)
    w.program_begin(100, "program", [])
    w.enter(200, main)
    w.leave(700, main)
    w.program_end(900, 0)
    trace._last_timestamp = 1200


CASES = {"counters": counters, "collectives": collectives, "leaves": leaves, "end": end}

case, out = sys.argv[1], sys.argv[2]
with otf2.writer.open(out, timer_resolution=1000000) as trace:
    CASES[case](trace)
