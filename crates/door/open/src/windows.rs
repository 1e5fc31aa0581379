//! A trace read by windows: kept on disk, each window replayed from the
//! keyframe before it when a consumer asks for it, so that the consumer's
//! memory does not grow with the trace. [`Windowed`] is what such a
//! consumer (the viewer) reads; a `.ptb` implements it ([`PtbWindows`]).

use trama_ptb::{FrameKind, PtbFile, ReplayOptions, Replayed};
use trama_sim::Trace;

use crate::Error;

/// A trace whose windows are replayed on demand, block by block.
pub trait Windowed: Send + Sync {
    /// Its size in bytes.
    fn size(&self) -> u64;
    /// Its events.
    fn events(&self) -> u64;
    /// `(t_min, t_max)` of each block of events, in file order.
    fn blocks(&self) -> Result<Vec<(f64, f64)>, String>;
    /// The model (containers, types, values) with no list, from the model
    /// records alone.
    fn model(&self) -> Result<Trace, String>;
    /// The entities overlapping `[t0, t1]` (the values of user-defined
    /// fields kept).
    fn replay(&self, t0: f64, t1: f64) -> Result<Trace, String>;
    /// Gives back the memory of what was read so far (pages of a mapped
    /// file stay in the system's cache).
    fn release(&self);
    /// What a viewer reads of the whole trace, stored with it (a `.ptb`'s
    /// summary frame), and the size of the file without it: `None` when
    /// there is none.
    fn summary(&self) -> Option<(Vec<u8>, u64)> {
        None
    }
}

/// A `.ptb` file read by windows: mapped without reading it up front.
pub struct PtbWindows(PtbFile);

impl PtbWindows {
    /// The `.ptb` at `path`, mapped without reading it (its header and
    /// index only).
    pub fn open(path: &std::path::Path) -> Result<PtbWindows, Error> {
        let name = path.display().to_string();
        match PtbFile::open_lazy(path) {
            Ok(Ok(f)) => Ok(PtbWindows(f)),
            Ok(Err(e)) => Err(Error::Format {
                name,
                message: e.to_string(),
            }),
            Err(e) => Err(Error::file(format!("cannot read {name}"), e)),
        }
    }

    /// A `.ptb` already mapped.
    pub(crate) fn new(file: PtbFile) -> PtbWindows {
        PtbWindows(file)
    }
}

/// Why a `.ptb` cannot be read by blocks.
fn fallback(why: &str) -> String {
    format!("this .ptb cannot be read by blocks ({why}); view it with --whole")
}

impl Windowed for PtbWindows {
    fn size(&self) -> u64 {
        self.0.len()
    }

    fn events(&self) -> u64 {
        self.0.events()
    }

    fn blocks(&self) -> Result<Vec<(f64, f64)>, String> {
        let frames = self
            .0
            .frames()
            .map_err(|e| e.to_string())?
            .into_iter()
            .filter(|f| f.kind == FrameKind::Events)
            .map(|f| (f.t_min, f.t_max))
            .collect();
        // Reading every frame's header mapped the pages around each.
        self.0.release();
        Ok(frames)
    }

    fn model(&self) -> Result<Trace, String> {
        match self.0.model_trace() {
            Ok(Replayed::Done(t)) => Ok(t),
            Ok(Replayed::Fallback(why)) => Err(fallback(&why)),
            Err(e) => Err(e.to_string()),
        }
    }

    fn replay(&self, t0: f64, t1: f64) -> Result<Trace, String> {
        let mut o = ReplayOptions::default();
        o.keep_extras = true;
        o.window = Some((t0, t1));
        match self.0.replay_trace(&o) {
            Ok((Replayed::Done(t), _)) => Ok(t),
            Ok((Replayed::Fallback(why), _)) => Err(fallback(&why)),
            Err(e) => Err(e.to_string()),
        }
    }

    fn release(&self) {
        self.0.release();
    }

    fn summary(&self) -> Option<(Vec<u8>, u64)> {
        self.0.summary()
    }
}
