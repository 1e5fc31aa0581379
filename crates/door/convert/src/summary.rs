//! What a viewer reads of a whole trace read by blocks: one pass over its
//! blocks ([`trama_lod::gather`]) gathers it, and a `.ptb` a conversion
//! writes carries it in its summary frame (what [`trama_lod::saved`]
//! writes, see the `.ptb` format's "Summary frame"), so that a first view
//! of the file starts without that pass.

use std::path::Path;
use std::sync::atomic::AtomicU64;

use trama_lod::gather::{BlockSource, Gathered};
use trama_open::Windowed;
use trama_sim::Trace;

/// A trace read by blocks as the pass reads it: its blocks' times read
/// once.
struct Source<'a> {
    trace: &'a dyn Windowed,
    frames: Vec<(f64, f64)>,
}

impl BlockSource for Source<'_> {
    fn frames(&self) -> &[(f64, f64)] {
        &self.frames
    }

    fn model(&self) -> Result<Trace, String> {
        self.trace.model()
    }

    fn replay(&self, t0: f64, t1: f64) -> Result<Trace, String> {
        let trace = self.trace.replay(t0, t1);
        self.trace.release();
        trace
    }
}

/// Gathers what a viewer reads of the whole of `trace` (adding to `done`
/// the blocks read); the links drawn are those of the message types
/// ([`trama_analysis::Messages::drawn`]).
pub fn gather(trace: &dyn Windowed, done: Option<&AtomicU64>) -> Result<Gathered, String> {
    let source = Source {
        trace,
        frames: trace.blocks()?,
    };
    trama_lod::gather::gather(&source, done, |r, tally| {
        trama_analysis::Messages::from_tally(r, tally).drawn(r)
    })
}

/// Adds to the `.ptb` at `path` (just written, not yet in place) the
/// summary of the whole trace. A file that cannot be read by blocks (plain
/// strings, a trace the simulation rejects) is left as it is: `Ok(false)`.
pub fn add(path: &Path) -> std::io::Result<bool> {
    let (bytes, size) = {
        let Ok(file) = trama_open::PtbWindows::open(path) else {
            return Ok(false);
        };
        let Ok(g) = gather(&file, None) else {
            return Ok(false);
        };
        let (size, events) = (file.size(), file.events());
        (trama_lod::saved::encode(&g, size, events), size)
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    if file.metadata()?.len() != size {
        return Err(std::io::Error::other("the file changed while it was read"));
    }
    trama_ptb::add_summary(&mut file, &bytes).map(|()| true)
}
