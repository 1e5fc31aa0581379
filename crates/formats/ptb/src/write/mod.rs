//! The streaming writer: [`Writer`] resolves events on the caller's
//! thread, an encoding thread stores them, an output thread compresses and
//! writes frames.
//!
//! - `writer`: the [`Writer`] and the batches it hands over;
//! - `encoder`: the encoding thread: events into runs, model records,
//!   the simulation followed for keyframes;
//! - `fields`: how each field of an event is stored;
//! - `block`: a block's frames, and the end of the file;
//! - `output`: the output thread: compression, frames, index, footer;
//! - `summary`: a summary frame added to a file written.

use std::io;

use trama_sim::SimError;

pub use trama_events::StringMode;

mod block;
mod encoder;
mod fields;
mod output;
mod summary;
mod writer;

pub use summary::add_summary;

pub use writer::Writer;

/// Options of a [`Writer`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WriteOptions {
    /// String mode.
    pub strings: StringMode,
    /// zstd level of each frame; `None` stores frames uncompressed.
    pub zstd_level: Option<i32>,
    /// Events per events frame (at most 65536).
    pub block_events: usize,
    /// The text was read with quotes stripped (recorded in the header).
    pub quotes_stripped: bool,
    /// How the events' variable values are read (recorded in the
    /// header): as PajeNG reads Pajé text, or exactly, for events of a
    /// reader whose numbers are the source's own (OTF2).
    pub precision: trama_num::Precision,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            strings: StringMode::Interned,
            zstd_level: Some(1),
            block_events: 1 << 16,
            quotes_stripped: false,
            precision: trama_num::Precision::Float32,
        }
    }
}

/// What the text source was, recorded in the footer.
#[derive(Clone, Copy, Debug, Default)]
pub struct SourceStats {
    /// Lines of text.
    pub lines: u64,
}

/// Why writing stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The output failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// An event refers to what does not exist (or redefines what does):
    /// the trace cannot be stored by handles.
    #[error("{0}")]
    Trace(Box<SimError>),
}

/// What a finished [`Writer`] tells about the trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct Written {
    /// Events stored.
    pub events: u64,
    /// Events frames.
    pub blocks: u64,
    /// Keyframes.
    pub keyframes: u64,
    /// The line of the first event the simulation rejects (0: at the end
    /// of the trace), when it rejects one; the file keeps every event, and
    /// reading it reports the error. No keyframe follows that point.
    pub invalid_at: Option<u64>,
}
