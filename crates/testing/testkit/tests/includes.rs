//! Regression: tests shared code by compiling in files of other crates
//! (`#[path = "../../gen/src/shared.rs"]`, the viewer's `webdriver.rs`,
//! the simulator's `canon.rs` and `traces.rs`). What tests share is
//! `trama-testkit` or a crate's `tests/common`: no test file of the
//! workspace includes a source file by `#[path]`.

use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
}

#[test]
fn tests_include_no_source_file_by_path() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    // crates/GROUP/CRATE/tests
    for group in std::fs::read_dir(&crates).unwrap() {
        for c in std::fs::read_dir(group.unwrap().path()).unwrap() {
            rust_files(&c.unwrap().path().join("tests"), &mut files);
        }
    }
    assert!(files.len() > 50, "test files found: {}", files.len());
    let including: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .any(|l| l.trim_start().starts_with("#[path"))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(including.is_empty(), "#[path] includes in {including:?}");
}
