//! Writes a stream of records as a Pajé trace (in progress).
#![allow(missing_docs, dead_code)]
pub struct Dialect;
pub struct PajeWriter;
#[derive(Default)]
pub struct WriterOptions;
