//! The writer: text traces written as binary Pajé.
//!
//! - Poti flavor: `ms.trace` and `categories.trace` give the bytes of the
//!   2015 `paje2rst` (`generated-2015/*.inline.rst`, `*.strref.rst`).
//! - Trace flavor: every text trace of the shared folder, read back, gives
//!   the text reader's events and the same `pj_dump` output.

mod common;

use std::path::{Path, PathBuf};

use common::{dump_rastro, dump_text, dump_text_with, first_difference, read, shared};
use trama_events::{Event, EventDef, EventKind, Field, FieldType, Span};
use trama_paje::read_paje;
use trama_rastro::paje::{
    read_rastro_paje, Flavor, RastroPajeWriter, ReadOptions, StringMode, WriteError, WriterOptions,
};

fn text_options() -> trama_paje::ReadOptions {
    let mut o = trama_paje::ReadOptions::default();
    o.strict = false;
    o
}

/// Writes a text trace as binary Pajé: definitions at their place in the
/// file (known from a first pass), then the events.
fn convert(text: &[u8], opts: WriterOptions) -> Result<Vec<u8>, String> {
    let ropts = text_options();
    let defs = read_paje(text, &ropts, |_| -> Result<(), String> { Ok(()) })
        .map_err(|e| e.to_string())?
        .definitions;
    let mut w = RastroPajeWriter::new(Vec::new(), opts).map_err(|e| e.to_string())?;
    let mut next = 0;
    read_paje(text, &ropts, |ev| -> Result<(), String> {
        while next < defs.len() && defs[next].line() < ev.line() {
            w.definition(&defs[next]).map_err(|e| e.to_string())?;
            next += 1;
        }
        w.event(&ev).map_err(|e| e.to_string())
    })
    .map_err(|e| e.to_string())?;
    for d in &defs[next..] {
        w.definition(d).map_err(|e| e.to_string())?;
    }
    w.finish().map_err(|e| e.to_string())
}

fn poti(strings: StringMode) -> WriterOptions {
    let mut o = WriterOptions::new(strings, Flavor::Poti);
    o.host = b"vm".to_vec();
    o
}

#[test]
fn poti_flavor_reproduces_paje2rst_byte_for_byte() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("samples/paje-binary-rastro");
    for t in ["ms", "categories"] {
        let text = read(&dir.join(format!("committed-2014/{t}.trace")));
        for (mode, suffix) in [
            (StringMode::Plain, "inline"),
            (StringMode::Interned, "strref"),
        ] {
            let expected = read(&dir.join(format!("generated-2015/{t}.{suffix}.rst")));
            let got = convert(&text, poti(mode)).expect("converts");
            if got != expected {
                let at = got
                    .iter()
                    .zip(&expected)
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(expected.len()));
                panic!(
                    "{t}.{suffix}.rst: {} bytes written, {} expected, first difference at byte {at}",
                    got.len(),
                    expected.len()
                );
            }
        }
    }
}

/// Kind, then every standard field and the user-defined values. Times and
/// variable values as the simulator parses them.
type Fields = (EventKind, Vec<(Field, Vec<u8>)>, Vec<Vec<u8>>);

fn fields_of(ev: &Event<'_>) -> Fields {
    let mut v = Vec::new();
    for f in Field::KNOWN.iter().skip(1) {
        if !ev.has(*f) {
            continue;
        }
        let w = ev.get(*f);
        let numeric = *f == Field::Time
            || (*f == Field::Value
                && matches!(
                    ev.kind(),
                    EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable
                ));
        let w = if numeric {
            trama_num::atof(w).to_bits().to_le_bytes().to_vec()
        } else {
            w.to_vec()
        };
        v.push((*f, w));
    }
    (ev.kind(), v, ev.extras().map(|x| x.to_vec()).collect())
}

fn text_events(text: &[u8]) -> Result<Vec<Fields>, String> {
    let mut out = Vec::new();
    read_paje(text, &text_options(), |ev| -> Result<(), String> {
        out.push(fields_of(&ev));
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    Ok(out)
}

fn rastro_events(data: &[u8]) -> Vec<Fields> {
    let mut out = Vec::new();
    read_rastro_paje(data, &ReadOptions::default(), |ev| -> Result<(), String> {
        assert_eq!(ev.word_count(), ev.def().field_count());
        out.push(fields_of(&ev));
        Ok(())
    })
    .expect("reads back");
    out
}

fn text_traces(shared: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    for dir in [
        shared.join("conformance/pajeng"),
        shared.join("samples/paje-binary-rastro/committed-2014"),
        shared.join("samples/paje-real/simgrid"),
        shared.join("samples/paje-real/starpu"),
        shared.join("samples/paje-real/paje-2005"),
    ] {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("trace" | "paje")
            ) {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

#[test]
fn trace_flavor_gives_back_the_text_events_and_dump() {
    let Some(shared) = shared() else { return };
    let traces = text_traces(&shared);
    assert!(traces.len() > 60, "{} traces", traces.len());
    let (mut compared, mut dumped) = (0, 0);
    for p in &traces {
        let text = read(p);
        let Ok(expected) = text_events(&text) else {
            continue; // rejected by the text reader: nothing to convert
        };
        for mode in [StringMode::Plain, StringMode::Interned] {
            let bin = convert(&text, WriterOptions::new(mode, Flavor::Trace))
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let got = rastro_events(&bin);
            assert_eq!(got.len(), expected.len(), "{} ({mode:?})", p.display());
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                assert_eq!(g, e, "{} ({mode:?}): event {i}", p.display());
            }
            compared += 1;
            match (dump_text_with(&text, &text_options()), dump_rastro(&bin)) {
                (Ok(a), Ok(b)) => {
                    assert!(
                        a == b,
                        "{} ({mode:?}): dumps differ: {}",
                        p.display(),
                        first_difference(&a, &b)
                    );
                    dumped += 1;
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!(
                    "{} ({mode:?}): text {:?} vs binary {:?}",
                    p.display(),
                    a.err(),
                    b.err()
                ),
            }
        }
    }
    println!("{compared} conversions compared, {dumped} dumps identical");
    assert!(compared >= 80 && dumped >= 60, "{compared} {dumped}");
}

#[test]
fn poti_flavor_reads_back_as_the_generated_files() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("samples/paje-binary-rastro");
    let text = read(&dir.join("committed-2014/ms.trace"));
    let mine = convert(&text, poti(StringMode::Interned)).unwrap();
    let theirs = read(&dir.join("generated-2015/ms.inline.rst"));
    assert_eq!(rastro_events(&mine), rastro_events(&theirs));
    // Same simulation as the text, up to the quotes Poti adds to names.
    let a = common::without_quotes(&dump_text(&text).unwrap());
    let b = common::without_quotes(&dump_rastro(&mine).unwrap());
    assert!(a == b, "{}", first_difference(&a, &b));
}

fn container_type_def() -> EventDef {
    let mut def = EventDef::new(EventKind::DefineContainerType, b"0", 1);
    def.add_field(Field::Alias, FieldType::String).unwrap();
    def.add_field(Field::Type, FieldType::String).unwrap();
    def.add_field(Field::Name, FieldType::String).unwrap();
    def
}

/// Writes `n` DefineContainerType events whose aliases are all different
/// (3 strings an event, "0" and the name shared).
fn many_strings(n: usize) -> Result<Vec<u8>, WriteError> {
    let def = container_type_def();
    let mut w = RastroPajeWriter::new(
        Vec::new(),
        WriterOptions::new(StringMode::Interned, Flavor::Trace),
    )?;
    w.definition(&def)?;
    let mut text = Vec::new();
    for i in 0..n {
        text.clear();
        text.extend_from_slice(format!("0 a{i} 0 N").as_bytes());
        let len = text.len() as u32;
        let words = [
            Span { start: 0, end: 1 },
            Span {
                start: 2,
                end: len - 4,
            },
            Span {
                start: len - 3,
                end: len - 2,
            },
            Span {
                start: len - 1,
                end: len,
            },
        ];
        w.event(&Event::new(&def, i as u64 + 2, &text, &words))?;
    }
    w.finish()
}

#[test]
fn at_most_65536_distinct_strings_with_references() {
    // "0" and "N" plus 65534 aliases: exactly 65536 strings.
    let data = many_strings(65534).expect("65536 strings fit");
    let mut last = String::new();
    let stats = read_rastro_paje(&data, &ReadOptions::default(), |ev| -> Result<(), String> {
        last = ev.contents();
        Ok(())
    })
    .unwrap();
    assert_eq!(stats.strings, 65536);
    assert_eq!(last, "0 a65533 0 N");
    match many_strings(65535) {
        Err(WriteError::TooManyStrings { line }) => {
            assert_eq!(line, 65535 + 1);
            let msg = WriteError::TooManyStrings { line }.to_string();
            assert!(msg.contains("65536") && msg.contains("Plain"), "{msg}");
        }
        other => panic!("{:?}", other.map(|v| v.len())),
    }
}
