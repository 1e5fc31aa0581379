#!/usr/bin/python3
"""Writes MPI runs whose wait states and critical path are known, for the
tests of trama-why, as OTF2 archives (with Debian's python3-otf2, records as
Score-P writes them) and as Pajé text (MPI calls as states of the rank
containers, messages as links, as SimGrid's SMPI traces), and what the
analysis must find in them, computed here from the times chosen.

    mpi_runs.py OUT [--ranks 8] [--iterations 2] [--seed 1]

OUT/waits/traces.otf2 and OUT/waits.paje: `--ranks` ranks (even, >= 4);
per iteration, with computations ("compute") of chosen lengths between
the calls:

1. a late sender: rank 2k+1 enters MPI_Recv before rank 2k enters the
   matching MPI_Send;
1b. messages received in the wrong order: rank 2k sends a message of tag
   B, then one of tag A; rank 2k+1 receives A (waiting for it: a late
   sender), then B (there already);
2. a late receiver: rank 2k+1 enters MPI_Ssend before rank 2k enters the
   matching MPI_Recv (the send returns once the receive has started);
   then the same with a standard MPI_Send that returns only after the
   receive has started (a rendezvous): a late receiver too; then a
   standard MPI_Send that returns before the receive starts (buffered):
   no wait at all;
3. an MPI_Allreduce with staggered entries (and staggered exits);
4. an MPI_Barrier with staggered entries (and staggered exits);
5. an MPI_Bcast whose root enters last;
6. an MPI_Reduce whose root enters first;
7. an MPI_Scan with staggered entries.

OUT/chain/traces.otf2 and OUT/chain.paje: 3 ranks passing a token around
a ring (0 -> 1 -> 2 -> 0), each computing before passing it on, so that
the critical path runs through every computation of the chain.

Every rank runs main, in which MPI_Init (all from 0 to the same time) and,
at the end, MPI_Finalize (entered at staggered times, left together but
for the rank that entered last, which leaves last). Times are whole
microseconds (the archives' clock ticks them, offset 0).

Each run is also written as a Paraver trace (OUT/waits.prv, OUT/chain.prv,
with their .pcf and .row), as Extrae writes an MPI program.

OUT/expected.json: per run, its length, per (pattern, rank) the seconds
and the number of instances (instances of positive duration), the seconds
on the critical path per region and per (region, rank), per rank its
time in MPI calls, every wait-state instance (its rank, the rank it
waited for, none for the completion patterns, its start and seconds), and
the critical-path imbalance per region. The definitions are Scalasca 2.6's (its `scout`
analyzer's source: MpiCommunicationHandler.cpp, MPI.pattern,
CriticalPath.pattern), restated where they are used below; the times of a
collective are its Enter and Leave (the archives put MpiCollectiveBegin at
the Enter and MpiCollectiveEnd at the Leave: Scalasca measures from those
two records, and they coincide here).

The script is deterministic: the same arguments give the same records and
expectations (python3-otf2 stamps an archive with its creation date and a
random identifier).
"""

import argparse
import json
import os
import random
from collections import defaultdict

# Microseconds per second: the archives' clock and the unit of every time
# below.
TICKS = 1000000

# Fixed costs (microseconds) of the calls, chosen.
INIT = 500          # MPI_Init, on every rank from 0
SEND = 5            # a blocking MPI_Send, from its Enter
RECV_AFTER = 12     # a receive ends this long after the send (or the receive) starts
SSEND_AFTER = 9     # an MPI_Ssend ends this long after the receive starts
COLL = 20           # a collective ends this long after the entry it waits for
FINALIZE = 40       # MPI_Finalize ends this long after the last rank entered it

PATTERNS = ["late_sender", "late_sender_wrong_order", "late_receiver", "wait_nxn",
            "nxn_completion", "wait_barrier", "barrier_completion", "early_reduce",
            "early_scan", "late_broadcast"]


class Run:
    """The calls of every rank, in time order, each a dict: region, enter,
    leave (ticks), and for MPI operations what the analysis needs. The gaps
    between calls are filled with "compute" calls."""

    def __init__(self, ranks):
        self.ranks = ranks
        self.calls = [[] for _ in range(ranks)]
        self.now = [0] * ranks
        self.messages = []   # (sender, receiver, tag, send time, receive time)
        for r in range(ranks):
            self.call(r, "MPI_Init", 0, INIT, kind="init")

    def call(self, r, region, enter, leave, **info):
        assert enter >= self.now[r] and leave > enter, (r, region, enter, leave, self.now[r])
        if enter > self.now[r]:
            self.calls[r].append(dict(region="compute", enter=self.now[r], leave=enter,
                                      kind="compute", wait=0))
        c = dict(region=region, enter=enter, leave=leave, wait=0, **info)
        self.calls[r].append(c)
        self.now[r] = leave
        return c

    def ready(self):
        """The time every rank is free."""
        return max(self.now)


def message(run, s, r, tag, region, send, recv):
    """A message from rank `s` to rank `r`: the send `region` over `send`
    (Enter, Leave), the MPI_Recv over `recv`; the send and the receive, with
    their wait states."""
    send = run.call(s, region, send[0], send[1], kind="send", peer=r, tag=tag)
    recv = run.call(r, "MPI_Recv", recv[0], recv[1], kind="recv", peer=s, tag=tag)
    run.messages.append((s, r, tag, send["enter"], recv["leave"]))
    late_sender_wait(send, s, recv)
    late_receiver_wait(send, recv, r)
    return send, recv


def late_sender(run, rng, tag):
    """Rank 2k+1 enters MPI_Recv `wait` before rank 2k enters MPI_Send."""
    t = run.ready()
    for s in range(0, run.ranks, 2):
        r = s + 1
        wait = rng.randint(50, 400)
        e_send = t + 500 + rng.randint(0, 300)
        e_recv = e_send - wait
        message(run, s, r, tag, "MPI_Send", (e_send, e_send + SEND),
                (e_recv, e_send + RECV_AFTER))


def wrong_order(run, rng, tag_a, tag_b):
    """Rank 2k sends B then A; rank 2k+1 enters MPI_Recv of A before A is
    sent, then receives B. The first receive's waiting is a Late Sender,
    wrong order: Scalasca counts a late sender (receive R1 of a send S1) as
    wrong order when a later receive gets a message sent before S1 (its
    MpiSend record earlier). An instance has one pattern here: the wait is
    late_sender_wrong_order only (Scalasca's Late Sender metric includes it,
    Cube's values being inclusive along its metric tree)."""
    t = run.ready()
    for s in range(0, run.ranks, 2):
        r = s + 1
        e_b = t + 300 + rng.randint(0, 300)
        e_a = e_b + SEND + rng.randint(50, 300)
        e_recv_a = e_b - rng.randint(1, 200)
        send_b = run.call(s, "MPI_Send", e_b, e_b + SEND, kind="send", peer=r, tag=tag_b)
        send_a = run.call(s, "MPI_Send", e_a, e_a + SEND, kind="send", peer=r, tag=tag_a)
        recv_a = run.call(r, "MPI_Recv", e_recv_a, e_a + RECV_AFTER, kind="recv", peer=s,
                          tag=tag_a)
        e_recv_b = recv_a["leave"] + rng.randint(1, 100)
        recv_b = run.call(r, "MPI_Recv", e_recv_b, e_recv_b + RECV_AFTER, kind="recv", peer=s,
                          tag=tag_b)
        run.messages.append((s, r, tag_b, e_b, recv_b["leave"]))
        run.messages.append((s, r, tag_a, e_a, recv_a["leave"]))
        for send, recv in [(send_a, recv_a), (send_b, recv_b)]:
            late_sender_wait(send, s, recv)
            late_receiver_wait(send, recv, r)
        assert recv_a["pattern"] == "late_sender" and recv_b["wait"] == 0
        recv_a["pattern"] = "late_sender_wrong_order"


def late_receiver(run, rng, tag, region):
    """Rank 2k+1 enters `region` (MPI_Ssend, or MPI_Send in rendezvous)
    `wait` before rank 2k enters MPI_Recv; the send returns after the
    receive has started."""
    t = run.ready()
    for r in range(0, run.ranks, 2):
        s = r + 1
        wait = rng.randint(50, 400)
        e_recv = t + 500 + rng.randint(0, 300)
        e_send = e_recv - wait
        message(run, s, r, tag, region, (e_send, e_recv + SSEND_AFTER),
                (e_recv, e_recv + RECV_AFTER))


def buffered_send(run, rng, tag):
    """Rank 2k+1's MPI_Send returns before rank 2k enters the matching
    MPI_Recv, which finds the message arrived: nobody waits."""
    t = run.ready()
    for r in range(0, run.ranks, 2):
        s = r + 1
        e_send = t + 500 + rng.randint(0, 300)
        e_recv = e_send + SEND + rng.randint(1, 300)
        message(run, s, r, tag, "MPI_Send", (e_send, e_send + SEND),
                (e_recv, e_recv + RECV_AFTER))


def late_sender_wait(send, s, recv):
    """Late Sender, on the receive: min(Enter of the send, Leave of the
    receive) - Enter of the receive, when positive. The critical path
    leaves the receiver there for the sender, at the Enter of its send."""
    w = min(send["enter"], recv["leave"]) - recv["enter"]
    if w > 0:
        recv.update(wait=w, pattern="late_sender", cause=(s, send["enter"]), jumps=True)


def late_receiver_wait(send, recv, r):
    """Late Receiver, on a blocking send (MPI_Send as well as MPI_Ssend:
    Scalasca tells them apart only by their region): 0 when the send left
    before the receive was entered, else Enter of the receive - Enter of
    the send, when positive. The critical path leaves the sender there for
    the receiver, at the Enter of its receive."""
    w = 0 if send["leave"] <= recv["enter"] else recv["enter"] - send["enter"]
    if w > 0:
        send.update(wait=w, pattern="late_receiver", cause=(r, recv["enter"]), jumps=True)


def staggered(run, rng, spread):
    """Distinct entry times of a collective, one per rank (spread wider
    when the ranks outnumber its steps)."""
    t = run.ready() + 300
    offsets = rng.sample(range(0, max(spread, 2 * run.ranks)), run.ranks)
    return [t + o for o in offsets]


def latest(enters, ranks):
    """The latest entry among `ranks` and its rank (the lowest rank among
    equal times, as MPI_MAXLOC)."""
    return max((enters[q], -q) for q in ranks)[0], -max((enters[q], -q) for q in ranks)[1]


def synchronizing(run, rng, region, pattern, completion):
    """An N-to-N operation or a barrier: every rank waits from its Enter
    until the latest Enter (cut at its Leave); its completion is the time
    from max(earliest Leave, latest Enter) to its Leave. The critical path
    leaves a waiting rank for the latest one, at its Enter."""
    enters = staggered(run, rng, 600)
    last, last_rank = latest(enters, range(run.ranks))
    calls = []
    for r in range(run.ranks):
        leave = last + COLL + rng.randint(0, 15)
        calls.append(run.call(r, region, enters[r], leave, kind="collective", root=None))
    earliest_end = min(c["leave"] for c in calls)
    for r, c in enumerate(calls):
        w = max(0, min(last, c["leave"]) - c["enter"])
        if w > 0:
            c.update(wait=w, pattern=pattern, cause=(last_rank, last), jumps=True)
        c["completion"] = (completion, max(0, c["leave"] - max(earliest_end, last)))


def broadcast(run, rng, root):
    """MPI_Bcast whose root enters last: a rank that receives data and
    enters before the root waits until the root's Enter (cut at its Leave):
    Late Broadcast. The critical path leaves it for the root, at its
    Enter."""
    enters = staggered(run, rng, 600)
    enters[root] = max(enters) + rng.randint(100, 300)
    calls = []
    for r in range(run.ranks):
        leave = enters[root] + COLL + (0 if r == root else rng.randint(1, 15))
        calls.append(run.call(r, "MPI_Bcast", enters[r], leave, kind="collective", root=root))
    for r, c in enumerate(calls):
        if r != root and c["enter"] < enters[root]:
            w = min(enters[root], c["leave"]) - c["enter"]
            c.update(wait=w, pattern="late_broadcast", cause=(root, enters[root]), jumps=True)


def reduce(run, rng, root):
    """MPI_Reduce whose root enters first: the root waits from its Enter
    until the *latest* Enter of the ranks that send data (Scalasca 2.6;
    up to 2.5 the earliest), cut at its Leave: Early Reduce. The other
    ranks leave without waiting. The critical path leaves the root for the
    latest sender, at its Enter."""
    enters = staggered(run, rng, 600)
    enters[root] = min(enters) - rng.randint(100, 300)
    last, last_rank = latest(enters, range(run.ranks))
    calls = []
    for r in range(run.ranks):
        leave = (last + COLL) if r == root else enters[r] + COLL
        calls.append(run.call(r, "MPI_Reduce", enters[r], leave, kind="collective", root=root))
    c = calls[root]
    w = min(last, c["leave"]) - c["enter"]
    if w > 0:
        c.update(wait=w, pattern="early_reduce", cause=(last_rank, last), jumps=True)


def scan(run, rng):
    """MPI_Scan with staggered entries: rank r waits from its Enter until
    the latest Enter of ranks 0..r (cut at its Leave): Early Scan. Scalasca
    2.6's critical path does not follow these waits (it has no scan
    callback): a waiting rank's scan stays on the path whole."""
    enters = staggered(run, rng, 600)
    for r in range(run.ranks):
        last, last_rank = latest(enters, range(r + 1))
        c = run.call(r, "MPI_Scan", enters[r], last + COLL, kind="collective", root=None)
        w = min(last, c["leave"]) - c["enter"]
        if w > 0:
            c.update(wait=w, pattern="early_scan", cause=(last_rank, last), jumps=False)


def finalize(run, rng):
    """MPI_Finalize, entered at staggered times; every rank leaves it
    together FINALIZE after the last entry, but the last to enter, which
    leaves one microsecond later (so that it ends the run)."""
    enters = staggered(run, rng, 600)
    last, last_rank = latest(enters, range(run.ranks))
    for r in range(run.ranks):
        leave = last + FINALIZE + (1 if r == last_rank else 0)
        run.call(r, "MPI_Finalize", enters[r], leave, kind="finalize")
    run.last_finalize = last_rank


def waits_run(ranks, iterations, seed):
    rng = random.Random(seed)
    run = Run(ranks)
    for i in range(iterations):
        late_sender(run, rng, 100 + i)
        wrong_order(run, rng, 500 + i, 600 + i)
        late_receiver(run, rng, 200 + i, "MPI_Ssend")
        late_receiver(run, rng, 300 + i, "MPI_Send")
        buffered_send(run, rng, 400 + i)
        synchronizing(run, rng, "MPI_Allreduce", "wait_nxn", "nxn_completion")
        synchronizing(run, rng, "MPI_Barrier", "wait_barrier", "barrier_completion")
        broadcast(run, rng, rng.randrange(ranks))
        reduce(run, rng, rng.randrange(ranks))
        scan(run, rng)
    finalize(run, rng)
    return run


def chain_run(iterations, seed):
    """Three ranks, a token around the ring 0 -> 1 -> 2 -> 0: each rank
    computes, then sends to the next, which has been waiting in MPI_Recv
    (a late sender each time)."""
    rng = random.Random(seed + 1000)
    run = Run(3)
    for i in range(iterations):
        for hop in range(3):
            s, r = hop, (hop + 1) % 3
            e_send = run.now[s] + rng.randint(200, 900)
            # The receiver is already waiting in MPI_Recv.
            e_recv = min(run.now[r] + rng.randint(1, 50), e_send - 1)
            message(run, s, r, 900 + i, "MPI_Send", (e_send, e_send + SEND),
                    (e_recv, e_send + RECV_AFTER))
    finalize(run, rng)
    return run


def seconds(ticks):
    return ticks / TICKS


def critical_path(run):
    """Scalasca 2.6's critical path, walked backwards: it starts on the
    rank that entered MPI_Finalize last, at that Enter (MPI_Finalize itself
    is not on Scalasca's path), and goes back through that rank's calls,
    each on the path whole, until a call where the rank waited (a wait
    state the path follows: not Early Scan). That call is on the path
    minus its waiting time, and the path goes on at the Enter of the call
    of the rank that caused the wait (the sender's send, the receiver's
    receive, the latest or the root of a collective), that call not
    included. It ends at MPI_Init, on the path whole. So a hand-off is
    credited to the waiting call (the receiver's MPI_Recv after a late
    sender), and the time before the causing call's Enter to the causer.
    The time before MPI_Init's Enter is not on Scalasca's path either (here
    every rank enters MPI_Init at 0, where the run starts).

    Returns Scalasca's profile ({(region, rank): ticks}) and trama's: the
    same plus MPI_Finalize of the last rank whole, so that the path tiles
    the run from 0 to its end."""
    credit = defaultdict(int)
    p = run.last_finalize
    fin = run.calls[p][-1]
    cursor = fin["enter"]
    while True:
        calls = [c for c in run.calls[p] if c["enter"] < cursor]
        jumped = False
        for c in reversed(calls):
            assert c["leave"] <= cursor
            if c["wait"] > 0 and c.get("jumps"):
                credit[(c["region"], p)] += c["leave"] - c["enter"] - c["wait"]
                p, cursor = c["cause"]
                jumped = True
                break
            credit[(c["region"], p)] += c["leave"] - c["enter"]
        if not jumped:
            break
    scalasca = dict(credit)
    trama = dict(credit)
    trama[("MPI_Finalize", run.last_finalize)] = fin["leave"] - fin["enter"]
    return scalasca, trama


def expected(run):
    """What the analysis must find in `run` (seconds)."""
    waits = defaultdict(lambda: [0, 0])
    mpi = defaultdict(int)
    instances = []
    for r, calls in enumerate(run.calls):
        for c in calls:
            if c["region"].startswith("MPI_"):
                mpi[r] += c["leave"] - c["enter"]
            if c["wait"] > 0:
                waits[(c["pattern"], r)][0] += c["wait"]
                waits[(c["pattern"], r)][1] += 1
                # Every waiting pattern waits from the call's Enter.
                instances.append({"rank": r, "waited_for": c["cause"][0],
                                  "start": seconds(c["enter"]), "seconds": seconds(c["wait"])})
            if "completion" in c and c["completion"][1] > 0:
                waits[(c["completion"][0], r)][0] += c["completion"][1]
                waits[(c["completion"][0], r)][1] += 1
                # A completion waits for no one, up to the Leave.
                instances.append({"rank": r, "waited_for": None,
                                  "start": seconds(c["leave"] - c["completion"][1]),
                                  "seconds": seconds(c["completion"][1])})
    scalasca, trama = critical_path(run)
    end = max(calls[-1]["leave"] for calls in run.calls)

    def by_region(profile):
        out = defaultdict(int)
        for (region, _), t in profile.items():
            out[region] += t
        return {k: seconds(v) for k, v in sorted(out.items())}

    def by_rank(profile):
        return [{"region": k[0], "rank": k[1], "seconds": seconds(v)}
                for k, v in sorted(profile.items())]

    assert sum(trama.values()) == end, (sum(trama.values()), end)

    # The critical-path imbalance (Scalasca's): per region, its time on the
    # path beyond the mean time of a rank in it, less the waiting the
    # critical path follows (not Early Scan's, which Scalasca 2.6 keeps in
    # the region's time, nor the completions, which are no waiting).
    busy = defaultdict(int)
    for calls in run.calls:
        for c in calls:
            busy[c["region"]] += c["leave"] - c["enter"]
            if c["wait"] > 0 and c.get("jumps"):
                busy[c["region"]] -= c["wait"]
    on_path = by_region(trama)
    imbalance = {k: max(0.0, v - seconds(busy[k]) / run.ranks) for k, v in on_path.items()}
    return {
        "ranks": run.ranks,
        "start": 0.0,
        "end": seconds(end),
        "messages": len(run.messages),
        "wait_states": [{"pattern": k[0], "rank": k[1], "seconds": seconds(v[0]),
                         "count": v[1]}
                        for k, v in sorted(waits.items(), key=lambda kv: (
                            PATTERNS.index(kv[0][0]), kv[0][1]))],
        "critical_path": by_region(trama),
        "critical_path_by_rank": by_rank(trama),
        "scalasca_critical_path": by_region(scalasca),
        "scalasca_critical_path_by_rank": by_rank(scalasca),
        "mpi_seconds": [seconds(mpi[r]) for r in range(run.ranks)],
        "wait_instances": instances,
        "critical_path_imbalance": imbalance,
    }


# The regions: (name, OTF2 role), MPI's first.
MPI_REGIONS = [("MPI_Init", "FUNCTION"), ("MPI_Finalize", "FUNCTION"),
               ("MPI_Send", "POINT2POINT"), ("MPI_Ssend", "POINT2POINT"),
               ("MPI_Recv", "POINT2POINT"), ("MPI_Allreduce", "COLL_ALL2ALL"),
               ("MPI_Barrier", "BARRIER"), ("MPI_Bcast", "COLL_ONE2ALL"),
               ("MPI_Reduce", "COLL_ALL2ONE"), ("MPI_Scan", "COLL_OTHER")]

# A collective's OTF2 operation and the bytes a rank sends and receives in
# it (Score-P's counts: the root of a broadcast sends to the others, the
# root of a reduction receives from all).
COLLECTIVES = {
    "MPI_Allreduce": ("ALLREDUCE", lambda root, me, n: (8, 8)),
    "MPI_Barrier": ("BARRIER", lambda root, me, n: (0, 0)),
    "MPI_Bcast": ("BCAST", lambda root, me, n: (8 * (n - 1), 0) if me == root else (0, 8)),
    "MPI_Reduce": ("REDUCE", lambda root, me, n: (8, 8 * n) if me == root else (8, 0)),
    "MPI_Scan": ("SCAN", lambda root, me, n: (8, 8)),
}


def write_otf2(run, out):
    """The run as an OTF2 archive in `out` (anchor `out/traces.otf2`), with
    the definitions and records Score-P writes for an MPI program: a
    location group "MPI Rank r" with one location per rank, MPI regions of
    source file "MPI" and their roles, MPI_COMM_WORLD, MpiSend at the
    Enter of a send, MpiRecv at the Leave of a receive, MpiCollectiveBegin
    at the Enter and MpiCollectiveEnd at the Leave of a collective."""
    import otf2
    from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, Paradigm,
                            RegionRole)
    undefined = 0xFFFFFFFF
    end = max(calls[-1]["leave"] for calls in run.calls)
    with otf2.writer.open(out, timer_resolution=TICKS) as trace:
        d = trace.definitions
        machine = d.system_tree_node("cluster", class_name="machine")
        node = d.system_tree_node("node0", class_name="node", parent=machine)
        groups = [d.location_group("MPI Rank %d" % r, system_tree_parent=node,
                                   location_group_type=LocationGroupType.PROCESS)
                  for r in range(run.ranks)]
        locs = [d.location("Master thread", group=g) for g in groups]
        regions = {"main": d.region("main", region_role=RegionRole.FUNCTION,
                                    paradigm=Paradigm.USER, source_file="mpi_runs.c"),
                   "compute": d.region("compute", region_role=RegionRole.FUNCTION,
                                       paradigm=Paradigm.USER, source_file="mpi_runs.c")}
        for name, role in MPI_REGIONS:
            regions[name] = d.region(name, region_role=getattr(RegionRole, role),
                                     paradigm=Paradigm.MPI, source_file="MPI")
        d.group("", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                members=locs)
        world_group = d.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                              members=list(range(run.ranks)))
        world = d.comm("MPI_COMM_WORLD", group=world_group)
        for r, calls in enumerate(run.calls):
            w = trace.event_writer_from_location(locs[r])
            w.enter(0, regions["main"])
            for c in calls:
                region = regions[c["region"]]
                w.enter(c["enter"], region)
                kind = c["kind"]
                if kind == "send":
                    w.mpi_send(c["enter"], c["peer"], world, c["tag"], 64)
                elif kind == "recv":
                    w.mpi_recv(c["leave"], c["peer"], world, c["tag"], 64)
                elif kind == "collective":
                    op, sizes = COLLECTIVES[c["region"]]
                    root = c["root"]
                    sent, received = sizes(root, r, run.ranks)
                    w.mpi_collective_begin(c["enter"])
                    w.mpi_collective_end(c["leave"], getattr(CollectiveOp, op), world,
                                         undefined if root is None else root, sent, received)
                w.leave(c["leave"], region)
            w.leave(calls[-1]["leave"], regions["main"])
        trace._first_timestamp = 0
        trace._last_timestamp = end


PAJE_HEADER = """%EventDef PajeDefineContainerType 0
%       Alias string
%       Type string
%       Name string
%EndEventDef
%EventDef PajeDefineStateType 2
%       Alias string
%       Type string
%       Name string
%EndEventDef
%EventDef PajeDefineLinkType 4
%       Alias string
%       Type string
%       StartContainerType string
%       EndContainerType string
%       Name string
%EndEventDef
%EventDef PajeCreateContainer 6
%       Time date
%       Alias string
%       Type string
%       Container string
%       Name string
%EndEventDef
%EventDef PajeDestroyContainer 7
%       Time date
%       Type string
%       Name string
%EndEventDef
%EventDef PajePushState 12
%       Time date
%       Type string
%       Container string
%       Value string
%EndEventDef
%EventDef PajePopState 13
%       Time date
%       Type string
%       Container string
%EndEventDef
%EventDef PajeStartLink 15
%       Time date
%       Type string
%       Container string
%       Value string
%       StartContainer string
%       Key string
%EndEventDef
%EventDef PajeEndLink 16
%       Time date
%       Type string
%       Container string
%       Value string
%       EndContainer string
%       Key string
%EndEventDef
%EventDef PajePushState 18
%       Time date
%       Type string
%       Container string
%       Value string
%       Communicator string
%       Root string
%       Sent string
%       Received string
%EndEventDef
0 1 0 MPI
2 2 1 MPI_STATE
4 3 0 1 1 MPI_LINK
2 4 1 "MPI collective"
"""


def write_paje(run, path):
    """The run as Pajé text in `path`, as SimGrid's SMPI traces it: a
    container "rank-r" (type MPI) per rank, its calls as states (type
    MPI_STATE: main, and inside it MPI_Init, compute, MPI_Send, …), each
    message a link (type MPI_LINK, in the root container) from the Enter
    of the send to the Leave of the receive. A collective also pushes a
    state of type "MPI collective" valued by its operation, with the
    fields trama's OTF2 mapping gives it (Communicator, Root: the root's
    rank or "none", Sent, Received), from its Enter to its Leave."""
    end = max(calls[-1]["leave"] for calls in run.calls)
    events = []   # (ticks, order, seq, line): pops before pushes at a time

    def at(t):
        return "%d.%06d" % divmod(t, TICKS)

    seq = 0
    for r, calls in enumerate(run.calls):
        cont = "r%d" % r
        events.append((0, 1, seq, "12 %s 2 %s main" % (at(0), cont)))
        seq += 1
        for c in calls:
            events.append((c["enter"], 1, seq, "12 %s 2 %s %s" % (at(c["enter"]), cont,
                                                                  c["region"])))
            seq += 1
            if c["kind"] == "collective":
                op, sizes = COLLECTIVES[c["region"]]
                root = c["root"]
                sent, received = sizes(root, r, run.ranks)
                events.append((c["enter"], 1, seq, "18 %s 4 %s %s MPI_COMM_WORLD %s %d %d" % (
                    at(c["enter"]), cont, op, "none" if root is None else root, sent,
                    received)))
                seq += 1
                events.append((c["leave"], 0, seq, "13 %s 4 %s" % (at(c["leave"]), cont)))
                seq += 1
            events.append((c["leave"], 0, seq, "13 %s 2 %s" % (at(c["leave"]), cont)))
            seq += 1
        events.append((calls[-1]["leave"], 0, seq, "13 %s 2 %s" % (at(calls[-1]["leave"]),
                                                                   cont)))
        seq += 1
    for n, (s, r, tag, sent, received) in enumerate(run.messages):
        key = "%d_%d_%d" % (s, r, n)
        events.append((sent, 2, seq, "15 %s 3 0 PTP r%d %s" % (at(sent), s, key)))
        seq += 1
        events.append((received, 2, seq, "16 %s 3 0 PTP r%d %s" % (at(received), r, key)))
        seq += 1
    with open(path, "w") as f:
        f.write(PAJE_HEADER)
        for r in range(run.ranks):
            f.write('6 %s r%d 1 0 "rank-%d"\n' % (at(0), r, r))
        for e in sorted(events):
            f.write(e[3] + "\n")
        for r in range(run.ranks):
            f.write("7 %s 1 r%d\n" % (at(end), r))


# Extrae's MPI event types and the values of the calls the runs make.
EXTRAE_P2P, EXTRAE_COLL, EXTRAE_OTHER = 50000001, 50000002, 50000003
EXTRAE_ROOT, EXTRAE_COMM = 50100003, 50100004
EXTRAE_CALLS = {"MPI_Send": (EXTRAE_P2P, 1), "MPI_Recv": (EXTRAE_P2P, 2),
                "MPI_Ssend": (EXTRAE_P2P, 33), "MPI_Bcast": (EXTRAE_COLL, 7),
                "MPI_Barrier": (EXTRAE_COLL, 8), "MPI_Reduce": (EXTRAE_COLL, 9),
                "MPI_Allreduce": (EXTRAE_COLL, 10), "MPI_Scan": (EXTRAE_COLL, 30),
                "MPI_Init": (EXTRAE_OTHER, 31), "MPI_Finalize": (EXTRAE_OTHER, 32)}
# Extrae's thread states: what a thread does in and out of MPI calls.
EXTRAE_STATES = {1: "Running", 3: "Waiting a message", 4: "Blocking Send",
                 5: "Synchronization", 13: "Group Communication"}


def extrae_state(kind, region):
    if kind == "compute":
        return 1
    if kind == "recv":
        return 3
    if kind == "send":
        return 4
    if region == "MPI_Barrier":
        return 5
    return 13 if kind == "collective" else 1


def write_paraver(run, path):
    """The run as a Paraver trace in `path` (`.prv`, with `.pcf` and
    `.row` beside it), as Extrae writes an MPI program: one task of one
    thread per rank (named "rank-r" by the `.row`), times in microseconds;
    per call a thread state (Running for computation, Waiting a message,
    Blocking Send, Synchronization, Group Communication), an event of an
    MPI type valued by the call at its Enter and valued 0 (End) at its
    Leave; at a collective's Enter, its communicator (1, the world) and, on
    its root, the root flag; each message a communication from the Enter of
    the send to the Leave of the receive (physical times the same)."""
    end = max(calls[-1]["leave"] for calls in run.calls)
    n = run.ranks
    records = []   # (time, order, seq, line): ends before the next call starts

    def where(r):
        return "%d:1:%d:1" % (r + 1, r + 1)

    seq = 0
    for r, calls in enumerate(run.calls):
        for c in calls:
            state = extrae_state(c["kind"], c["region"])
            records.append((c["enter"], 1, seq, "1:%s:%d:%d:%d" % (where(r), c["enter"],
                                                                  c["leave"], state)))
            seq += 1
            if c["kind"] == "compute":
                continue
            ty, value = EXTRAE_CALLS[c["region"]]
            line = "2:%s:%d:%d:%d" % (where(r), c["enter"], ty, value)
            if c["kind"] == "collective":
                line += ":%d:1" % EXTRAE_COMM
                if c.get("root") == r:
                    line += ":%d:1" % EXTRAE_ROOT
            records.append((c["enter"], 2, seq, line))
            seq += 1
            records.append((c["leave"], 0, seq, "2:%s:%d:%d:0" % (where(r), c["leave"], ty)))
            seq += 1
    for s, r, tag, sent, received in run.messages:
        records.append((sent, 3, seq, "3:%s:%d:%d:%s:%d:%d:8:%d" % (
            where(s), sent, sent, where(r), received, received, tag)))
        seq += 1
    base = os.path.splitext(path)[0]
    with open(path, "w") as f:
        f.write("#Paraver (01/01/2026 at 00:00):%d_us:1(%d):1:%d(%s)\n" % (
            end, n, n, ",".join("1:1" for _ in range(n))))
        for rec in sorted(records):
            f.write(rec[3] + "\n")
    with open(base + ".pcf", "w") as f:
        f.write("STATES\n")
        for v, name in sorted(EXTRAE_STATES.items()):
            f.write("%d %s\n" % (v, name))
        for ty, name in [(EXTRAE_P2P, "MPI Point-to-point"), (EXTRAE_COLL, "MPI Collective Comm"),
                         (EXTRAE_OTHER, "MPI Other")]:
            f.write("\nEVENT_TYPE\n9 %d %s\nVALUES\n0 End\n" % (ty, name))
            for region, (t, v) in sorted(EXTRAE_CALLS.items(), key=lambda kv: kv[1]):
                if t == ty:
                    f.write("%d %s\n" % (v, region))
        f.write("\nEVENT_TYPE\n1 %d Root in MPI Global OP\n" % EXTRAE_ROOT)
        f.write("1 %d Communicator in MPI Global OP\n" % EXTRAE_COMM)
    with open(base + ".row", "w") as f:
        f.write("LEVEL THREAD SIZE %d\n" % n)
        for r in range(n):
            f.write("rank-%d\n" % r)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-otf2", action="store_true",
                    help="write only the Pajé traces and expected.json")
    args = ap.parse_args()
    assert args.ranks >= 4 and args.ranks % 2 == 0, "--ranks: an even number >= 4"
    os.makedirs(args.out, exist_ok=True)
    runs = {"waits": waits_run(args.ranks, args.iterations, args.seed),
            "chain": chain_run(args.iterations, args.seed)}
    answers = {}
    for name, run in runs.items():
        if not args.no_otf2:
            write_otf2(run, os.path.join(args.out, name))
        write_paje(run, os.path.join(args.out, name + ".paje"))
        write_paraver(run, os.path.join(args.out, name + ".prv"))
        answers[name] = dict(otf2=name + "/traces.otf2", paje=name + ".paje",
                             paraver=name + ".prv", **expected(run))
    with open(os.path.join(args.out, "expected.json"), "w") as f:
        json.dump({"seconds_per_tick": 1.0 / TICKS, "runs": answers}, f, indent=1,
                  sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
