//! libRastro binary traces, and the binary Pajé format stored in them.
//!
//! - [`rst`]: the libRastro file format itself (timed and timeless
//!   layouts): a decoder that lends typed events without allocating per
//!   event, layout detection, and an encoder that reproduces libRastro's
//!   files byte for byte. It knows nothing of what the events mean, so
//!   other libRastro producers (Akypuera's MPI traces, for instance) can be
//!   read with it.
//! - [`paje`]: Pajé traces as libRastro events (event 999 = definition,
//!   888 = referenced string): a reader that hands the simulator the same
//!   [`trama_events::Event`] views as the text reader, and a writer of the
//!   timeless layout, inline or with string references.
//!
//! ```
//! use trama_rastro::rst::{Decoder, Encoder, Layout, Stamp, Value};
//!
//! let mut enc = Encoder::new(Vec::new(), Layout::Timeless);
//! enc.event(16383, Stamp::Timeless { time_set: true },
//!           &[Value::U64(0), Value::U64(0), Value::Str(b"vm")]).unwrap();
//! enc.event(16382, Stamp::Timeless { time_set: false }, &[]).unwrap();
//! let bytes = enc.finish().unwrap();
//! assert_eq!(bytes.len(), 28);
//!
//! let mut dec = Decoder::detect(&bytes).unwrap();
//! let ev = dec.next_event().unwrap().unwrap();
//! assert_eq!(ev.init_info(), Some((0, 0, &b"vm"[..])));
//! ```
#![deny(missing_docs)]

pub mod paje;
pub mod rst;

pub use paje::{is_rastro, read_rastro_paje, RastroPajeWriter};
