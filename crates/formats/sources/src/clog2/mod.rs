//! MPE CLOG-2 logs of MPI programs (version `CLOG-02.44`, as written by
//! MPE, MPICH's logging library, and read by its `clog2TOslog2`), and the
//! MPI machine file that places their ranks on hosts.
//!
//! # The file
//!
//! A CLOG-2 file is a 1024-byte text **preamble**, then **blocks** of
//! `block_size` bytes holding binary records, then the **communicator
//! table** at offset `commtable_fptr`. All binary numbers are in the byte
//! order the preamble states (a merged, finalized log is always big-endian;
//! a process's local file has its machine's order).
//!
//! ## Preamble (bytes 0..1024)
//!
//! NUL-terminated ASCII strings one after the other, zero-padded to 1024
//! bytes: the version (`CLOG-02.44`; anything else is refused: CLOG v1
//! `.clog` logs begin with a binary record instead, and older CLOG-2
//! versions lack fields), then keys ending in `=` each followed by its
//! value strings:
//!
//! | key | value |
//! |---|---|
//! | `is_big_endian=` | `TRUE ` or `FALSE` (note the space) |
//! | `is_finalzed=` (sic) | `TRUE `: a merged log; `FALSE`: one process's local file |
//! | `block_size=` | bytes per block (a multiple of 8, at most 2^30) |
//! | `num_buffered_blocks=` | blocks buffered in memory while logging |
//! | `max_comm_world_size=` | the size of `MPI_COMM_WORLD` |
//! | `max_thread_count=` | the largest number of threads in one process |
//! | `known_eventID_start=`, `user_eventID_start=` | first event ids of MPE's (MPI) states and of user states |
//! | `known_solo_eventID_start=`, `user_solo_eventID_start=` | first ids of MPE's and of user solo events |
//! | `known_stateID_count=`, `user_stateID_count=` | state ids reserved for MPE, user states defined |
//! | `known_solo_eventID_count=`, `user_solo_eventID_count=` | the same for solo events |
//! | `commtable_fptr=` | three values `giga`, `unit`, `rest`: the table's offset is `giga * unit + rest` (0: no table) |
//!
//! ## Blocks and records
//!
//! Blocks follow the preamble back to back from byte 1024. Records are
//! packed from the start of a block, each a 24-byte **header** then a body
//! whose size depends on its type; a block's records end with ENDBLOCK (the
//! rest of the block is unused, reading goes on at the next block) or
//! ENDLOG (the end of the log). Header:
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0 | f64 | time in seconds (synchronized in a merged log) |
//! | 8 | i32 | `icomm`: the communicator `rank` refers to |
//! | 12 | i32 | `rank` in `icomm` |
//! | 16 | i32 | `thread`: local thread id |
//! | 20 | i32 | `rectype` |
//!
//! Bodies (offsets from the end of the header; strings are fixed-size,
//! NUL-terminated unless full):
//!
//! | rectype | name | size | fields |
//! |---|---|---|---|
//! | 0 | ENDLOG | 0 | |
//! | 1 | ENDBLOCK | 0 | |
//! | 2 | STATEDEF | 112 | i32 state id, i32 start event id, i32 end event id, i32 pad, char\[24\] colour, char\[32\] name, char\[40\] format |
//! | 3 | EVENTDEF | 104 | i32 event id, i32 pad, char\[24\] colour, char\[32\] name, char\[40\] format |
//! | 4 | CONSTDEF | 40 | i32 event type (-201), i32 value, char\[32\] name |
//! | 5 | BARE | 8 | i32 event id, i32 pad |
//! | 6 | CARGO | 40 | i32 event id, i32 pad, 32 bytes of payload |
//! | 7 | MSG | 24 | i32 kind (-101 send, -102 receive), i32 partner's communicator, i32 partner's rank in it, i32 tag, i32 size in bytes, i32 pad |
//! | 8 | COLL | 16 | i32 kind, i32 root, i32 size, i32 pad |
//! | 9 | COMM | 48 | i32 kind (0 `MPI_COMM_WORLD` made, 1 `MPI_COMM_SELF` made, 10 freed, 100 intra-, 101/102 local/remote, 1000 inter-communicator made), i32 communicator id, i32 rank in it, i32 rank in `MPI_COMM_WORLD`, 32-byte global id |
//! | 10 | SRCLOC | 48 | i32 id, i32 line, char\[40\] file |
//! | 11 | TIMESHIFT | 8 | f64 shift in seconds |
//!
//! A global id is an i32 random number, an f64 `MPI_Wtime()` and 20 bytes
//! of the creating process's `MPI_Get_processor_name()`.
//!
//! ## Communicator table (at `commtable_fptr`)
//!
//! An i32 count, then per communicator its 32-byte global id, its i32
//! local id (the `icomm` of records) and its i32 kind (-1 unknown, 0 inter,
//! 1 intra, 2 local, 3 remote).
//!
//! ## Time shifts
//!
//! A process's local file starts with a TIMESHIFT record, rewritten when
//! clocks are synchronized; its value applies to that record and every
//! later one until the next TIMESHIFT. The merger adds it to the times
//! and stores its negation, so a finalized log's times are already
//! corrected: this reader adds the running shift only to the times of a
//! log whose preamble says `is_finalzed=FALSE`.
//!
//! # Mapping to records ([`Clog2Source`])
//!
//! - **Containers**: one per `MPI_COMM_WORLD` rank, path `[("rank", "<r>")]`;
//!   when `max_thread_count > 1`, one per thread below it,
//!   `[("rank", "<r>"), ("thread", "<t>")]`, which then holds the states,
//!   events and link ends. A record's world rank comes from the COMM records
//!   (`(communicator, rank)` → world rank); a rank of `MPI_COMM_WORLD` is
//!   itself.
//! - **States**: every STATEDEF gives a value of the state type
//!   [`STATE_TYPE`] (`MPI`), named by the state's name (`state <id>` when
//!   empty), coloured by its colour (X11 names such as `red` or `ForestGreen`,
//!   `#rrggbb` or three numbers; `Decl::Value`). A BARE or CARGO event whose
//!   id is a state's start event pushes that state; its end event pops it.
//!   When the state left is not on top of the container's stack, the
//!   states above it are popped too (counted in [`Clog2Source::anomalies`]
//!   as `state closed by the end of an enclosing state`); an end event whose
//!   state is not on the stack is counted (`state left without being
//!   entered`) and produces nothing; states still open at ENDLOG are
//!   counted and left open. Definitions are read in a first pass, so
//!   events logged before their definition are understood.
//! - **Solo events**: a BARE or CARGO event whose id is an EVENTDEF's is a
//!   point event of type [`EVENT_TYPE`] (`MPI event`) valued by the
//!   definition's name; an id defined nowhere gives the value `event <id>`
//!   (counted as `undefined event id`). The 32 cargo bytes are not carried
//!   (counted in [`Clog2Source::skipped`] as `CARGO bytes`).
//! - **Messages**: a send (MSG -101) and a receive (MSG -102) are the two
//!   ends of a link of type [`LINK_TYPE`] (`message`) at the top of the
//!   hierarchy, valued by the tag; its key is `sender-receiver-tag-n` for
//!   the `n`-th (from 0) message of that (sender, receiver, tag) triple
//!   counted on each side, so both ends pair up in whatever order the file
//!   has them. The start carries the size sent in the extra field
//!   [`SIZE_FIELD`] (`Size`). Ends without a partner (more sends than
//!   receives of a triple, or the reverse: the last ones) produce nothing
//!   and are counted (`unmatched send`, `unmatched receive`).
//! - **Not mapped**, counted in [`Clog2Source::skipped`]: CONSTDEF, COLL,
//!   SRCLOC, MSG records of another kind. COMM records give the rank map
//!   and the processor names ([`Clog2Source::processor_names`]); TIMESHIFT
//!   records are applied as above; ENDBLOCK and ENDLOG structure the file.
//! - **Times** are the record times in nanoseconds. Declarations come first,
//!   at the time of the first event. Records come in time order: streamed
//!   when the file's events are (a merged log), otherwise converted whole
//!   and sorted (stably).
//!
//! # Machine file
//!
//! [`read_machine_file`] and [`rank_hosts`] read the MPI machine file that
//! placed the ranks on hosts (forms in [`machine`]'s documentation).

mod convert;
pub mod machine;
mod read;
mod x11;

pub use convert::{Clog2Options, Clog2Source, EVENT_TYPE, LINK_TYPE, SIZE_FIELD, STATE_TYPE};
pub use machine::{parse_machine_file, rank_hosts, read_machine_file};
pub use read::{
    Body, Clog2Reader, Clog2Record, CommEntry, EventDef, Preamble, StateDef, Uuid, COMM_ENTRY_SIZE,
    COMM_FREE, COMM_LID_NULL, COMM_SELF_CREATE, COMM_WORLD_CREATE, EVT_RECV, EVT_SEND, HEADER_SIZE,
    PREAMBLE_SIZE, SUPPORTED_VERSION, UUID_SIZE,
};

#[cfg(test)]
mod tests {
    use super::convert::parse_color;

    #[test]
    fn colours() {
        assert_eq!(parse_color("red"), Some((1.0, 0.0, 0.0)));
        assert_eq!(parse_color("Forest Green"), parse_color("forestgreen"));
        assert_eq!(
            parse_color("ForestGreen"),
            Some((34.0 / 255.0, 139.0 / 255.0, 34.0 / 255.0))
        );
        assert_eq!(
            parse_color("gray50"),
            Some((127.0 / 255.0, 127.0 / 255.0, 127.0 / 255.0))
        );
        assert_eq!(parse_color("#ff8000"), Some((1.0, 128.0 / 255.0, 0.0)));
        assert_eq!(parse_color("255 0 0"), Some((1.0, 0.0, 0.0)));
        assert_eq!(parse_color("0.5 0.5 1"), Some((0.5, 0.5, 1.0)));
        assert_eq!(parse_color("no such colour"), None);
    }
}
