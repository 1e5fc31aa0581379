//! The binary Pajé reader and writer on hand-built files: definitions,
//! string references, value types, errors with their event and offset.

mod common;

use trama_events::{Event, EventDef, EventKind, Field, FieldType, Span};
use trama_rastro::paje::{
    is_rastro, read_rastro_paje, Error, Flavor, FormatError, RastroPajeWriter, ReadOptions,
    StringMode, WriterOptions,
};
use trama_rastro::rst::{Clock, Encoder, Layout, Stamp};

const T: Stamp = Stamp::Timeless { time_set: false };

/// A timeless file: header, then what `body` writes, then the stop event.
fn file(body: impl FnOnce(&mut Encoder<Vec<u8>>)) -> Vec<u8> {
    let mut e = Encoder::new(Vec::new(), Layout::Timeless);
    e.init_event(Stamp::Timeless { time_set: true }, 0, 0, b"h")
        .unwrap();
    body(&mut e);
    e.event(16382, T, &[]).unwrap();
    e.finish().unwrap()
}

fn def(e: &mut Encoder<Vec<u8>>, list: &[u32]) {
    let mut w = e.begin(999, T);
    for &v in list {
        w.u32(v);
    }
    w.finish().unwrap();
}

fn strings(e: &mut Encoder<Vec<u8>>, type_id: u16, s: &[&[u8]]) {
    let mut w = e.begin(type_id, T);
    for x in s {
        w.str(x);
    }
    w.finish().unwrap();
}

fn read(data: &[u8]) -> Result<Vec<(u64, String)>, Error<String>> {
    let mut out = Vec::new();
    read_rastro_paje(data, &ReadOptions::default(), |ev| -> Result<(), String> {
        out.push((ev.line(), ev.contents()));
        Ok(())
    })?;
    Ok(out)
}

fn format_error(data: &[u8]) -> (u64, usize, FormatError) {
    match read(data) {
        Err(Error::Format {
            event,
            offset,
            error,
        }) => (event, offset, error),
        other => panic!("expected a format error, got {other:?}"),
    }
}

#[test]
fn inline_and_referenced_strings_and_typed_values() {
    let data = file(|e| {
        // DefineContainerType: Alias, Type, Name.
        def(e, &[0, 11, 0, 3, 0, 2, 0]);
        strings(e, 0, &[b"P", b"0", b"\"Process\""]);
        // CreateContainer: Time, Alias, Type, Container, Name, then an int
        // and a float user-defined field.
        def(e, &[6, 1, 5, 11, 0, 3, 0, 4, 0, 2, 0, 16, 3, 16, 1]);
        strings(e, 888, &[b"p1"]);
        strings(e, 888, &[b"P"]);
        strings(e, 888, &[b"0"]);
        let mut w = e.begin(6, T);
        w.f64(0.25)
            .f64(1e-7)
            .u32(u32::MAX)
            .u16(0)
            .u16(1)
            .u16(2)
            .u16(0);
        w.finish().unwrap();
    });
    assert!(is_rastro(&data));
    let mut kinds = Vec::new();
    let stats = read_rastro_paje(&data, &ReadOptions::default(), |ev| -> Result<(), String> {
        kinds.push(ev.kind());
        if ev.kind() == EventKind::CreateContainer {
            assert_eq!(ev.get(Field::Time), b"0.25");
            assert_eq!(ev.get(Field::Alias), b"p1");
            assert_eq!(ev.extras().collect::<Vec<_>>(), [&b"-1"[..], &b"1e-7"[..]]);
            assert_eq!(&*ev.def().extra_names()[1], "Extra2");
            assert_eq!(ev.def().fields()[6], (Field::Extra, FieldType::Int));
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(
        kinds,
        [EventKind::DefineContainerType, EventKind::CreateContainer]
    );
    assert_eq!(stats.rastro_events, 9);
    assert_eq!(stats.strings, 3);
    assert_eq!(stats.referencing_events, 1);
    assert_eq!(stats.definitions.len(), 2);
    assert_eq!(stats.definitions[1].id(), b"6");
    assert_eq!(stats.definitions[1].line(), 4);
    assert_eq!(stats.host, b"h");
    assert_eq!(
        read(&data).unwrap(),
        [
            (3, "0 P 0 \"Process\"".to_string()),
            (8, "6 0.25 p1 P 0 p1 -1 1e-7".to_string())
        ]
    );
}

#[test]
fn a_later_definition_replaces_the_earlier_one() {
    let data = file(|e| {
        def(e, &[0, 11, 0, 3, 0, 2, 0]);
        strings(e, 0, &[b"A", b"0", b"N"]);
        def(e, &[0, 2, 0, 3, 0]);
        strings(e, 0, &[b"M", b"A"]);
    });
    assert_eq!(
        read(&data).unwrap(),
        [(3, "0 A 0 N".to_string()), (5, "0 M A".to_string())]
    );
}

#[test]
fn content_errors_name_the_event_and_its_offset() {
    header_errors();
    definition_errors();
    value_errors();
    reference_and_handler_errors();
}

/// Reading options for a timeless file.
fn timeless() -> ReadOptions {
    let mut o = ReadOptions::default();
    o.layout = Some(Layout::Timeless);
    o
}

/// The libRastro header must come first.
fn header_errors() {
    let mut e = Encoder::new(Vec::new(), Layout::Timeless);
    e.event(16383, Stamp::Timeless { time_set: true }, &[])
        .unwrap();
    let bad = e.finish().unwrap();
    let r = read_rastro_paje(&bad, &timeless(), |_| -> Result<(), String> { Ok(()) });
    assert!(r.is_ok(), "a header without ids is accepted");
    let mut e = Encoder::new(Vec::new(), Layout::Timeless);
    e.event(5, T, &[]).unwrap();
    let bad = e.finish().unwrap();
    assert!(!is_rastro(&bad));
    let r = read_rastro_paje(&bad, &timeless(), |_| -> Result<(), String> { Ok(()) });
    assert!(matches!(
        r,
        Err(Error::Format {
            event: 1,
            offset: 0,
            error: FormatError::NoHeader { found: 5 }
        })
    ));
}

/// Bad definitions and string events, each named as event 2 at byte 24.
fn definition_errors() {
    // Header (24 bytes with host "h"), then the event under test at byte 24.
    let cases: Vec<(Vec<u8>, FormatError)> = vec![
        (
            file(|e| strings(e, 999, &[b"x"])),
            FormatError::DefinitionValues {
                signature: "s".into(),
            },
        ),
        (
            file(|e| def(e, &[0, 11])),
            FormatError::DefinitionPairs { count: 2 },
        ),
        (
            file(|e| def(e, &[19, 11, 0])),
            FormatError::UnknownEventId { id: 19 },
        ),
        (
            file(|e| def(e, &[0, 17, 0])),
            FormatError::UnknownField {
                kind: EventKind::DefineContainerType,
                code: 17,
            },
        ),
        (
            file(|e| def(e, &[0, 0, 0])),
            FormatError::UnknownField {
                kind: EventKind::DefineContainerType,
                code: 0,
            },
        ),
        (
            file(|e| def(e, &[0, 2, 7])),
            FormatError::UnknownFieldType {
                kind: EventKind::DefineContainerType,
                field: Field::Name,
                code: 7,
            },
        ),
        (
            file(|e| def(e, &[0, 2, 0, 2, 0])),
            FormatError::DuplicateField {
                kind: EventKind::DefineContainerType,
                field: Field::Name,
            },
        ),
        (
            file(|e| def(e, &[9, 1, 5, 4, 0])),
            FormatError::MissingFields {
                kind: EventKind::SetState,
                missing: vec![Field::Type, Field::Value],
            },
        ),
        (
            file(|e| strings(e, 888, &[b"a", b"b"])),
            FormatError::StringValues {
                signature: "ss".into(),
            },
        ),
        (
            file(|e| strings(e, 3, &[b"a"])),
            FormatError::Undefined { type_id: 3 },
        ),
        (
            file(|e| strings(e, 700, &[b"a"])),
            FormatError::Undefined { type_id: 700 },
        ),
    ];
    for (data, expected) in cases {
        let (event, offset, error) = format_error(&data);
        assert_eq!((event, offset), (2, 24), "{expected}");
        assert_eq!(error, expected);
    }
}

/// Values that do not match their definition.
fn value_errors() {
    // Values that do not match the definition (event 3, after the 999).
    let data = file(|e| {
        def(e, &[0, 11, 0, 3, 0, 2, 0]);
        strings(e, 0, &[b"A", b"0"]);
    });
    let (event, offset, error) = format_error(&data);
    assert_eq!((event, offset), (3, 24 + 36));
    let msg = error.to_string();
    assert!(
        msg.contains("PajeDefineContainerType (defined at rastro event 2) expects 3 strings")
            && msg.contains("found 'ss'"),
        "{msg}"
    );
    // Inline strings and references mixed, or other value types.
    for body in [
        &(|e: &mut Encoder<Vec<u8>>| {
            let mut w = e.begin(0, T);
            w.u16(0).str(b"a").str(b"b");
            w.finish().unwrap();
        }) as &dyn Fn(&mut Encoder<Vec<u8>>),
        &|e: &mut Encoder<Vec<u8>>| {
            let mut w = e.begin(0, T);
            w.u64(0).str(b"a").str(b"b").str(b"c");
            w.finish().unwrap();
        },
    ] {
        let data = file(|e| {
            def(e, &[0, 11, 0, 3, 0, 2, 0]);
            body(e);
        });
        assert!(matches!(format_error(&data).2, FormatError::Values { .. }));
    }
}

/// References to strings not yet defined, libRastro's errors and the
/// handler's.
fn reference_and_handler_errors() {
    // A reference to a string not yet defined.
    let data = file(|e| {
        def(e, &[0, 11, 0, 3, 0, 2, 0]);
        strings(e, 888, &[b"a"]);
        let mut w = e.begin(0, T);
        w.u16(0).u16(1).u16(0);
        w.finish().unwrap();
    });
    let (event, _, error) = format_error(&data);
    assert_eq!(event, 4);
    assert_eq!(error, FormatError::StringRef { index: 1, count: 1 });
    // libRastro errors keep their byte offset.
    let mut data = file(|e| def(e, &[0, 11, 0, 3, 0, 2, 0]));
    data.truncate(30);
    let e = read(&data).unwrap_err();
    assert!(matches!(e, Error::Rst(_)), "{e}");
    assert_eq!((e.offset(), e.event()), (Some(28), Some(2)));
    // The handler's error stops the read.
    let data = file(|e| {
        def(e, &[0, 11, 0, 3, 0, 2, 0]);
        strings(e, 0, &[b"A", b"0", b"N"]);
        strings(e, 0, &[b"B", b"0", b"N"]);
    });
    let mut n = 0;
    let r = read_rastro_paje(&data, &ReadOptions::default(), |_| {
        n += 1;
        Err("enough")
    });
    assert!(matches!(r, Err(Error::Handler("enough"))));
    assert_eq!(n, 1);
}

/// A timed file with Poti's AddVariable definition and one event whose
/// strings are (variable type, container), as the 2014 tools wrote them.
fn add_variable_file(layout: Layout) -> Vec<u8> {
    let mut e = Encoder::new(Vec::new(), layout);
    let stamp = |set: bool| match layout {
        Layout::Timed => Stamp::Timed {
            time_set: set.then_some(Clock {
                seconds: 1,
                resolution: 1000,
            }),
            ticks: 0,
        },
        Layout::Timeless => Stamp::Timeless { time_set: set },
    };
    e.init_event(stamp(true), 5, 5, b"h").unwrap();
    let mut w = e.begin(999, stamp(false));
    for v in [14, 1, 5, 4, 0, 3, 0, 9, 2] {
        w.u32(v);
    }
    w.finish().unwrap();
    let mut w = e.begin(14, stamp(false));
    w.f64(1.5).f64(3.0).str(b"var").str(b"cont");
    w.finish().unwrap();
    e.finish().unwrap()
}

fn add_variable(data: &[u8], swap: Option<bool>) -> (Vec<u8>, Vec<u8>) {
    let mut o = ReadOptions::default();
    o.swapped_add_variable = swap;
    let mut out = None;
    read_rastro_paje(data, &o, |ev| -> Result<(), String> {
        out = Some((
            ev.get(Field::Container).to_vec(),
            ev.get(Field::Type).to_vec(),
        ));
        Ok(())
    })
    .unwrap();
    out.unwrap()
}

#[test]
fn add_variable_of_2014_files_reads_type_first() {
    let timed = add_variable_file(Layout::Timed);
    let timeless = add_variable_file(Layout::Timeless);
    let swapped = (b"cont".to_vec(), b"var".to_vec());
    let plain = (b"var".to_vec(), b"cont".to_vec());
    assert_eq!(add_variable(&timed, None), swapped);
    assert_eq!(add_variable(&timed, Some(false)), plain);
    assert_eq!(add_variable(&timeless, None), plain);
    assert_eq!(add_variable(&timeless, Some(true)), swapped);
}

fn words(text: &[u8]) -> Vec<Span> {
    let mut v = Vec::new();
    let mut start = None;
    for (i, &c) in text.iter().chain(b" ").enumerate() {
        match (c == b' ', start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                v.push(Span {
                    start: s as u32,
                    end: i as u32,
                });
                start = None;
            }
            _ => {}
        }
    }
    v
}

#[test]
fn trace_flavor_rewrites_a_definition_when_another_one_was_in_effect() {
    let mut a = EventDef::new(EventKind::PushState, b"11", 1);
    let mut b = EventDef::new(EventKind::PushState, b"111", 7);
    for (d, extra) in [(&mut a, false), (&mut b, true)] {
        d.add_field(Field::Time, FieldType::Date).unwrap();
        d.add_field(Field::Container, FieldType::String).unwrap();
        d.add_field(Field::Type, FieldType::String).unwrap();
        d.add_field(Field::Value, FieldType::String).unwrap();
        if extra {
            d.add_extra("Tag", FieldType::Int);
        }
    }
    let lines: [(&EventDef, &[u8]); 4] = [
        (&a, b"11 1.5 c S run"),
        (&b, b"111 2 c S wait 007"),
        (&b, b"111 3 c S wait 8"),
        (&a, b"11 4.0 c S run"),
    ];
    for mode in [StringMode::Plain, StringMode::Interned] {
        let mut w =
            RastroPajeWriter::new(Vec::new(), WriterOptions::new(mode, Flavor::Trace)).unwrap();
        w.definition(&a).unwrap();
        w.definition(&b).unwrap();
        for (i, (d, text)) in lines.iter().enumerate() {
            let ws = words(text);
            w.event(&Event::new(d, i as u64 + 10, text, &ws)).unwrap();
        }
        // a and b where announced, then a, b and a again where the
        // definition in effect changes.
        assert_eq!(w.definitions(), 5);
        let data = w.finish().unwrap();
        let got: Vec<String> = read(&data).unwrap().into_iter().map(|x| x.1).collect();
        // Ids are the kind's; the int user field is kept as written.
        assert_eq!(
            got,
            [
                "10 1.5 c S run",
                "10 2.0 c S wait 007",
                "10 3.0 c S wait 8",
                "10 4.0 c S run"
            ]
        );
    }
}

#[test]
fn mutated_binary_paje_never_panics() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = shared.join("samples/paje-binary-rastro/generated-2015");
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for f in ["ms.strref.rst", "categories.inline.rst"] {
        let base = common::read(&dir.join(f));
        for _ in 0..3000 {
            let mut data = base.clone();
            for _ in 0..1 + rnd() % 3 {
                let at = (rnd() as usize) % data.len();
                data[at] = rnd() as u8;
            }
            if matches!(rnd() % 4, 0) {
                let cut = (rnd() as usize) % data.len();
                data.truncate(cut);
            }
            let _ = read_rastro_paje(&data, &ReadOptions::default(), |ev| -> Result<(), ()> {
                assert_eq!(ev.word_count(), ev.def().field_count());
                Ok(())
            });
        }
    }
}
