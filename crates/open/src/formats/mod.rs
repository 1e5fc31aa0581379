//! The readers of trace formats, one module each, and the registry that
//! picks one by the format [`Format::sniff`] found.
//!
//! To add a trace format: write its module (a [`TraceReader`]), add its
//! [`Format`] variant and sniffing rule in `format.rs`, and one line in
//! [`reader_for`].

pub(crate) mod ptb;
pub(crate) mod rastro;
pub(crate) mod records;
pub(crate) mod text;

use crate::input::Head;
use crate::reader::TraceReader;
use crate::{Error, Format};

/// The reader of `head`'s format.
pub(crate) fn reader_for(head: Head) -> Result<Box<dyn TraceReader>, Error> {
    Ok(match head.format {
        Format::PajeText | Format::UnknownText => Box::new(text::TextReader::open(head)?),
        Format::Ptb => Box::new(ptb::PtbReader::open(head)?),
        Format::RastroPaje => Box::new(rastro::RastroReader::open(head)?),
        Format::Rastro
        | Format::Clog2
        | Format::Ganglia
        | Format::Pcp
        | Format::Sched
        | Format::Opents => {
            let mut notes = Vec::new();
            let source = crate::kinds::source_of(head, &mut notes)?;
            Box::new(records::open(source, notes)?)
        }
        Format::Otf2 | Format::Otf2Part | Format::Paraver | Format::UnknownBinary => {
            return Err(crate::kinds::unsupported(&head))
        }
    })
}
