//! The libRastro files of `../shared/samples`: Akypuera's MPI traces
//! (timed), the 2014 binary Pajé files (timed) and the 2015 ones (timeless,
//! inline strings and string references). Each decodes without error, is
//! re-encoded byte for byte, and the Pajé ones simulate to PajeNG's
//! expected `pj_dump` output.

mod common;

use std::path::Path;

use common::{dump_rastro, first_difference, read, shared, without_quotes};
use trama_rastro::paje::{read_rastro_paje, ReadOptions};
use trama_rastro::rst::{detect_layout, visit, Decoder, Encoder, Layout, Stamp, EVENT_INIT};

/// Decodes every event and writes it again: the bytes must be the same.
fn reencode(data: &[u8], layout: Layout) -> (u64, Vec<u8>) {
    let mut dec = Decoder::new(data, layout);
    let mut enc = Encoder::new(Vec::new(), layout);
    while let Some(ev) = dec.next_event().expect("decodes") {
        enc.copy(&ev).expect("encodes");
    }
    (dec.events(), enc.finish().expect("flush"))
}

#[test]
fn akypuera_traces_decode_and_reencode() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("samples/librastro-rst/akypuera");
    // example, files, rastro events, bytes (samples README, section 1)
    let table = [
        ("collective", 4, 76, 1312),
        ("prog", 1, 5, 104),
        ("ring", 3, 96, 1568),
        ("small", 2, 20, 356),
        ("smpi_bug", 3, 71, 1152),
    ];
    for (ex, files, events, bytes) in table {
        let mut paths: Vec<_> = std::fs::read_dir(dir.join(ex))
            .expect("example folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "rst"))
            .collect();
        paths.sort();
        assert_eq!(paths.len(), files, "{ex}");
        let (mut n, mut b) = (0, 0);
        for p in &paths {
            let data = read(p);
            b += data.len();
            assert_eq!(detect_layout(&data), Ok(Layout::Timed), "{}", p.display());
            let (count, again) = reencode(&data, Layout::Timed);
            assert!(again == data, "{} re-encodes differently", p.display());
            n += count;
            // Header, clock and the stop event.
            let mut dec = Decoder::new(&data, Layout::Timed);
            let first = dec.next_event().unwrap().unwrap();
            assert_eq!(first.type_id, EVENT_INIT);
            let (_, _, host) = first.init_info().expect("ids and host");
            assert_eq!(host, b"caligula");
            let Stamp::Timed {
                time_set: Some(clock),
                ..
            } = first.stamp
            else {
                panic!("the first event sets the clock")
            };
            assert_eq!(clock.resolution, 1_000_000_000);
            let t0 = first.time().expect("time");
            assert!(t0 > 1.4e9 && t0 < 1.6e9, "{t0}");
            let mut last = 0;
            let mut times_ok = true;
            let mut prev = t0;
            while let Some(ev) = dec.next_event().unwrap() {
                last = ev.type_id;
                let t = ev.time().expect("timed");
                times_ok &= t >= prev;
                prev = t;
            }
            assert_eq!(last, 16382, "{} ends with the stop event", p.display());
            assert!(times_ok, "{}: times go backwards", p.display());
        }
        assert_eq!(n, events, "{ex}: events");
        assert_eq!(b, bytes, "{ex}: bytes");
    }
}

#[test]
fn akypuera_small_first_events() {
    let Some(shared) = shared() else { return };
    let data = read(&shared.join("samples/librastro-rst/akypuera/small/rastro-0-0.rst"));
    let mut seen = Vec::new();
    let n = visit(&data, None, |ev| -> Result<(), ()> {
        seen.push((ev.type_id, ev.signature(), ev.offset));
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 10);
    assert_eq!(seen[0], (16383, "lls".to_string(), 0));
    // The header event: word, clock (16 bytes), ticks, 2 × u64, "caligula\0" + 3.
    assert_eq!(seen[1], (1000, String::new(), 56));
    assert_eq!(seen[4], (161, "l".to_string(), 92));
    assert_eq!(seen[5], (5000, "lii".to_string(), 112));
}

struct BinaryPaje {
    file: &'static str,
    layout: Layout,
    rastro_events: u64,
    strings: u64,
    bytes: u64,
    trace: &'static str,
}

const BINARY_PAJE: [BinaryPaje; 6] = [
    BinaryPaje {
        file: "committed-2014/rastro-5-5-ms.rst",
        layout: Layout::Timed,
        rastro_events: 790,
        strings: 0,
        bytes: 29212,
        trace: "ms",
    },
    BinaryPaje {
        file: "committed-2014/rastro-5-5-categories.rst",
        layout: Layout::Timed,
        rastro_events: 484,
        strings: 0,
        bytes: 18016,
        trace: "categories",
    },
    BinaryPaje {
        file: "generated-2015/ms.inline.rst",
        layout: Layout::Timeless,
        rastro_events: 790,
        strings: 0,
        bytes: 22872,
        trace: "ms",
    },
    BinaryPaje {
        file: "generated-2015/categories.inline.rst",
        layout: Layout::Timeless,
        rastro_events: 484,
        strings: 0,
        bytes: 14124,
        trace: "categories",
    },
    BinaryPaje {
        file: "generated-2015/ms.strref.rst",
        layout: Layout::Timeless,
        rastro_events: 863,
        strings: 73,
        bytes: 19984,
        trace: "ms",
    },
    BinaryPaje {
        file: "generated-2015/categories.strref.rst",
        layout: Layout::Timeless,
        rastro_events: 538,
        strings: 54,
        bytes: 12424,
        trace: "categories",
    },
];

#[test]
fn binary_paje_files_decode_and_reencode() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("samples/paje-binary-rastro");
    for f in &BINARY_PAJE {
        let data = read(&dir.join(f.file));
        assert_eq!(data.len() as u64, f.bytes, "{}", f.file);
        assert_eq!(detect_layout(&data), Ok(f.layout), "{}", f.file);
        let (n, again) = reencode(&data, f.layout);
        assert_eq!(n, f.rastro_events, "{}", f.file);
        assert!(again == data, "{} re-encodes differently", f.file);
    }
}

fn kinds_by_rastro_type(data: &[u8]) -> std::collections::BTreeMap<u16, u64> {
    let mut m = std::collections::BTreeMap::new();
    visit(data, None, |ev| -> Result<(), ()> {
        *m.entry(ev.type_id).or_default() += 1;
        Ok(())
    })
    .unwrap();
    m
}

#[test]
fn binary_paje_event_counts_by_type() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("samples/paje-binary-rastro");
    let ms: Vec<(u16, u64)> = vec![
        (0, 2),
        (1, 1),
        (3, 17),
        (4, 3),
        (5, 2),
        (6, 15),
        (7, 15),
        (8, 2),
        (13, 87),
        (14, 306),
        (15, 286),
        (16, 17),
        (17, 17),
        (999, 18),
        (16382, 1),
        (16383, 1),
    ];
    let m = kinds_by_rastro_type(&read(&dir.join("committed-2014/rastro-5-5-ms.rst")));
    assert_eq!(m.into_iter().collect::<Vec<_>>(), ms);
    let mut with_refs = ms.clone();
    with_refs.insert(13, (888, 73));
    let m = kinds_by_rastro_type(&read(&dir.join("generated-2015/ms.strref.rst")));
    assert_eq!(m.into_iter().collect::<Vec<_>>(), with_refs);
}

fn check_dump(dir: &Path, f: &BinaryPaje) {
    let data = read(&dir.join(f.file));
    let mut events = 0;
    let stats = read_rastro_paje(&data, &ReadOptions::default(), |_| -> Result<(), String> {
        events += 1;
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{}: {e}", f.file));
    assert_eq!(stats.layout, f.layout);
    assert_eq!(stats.rastro_events, f.rastro_events);
    assert_eq!(stats.strings, f.strings);
    assert_eq!(stats.definitions.len(), 18);
    // Everything but the header, end, definitions and strings is a Pajé event.
    assert_eq!(events, f.rastro_events - 2 - 18 - f.strings);
    assert_eq!(stats.events, events);
    if f.strings > 0 {
        assert_eq!(stats.referencing_events, events);
    }
    let host: &[u8] = if f.layout == Layout::Timed {
        b"juliopc"
    } else {
        b"vm"
    };
    assert_eq!(stats.host, host);
    let dump = dump_rastro(&data).unwrap_or_else(|e| panic!("{}: {e}", f.file));
    let got = without_quotes(&dump);
    // PajeNG HEAD's pj_dump of the text original (quotes deleted: the
    // binary files quote every name).
    let head = read(&dir.join(format!("../../conformance/pajeng/{}.head.out", f.trace)));
    let head = without_quotes(&head);
    // The pj_dump of 2015 (both its text and its rastro reader), which did
    // not print link keys nor zero-length variable values at the end.
    let gen = dir.join("generated-2015");
    let expected = read(&gen.join(format!("{}.pj_dump.expected.csv", f.trace)));
    let rastro_reader = read(&gen.join(format!("{}.rst.pj_dump-rastro-reader.csv", f.trace)));
    let old = as_in_2015(&dump);
    // What is compared, the two texts, the reference's file.
    let checks = [
        (
            "dump",
            got,
            head,
            format!("conformance/pajeng/{}.head.out", f.trace),
        ),
        (
            "dump (quotes deleted)",
            without_quotes(&old),
            expected,
            format!("{}.pj_dump.expected.csv", f.trace),
        ),
        (
            "dump",
            old,
            rastro_reader,
            format!("{}.rst.pj_dump-rastro-reader.csv", f.trace),
        ),
    ];
    for (what, got, want, reference) in checks {
        assert!(
            got == want,
            "{}: {what} differs from {reference}: {}",
            f.file,
            first_difference(&got, &want)
        );
    }
}

/// A current pj_dump output as the pj_dump of 2015 printed it: no key at
/// the end of link lines, no zero-length variable values.
fn as_in_2015(dump: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in dump.split_inclusive(|&c| c == b'\n') {
        let text = String::from_utf8_lossy(line);
        let fields: Vec<&str> = text.trim_end_matches('\n').split(", ").collect();
        match fields[0] {
            "Link" => {
                out.extend_from_slice(fields[..fields.len() - 1].join(", ").as_bytes());
                out.push(b'\n');
            }
            "Variable" if fields.get(5) == Some(&"0.000000") => {}
            _ => out.extend_from_slice(line),
        }
    }
    out
}

#[test]
fn binary_paje_files_simulate_to_the_expected_dump() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("samples/paje-binary-rastro");
    for f in &BINARY_PAJE {
        check_dump(&dir, f);
    }
}

#[test]
fn inline_and_referencing_files_give_the_same_events() {
    let Some(shared) = shared() else { return };
    let dir = shared.join("samples/paje-binary-rastro");
    for t in ["ms", "categories"] {
        let mut all = Vec::new();
        for f in [
            format!("generated-2015/{t}.inline.rst"),
            format!("generated-2015/{t}.strref.rst"),
            format!("committed-2014/rastro-5-5-{t}.rst"),
        ] {
            let data = read(&dir.join(&f));
            let mut evs = Vec::new();
            read_rastro_paje(&data, &ReadOptions::default(), |ev| -> Result<(), ()> {
                evs.push((ev.kind(), ev.contents()));
                Ok(())
            })
            .unwrap();
            all.push(evs);
        }
        assert_eq!(all[0], all[1], "{t}: inline vs references");
        assert_eq!(all[0], all[2], "{t}: 2015 vs 2014");
    }
}
