//! The run as the analysis sees it: processes, their activities and MPI
//! calls, the messages between them and the collective operations, and
//! what the analysis finds in it (wait states, the critical path, delay
//! costs).
//!
//! Times are seconds of the trace, as [`trama_sim::Trace`] holds them.
//! Identifiers are indexes into the vectors of [`Run`].

use serde::Serialize;
use trama_sim::ContainerId;

/// A process: an index into [`Run::processes`].
pub type ProcId = u32;
/// A region (a state value's name: `MPI_Recv`, `compute`): an index into
/// [`Run::regions`].
pub type RegionId = u32;
/// An MPI call: an index into [`Run::calls`].
pub type CallId = u32;
/// A collective operation instance: an index into [`Run::collectives`].
pub type CollectiveId = u32;

/// A process of the run: a container whose states are its activities.
#[derive(Clone, Debug, PartialEq)]
pub struct Process {
    /// Its container in the trace.
    pub container: ContainerId,
    /// Its name, as the trace names the container.
    pub name: String,
}

/// An interval of one process in one region: the innermost state at each
/// instant. A process's activities are sorted by start and do not
/// overlap; the gaps between them are time outside any state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Activity {
    /// Start, seconds.
    pub start: f64,
    /// End, seconds.
    pub end: f64,
    /// The innermost state's value.
    pub region: RegionId,
}

/// What an MPI call does, as far as the patterns are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// A blocking send (`MPI_Send`, `MPI_Bsend`, `MPI_Rsend`), or a
    /// synchronous one (`MPI_Ssend`), which blocks until the receive starts.
    Send {
        /// `MPI_Ssend`: returns only once the receive has started.
        synchronous: bool,
    },
    /// A call that can wait for a message to arrive: a blocking receive
    /// (`MPI_Recv`, `MPI_Sendrecv`, `MPI_Probe`) or the completion of a
    /// non-blocking one (`MPI_Wait`, `MPI_Waitall`, …).
    Receive,
    /// A collective operation.
    Collective(CollectiveKind),
    /// Any other MPI call (non-blocking starts, tests, `MPI_Init`,
    /// `MPI_Comm_rank`, …): nothing waits there.
    Other,
}

/// The families of collective operations, by how their participants
/// depend on each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveKind {
    /// `MPI_Barrier`.
    Barrier,
    /// Every participant needs every other's data: `MPI_Allreduce`,
    /// `MPI_Allgather(v)`, `MPI_Alltoall(v,w)`, `MPI_Reduce_scatter`.
    NxN,
    /// The root sends to all: `MPI_Bcast`, `MPI_Scatter(v)`.
    OneToN,
    /// All send to the root: `MPI_Reduce`, `MPI_Gather(v)`.
    NToOne,
    /// Prefix operations: `MPI_Scan`, `MPI_Exscan`.
    Scan,
}

/// An MPI call of a process: a state whose value names an MPI operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Call {
    /// The process.
    pub proc: ProcId,
    /// The call's region (its state value).
    pub region: RegionId,
    /// What it does.
    pub kind: CallKind,
    /// When the process entered it.
    pub enter: f64,
    /// When it left it.
    pub exit: f64,
}

/// A point-to-point message: a link of the trace with both ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Message {
    /// The sending process.
    pub sender: ProcId,
    /// The receiving process.
    pub receiver: ProcId,
    /// The link's start.
    pub sent: f64,
    /// The link's end.
    pub received: f64,
    /// The MPI call on the sender in which the link starts, if any.
    pub send_call: Option<CallId>,
    /// The MPI call on the receiver in which the link ends, if any.
    pub recv_call: Option<CallId>,
}

/// One instance of a collective operation: the calls of its participants.
#[derive(Clone, Debug, PartialEq)]
pub struct Collective {
    /// Its family.
    pub kind: CollectiveKind,
    /// The operation's region (the first participant's call's).
    pub region: RegionId,
    /// The communicator's name, when the trace gives it.
    pub communicator: Option<String>,
    /// The root process (one-to-N and N-to-one operations), when known.
    pub root: Option<ProcId>,
    /// The participants' calls, one per process.
    pub calls: Vec<CallId>,
}

/// A run: what the analysis reads of a trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    /// The run's start (the trace's), seconds.
    pub start: f64,
    /// The run's end (the trace's), seconds.
    pub end: f64,
    /// The processes.
    pub processes: Vec<Process>,
    /// Region names, by [`RegionId`].
    pub regions: Vec<String>,
    /// Each process's activities (by [`ProcId`]), sorted by start.
    pub activities: Vec<Vec<Activity>>,
    /// The MPI calls, sorted by process then enter time.
    pub calls: Vec<Call>,
    /// The messages, in the order of their start.
    pub messages: Vec<Message>,
    /// The collective operation instances.
    pub collectives: Vec<Collective>,
}

/// Scalasca's wait-state patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// A receive entered before the matching send.
    LateSender,
    /// A late sender while a message sent earlier (received later) was
    /// already available: messages received in the wrong order.
    LateSenderWrongOrder,
    /// A synchronous (or blocking, rendezvous) send entered before the
    /// matching receive.
    LateReceiver,
    /// Waiting in an N-to-N operation for the last participant to enter.
    WaitNxn,
    /// Time in an N-to-N operation after the first participant has left.
    NxnCompletion,
    /// Waiting in a barrier for the last participant to enter.
    WaitBarrier,
    /// Time in a barrier after the first participant has left.
    BarrierCompletion,
    /// The root of an N-to-one operation waiting for the participants.
    EarlyReduce,
    /// A prefix operation's participant waiting for those before it.
    EarlyScan,
    /// A one-to-N operation's participant waiting for the root.
    LateBroadcast,
}

impl Pattern {
    /// Every pattern, in the order of the outputs.
    pub const ALL: [Pattern; 10] = [
        Pattern::LateSender,
        Pattern::LateSenderWrongOrder,
        Pattern::LateReceiver,
        Pattern::WaitNxn,
        Pattern::NxnCompletion,
        Pattern::WaitBarrier,
        Pattern::BarrierCompletion,
        Pattern::EarlyReduce,
        Pattern::EarlyScan,
        Pattern::LateBroadcast,
    ];

    /// The pattern's name in the outputs (`late_sender`, …).
    pub fn name(self) -> &'static str {
        match self {
            Pattern::LateSender => "late_sender",
            Pattern::LateSenderWrongOrder => "late_sender_wrong_order",
            Pattern::LateReceiver => "late_receiver",
            Pattern::WaitNxn => "wait_nxn",
            Pattern::NxnCompletion => "nxn_completion",
            Pattern::WaitBarrier => "wait_barrier",
            Pattern::BarrierCompletion => "barrier_completion",
            Pattern::EarlyReduce => "early_reduce",
            Pattern::EarlyScan => "early_scan",
            Pattern::LateBroadcast => "late_broadcast",
        }
    }

    /// The pattern of a name given by [`Pattern::name`].
    pub fn from_name(name: &str) -> Option<Pattern> {
        Pattern::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// One instance of a wait-state pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaitState {
    /// The pattern.
    pub pattern: Pattern,
    /// The call in which the process waited (its process, region, times).
    pub call: CallId,
    /// The process waited for (the late sender, the last to enter, the
    /// root…), when there is one.
    pub waited_for: Option<ProcId>,
    /// When the waiting started, seconds.
    pub start: f64,
    /// How long it lasted, seconds.
    pub duration: f64,
}

/// A piece of the critical path: one process in one region for an
/// interval. The segments of a path are in time order and tile the run
/// from its start to its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathSegment {
    /// The process the path is on.
    pub proc: ProcId,
    /// The region the time is credited to (`None`: outside any state).
    pub region: Option<RegionId>,
    /// Start, seconds.
    pub start: f64,
    /// End, seconds.
    pub end: f64,
}

/// The waiting a computation caused: the delay costs of one region on one
/// process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelayCost {
    /// The process whose excess time in `region` delayed others.
    pub causing: ProcId,
    /// The region.
    pub region: RegionId,
    /// Waiting it caused directly (the wait states it delayed).
    pub short_term: f64,
    /// Waiting it caused through the propagation of those wait states.
    pub long_term: f64,
}
