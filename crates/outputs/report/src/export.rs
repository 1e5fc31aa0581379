//! `trama export` on an opened trace: one of `trama-export`'s writers
//! (Perfetto's protobuf, Chrome's JSON) or `trama-parquet`'s tables, fed
//! as the trace is simulated, with used link keys in a filter so that
//! memory does not grow with the links (as `dump --stream`).

use std::io::Write;
use std::path::Path;

use trama_export::chrome::ChromeWriter;
use trama_export::perfetto::PerfettoWriter;
use trama_export::ExportOptions;
use trama_open::{LoadOptions, Opened, KEY_FILTER_BYTES};
use trama_parquet::{OutputDir, ParquetOptions, ParquetSink};

use crate::Error;

/// The formats [`export`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Export {
    /// Perfetto's TrackEvent protobuf.
    Perfetto,
    /// Chrome's trace-event JSON.
    ChromeJson,
}

/// Exports `opened`, read with `load`, to `out` as `format`; `read` is
/// told, once the trace is read, the warnings of reading it.
pub fn export(
    opened: &mut Opened,
    mut load: LoadOptions,
    format: Export,
    out: &mut (dyn Write + Send),
    read: &mut dyn FnMut(&[String]),
) -> Result<(), Error> {
    if load.no_imbrication {
        return Err(Error::NoImbrication);
    }
    let mut opts = ExportOptions::default();
    opts.name = Path::new(opened.name()).file_name().map_or_else(
        || opened.name().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    load.key_filter = Some(KEY_FILTER_BYTES);
    if format == Export::Perfetto {
        let done = opened.simulate_into(PerfettoWriter::new(out, &opts), &load)?;
        read(&done.warnings);
        done.sink.finish()?;
    } else {
        let done = opened.simulate_into(ChromeWriter::new(out, &opts), &load)?;
        read(&done.warnings);
        done.sink.finish()?;
    }
    Ok(())
}

/// Exports `opened`, read with `load`, as Parquet tables into the
/// directory `dir`, which appears whole or not at all (with
/// [`ParquetOptions::why`], the wait states and the critical path too,
/// user-defined fields kept for them); `read` is told,
/// once the trace is read, the warnings of reading it. Gives what was
/// written: rows per table and files.
pub fn export_parquet(
    opened: &mut Opened,
    mut load: LoadOptions,
    opts: &ParquetOptions,
    dir: &Path,
    read: &mut dyn FnMut(&[String]),
) -> Result<String, Error> {
    let writing = |source: Box<dyn std::error::Error + Send + Sync>| Error::Writing {
        dir: dir.display().to_string(),
        source,
    };
    let out = OutputDir::create(dir)?;
    load.key_filter = Some(KEY_FILTER_BYTES);
    // The wait-state analysis reads an OTF2 collective's root and
    // communicator from user-defined fields.
    load.keep_extras |= opts.why;
    let sink = ParquetSink::new(out.path(), opts)?;
    let done = opened.simulate_into(sink, &load).map_err(|e| match e {
        // The tables' failure: the file it names is in the output.
        trama_open::Error::Output(e) => writing(e.into()),
        e => e.into(),
    })?;
    read(&done.warnings);
    let summary = (done.sink.finish(done.model)).map_err(|e| writing(e.into()))?;
    out.commit()?;
    let counts: Vec<String> = (opts.tables())
        .map(|t| format!("{} {}", summary.rows(t), t.name()))
        .collect();
    Ok(format!("{} in {} files", counts.join(", "), summary.files))
}
