//! What the integration tests of several trama crates share (a
//! dev-dependency only, never published):
//!
//! - [`shared`]: the shared test material beside the repository (or where
//!   `$TRAMA_SHARED` says), and a local server of a canned answer;
//! - [`canon`]: a trace as text lines, for comparisons;
//! - [`traces`]: the traces the replay tests go through (generated ones,
//!   seed by seed, and the reference simulation's);
//! - [`piped`]: a program run with bytes on its standard input;
//! - [`runs`]: runs with a delay injected where the tests know it;
//! - [`http`]: plain `GET` requests to a local server, the reply whole;
//! - [`webdriver`]: Debian's Chromium, headless, driven by chromedriver on
//!   loopback, and the gestures the browser tests make on the viewer's
//!   page.
//!
//! Random traces themselves come from `trama-gen`, which depends on no
//! trama crate so that any floor can use it; this crate sits above the
//! simulator.
#![deny(missing_docs)]

pub mod canon;
pub mod http;
pub mod piped;
pub mod runs;
pub mod shared;
pub mod traces;
pub mod webdriver;
