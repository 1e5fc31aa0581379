//! Reader of the Pajé text trace format, the dialect PajeNG reads.
//!
//! - `%EventDef NAME ID` / `% FIELD TYPE` / `%EndEventDef` headers may
//!   appear anywhere; identifiers are arbitrary words; one event name may
//!   have several identifiers with different field lists;
//! - unknown field names are kept as user-defined extra fields; old field
//!   names (`ContainerType`, `SourceContainer`, …) are accepted with
//!   [`ReadOptions::strict`] set to false;
//! - `#` comments (also in the middle of a word), quoted words, CRLF and
//!   blank lines are handled as described in [`QuoteMode`]; a UTF-8 byte
//!   order mark at the start of the text is dropped;
//! - a line with more words than its definition has fields is used
//!   without the extra ones, with a warning naming it (as PajeNG does); a
//!   line with fewer is an error;
//! - input of any size is streamed in chunks that are lexed on several
//!   threads while the caller's thread receives events in file order.
//!
//! ```
//! use trama_paje::{read_paje, ReadOptions};
//! let text = "%EventDef PajeDefineContainerType 1\n% Name string\n% Type string\n%EndEventDef\n1 Proc 0\n";
//! let mut kinds = Vec::new();
//! let stats = read_paje(text.as_bytes(), &ReadOptions::default(), |ev| -> Result<(), ()> {
//!     kinds.push(ev.kind());
//!     Ok(())
//! }).unwrap();
//! assert_eq!(stats.events, 1);
//! assert_eq!(kinds, [trama_events::EventKind::DefineContainerType]);
//! ```
#![deny(missing_docs)]

mod bom;
mod defs;
mod error;
mod lexer;
mod lexer_simd;
mod reader;

pub use defs::Definitions;
pub use error::{ReadError, SyntaxError};
pub use lexer::{lex_chunk, Lexed, LineRec, QuoteMode};
pub use lexer_simd::lex_chunk_fast;
pub use reader::{read_paje, read_paje_chunked, Item, ReadOptions, ReadStats, MAX_FIELDS};
