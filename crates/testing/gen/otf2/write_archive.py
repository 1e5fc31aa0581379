#!/usr/bin/python3
"""Writes an OTF2 archive of known content with Debian's python3-otf2, for
trama's tests.

    write_archive.py DIR [ITERATIONS]

DIR/traces.otf2 is the anchor. Two MPI ranks on two nodes, two threads
each (the second thread of rank 1 has no events). Per iteration i (times
from 1000 * i, ticks of a microsecond clock):

rank 0, master thread (location 0):
  +0 Enter main (only in the first iteration)
  +10 Enter MPI_Send, +15 MpiSend(to rank 1 of MPI_COMM_WORLD, tag 7, 64 B), +20 Leave
  +30 Enter MPI_Isend, +31 MpiIsend(to 1, tag 8, 128 B, request i), +32 Leave
  +40 Enter MPI_Wait, +45 MpiIsendComplete(i), +46 Leave
  +50 Enter MPI_Recv, +58 MpiRecv(from 1, tag 9, 32 B), +59 Leave
  +60 Enter MPI_Send, +61 MpiSend(to rank 0 of "reversed" = rank 1, tag 10, 16 B), +62 Leave
  +100 Enter MPI_Allreduce, +101 collective begin, +109 end (ALLREDUCE, 8 B sent, 8 received), +110 Leave
  +120 Metric (class "FLOPS" uint64 = 1000 + i, "Temperature" double = 20.5 + i)
  +130 ThreadFork (OpenMP, 2 threads), +131 ThreadTeamBegin(team),
       +132 Enter "compute kernel", +138 Leave, +139 ThreadTeamEnd, +140 ThreadJoin
  +150 ParameterInt and MeasurementOnOff (records trama does not map)
  +200 Leave main (only in the last iteration)
rank 0, thread 1 (location 1):
  +131 ThreadTeamBegin(team), +133 Enter "compute kernel", +137 Leave, +139 ThreadTeamEnd
rank 1, master thread (location 2), region and communicator references
local ones, mapped by its mapping tables, its clock 1000 ticks late
(clock offsets of 1000 at time 0 and 1002 at the end):
  +5 Enter main (first iteration)
  +12 Enter MPI_Recv, +17 MpiRecv(from 0, tag 7, 64 B), +18 Leave
  +25 Enter MPI_Irecv, +26 MpiIrecvRequest(i), +27 Leave
  +35 Enter MPI_Wait, +37 MpiIrecv(from 0, tag 8, 128 B, request i), +38 Leave
  +50 Enter MPI_Send, +52 MpiSend(to 0, tag 9, 32 B), +53 Leave
  +63 Enter MPI_Recv, +64 MpiRecv(from rank 1 of "reversed" = rank 0, tag 10, 16 B), +65 Leave
  +100 Enter MPI_Allreduce, +102 begin, +108 end, +110 Leave
  +121 Metric (instance of the class, scope: its process)
  +205 Leave main (last iteration)
(location 2's times are written 1000 ticks early, raw: the clock offsets
put them back.) The clock properties: a resolution of 1,000,000 ticks per
second, offset 0.
"""

import sys

import otf2
import _otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, MappingType,
                        MeasurementMode, Paradigm, RegionRole, Type)

out = sys.argv[1]
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 3
LATE = 1000
UNDEFINED = 0xFFFFFFFF

with otf2.writer.open(out, timer_resolution=1000000,
                      chunk_size_events=256 * 1024) as trace:
    d = trace.definitions
    machine = d.system_tree_node("cluster", class_name="machine")
    nodes = [d.system_tree_node("node%d" % r, class_name="node", parent=machine)
             for r in range(2)]
    procs = [d.location_group("MPI Rank %d" % r, system_tree_parent=nodes[r],
                              location_group_type=LocationGroupType.PROCESS)
             for r in range(2)]
    locs = [d.location("Master thread", group=procs[0]),
            d.location("OpenMP thread 1", group=procs[0]),
            d.location("Master thread", group=procs[1]),
            d.location("OpenMP thread 1", group=procs[1])]
    regions = {n: d.region(n, region_role=RegionRole.FUNCTION, paradigm=p)
               for n, p in [("main", Paradigm.USER), ("MPI_Send", Paradigm.MPI),
                            ("MPI_Isend", Paradigm.MPI), ("MPI_Wait", Paradigm.MPI),
                            ("MPI_Recv", Paradigm.MPI), ("MPI_Irecv", Paradigm.MPI),
                            ("MPI_Allreduce", Paradigm.MPI),
                            ("compute kernel", Paradigm.OPENMP)]}
    mpi_locations = d.group("MPI_COMM_WORLD locations", group_type=GroupType.COMM_LOCATIONS,
                            paradigm=Paradigm.MPI, members=[locs[0], locs[2]])
    world_group = d.group("world", group_type=GroupType.COMM_GROUP,
                          paradigm=Paradigm.MPI, members=[0, 1])
    reversed_group = d.group("reversed", group_type=GroupType.COMM_GROUP,
                             paradigm=Paradigm.MPI, members=[1, 0])
    world = d.comm("MPI_COMM_WORLD", group=world_group)
    rev = d.comm("reversed", group=reversed_group)
    omp_locations = d.group("OpenMP threads", group_type=GroupType.COMM_LOCATIONS,
                            paradigm=Paradigm.OPENMP, members=[locs[0], locs[1]])
    team_group = d.group("team", group_type=GroupType.COMM_GROUP,
                         paradigm=Paradigm.OPENMP, members=[0, 1])
    team = d.comm("OpenMP team", group=team_group)
    flops = d.metric_member("FLOPS", unit="flop", value_type=Type.UINT64)
    temp = d.metric_member("Temperature", unit="C", value_type=Type.DOUBLE)
    mclass = d.metric_class([flops, temp])
    minst = d.metric_instance(mclass, locs[2], scope=procs[1])
    param = d.parameter("iteration", parameter_type=otf2.ParameterType.INT64)
    attr = d.attribute("iteration", "the iteration", Type.INT64)

    w0 = trace.event_writer_from_location(locs[0])
    w1 = trace.event_writer_from_location(locs[1])
    w2 = trace.event_writer_from_location(locs[2])
    r = regions
    for i in range(iterations):
        t = 1000 * i + 1000
        a = {attr: i}
        if i == 0:
            w0.enter(t, r["main"])
        w0.enter(t + 10, r["MPI_Send"], a)
        w0.mpi_send(t + 15, 1, world, 7, 64)
        w0.leave(t + 20, r["MPI_Send"])
        w0.enter(t + 30, r["MPI_Isend"])
        w0.mpi_isend(t + 31, 1, world, 8, 128, i)
        w0.leave(t + 32, r["MPI_Isend"])
        w0.enter(t + 40, r["MPI_Wait"])
        w0.mpi_isend_complete(t + 45, i)
        w0.leave(t + 46, r["MPI_Wait"])
        w0.enter(t + 50, r["MPI_Recv"])
        w0.mpi_recv(t + 58, 1, world, 9, 32)
        w0.leave(t + 59, r["MPI_Recv"])
        w0.enter(t + 60, r["MPI_Send"])
        w0.mpi_send(t + 61, 0, rev, 10, 16)
        w0.leave(t + 62, r["MPI_Send"])
        w0.enter(t + 100, r["MPI_Allreduce"])
        w0.mpi_collective_begin(t + 101)
        w0.mpi_collective_end(t + 109, CollectiveOp.ALLREDUCE, world, UNDEFINED, 8, 8)
        w0.leave(t + 110, r["MPI_Allreduce"])
        w0.metric(t + 120, mclass, [1000 + i, 20.5 + i])
        w0.thread_fork(t + 130, Paradigm.OPENMP, 2)
        w0.thread_team_begin(t + 131, team)
        w0.enter(t + 132, r["compute kernel"])
        w0.leave(t + 138, r["compute kernel"])
        w0.thread_team_end(t + 139, team)
        w0.thread_join(t + 140, Paradigm.OPENMP)
        w0.parameter_int(t + 150, param, i)
        w0.measurement_on_off(t + 150, MeasurementMode.ON)
        if i == iterations - 1:
            w0.leave(t + 200, r["main"])

        w1.thread_team_begin(t + 131, team)
        w1.enter(t + 133, r["compute kernel"])
        w1.leave(t + 137, r["compute kernel"])
        w1.thread_team_end(t + 139, team)

    # Location 2 writes local references through the low-level API: its
    # region i is global region (n - 1 - i), its communicators 0 and 1 the
    # global "reversed" and world; its clock is LATE ticks early.
    names = list(r)
    n = len(names)
    local_region = {name: n - 1 - r[name]._ref for name in names}
    local_comm = {world._ref: 1, rev._ref: 0}
    h = w2.handle
    EMPTY = None

    def enter(time, name):
        _otf2.EvtWriter_Enter(h, EMPTY, time - LATE, local_region[name])

    def leave(time, name):
        _otf2.EvtWriter_Leave(h, EMPTY, time - LATE, local_region[name])

    for i in range(iterations):
        t = 1000 * i + 1000
        if i == 0:
            enter(t + 5, "main")
        enter(t + 12, "MPI_Recv")
        _otf2.EvtWriter_MpiRecv(h, EMPTY, t + 17 - LATE, 0, local_comm[world._ref], 7, 64)
        leave(t + 18, "MPI_Recv")
        enter(t + 25, "MPI_Irecv")
        _otf2.EvtWriter_MpiIrecvRequest(h, EMPTY, t + 26 - LATE, i)
        leave(t + 27, "MPI_Irecv")
        enter(t + 35, "MPI_Wait")
        _otf2.EvtWriter_MpiIrecv(h, EMPTY, t + 37 - LATE, 0, local_comm[world._ref], 8, 128, i)
        leave(t + 38, "MPI_Wait")
        enter(t + 50, "MPI_Send")
        _otf2.EvtWriter_MpiSend(h, EMPTY, t + 52 - LATE, 0, local_comm[world._ref], 9, 32)
        leave(t + 53, "MPI_Send")
        enter(t + 63, "MPI_Recv")
        _otf2.EvtWriter_MpiRecv(h, EMPTY, t + 64 - LATE, 1, local_comm[rev._ref], 10, 16)
        leave(t + 65, "MPI_Recv")
        enter(t + 100, "MPI_Allreduce")
        _otf2.EvtWriter_MpiCollectiveBegin(h, EMPTY, t + 102 - LATE)
        _otf2.EvtWriter_MpiCollectiveEnd(h, EMPTY, t + 108 - LATE, CollectiveOp.ALLREDUCE,
                                         local_comm[world._ref], UNDEFINED, 8, 8)
        leave(t + 110, "MPI_Allreduce")
        w2.metric(t + 121 - LATE, minst, [2000 + i, 30.25])
        if i == iterations - 1:
            leave(t + 205, "main")
    # The events went around the writer's bookkeeping: count them for the
    # location's definition.
    locs[2]._number_of_events_written = 20 * iterations + 2

    dw = w2._def_handle
    regions_map = _otf2.IdMap_CreateFromUint64Array([n - 1 - k for k in range(n)], False)
    _otf2.DefWriter_WriteMappingTable(dw, MappingType.REGION, regions_map)
    comms_map = _otf2.IdMap_CreateFromUint64Array([rev._ref, world._ref], False)
    _otf2.DefWriter_WriteMappingTable(dw, MappingType.COMM, comms_map)
    _otf2.DefWriter_WriteClockOffset(dw, 0, LATE, 0.0)
    _otf2.DefWriter_WriteClockOffset(dw, 1000 * iterations + 1000, LATE + 2, 0.0)

    # The clock starts at tick 0 (the writer would take the first time it
    # saw, and the low-level events went around it).
    trace._first_timestamp = 0
    trace._last_timestamp = 1000 * iterations + 1210
