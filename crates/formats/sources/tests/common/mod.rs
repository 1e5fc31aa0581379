//! Shared by the source readers' tests: the real samples beside the
//! repository, the records expected of a reader, and the checks of its
//! errors.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use trama_records::{collect, Location, Record, Source, SourceError, VarOp, What};

use trama_sources::OpenSource;

/// `../shared/samples/<sub>` beside the repository (or under `$TRAMA_SHARED`).
/// Without it the tests print a note and pass, unless `TRAMA_REQUIRE_SHARED=1`
/// (set by `.ci/run`), which makes absence a failure.
pub fn samples(sub: &str) -> Option<PathBuf> {
    let shared = match std::env::var_os("TRAMA_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared"),
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

/// The source of kind `S` read from `path` with `opts`, and its records.
pub fn read<S: OpenSource + Source>(path: &Path, opts: &S::Options) -> (S, Vec<Record>) {
    let mut src = S::open(path, opts).unwrap_or_else(|e| panic!("{e}"));
    let recs = collect(&mut src).unwrap();
    (src, recs)
}

/// [`read`] of the shared sample `<sub>/<file>`; `None` without the
/// shared samples (see [`samples`]).
pub fn read_sample<S: OpenSource + Source>(
    sub: &str,
    file: &str,
    opts: &S::Options,
) -> Option<(S, Vec<Record>)> {
    Some(read(&samples(sub)?.join(file), opts))
}

/// Opens the file at `path` as a source of kind `S` with `opts`, checks
/// that it fails at `line` with a message quoting `token`, and returns the
/// error.
pub fn open_error_at<S: OpenSource>(
    path: &Path,
    opts: &S::Options,
    line: u64,
    token: &str,
) -> SourceError {
    let Err(err) = S::open(path, opts) else {
        panic!("{} accepted", path.display());
    };
    assert_eq!(err.location, Location::Line(line), "{err}");
    assert!(err.message.contains(token), "{err}");
    err
}

/// Every record of `src`, each as the line `show` makes of it.
pub fn lines(src: &mut dyn Source, show: fn(&Record) -> String) -> Vec<String> {
    collect(src).unwrap().iter().map(show).collect()
}

/// A state set on `container` at `time`.
pub fn set_state(time: i64, container: trama_records::Path, ty: &str, value: &str) -> Record {
    Record {
        time,
        what: What::SetState {
            container,
            ty: ty.to_string().into(),
            value: value.to_string().into(),
            extra: Vec::new(),
        },
    }
}

/// A point event on `container` at `time`.
pub fn event(time: i64, container: trama_records::Path, ty: &str, value: &str) -> Record {
    Record {
        time,
        what: What::Event {
            container,
            ty: ty.to_string().into(),
            value: value.to_string().into(),
            extra: Vec::new(),
        },
    }
}

/// A variable set on `container` at `time`.
pub fn variable(time: i64, container: trama_records::Path, ty: &str, value: f64) -> Record {
    Record {
        time,
        what: What::Variable {
            container,
            ty: ty.to_string().into(),
            op: VarOp::Set,
            value,
        },
    }
}

/// Reads each text of `cases` (text, line, token) with `read` and checks
/// that it fails at that line with a message quoting the token; returns
/// the errors.
pub fn errors_at<T>(
    cases: &[(&str, u64, &str)],
    read: impl Fn(&str) -> Result<T, SourceError>,
) -> Vec<SourceError> {
    let mut errors = Vec::new();
    for (text, line, token) in cases {
        let err = read(text)
            .err()
            .unwrap_or_else(|| panic!("{text:?} accepted"));
        assert_eq!(err.location, Location::Line(*line), "{text:?}: {err}");
        assert!(err.message.contains(token), "{text:?}: {err}");
        errors.push(err);
    }
    errors
}
