//! Shared by the viewer's integration tests: a trace loaded with its
//! user-defined fields, and served on a free port.
#![allow(dead_code)]

use std::path::Path;

use trama_open::{LoadOptions, Source};
use trama_sim::Trace;
use trama_viewer::{start, Running, ViewerOptions};

/// The trace at `path`, with its user-defined fields.
pub fn load(path: &Path) -> Trace {
    let mut o = LoadOptions::default();
    o.keep_extras = true;
    trama_open::load(&Source::Path(path.into()), &o).unwrap()
}

/// `trace` served on a free port, named `name`.
pub fn serve(trace: Trace, name: &str) -> Running {
    let mut opts = ViewerOptions::default();
    opts.port = Some(0);
    opts.name = name.into();
    start(trace, &opts).unwrap()
}
