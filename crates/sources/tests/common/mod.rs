//! Shared by the source readers' tests: the real samples beside the repository.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/samples/<sub>` beside the repository (or under `$TRAMA_SHARED`).
/// Without it the tests print a note and pass, unless `TRAMA_REQUIRE_SHARED=1`
/// (set by `.ci/run`), which makes absence a failure.
pub fn samples(sub: &str) -> Option<PathBuf> {
    let shared = match std::env::var_os("TRAMA_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let dir = shared.join("samples").join(sub);
    if dir.exists() {
        return Some(dir);
    }
    if std::env::var("TRAMA_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!(
            "shared samples not found at {} (TRAMA_REQUIRE_SHARED=1)",
            dir.display()
        );
    }
    eprintln!(
        "NOTE: shared samples not found at {}: real-file cases SKIPPED",
        dir.display()
    );
    None
}

/// A file of this crate's own test data (`tests/data/<rel>`).
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}
