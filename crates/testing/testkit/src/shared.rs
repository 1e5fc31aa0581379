//! What the tests of several crates share: the shared test material beside
//! the repository, and a local server of a canned answer.
//!
//! The shared folder is `shared` beside the repository, or the folder
//! `$TRAMA_SHARED` names. [`find`] gives it when what a test needs is in
//! it; without it the test prints a note and passes, unless
//! `TRAMA_REQUIRE_SHARED=1` (set by `.ci/run`), which makes absence a
//! failure.

use std::io::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

/// The environment variable naming the shared folder, when it is not
/// beside the repository.
pub const DIR_VAR: &str = "TRAMA_SHARED";

/// The environment variable that makes missing shared material a failure
/// (`TRAMA_REQUIRE_SHARED=1`).
pub const REQUIRE_VAR: &str = "TRAMA_REQUIRE_SHARED";

/// The shared folder, whether it exists or not: `$TRAMA_SHARED`, else
/// `shared` beside the repository.
pub fn dir() -> PathBuf {
    match std::env::var_os(DIR_VAR) {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared"),
    }
}

/// The shared folder, when `probe` (a path inside it) exists. Otherwise
/// `None`, after a note on standard error that `skipped` are skipped; or,
/// with `TRAMA_REQUIRE_SHARED=1`, a panic.
#[track_caller]
pub fn find(probe: &str, skipped: &str) -> Option<PathBuf> {
    let dir = dir();
    let need = dir.join(probe);
    if need.exists() {
        return Some(dir);
    }
    assert!(
        std::env::var(REQUIRE_VAR).as_deref() != Ok("1"),
        "shared test material not found at {} ({REQUIRE_VAR}=1)",
        need.display()
    );
    eprintln!(
        "NOTE: shared test material not found at {}: {skipped} SKIPPED",
        need.display()
    );
    None
}

/// A server on a free port of 127.0.0.1 that answers every connection with
/// `answer` (a fake gmond, say), for as long as the test runs; its address.
pub fn serve(answer: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let _ = conn.write_all(&answer);
        }
    });
    addr
}
