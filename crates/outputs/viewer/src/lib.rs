//! The interactive viewer's server: `trama view` opens a trace and serves,
//! on a local address, one page and the window queries it makes.
//!
//! # What it serves
//! Every path starts with a random token of 128 bits (32 hexadecimal
//! digits), as in `http://127.0.0.1:8060/TOKEN/`: the page (`index.html`,
//! `app.js`, `app.css`, embedded in the binary: nothing is fetched from the
//! network) and the HTTP API under `TOKEN/api/`, specified in
//! `docs/view-api.md`.
//!
//! # Security
//! - A request whose path does not start with the token gets 404; only the
//!   embedded assets and the API are served (no path reaches the disk).
//! - Only `GET` and `HEAD` (else 405), a path in the request line (not a
//!   URL, whose host would stand for the Host header; else 400).
//! - Exactly one `Host` header (else 400), which must name the bound
//!   address or `localhost` (bound to every address, `--address 0.0.0.0`:
//!   any address as a number; else 403): a page of another site cannot
//!   reach the server by rebinding its name to 127.0.0.1.
//! - No CORS headers; every reply carries `Content-Security-Policy:
//!   default-src 'self'; frame-ancestors 'none'`, `X-Frame-Options: DENY`,
//!   `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`
//!   (the token stays out of other sites' logs), the API's also
//!   `Cache-Control: no-store`; a head too long is refused with them too
//!   ([`conn`]).
//! - Bounded work ([`Limits`]): requests that read entities are computed a
//!   few at a time, a few more wait, the next get 503 ([`limit`]); a
//!   connection has [`Limits::header_timeout`] to send each request's head.
//! - The server binds to 127.0.0.1 unless told otherwise.
//!
//! # Traces larger than memory
//! A trace is held whole ([`Input::Whole`]) or read by blocks
//! ([`Input::Blocks`], e.g. a `.ptb`; how is `trama-open`'s decision,
//! [`trama_open::Reading`], served by [`start_reading`]): then one pass gathers the summary of the
//! whole trace and what the page needs of it ([`trama_lod::gather`]), and each
//! request replays only the blocks of its window ([`blocks`]), so memory
//! does not grow with the trace.
#![deny(missing_docs)]

mod animation;
mod assets;
mod blocks;
mod compare;
pub use compare::offline_compare;
mod conn;
mod diff;
mod entity;
mod frames;
mod guard;
mod limit;
pub use limit::Limits;
mod live;
mod load;
pub use load::{announce, start_reading, stream_reading, Served};
mod meta;
mod metadata;
pub mod offline;
mod options;
mod params;
mod prepare;
mod reply;
mod routes;
mod search;
mod selection;
mod server;
mod state;
mod stats;
mod stream;
pub use stream::{StreamEnd, StreamOptions, StreamSink};
mod timeline;
mod why;
mod why_lod;
mod why_run;
mod window_stats;

pub use metadata::{meta, Meta};
pub use offline::{offline, Offline, OfflineOptions};
pub use options::{run_name, Compare, ViewerOptions};
pub use server::{start, start_compare, start_loading, start_stream, Error, Running};
pub use state::{Input, Loading};
