//! The record types of OTF2 3.0: their identifiers and names.
//!
//! Names are those `otf2-print` shows (the record's name in upper snake
//! case), so that counts can be compared with its output.

/// Event record identifiers (the type byte of an event record).
#[allow(missing_docs)]
pub mod event {
    pub const BUFFER_FLUSH: u8 = 10;
    pub const MEASUREMENT_ON_OFF: u8 = 11;
    pub const ENTER: u8 = 12;
    pub const LEAVE: u8 = 13;
    pub const MPI_SEND: u8 = 14;
    pub const MPI_ISEND: u8 = 15;
    pub const MPI_ISEND_COMPLETE: u8 = 16;
    pub const MPI_IRECV_REQUEST: u8 = 17;
    pub const MPI_RECV: u8 = 18;
    pub const MPI_IRECV: u8 = 19;
    pub const MPI_REQUEST_TEST: u8 = 20;
    pub const MPI_REQUEST_CANCELLED: u8 = 21;
    pub const MPI_COLLECTIVE_BEGIN: u8 = 22;
    pub const MPI_COLLECTIVE_END: u8 = 23;
    pub const OMP_FORK: u8 = 24;
    pub const OMP_JOIN: u8 = 25;
    pub const OMP_TASK_CREATE: u8 = 28;
    pub const OMP_TASK_SWITCH: u8 = 29;
    pub const OMP_TASK_COMPLETE: u8 = 30;
    pub const METRIC: u8 = 31;
    pub const THREAD_FORK: u8 = 53;
    pub const THREAD_JOIN: u8 = 54;
    pub const THREAD_TEAM_BEGIN: u8 = 55;
    pub const THREAD_TEAM_END: u8 = 56;
    pub const THREAD_CREATE: u8 = 62;
    pub const THREAD_BEGIN: u8 = 63;
    pub const THREAD_WAIT: u8 = 64;
    pub const THREAD_END: u8 = 65;
}

/// Names of the event records, from identifier 10.
const EVENT_NAMES: [&str; 79] = [
    "BUFFER_FLUSH",
    "MEASUREMENT_ON_OFF",
    "ENTER",
    "LEAVE",
    "MPI_SEND",
    "MPI_ISEND",
    "MPI_ISEND_COMPLETE",
    "MPI_IRECV_REQUEST",
    "MPI_RECV",
    "MPI_IRECV",
    "MPI_REQUEST_TEST",
    "MPI_REQUEST_CANCELLED",
    "MPI_COLLECTIVE_BEGIN",
    "MPI_COLLECTIVE_END",
    "OMP_FORK",
    "OMP_JOIN",
    "OMP_ACQUIRE_LOCK",
    "OMP_RELEASE_LOCK",
    "OMP_TASK_CREATE",
    "OMP_TASK_SWITCH",
    "OMP_TASK_COMPLETE",
    "METRIC",
    "PARAMETER_STRING",
    "PARAMETER_INT64",
    "PARAMETER_UINT64",
    "RMA_WIN_CREATE",
    "RMA_WIN_DESTROY",
    "RMA_COLLECTIVE_BEGIN",
    "RMA_COLLECTIVE_END",
    "RMA_GROUP_SYNC",
    "RMA_REQUEST_LOCK",
    "RMA_ACQUIRE_LOCK",
    "RMA_TRY_LOCK",
    "RMA_RELEASE_LOCK",
    "RMA_SYNC",
    "RMA_WAIT_CHANGE",
    "RMA_PUT",
    "RMA_GET",
    "RMA_ATOMIC",
    "RMA_OP_COMPLETE_BLOCKING",
    "RMA_OP_COMPLETE_NON_BLOCKING",
    "RMA_OP_TEST",
    "RMA_OP_COMPLETE_REMOTE",
    "THREAD_FORK",
    "THREAD_JOIN",
    "THREAD_TEAM_BEGIN",
    "THREAD_TEAM_END",
    "THREAD_ACQUIRE_LOCK",
    "THREAD_RELEASE_LOCK",
    "THREAD_TASK_CREATE",
    "THREAD_TASK_SWITCH",
    "THREAD_TASK_COMPLETE",
    "THREAD_CREATE",
    "THREAD_BEGIN",
    "THREAD_WAIT",
    "THREAD_END",
    "CALLING_CONTEXT_ENTER",
    "CALLING_CONTEXT_LEAVE",
    "CALLING_CONTEXT_SAMPLE",
    "IO_CREATE_HANDLE",
    "IO_DESTROY_HANDLE",
    "IO_DUPLICATE_HANDLE",
    "IO_SEEK",
    "IO_CHANGE_STATUS_FLAGS",
    "IO_DELETE_FILE",
    "IO_OPERATION_BEGIN",
    "IO_OPERATION_TEST",
    "IO_OPERATION_ISSUED",
    "IO_OPERATION_COMPLETE",
    "IO_OPERATION_CANCELLED",
    "IO_ACQUIRE_LOCK",
    "IO_RELEASE_LOCK",
    "IO_TRY_LOCK",
    "PROGRAM_BEGIN",
    "PROGRAM_END",
    "NON_BLOCKING_COLLECTIVE_REQUEST",
    "NON_BLOCKING_COLLECTIVE_COMPLETE",
    "COMM_CREATE",
    "COMM_DESTROY",
];

/// The name of event record `id` (`otf2-print`'s), or `None` for an
/// identifier OTF2 3.0 does not define.
pub fn event_name(id: u8) -> Option<&'static str> {
    (id as usize)
        .checked_sub(10)
        .and_then(|i| EVENT_NAMES.get(i))
        .copied()
}

/// Whether event record `id` has no record length: the records of OTF2
/// 1.0 and 1.1 whose only attribute is one compressed integer are written
/// as that integer alone.
#[inline]
pub fn is_singleton(id: u8) -> bool {
    use event::*;
    matches!(
        id,
        ENTER
            | LEAVE
            | MPI_ISEND_COMPLETE
            | MPI_IRECV_REQUEST
            | MPI_REQUEST_TEST
            | MPI_REQUEST_CANCELLED
            | OMP_FORK
            | OMP_TASK_CREATE
            | OMP_TASK_SWITCH
            | OMP_TASK_COMPLETE
    )
}

/// Global definition record identifiers.
#[allow(missing_docs)]
pub mod def {
    pub const CLOCK_PROPERTIES: u8 = 5;
    pub const STRING: u8 = 10;
    pub const ATTRIBUTE: u8 = 11;
    pub const SYSTEM_TREE_NODE: u8 = 12;
    pub const LOCATION_GROUP: u8 = 13;
    pub const LOCATION: u8 = 14;
    pub const REGION: u8 = 15;
    pub const GROUP: u8 = 18;
    pub const METRIC_MEMBER: u8 = 19;
    pub const METRIC_CLASS: u8 = 20;
    pub const METRIC_INSTANCE: u8 = 21;
    pub const COMM: u8 = 22;
    /// Local definition files: a mapping of local to global identifiers.
    pub const MAPPING_TABLE: u8 = 5;
    /// Local definition files: a clock offset of the location.
    pub const CLOCK_OFFSET: u8 = 6;
}

/// The name of global definition record `id`.
pub fn definition_name(id: u8) -> Option<&'static str> {
    Some(match id {
        5 => "CLOCK_PROPERTIES",
        6 => "PARADIGM",
        7 => "PARADIGM_PROPERTY",
        8 => "IO_PARADIGM",
        10 => "STRING",
        11 => "ATTRIBUTE",
        12 => "SYSTEM_TREE_NODE",
        13 => "LOCATION_GROUP",
        14 => "LOCATION",
        15 => "REGION",
        16 => "CALLSITE",
        17 => "CALLPATH",
        18 => "GROUP",
        19 => "METRIC_MEMBER",
        20 => "METRIC_CLASS",
        21 => "METRIC_INSTANCE",
        22 => "COMM",
        23 => "PARAMETER",
        24 => "RMA_WIN",
        25 => "METRIC_CLASS_RECORDER",
        26 => "SYSTEM_TREE_NODE_PROPERTY",
        27 => "SYSTEM_TREE_NODE_DOMAIN",
        28 => "LOCATION_GROUP_PROPERTY",
        29 => "LOCATION_PROPERTY",
        30 => "CART_DIMENSION",
        31 => "CART_TOPOLOGY",
        32 => "CART_COORDINATE",
        33 => "SOURCE_CODE_LOCATION",
        34 => "CALLING_CONTEXT",
        35 => "CALLING_CONTEXT_PROPERTY",
        36 => "INTERRUPT_GENERATOR",
        37 => "IO_FILE_PROPERTY",
        38 => "IO_REGULAR_FILE",
        39 => "IO_DIRECTORY",
        40 => "IO_HANDLE",
        41 => "IO_PRE_CREATED_HANDLE_STATE",
        42 => "CALLPATH_PARAMETER",
        43 => "INTER_COMM",
        _ => return None,
    })
}

/// The name of an `OTF2_CollectiveOp`.
pub fn collective_name(op: u8) -> &'static str {
    const NAMES: [&str; 23] = [
        "BARRIER",
        "BCAST",
        "GATHER",
        "GATHERV",
        "SCATTER",
        "SCATTERV",
        "ALLGATHER",
        "ALLGATHERV",
        "ALLTOALL",
        "ALLTOALLV",
        "ALLTOALLW",
        "ALLREDUCE",
        "REDUCE",
        "REDUCE_SCATTER",
        "SCAN",
        "EXSCAN",
        "REDUCE_SCATTER_BLOCK",
        "CREATE_HANDLE",
        "DESTROY_HANDLE",
        "ALLOCATE",
        "DEALLOCATE",
        "CREATE_HANDLE_AND_ALLOCATE",
        "DESTROY_HANDLE_AND_DEALLOCATE",
    ];
    NAMES
        .get(op as usize)
        .copied()
        .unwrap_or("UNKNOWN_COLLECTIVE")
}

/// The name of an `OTF2_Paradigm`.
pub fn paradigm_name(p: u8) -> &'static str {
    const NAMES: [&str; 25] = [
        "unknown",
        "user",
        "compiler",
        "OpenMP",
        "MPI",
        "CUDA",
        "measurement system",
        "Pthread",
        "HMPP",
        "OmpSs",
        "hardware",
        "GASPI",
        "UPC",
        "SHMEM",
        "Windows threads",
        "Qt threads",
        "ACE threads",
        "TBB threads",
        "OpenACC",
        "OpenCL",
        "MTAPI",
        "sampling",
        "none",
        "HIP",
        "Kokkos",
    ];
    NAMES.get(p as usize).copied().unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(event_name(event::ENTER), Some("ENTER"));
        assert_eq!(event_name(event::THREAD_END), Some("THREAD_END"));
        assert_eq!(event_name(88), Some("COMM_DESTROY"));
        assert_eq!(event_name(89), None);
        assert_eq!(event_name(3), None);
        assert_eq!(collective_name(11), "ALLREDUCE");
        assert!(is_singleton(event::LEAVE) && !is_singleton(event::MPI_SEND));
    }
}
