//! The readers of trace formats, one module each, and the registry that
//! picks one by the format [`Format::sniff`] found.
//!
//! To add a trace format: write its module (a [`TraceReader`]), add its
//! [`Format`] variant and sniffing rule in `format.rs`, its variant in
//! [`Reader`] and its line in [`reader_for`].

pub(crate) mod otf2;
pub(crate) mod paraver;
pub(crate) mod ptb;
pub(crate) mod rastro;
pub(crate) mod records;
pub(crate) mod text;

use crate::input::Head;
use crate::{Error, Format};

/// The reader of a format: one variant per reader.
pub(crate) enum Reader {
    Text(text::TextReader),
    // Boxed: a .ptb's reader holds its whole index.
    Ptb(Box<ptb::PtbReader>),
    Rastro(rastro::RastroReader),
    Otf2(Box<otf2::Otf2Reader>),
    Records(Box<records::RecordsReader>),
}

/// Calls `$call` on the reader inside `$r`, whatever its variant.
macro_rules! each_reader {
    ($r:expr, $x:ident => $call:expr) => {
        match $r {
            $crate::formats::Reader::Text($x) => $call,
            $crate::formats::Reader::Ptb($x) => $call,
            $crate::formats::Reader::Rastro($x) => $call,
            $crate::formats::Reader::Otf2($x) => $call,
            $crate::formats::Reader::Records($x) => $call,
        }
    };
}
pub(crate) use each_reader;

/// The reader of `head`'s format.
pub(crate) fn reader_for(head: Head) -> Result<Reader, Error> {
    Ok(match head.format {
        Format::PajeText | Format::UnknownText => Reader::Text(text::TextReader::open(head)?),
        Format::Ptb => Reader::Ptb(Box::new(ptb::PtbReader::open(head)?)),
        Format::RastroPaje => Reader::Rastro(rastro::RastroReader::open(head)?),
        Format::Otf2 => Reader::Otf2(Box::new(otf2::Otf2Reader::open(head)?)),
        Format::Rastro
        | Format::Clog2
        | Format::Ganglia
        | Format::Pcp
        | Format::Sched
        | Format::Opents => {
            let mut notes = Vec::new();
            let source = crate::kinds::source_of(head, &mut notes)?;
            Reader::Records(Box::new(records::open(source, notes)?))
        }
        Format::Paraver => Reader::Records(Box::new(paraver::open(head)?)),
        Format::Otf2Part | Format::UnknownBinary => return Err(crate::kinds::unsupported(&head)),
    })
}
