//! The original proposal's binary Pajé: Pajé events in a libRastro file
//! (`trama-rastro`), held in memory.

use trama_rastro::paje::{Error as RastroError, ReadOptions};

use crate::input::Head;
use crate::reader::{Failure, Item, ReadStats, Stop, TraceReader};
use crate::{Error, LoadOptions};

/// A libRastro binary Pajé file.
pub(crate) struct RastroReader {
    data: Vec<u8>,
}

impl RastroReader {
    pub(crate) fn open(head: Head) -> Result<RastroReader, Error> {
        Ok(RastroReader {
            data: head.into_bytes()?,
        })
    }
}

impl TraceReader for RastroReader {
    fn read<F>(&mut self, _: &LoadOptions, mut each: F) -> Result<ReadStats, Failure>
    where
        F: FnMut(Item<'_>) -> Result<(), Stop>,
    {
        let o = ReadOptions::default();
        let st = trama_rastro::read_rastro_paje(&self.data, &o, |ev| each(Item::Event(ev)))
            .map_err(|e| match e {
                RastroError::Handler(s) => Failure::Stop(s),
                RastroError::Rst(e) => Failure::Format(e.to_string()),
                RastroError::Format {
                    event,
                    offset,
                    error,
                } => Failure::Format(format!("rastro event {event} (byte {offset}): {error}")),
            })?;
        Ok(ReadStats {
            lines: st.rastro_events,
            bytes: st.bytes,
            events: st.events,
            definitions: st.definitions,
            ..ReadStats::default()
        })
    }

    fn binary(&self) -> bool {
        true
    }
}
