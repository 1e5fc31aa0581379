//! Clock synchronization of trace sources (seed 000, "Sincronização"):
//! the `timesync` file of clock pairs, the linear drift correction it
//! defines, and a small NTP-style measurement that writes such files.
//!
//! # The method
//!
//! One host's clock is the **reference**. Just before a run, and again
//! just after it, every monitored host's clock is read against the
//! reference's: each reading is a *pair* `(reference time, host time)`
//! taken at the same instant. A time `t_s` read on host `h` during the run
//! then becomes, in the reference's clock (o = the pair before, n = the
//! pair after; formula 4.1 of the seed):
//!
//! ```text
//! t_ref = t_o_ref + (t_s - t_o) * (t_n_ref - t_o_ref) / (t_n - t_o)
//! ```
//!
//! that is, a linear correction of both the offset and the drift. With a
//! single block of pairs only the offset is corrected:
//! `t_ref = t_s + (t_o_ref - t_o)`. The reference host's own times need no
//! correction (its [`Correction`] is the identity).
//!
//! # The `timesync` file
//!
//! A text file (UTF-8), one clock pair per line, as written by libRastro's
//! `rastro_timesync` (table 4.6 of the seed):
//!
//! ```text
//! paple 1094221332965040 paple01 1094222792354177
//! paple 1094221333154618 paple02 1094222263029626
//! paple 1094221333343677 paple03 1094222084364163
//! paple 1094221333497292 paple04 1094221463236745
//! paple 1094221337489491 paple01 1094222796878767
//! paple 1094221337621866 paple02 1094222267496840
//! paple 1094221337752345 paple03 1094222088772874
//! paple 1094221337966650 paple04 1094221467706105
//! ```
//!
//! - A **pair line** has exactly four fields separated by spaces or tabs:
//!   `refhost reftime host hosttime`. `reftime` is the reference's clock
//!   and `hosttime` the host's clock at the same instant. Times are decimal
//!   numbers in the file's unit ([`TimeUnit`], microseconds unless told
//!   otherwise), optionally signed, optionally with a fraction down to the
//!   nanosecond (`1094221332.965040` in seconds). Every line names the same
//!   reference host. A `#` and what follows it on a pair line is a comment.
//! - A **separator** is a blank line or a line whose first non-blank
//!   character is `#` (a comment).
//! - **Blocks.** There are one or two blocks of pairs: the block *before*
//!   the run, then the block *after* it.
//!   - If a separator stands between two pair lines anywhere in the file
//!     (separators before the first pair or after the last do not count),
//!     the blocks are the runs of pair lines between separators, and a host
//!     may have several pairs in a block.
//!   - Otherwise (the original's layout, as above) the file is one run of
//!     pair lines and a block ends where a host appears again: the first
//!     pair line whose host already has a pair in the current block starts
//!     the next block.
//!   - A third block is an error.
//! - **Several pairs of a host in a block**: the *before* block keeps the
//!   pair with the earliest reference time and the *after* block the pair
//!   with the latest (the first in file order among equals), so the
//!   interval `t_n_ref - t_o_ref` is the widest the file offers and a
//!   measurement's error weighs least on the drift. A single block is a
//!   *before* block.
//! - **Errors** (each names the file, the line and the offending token): a
//!   line without four fields, a time that is not a number (or is finer
//!   than a nanosecond, or out of range), a second reference host, a third
//!   block, a host of the *after* block missing from the *before* block or
//!   the reverse, and an interval that is zero or negative on either clock
//!   (`t_n <= t_o` or `t_n_ref <= t_o_ref`). A pair naming the reference as
//!   its host is checked like the others, but the reference's correction
//!   stays the identity.
//!
//! # Arithmetic and rounding
//!
//! Times are converted to integer nanoseconds when read, and
//! [`Correction::apply`] computes the formula exactly in `i128` integers:
//! `t_o_ref + floor((t_s - t_o) * (t_n_ref - t_o_ref) / (t_n - t_o))`,
//! rounded toward negative infinity (floor). The floor makes the correction
//! non-decreasing, so sorted times stay sorted, and it agrees with the
//! original's integer truncation for times after `t_o`: expressed back in
//! the file's unit (again floored, [`TimeUnit::floor`]), the worked example
//! of the seed, `t_s = 1094222084364200` µs on `paple03`, gives exactly
//! `1094221333343713` µs. A result beyond the range of `i64` saturates.
//!
//! # The measurement protocol
//!
//! [`Server`] (`trama timesync --serve`) answers time requests over TCP
//! (default port [`DEFAULT_PORT`]); [`measure`] (`trama timesync HOST...`)
//! asks a server `samples` times on one connection. Messages are fixed
//! binary frames, integers big-endian, times in nanoseconds since the Unix
//! epoch of the clock that read them:
//!
//! | frame   | bytes | content |
//! |---------|-------|---------|
//! | request | 8     | `b"TSRQ"`, `u32` sequence number |
//! | reply   | 24    | `b"TSRP"`, `u32` the request's sequence number, `i64` t1, `i64` t2 |
//!
//! The client reads its clock (t0) just before sending a request; the
//! server reads its clock when the request has arrived (t1) and again just
//! before sending the reply (t2); the client reads its clock when the
//! reply has arrived (t3). As in NTP, the server's clock is ahead of the
//! client's by the offset `θ = ((t1 - t0) + (t2 - t3)) / 2`, and the round
//! trip is `δ = (t3 - t0) - (t2 - t1)`; whatever the two network delays,
//! `|θ - true offset| <= δ / 2`. The exchange with the lowest round trip is
//! kept, and gives the pair `reftime = (t0 + t3) / 2` (the client's clock,
//! the reference) and `hosttime = (t1 + t2) / 2` (the server's clock at
//! that instant). [`write_block`] writes one block of such pairs, in
//! microseconds, under a `#` comment line that separates it from a block
//! already in the file: running the measurement once before a run and once
//! after it (appending) produces a complete `timesync` file.
//!
//! A wrong magic, a wrong sequence number or a connection closed early is
//! an error of the exchange ([`std::io::ErrorKind::InvalidData`] or
//! [`std::io::ErrorKind::UnexpectedEof`]).
#![deny(missing_docs)]

mod hosts;
mod net;
mod table;

pub use hosts::{correct_time, local_host_name, measure_block, Host, Measured, SessionError};
pub use net::{measure, now_ns, serve, write_block, Exchange, Server, ServerOptions, DEFAULT_PORT};
pub use table::{Correction, Pair, SyncError, SyncTable, TimeUnit};
