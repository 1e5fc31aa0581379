//! libRastro sources: Akypuera's five example traces converted as
//! `aky_converter` does and compared with its tesh expectations, the
//! per-rank sources the merge takes, the shipped mappings, and crafted
//! files for the edge cases (unknown id, truncation, unmatched OUT, DECK).

mod common;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use trama_rastro::rst::{Encoder, Layout, Stamp, Value};
use trama_sources::rst::{
    akypuera_dialect, akypuera_source, akypuera_sources, Mapping, RstSource, Skipped, AKY_HEADER,
};
use trama_sources::{
    collect, path, Decl, Dialect, EntityKind, Location, PajeWriter, Record, Source, SourceError,
    What, WriterOptions,
};

const EXAMPLES: [&str; 5] = ["collective", "prog", "ring", "small", "smpi_bug"];

fn rank_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("example folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rst"))
        .collect();
    files.sort();
    files
}

/// Writes a source with the writer, in a dialect, times from 0.
fn write_paje(source: &mut dyn Source, dialect: Dialect) -> String {
    let mut w = PajeWriter::new(Vec::new(), dialect, WriterOptions::default()).expect("writer");
    while let Some(r) = source.next_record().expect("record") {
        w.write(&r).unwrap_or_else(|e| panic!("writing {r:?}: {e}"));
    }
    String::from_utf8(w.finish().expect("finish")).expect("utf-8")
}

/// The tesh filter: `grep -vPe '^[#|%]' | cut -d' ' -f2-`.
fn tesh_filter(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(['#', '|', '%']))
        .map(|l| match l.split_once(' ') {
            Some((_, rest)) => rest.to_string(),
            None => l.to_string(),
        })
        .collect()
}

#[test]
fn akypuera_examples_match_aky_converter() {
    let Some(dir) = common::samples("librastro-rst/akypuera") else {
        return;
    };
    for ex in EXAMPLES {
        let files = rank_files(&dir.join(ex));
        let mut src = akypuera_source(&files).expect("opens");
        let text = write_paje(&mut src, akypuera_dialect());
        let got = tesh_filter(&text);
        let expected: Vec<String> =
            std::fs::read_to_string(dir.join(ex).join(format!("{ex}.expected.paje")))
                .expect("expected output")
                .lines()
                .map(str::to_string)
                .collect();
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert_eq!(g, e, "{ex}: line {} differs", i + 1);
        }
        assert_eq!(got.len(), expected.len(), "{ex}: number of lines");
    }
}
