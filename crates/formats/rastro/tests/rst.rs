//! The libRastro layer on hand-built buffers: layouts, header words,
//! values, errors with their offsets, and inputs that must not panic.

use trama_rastro::rst::{
    detect_layout, visit, Clock, Decoder, EncodeError, Encoder, Layout, RstError, RstErrorKind,
    Stamp, TypeCode, Value, VisitError,
};

fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

fn le64(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

/// A timeless file written by hand: header event, a 7-value definition
/// (two header words), a string event, a mixed event, the stop event.
fn timeless_file() -> Vec<u8> {
    let mut b = Vec::new();
    // 16383, last, RST_TIME_SET, nibbles 4 4 1 0.
    b.extend(le32(0xffff_4410));
    b.extend(le64(1));
    b.extend(le64(2));
    b.extend(b"host\0\0\0\0"); // 4 bytes + NUL + 3 padding
                               // 999 with seven u32: 4 nibbles in the first word, 3 in the next.
    b.extend(le32(999 << 18 | 0x7777));
    b.extend(le32(0x2777_0000));
    for v in [0u32, 11, 0, 3, 0, 2, 0] {
        b.extend(le32(v));
    }
    // 888 "abc": one string, fits exactly.
    b.extend(le32(888 << 18 | 0x2_0000 | 0x1000));
    b.extend(b"abc\0");
    // type 5: d w c (f64, u16, u8) then 1 byte of padding.
    b.extend(le32(5 << 18 | 0x2_0000 | 0x2560));
    b.extend(2.5f64.to_le_bytes());
    b.extend(7u16.to_le_bytes());
    b.push(9);
    b.push(0);
    // stop
    b.extend(le32(0xfffa_0000));
    b
}

/// The same events in the timed layout.
fn timed_file() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(le32(0xffff_4410));
    b.extend(le64(1_400_000_000)); // seconds
    b.extend(le64(1_000_000_000)); // resolution
    b.extend(le64(5)); // ticks
    b.extend(le64(1));
    b.extend(le64(2));
    b.extend(b"host\0\0\0\0");
    b.extend(le32(999 << 18 | 0x7777));
    b.extend(le64(1_500_000_000)); // ticks, before the continuation word
    b.extend(le32(0x2777_0000));
    for v in [0u32, 11, 0, 3, 0, 2, 0] {
        b.extend(le32(v));
    }
    b.extend(le32(888 << 18 | 0x2_0000 | 0x1000));
    b.extend(le64(1_500_000_001));
    b.extend(b"abc\0");
    b.extend(le32(5 << 18 | 0x2_0000 | 0x2560));
    b.extend(le64(2_000_000_000));
    b.extend(2.5f64.to_le_bytes());
    b.extend(7u16.to_le_bytes());
    b.push(9);
    b.push(0);
    b.extend(le32(0xfffa_0000));
    b.extend(le64(2_000_000_001));
    b
}

type Owned = (usize, u16, Stamp, Vec<String>);

fn owned(v: &Value<'_>) -> String {
    match v {
        Value::Str(s) => format!("s:{}", String::from_utf8_lossy(s)),
        Value::F64(x) => format!("d:{x}"),
        Value::F32(x) => format!("f:{x}"),
        Value::U64(x) => format!("l:{x}"),
        Value::U32(x) => format!("i:{x}"),
        Value::U16(x) => format!("w:{x}"),
        Value::U8(x) => format!("c:{x}"),
    }
}

fn decode_all(data: &[u8], layout: Layout) -> Result<Vec<Owned>, (Vec<Owned>, RstError)> {
    let mut d = Decoder::new(data, layout);
    let mut out = Vec::new();
    loop {
        match d.next_event() {
            Ok(Some(ev)) => out.push((
                ev.offset,
                ev.type_id,
                ev.stamp,
                ev.values.iter().map(owned).collect(),
            )),
            Ok(None) => return Ok(out),
            Err(e) => return Err((out, e)),
        }
    }
}

#[test]
fn timeless_buffer_decodes() {
    let data = timeless_file();
    assert_eq!(detect_layout(&data), Ok(Layout::Timeless));
    let evs = decode_all(&data, Layout::Timeless).unwrap();
    let strs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(evs.len(), 5);
    assert_eq!(
        evs[0],
        (
            0,
            16383,
            Stamp::Timeless { time_set: true },
            strs(&["l:1", "l:2", "s:host"])
        )
    );
    assert_eq!(evs[1].0, 28);
    assert_eq!(evs[1].1, 999);
    assert_eq!(
        evs[1].3,
        strs(&["i:0", "i:11", "i:0", "i:3", "i:0", "i:2", "i:0"])
    );
    assert_eq!((evs[2].0, evs[2].1), (64, 888));
    assert_eq!(evs[2].3, strs(&["s:abc"]));
    assert_eq!((evs[3].0, evs[3].1), (72, 5));
    assert_eq!(evs[3].3, strs(&["d:2.5", "w:7", "c:9"]));
    assert_eq!(
        evs[4],
        (88, 16382, Stamp::Timeless { time_set: false }, vec![])
    );
}

#[test]
fn timed_buffer_decodes_with_its_clock() {
    let data = timed_file();
    assert_eq!(detect_layout(&data), Ok(Layout::Timed));
    let mut d = Decoder::detect(&data).unwrap();
    let first = d.next_event().unwrap().unwrap();
    let clock = Clock {
        seconds: 1_400_000_000,
        resolution: 1_000_000_000,
    };
    assert_eq!(
        first.stamp,
        Stamp::Timed {
            time_set: Some(clock),
            ticks: 5
        }
    );
    assert_eq!(first.init_info(), Some((1, 2, &b"host"[..])));
    assert_eq!(first.len, 52);
    let def = d.next_event().unwrap().unwrap();
    assert_eq!(def.offset, 52);
    assert_eq!(def.u32s().collect::<Vec<_>>(), [0, 11, 0, 3, 0, 2, 0]);
    assert_eq!(def.clock, Some(clock));
    assert_eq!(def.time(), Some(1_400_000_001.5));
    let s = d.next_event().unwrap().unwrap();
    assert_eq!(s.strings().collect::<Vec<_>>(), [&b"abc"[..]]);
    let mixed = d.next_event().unwrap().unwrap();
    assert_eq!(mixed.signature(), "dwc");
    assert_eq!(mixed.count(TypeCode::U16), 1);
    assert_eq!(mixed.time(), Some(1_400_000_002.0));
    let stop = d.next_event().unwrap().unwrap();
    assert_eq!(stop.type_id, 16382);
    assert_eq!(stop.offset + stop.len, data.len());
    assert!(d.next_event().unwrap().is_none());
    assert_eq!(d.events(), 5);
    // The timed file read as timeless (or the reverse) does not decode.
    assert!(decode_all(&data, Layout::Timeless).is_err());
    assert!(decode_all(&timeless_file(), Layout::Timed).is_err());
}

fn reencode(data: &[u8], layout: Layout) -> Vec<u8> {
    let mut d = Decoder::new(data, layout);
    let mut e = Encoder::new(Vec::new(), layout);
    while let Some(ev) = d.next_event().unwrap() {
        e.copy(&ev).unwrap();
    }
    e.finish().unwrap()
}

#[test]
fn encoder_writes_the_hand_built_bytes() {
    assert_eq!(
        reencode(&timeless_file(), Layout::Timeless),
        timeless_file()
    );
    assert_eq!(reencode(&timed_file(), Layout::Timed), timed_file());
    // Built from values rather than copied.
    let mut e = Encoder::new(Vec::new(), Layout::Timeless);
    e.event(
        16383,
        Stamp::Timeless { time_set: true },
        &[Value::U64(1), Value::U64(2), Value::Str(b"host")],
    )
    .unwrap();
    let mut w = e.begin(999, Stamp::Timeless { time_set: false });
    for v in [0u32, 11, 0, 3, 0, 2, 0] {
        w.u32(v);
    }
    w.finish().unwrap();
    let mut w = e.begin(888, Stamp::Timeless { time_set: false });
    w.str(b"abc");
    w.finish().unwrap();
    let mut w = e.begin(5, Stamp::Timeless { time_set: false });
    w.f64(2.5).u16(7).u8(9);
    w.finish().unwrap();
    e.event(16382, Stamp::Timeless { time_set: false }, &[])
        .unwrap();
    assert_eq!(e.bytes(), 92);
    assert_eq!(e.finish().unwrap(), timeless_file());
}

/// The header words of an event with `n` u8 values.
fn header_words(n: usize) -> Vec<u32> {
    let mut e = Encoder::new(Vec::new(), Layout::Timeless);
    let vals = vec![Value::U8(1); n];
    e.event(3, Stamp::Timeless { time_set: false }, &vals)
        .unwrap();
    let b = e.finish().unwrap();
    let words = 1 + n.saturating_sub(4).div_ceil(7);
    b.chunks(4)
        .take(words)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn header_words_pack_four_then_seven_nibbles() {
    assert_eq!(header_words(0), [3 << 18 | 0x2_0000]);
    assert_eq!(header_words(1), [3 << 18 | 0x2_6000]);
    assert_eq!(header_words(4), [3 << 18 | 0x2_6666]);
    assert_eq!(header_words(5), [3 << 18 | 0x6666, 0x2600_0000]);
    assert_eq!(header_words(11), [3 << 18 | 0x6666, 0x2666_6666]);
    assert_eq!(
        header_words(12),
        [3 << 18 | 0x6666, 0x0666_6666, 0x2600_0000]
    );
    for n in 0..=40 {
        let mut e = Encoder::new(Vec::new(), Layout::Timed);
        let vals: Vec<Value> = (0..n)
            .map(|i| match i % 7 {
                0 => Value::Str(b"x"),
                1 => Value::F64(i as f64 / 3.0),
                2 => Value::F32(i as f32),
                3 => Value::U64(u64::MAX - i as u64),
                4 => Value::U16(i as u16),
                5 => Value::U8(i as u8),
                _ => Value::U32(i as u32 * 1000),
            })
            .collect();
        let stamp = Stamp::Timed {
            time_set: Some(Clock {
                seconds: 3,
                resolution: 1000,
            }),
            ticks: 7,
        };
        e.event(16383, stamp, &vals).unwrap();
        let b = e.finish().unwrap();
        assert_eq!(b.len() % 4, 0);
        let mut d = Decoder::new(&b, Layout::Timed);
        let ev = d.next_event().unwrap().unwrap();
        assert_eq!(ev.values, &vals[..], "{n} values");
        assert_eq!(ev.stamp, stamp);
        assert_eq!(ev.len, b.len());
        assert!(d.next_event().unwrap().is_none());
    }
}

#[test]
fn every_truncation_is_an_error_at_the_right_offset() {
    for (data, layout) in [
        (timeless_file(), Layout::Timeless),
        (timed_file(), Layout::Timed),
    ] {
        let full = decode_all(&data, layout).unwrap();
        let ends: Vec<usize> = full
            .iter()
            .skip(1)
            .map(|e| e.0)
            .chain([data.len()])
            .collect();
        for cut in 0..data.len() {
            match decode_all(&data[..cut], layout) {
                Ok(evs) => {
                    assert!(cut == 0 || ends.contains(&cut), "{layout:?} cut {cut}");
                    assert_eq!(evs, full[..evs.len()]);
                }
                Err((evs, e)) => {
                    assert!(!ends.contains(&cut), "{layout:?} cut {cut}: {e}");
                    assert_eq!(evs, full[..evs.len()]);
                    assert_eq!(e.event, evs.len() as u64 + 1);
                    assert_eq!(e.event_offset, full[evs.len()].0);
                    assert!(e.offset >= e.event_offset && e.offset <= cut, "{e}");
                    assert!(
                        matches!(
                            e.kind,
                            RstErrorKind::Truncated { .. } | RstErrorKind::UnterminatedString
                        ),
                        "{e}"
                    );
                }
            }
        }
    }
    // Precise offsets in the timeless file: header at 0, ids at 4 and 12,
    // host at 20, definition at 28 (continuation word at 32, values from 36).
    let data = timeless_file();
    let err = |cut: usize| decode_all(&data[..cut], Layout::Timeless).unwrap_err().1;
    let e = err(10);
    assert_eq!(e.offset, 4);
    assert_eq!(
        e.kind,
        RstErrorKind::Truncated {
            what: "u64 value",
            needed: 8,
            available: 6
        }
    );
    assert_eq!(err(22).kind, RstErrorKind::UnterminatedString);
    assert_eq!(err(22).offset, 20);
    let e = err(26);
    assert_eq!(e.offset, 25);
    assert!(e.to_string().contains("padding after a string"), "{e}");
    let e = err(34);
    assert_eq!((e.offset, e.event, e.event_offset), (32, 2, 28));
    assert!(e.to_string().contains("continuation header word"), "{e}");
    assert_eq!(err(50).offset, 48);
    // The mixed event (at 72): f64 at 76, u16 at 84, u8 at 86, pad at 87.
    assert_eq!(err(80).offset, 76);
    assert_eq!(err(85).offset, 84);
    let e = err(87);
    assert_eq!(e.offset, 87);
    assert!(e.to_string().contains("padding at the end"), "{e}");
    // Timed: the clock and the time stamp.
    let timed = timed_file();
    let e = decode_all(&timed[..10], Layout::Timed).unwrap_err().1;
    assert!(e.to_string().contains("clock seconds"), "{e}");
    let e = decode_all(&timed[..60], Layout::Timed).unwrap_err().1;
    assert_eq!(e.offset, 56);
    assert!(e.to_string().contains("time stamp"), "{e}");
}

#[test]
fn unknown_type_codes_and_unterminated_strings() {
    // Nibble 9 in the first word of the second event.
    let mut data = timeless_file();
    data[72..76].copy_from_slice(&le32(5 << 18 | 0x2_0000 | 0x2960));
    let (evs, e) = decode_all(&data, Layout::Timeless).unwrap_err();
    assert_eq!(evs.len(), 3);
    assert_eq!(e.offset, 72);
    assert_eq!(e.kind, RstErrorKind::UnknownTypeCode { code: 9, index: 1 });
    assert!(
        e.to_string()
            .starts_with("byte 72: unknown value type code 9"),
        "{e}"
    );
    // Nibble 15 in the continuation word (at 32) of the definition.
    let mut data = timeless_file();
    data[32..36].copy_from_slice(&le32(0x277f_0000));
    let (_, e) = decode_all(&data, Layout::Timeless).unwrap_err();
    assert_eq!((e.offset, e.event_offset), (32, 28));
    assert_eq!(e.kind, RstErrorKind::UnknownTypeCode { code: 15, index: 6 });
    // A string running to the end of the data.
    let mut data = timeless_file();
    data.truncate(64);
    data.extend(le32(888 << 18 | 0x2_1000));
    data.extend(b"abcdefg");
    let (_, e) = decode_all(&data, Layout::Timeless).unwrap_err();
    assert_eq!(
        (e.offset, e.kind.clone()),
        (68, RstErrorKind::UnterminatedString)
    );
    // A zero nibble ends the values of its word (libRastro's reader).
    let mut data = Vec::new();
    data.extend(le32(0xffff_4410));
    data.extend([0u8; 16]);
    data.extend(b"h\0\0\0");
    data.extend(le32(7 << 18 | 0x7000)); // one u32, not the last word
    data.extend(le32(0x2700_0000)); // one more u32
    data.extend(le32(10));
    data.extend(le32(20));
    let evs = decode_all(&data, Layout::Timeless).unwrap();
    assert_eq!(evs[1].3, ["i:10", "i:20"]);
}

#[test]
fn detection_errors() {
    assert!(matches!(
        detect_layout(&[]).unwrap_err().kind,
        RstErrorKind::Truncated { .. }
    ));
    let e = detect_layout(b"%EventDef PajeDefineContainerType 0\n").unwrap_err();
    assert!(matches!(e.kind, RstErrorKind::NotRastro { .. }), "{e}");
    assert!(e.to_string().contains("not a libRastro trace"), "{e}");
    // The header event with other values.
    let mut data = Vec::new();
    data.extend(le32(0xffff_0000 | 0x2_0000 | 0x7000));
    data.extend(le32(5));
    let e = detect_layout(&data).unwrap_err();
    assert!(matches!(e.kind, RstErrorKind::BadInitEvent { .. }), "{e}");
    // Visitor errors come back as they are.
    let r = visit(&timeless_file(), None, |ev| {
        if ev.type_id == 888 {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert!(matches!(r, Err(VisitError::Visitor("stop"))));
    assert_eq!(visit(&timed_file(), None, |_| Ok::<(), ()>(())).unwrap(), 5);
}

#[test]
fn encoder_errors() {
    let mut e = Encoder::new(Vec::new(), Layout::Timeless);
    assert!(matches!(
        e.event(16384, Stamp::Timeless { time_set: false }, &[]),
        Err(EncodeError::TypeOutOfRange(16384))
    ));
    let timed = Stamp::Timed {
        time_set: None,
        ticks: 0,
    };
    let err = e.event(1, timed, &[]).unwrap_err();
    assert!(matches!(err, EncodeError::StampLayout { .. }));
    assert!(err.to_string().contains("timeless"), "{err}");
    let err = e
        .event(
            1,
            Stamp::Timeless { time_set: false },
            &[Value::U8(1), Value::Str(b"a\0b")],
        )
        .unwrap_err();
    assert!(matches!(err, EncodeError::NulInString { index: 1 }));
    // Nothing was written by the failed events.
    assert_eq!(e.bytes(), 0);
    assert!(e.finish().unwrap().is_empty());
}

// xorshift64*
use trama_gen::XorShift as Rng;

fn decode_everything(data: &[u8]) {
    let _ = detect_layout(data);
    for layout in [Layout::Timed, Layout::Timeless] {
        let mut d = Decoder::new(data, layout);
        let mut n = 0;
        loop {
            match d.next_event() {
                Ok(Some(ev)) => {
                    assert!(ev.offset + ev.len <= data.len());
                    let _ = ev.time();
                    n += 1;
                }
                Ok(None) => break,
                Err(e) => {
                    assert!(e.offset <= data.len() && e.event_offset <= e.offset);
                    break;
                }
            }
            assert!(n <= data.len() / 4 + 1);
        }
    }
}

#[test]
fn random_and_mutated_inputs_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..20_000 {
        let len = (rng.next() % 200) as usize;
        let mut data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if i % 2 == 0 && len >= 4 {
            data[..4].copy_from_slice(&le32(0xffff_4410));
        }
        decode_everything(&data);
    }
    for base in [timeless_file(), timed_file()] {
        for _ in 0..20_000 {
            let mut data = base.clone();
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() as usize) % data.len();
                data[at] = rng.next() as u8;
            }
            if matches!(rng.next() % 3, 0) {
                let cut = (rng.next() as usize) % data.len();
                data.truncate(cut);
            }
            decode_everything(&data);
        }
    }
}
