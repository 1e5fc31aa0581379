//! OTF2 archives read natively (no C library), and mapped to the Pajé
//! model.
#![deny(missing_docs)]

mod anchor;
mod archive;
mod batch;
mod buf;
mod chunks;
pub mod defs;
mod error;
mod events;
pub mod local;
pub mod records;
mod table;

pub use anchor::Anchor;
pub use archive::{Archive, Merged};
pub use error::Error;
pub use events::{Event, EventReader, Kind, MetricValue};
pub use table::Table;
mod model;
mod out;
mod paje;
mod words;

pub use paje::{definitions, read_paje, read_paje_items, Item, ReadError, Stats};
