//! The page's pure JavaScript (decoders, the window cache, the offline
//! tiles, rows, legend, colours, time and number formats) tested by Node's
//! built-in runner: `node --test` on `assets/test/*.test.js`. Without Node
//! the test prints a note and passes; `TRAMA_REQUIRE_NODE=1` (set by
//! `.ci/run`, which installs Debian's `nodejs`) makes it fail. The
//! modules are ES modules (`assets/package.json` says so to Node versions
//! that do not detect it).

use std::path::{Path, PathBuf};
use std::process::Command;

/// `program` on the PATH.
fn find(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(program))
            .find(|f| f.is_file())
    })
}

#[test]
fn the_pages_javascript_passes_its_unit_tests() {
    let Some(node) = find("node").or_else(|| find("nodejs")) else {
        let required = std::env::var_os("TRAMA_REQUIRE_NODE").is_some_and(|v| v == "1");
        assert!(!required, "TRAMA_REQUIRE_NODE=1 but node is not installed");
        eprintln!(
            "note: the page's JavaScript tests skipped: node is not installed (Debian: nodejs)"
        );
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/test");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("assets/test")
        .map(|e| e.expect("an entry of assets/test").path())
        .filter(|p| p.to_string_lossy().ends_with(".test.js"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no test in {}", dir.display());
    let out = Command::new(&node)
        // TAP, whatever Node's default reporter: its summary is counted below.
        .args(["--test", "--test-reporter=tap"])
        .args(&files)
        .current_dir(&dir)
        .output()
        .expect("run node --test");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "node --test failed:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every file ran: a file that fails to load is one failing test, and
    // a test that passes is counted.
    let count = |key: &str| {
        report
            .lines()
            .find_map(|l| l.strip_prefix(&format!("# {key} ")))
            .and_then(|n| n.trim().parse::<usize>().ok())
    };
    assert_eq!(count("fail"), Some(0), "{report}");
    assert!(count("pass").is_some_and(|n| n >= files.len()), "{report}");
}
