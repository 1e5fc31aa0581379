//! The parallel replay of a binary trace gives the trace the reference
//! simulation gives (the events read back in order and simulated by the
//! engine), with 1 or N threads, and gives up (never guesses) on traces
//! the engine rejects or on files whose keyframes lie.
#![allow(clippy::result_large_err)]

mod common;
use trama_testkit::canon as sim_canon;
use trama_testkit::traces;

use trama_gen::{generate, GenOptions};
use trama_paje::{read_paje, read_paje_chunked, Item};
use trama_ptb::{
    Decoded, FormatError, PtbFile, ReadOptions, ReplayOptions, Replayed, SourceStats, WriteOptions,
    Writer,
};
use trama_sim::{CountingSink, SimOptions, Simulator, Trace, TypeKind};

/// The bytes of a text trace converted (compressed at `zstd_level`);
/// `None` when it does not convert.
fn convert_bytes(text: &str, block_events: usize, zstd_level: Option<i32>) -> Option<Vec<u8>> {
    let mut o = WriteOptions::default();
    o.block_events = block_events;
    o.zstd_level = zstd_level;
    let mut w = Writer::new(Vec::new(), o).ok()?;
    let mut ro = trama_paje::ReadOptions::default();
    ro.threads = 1;
    let stats = read_paje(text.as_bytes(), &ro, |ev| w.event(&ev).map_err(|_| ())).ok()?;
    let (bytes, _) = w
        .finish(&stats.definitions, SourceStats { lines: stats.lines })
        .ok()?;
    Some(bytes)
}

/// The bytes of a text trace converted with each chunk of text announced
/// to the writer (read in chunks of `chunk` bytes by `threads` threads);
/// events on lines whose number `alone` picks are handed over from a buffer
/// of their own instead.
fn convert_chunked(
    text: &str,
    chunk: usize,
    threads: usize,
    alone: impl Fn(u64) -> bool,
) -> Option<Vec<u8>> {
    let mut w = Writer::new(Vec::new(), WriteOptions::default()).ok()?;
    let mut ro = trama_paje::ReadOptions::default();
    ro.threads = threads;
    ro.chunk_size = chunk;
    let mut own = Vec::new();
    let stats = read_paje_chunked(text.as_bytes(), &ro, |item| match item {
        Item::Chunk { buffer, len } => {
            w.text(buffer, len);
            Ok(())
        }
        Item::Event(ev) if alone(ev.line()) => {
            let (buf, spans) = ev.spans();
            own.clear();
            own.extend_from_slice(buf);
            let ev = trama_events::Event::new(ev.def(), ev.line(), &own, spans);
            w.event(&ev).map_err(|_| ())
        }
        Item::Event(ev) => w.event(&ev).map_err(|_| ()),
    })
    .ok()?;
    let (bytes, _) = w
        .finish(&stats.definitions, SourceStats { lines: stats.lines })
        .ok()?;
    Some(bytes)
}

#[test]
fn events_handed_over_in_whole_chunks_write_the_same_file() {
    let level = WriteOptions::default().zstd_level;
    let mut compared = 0;
    for seed in 0..24u64 {
        // Some traces long enough for a batch of events to end inside a
        // chunk of text, and for copies of chunks to be reused.
        let max = if seed % 6 == 0 { 60_000 } else { 600 };
        let text = generate(seed, &GenOptions::varied(seed, max));
        let Some(want) = convert_bytes(&text, 65_536, level) else {
            continue;
        };
        for (chunk, threads) in [(4096, 1), (1 << 16, 3)] {
            let got = convert_chunked(&text, chunk, threads, |_| false);
            assert!(
                got.as_ref() == Some(&want),
                "seed {seed}, chunks of {chunk}"
            );
            let got = convert_chunked(&text, chunk, threads, |line| line % 7 == 3);
            assert!(
                got.as_ref() == Some(&want),
                "seed {seed}, chunks of {chunk}, some events alone"
            );
            compared += 1;
        }
    }
    assert!(compared > 30, "only {compared} comparisons");
}

/// Converts a text trace; `None` when it does not convert.
fn convert(text: &str, block_events: usize) -> Option<PtbFile> {
    let bytes = convert_bytes(text, block_events, WriteOptions::default().zstd_level)?;
    Some(PtbFile::from_vec(bytes).expect("a file just written reads"))
}

/// The reference: every record through the engine.
fn reference(file: &PtbFile, keep_extras: bool) -> Option<Trace> {
    traces::simulated(keep_extras, |sim| {
        let mut ro = ReadOptions::default();
        ro.threads = 0;
        file.read(&ro, |r| match r {
            Decoded::Text(ev) => sim.event(&ev),
            Decoded::Handles(h) => sim.event_handles(&h.event),
        })
        .ok()
    })
}

/// Everything a trace holds, as text lines.
fn canon(t: &Trace) -> Vec<String> {
    let mut out = sim_canon::canon(t);
    out.extend(t.warnings.iter().cloned());
    out
}

fn replay(file: &PtbFile, threads: usize, keep_extras: bool) -> Replayed<Trace> {
    let mut o = ReplayOptions::default();
    o.threads = threads;
    o.keep_extras = keep_extras;
    file.replay_trace(&o).expect("a valid file").0
}

#[test]
fn replays_give_the_reference_trace_with_any_number_of_threads() {
    let mut compared = 0;
    let mut layouts = [0u64; 3];
    for seed in 0..120u64 {
        let text = traces::generated(seed, 4, 500);
        // Small blocks: many keyframes.
        let Some(file) = convert(&text, 7 + (seed as usize % 50)) else {
            continue;
        };
        for (n, k) in layouts.iter_mut().zip(file.frame_layouts().unwrap()) {
            *n += k.frames;
        }
        for keep_extras in [false, true] {
            let Some(want) = reference(&file, keep_extras) else {
                // The engine rejects it: the replay must not accept it.
                for threads in [1, 4] {
                    assert!(
                        matches!(replay(&file, threads, keep_extras), Replayed::Fallback(_)),
                        "seed {seed}: a trace the engine rejects was replayed"
                    );
                }
                continue;
            };
            let want = canon(&want);
            for threads in [1, 4] {
                match replay(&file, threads, keep_extras) {
                    Replayed::Done(t) => {
                        let got = canon(&t);
                        if got != want {
                            let d = got.iter().zip(&want).position(|(a, b)| a != b);
                            panic!(
                                "seed {seed}, {threads} threads, extras {keep_extras}: differ at {d:?}: {:?} vs {:?}",
                                d.map(|i| &got[i]),
                                d.map(|i| &want[i])
                            );
                        }
                    }
                    Replayed::Fallback(why) => {
                        panic!("seed {seed}: a valid trace was not replayed: {why}")
                    }
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 300, "only {compared} comparisons");
    // Every layout of an events frame was replayed.
    assert!(layouts.iter().all(|&n| n > 20), "frame layouts {layouts:?}");
}

#[test]
fn counts_are_those_of_the_engine() {
    for seed in 0..40u64 {
        let text = generate(seed, &GenOptions::varied(seed + 77, 400));
        let Some(file) = convert(&text, 64) else {
            continue;
        };
        let mut sim = Simulator::new(CountingSink::default(), SimOptions::default());
        let ok = file
            .read(&ReadOptions::default(), |r| match r {
                Decoded::Text(ev) => sim.event(&ev),
                Decoded::Handles(h) => sim.event_handles(&h.event),
            })
            .is_ok();
        let want = if ok { sim.finish().ok() } else { None };
        let (got, _) = file.replay_counts(&ReplayOptions::default()).unwrap();
        match (want, got) {
            (Some((model, c, _)), Replayed::Done(r)) => {
                assert_eq!(
                    (c.states, c.events, c.variables, c.links),
                    (
                        r.counts.states,
                        r.counts.events,
                        r.counts.variables,
                        r.counts.links
                    ),
                    "seed {seed}"
                );
                let ends =
                    |m: &trama_sim::Model| m.containers.iter().map(|c| c.end).collect::<Vec<_>>();
                assert_eq!(ends(&model), ends(&r.model), "seed {seed}: container ends");
            }
            (None, Replayed::Fallback(_)) => {}
            (w, g) => panic!("seed {seed}: verdicts differ: {:?} vs {g:?}", w.is_some()),
        }
    }
}

const HEAD: &str = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineStateType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineLinkType 4\n% Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string\n%EndEventDef\n\
%EventDef PajeCreateContainer 6\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
%EventDef PajePushState 12\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
%EventDef PajePopState 13\n% Time date\n% Type string\n% Container string\n%EndEventDef\n\
%EventDef PajeStartLink 14\n% Time date\n% Type string\n% Container string\n% Value string\n% StartContainer string\n% Key string\n%EndEventDef\n\
%EventDef PajeEndLink 15\n% Time date\n% Type string\n% Container string\n% Value string\n% EndContainer string\n% Key string\n%EndEventDef\n\
0 P 0 P\n2 S P S\n4 L 0 P P L\n6 0 p1 P 0 p1\n6 0 p2 P 0 p2\n";

/// A trace with many blocks whose `body` holds an error after them.
fn with_error(body: &str) -> String {
    let mut t = HEAD.to_string();
    for i in 0..200 {
        t.push_str(&format!("12 {i} S p1 a\n13 {i}.5 S p1\n"));
        t.push_str(&format!("14 {i} L 0 m p1 k{i}\n15 {i}.5 L 0 m p2 k{i}\n"));
    }
    t.push_str(body);
    t
}

#[test]
fn traces_the_engine_rejects_are_never_replayed() {
    for (body, what) in [
        ("13 300 S p1\n", "pop of an empty stack"),
        ("12 301 S p2 a\n12 300 S p2 b\n", "time order"),
        (
            "14 300 L 0 m p1 k3\n15 301 L 0 m p2 k3\n",
            "a key used again",
        ),
        ("14 300 L 0 m p1 zz\n", "an incomplete link"),
    ] {
        let file = convert(&with_error(body), 16).expect("converts");
        assert!(
            file.keyframes() > 3,
            "{what}: {} keyframes",
            file.keyframes()
        );
        assert!(
            reference(&file, false).is_none(),
            "{what}: the engine accepts it"
        );
        for threads in [1, 3] {
            match replay(&file, threads, false) {
                Replayed::Fallback(_) => {}
                Replayed::Done(_) => panic!("{what}: replayed as valid"),
            }
        }
    }
}

/// The byte offset and length of every frame of `kind` (uncompressed file).
fn frames(bytes: &[u8], kind: u8) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut p = 16;
    while p + 16 <= bytes.len() - 16 {
        let len = u32::from_le_bytes(bytes[p + 4..p + 8].try_into().unwrap()) as usize;
        if bytes[p] == kind {
            out.push((p, len));
        }
        p += 16 + len;
    }
    out
}

/// Makes the checksum of the frame at `at` (payload `len` bytes) right
/// again after its payload was changed, so that the change reaches the
/// decoders.
/// `bytes` opened, with the checksum of the frame at `at` (a payload of
/// `len` bytes) made right again.
fn reopened(mut bytes: Vec<u8>, at: usize, len: usize) -> Result<PtbFile, FormatError> {
    let crc = common::frame_crc(&bytes[at..at + 12], &bytes[at + 16..at + 16 + len]);
    bytes[at + 12..at + 16].copy_from_slice(&crc.to_le_bytes());
    PtbFile::from_vec(bytes)
}

/// The error `replay` gives on `file` (`why` it must fail), which must name
/// the frame at `at`.
fn replay_error<T: std::fmt::Debug>(
    file: &PtbFile,
    at: usize,
    why: &str,
    replay: impl FnOnce(&PtbFile, &ReplayOptions) -> Result<T, FormatError>,
) -> FormatError {
    let e = replay(file, &ReplayOptions::default()).expect_err(why);
    assert_eq!(e.offset, at as u64, "{e}");
    e
}

#[test]
fn a_keyframe_that_lies_is_reported() {
    let good = convert_bytes(&with_error(""), 16, None).unwrap();
    let keyframes = frames(&good, 4);
    assert!(keyframes.len() > 3);
    let (at, len) = keyframes[keyframes.len() / 2];
    // The time of the last event, in the keyframe's state (after the block
    // number and the model cursor, both one byte here).
    let mut bad = good.clone();
    let t = at + 16 + 2;
    let f = f64::from_le_bytes(bad[t..t + 8].try_into().unwrap());
    bad[t..t + 8].copy_from_slice(&(f + 1.0).to_le_bytes());
    let file = reopened(bad, at, len).unwrap();
    let e = replay_error(&file, at, "a lying keyframe", PtbFile::replay_trace);
    assert!(e.what.contains("keyframe"), "{e}");
    // The events themselves are intact: the reference path reads them.
    assert!(reference(&file, false).is_some());
}

#[test]
fn the_replay_is_told_apart_by_its_statistics() {
    let file = convert(&with_error(""), 16).unwrap();
    let mut o = ReplayOptions::default();
    o.threads = 2;
    let (r, stats) = file.replay_counts(&o).unwrap();
    assert!(matches!(r, Replayed::Done(_)));
    assert_eq!(stats.blocks, file.blocks());
    assert_eq!(stats.blocks_read, file.blocks());
    assert_eq!(stats.segments, file.keyframes() + 1);
    let Replayed::Done(c) = r else { unreachable!() };
    assert_eq!(c.counts.states, 200);
    assert_eq!(c.counts.links, 200);
    assert!(c.model.lists.iter().any(|l| l.kind == TypeKind::Link));
}

/// Events of many lists at equal times, interleaved at random: the frames
/// that store them grouped by list and merged by time give back the trace
/// order exactly (ties included), and replay to the reference trace.
#[test]
fn equal_times_over_many_lists_keep_their_order() {
    let mut text = HEAD.to_string();
    for c in 3..9 {
        text.push_str(&format!("6 0 p{c} P 0 p{c}\n"));
    }
    let mut depth = [0u32; 9];
    let mut x = 12345u64;
    let mut t = 1u32;
    for i in 0..3000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let c = 1 + (x >> 33) as usize % 8;
        // Few distinct times: long runs of ties across containers.
        if (x >> 20).is_multiple_of(7) {
            t += 1;
        }
        if depth[c] > 0 && (x >> 40).is_multiple_of(2) {
            depth[c] -= 1;
            text.push_str(&format!("13 {t}.25 S p{c}\n"));
        } else {
            depth[c] += 1;
            text.push_str(&format!("12 {t}.25 S p{c} v{}\n", i % 3));
        }
    }
    let file = convert(&text, 400).expect("converts");
    let layouts = file.frame_layouts().unwrap();
    assert!(layouts[2].frames >= 5, "merged frames: {layouts:?}");
    let mut back = Vec::new();
    let mut ro = ReadOptions::default();
    ro.threads = 2;
    trama_ptb::write_text(&file, &ro, &mut back).unwrap();
    let events = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("12 ") || l.starts_with("13 "))
            .map(str::to_string)
            .collect()
    };
    let (want, got) = (events(&text), events(&String::from_utf8(back).unwrap()));
    assert_eq!(want.len(), 3000);
    assert_eq!(want, got);
    let reference = canon(&reference(&file, true).expect("valid"));
    for threads in [1, 3] {
        match replay(&file, threads, true) {
            Replayed::Done(t) => assert_eq!(canon(&t), reference, "{threads} threads"),
            Replayed::Fallback(why) => panic!("not replayed: {why}"),
        }
    }
}

/// Bytes of events frames changed at random (checksums made right again, so
/// that the damage reaches the decoders): every reader either reports it or
/// reads something; the replay never accepts what the engine rejects, and
/// when both accept, they count the same. Nothing panics.
#[test]
fn damaged_columns_are_reported_or_read_consistently() {
    // Files with frames of every layout: a generated trace, events of two
    // lists interleaved, and the same in time order (merged frames).
    let mut merged = HEAD.to_string();
    for i in 0..300 {
        merged.push_str(&format!(
            "12 {i} S p1 a\n12 {i} S p2 b\n13 {i}.5 S p1\n13 {i}.5 S p2\n"
        ));
    }
    let mut layouts = [0u64; 3];
    let files: Vec<Vec<u8>> = [generate(8, &GenOptions::default()), with_error(""), merged]
        .iter()
        .map(|text| {
            let good = convert_bytes(text, 64, None).unwrap();
            let file = PtbFile::from_vec(good.clone()).unwrap();
            for (n, k) in layouts.iter_mut().zip(file.frame_layouts().unwrap()) {
                *n += k.frames;
            }
            good
        })
        .collect();
    assert!(layouts.iter().all(|&n| n > 0), "frame layouts {layouts:?}");
    let mut x = 99u64;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    let (mut reported, mut replayed) = (0, 0);
    for n in 0..450 {
        let good = &files[n % files.len()];
        let events = frames(good, 2);
        let mut bad = good.clone();
        let (at, len) = events[next() as usize % events.len()];
        for _ in 0..1 + next() % 3 {
            let i = at + 16 + next() as usize % len;
            bad[i] ^= 1 << (next() % 8);
        }
        let Ok(file) = reopened(bad, at, len) else {
            reported += 1;
            continue;
        };
        let mut sim = Simulator::new(CountingSink::default(), SimOptions::default());
        let read = file.read(&ReadOptions::default(), |r| match r {
            Decoded::Text(ev) => sim.event(&ev),
            Decoded::Handles(h) => sim.event_handles(&h.event),
        });
        let reference = match read {
            Ok(()) => Some(sim.finish().ok().map(|(_, c, _)| c)),
            Err(trama_ptb::ReadError::Handler(_)) => Some(None),
            Err(trama_ptb::ReadError::Format(_)) => None,
        };
        for threads in [1, 3] {
            let mut ro = ReplayOptions::default();
            ro.threads = threads;
            match file.replay_counts(&ro) {
                Ok((Replayed::Done(c), _)) => {
                    replayed += 1;
                    match &reference {
                        Some(Some(want)) => assert_eq!(*want, c.counts),
                        Some(None) => panic!("the replay accepted a trace the engine rejects"),
                        None => {}
                    }
                }
                Ok((Replayed::Fallback(_), _)) => {}
                Err(e) => {
                    assert!(e.offset > 0, "{e}");
                    reported += 1;
                }
            }
        }
    }
    // Both outcomes happen: the test reaches the decoders.
    assert!(
        reported > 50 && replayed > 10,
        "{reported} reported, {replayed} replayed"
    );
}

/// Times that zstd shrinks (a fixed step) are compressed with the rest of
/// their frame; times it hardly shrinks (random steps) are stored as they
/// are after the compressed columns. Both read back to the reference, and
/// a damaged split is reported with its frame's offset.
#[test]
fn compressible_and_random_times_are_stored_each_their_way() {
    let mut regular = HEAD.to_string();
    let mut random = HEAD.to_string();
    let mut x = 7u64;
    let mut t = 0u64;
    for i in 0..4000u64 {
        regular.push_str(&format!("12 {i} S p1 a\n13 {i}.5 S p1\n"));
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        t += 1 + (x >> 40);
        let u = t + 1 + (x >> 50);
        random.push_str(&format!(
            "12 {}.{:09} S p1 a\n13 {}.{:09} S p1\n",
            t / 1_000_000_000,
            t % 1_000_000_000,
            u / 1_000_000_000,
            u % 1_000_000_000
        ));
        t = u;
    }
    for (text, split) in [(&regular, false), (&random, true)] {
        let bytes = convert_bytes(text, 1000, Some(1)).unwrap();
        let file = PtbFile::from_vec(bytes.clone()).unwrap();
        let codecs = file.frame_codecs();
        assert_eq!(codecs[0], 0, "{codecs:?}");
        // (A frame's first times, or a short last frame, may go either way;
        // after a frame stored as is, the next one is too.)
        let blocks = file.blocks() as u64;
        if split {
            assert!(codecs[2] + 1 >= blocks, "{codecs:?} for {blocks} blocks");
        } else {
            assert!(
                codecs[2] <= 2 && blocks >= 8,
                "{codecs:?} for {blocks} blocks"
            );
        }
        let want = canon(&reference(&file, false).expect("valid"));
        for threads in [1, 3] {
            match replay(&file, threads, false) {
                Replayed::Done(t) => assert_eq!(canon(&t), want, "{threads} threads"),
                Replayed::Fallback(why) => panic!("not replayed: {why}"),
            }
        }
        let mut back = Vec::new();
        trama_ptb::write_text(&file, &ReadOptions::default(), &mut back).unwrap();
        let events = |s: &str| -> Vec<String> {
            s.lines()
                .filter(|l| l.starts_with("12 ") || l.starts_with("13 "))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(events(text), events(&String::from_utf8(back).unwrap()));
        if !split {
            continue;
        }
        // The first split frame, with its zstd length one byte too long
        // (checksum made right again).
        let (at, len) = frames(&bytes, 2)
            .into_iter()
            .find(|&(at, _)| bytes[at + 1] == 2)
            .expect("a split frame");
        let mut bad = bytes.clone();
        bad[at + 16] += 1;
        let file = reopened(bad, at, len).unwrap();
        replay_error(&file, at, "a damaged split", PtbFile::replay_counts);
    }
}

/// Records the largest single write.
struct Writes {
    bytes: Vec<u8>,
    largest: usize,
}

impl std::io::Write for Writes {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.largest = self.largest.max(b.len());
        self.bytes.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn long_runs_of_blank_lines_come_back_in_bounded_writes() {
    // Blank lines stand for comments: 300 000 of them between the header
    // and the events, and as many after (a damaged file may claim any
    // number: they are written as they are made, never all held).
    let (gap, tail) = (300_000, 250_000);
    let mut text = String::from(
        "%EventDef PajeDefineContainerType 0\n%\tAlias\tstring\n%\tType\tstring\n%\tName\tstring\n%EndEventDef\n\
         %EventDef PajeCreateContainer 1\n%\tTime\tdate\n%\tAlias\tstring\n%\tType\tstring\n%\tContainer\tstring\n%\tName\tstring\n%EndEventDef\n",
    );
    text.push_str(&"\n".repeat(gap));
    text.push_str("0 P 0 PROCESS\n1 0.5 p0 P 0 rank-0\n");
    text.push_str(&"\n".repeat(tail));
    let file = convert(&text, 16).expect("converts");
    let mut out = Writes {
        bytes: Vec::new(),
        largest: 0,
    };
    trama_ptb::write_text(&file, &ReadOptions::default(), &mut out).unwrap();
    assert_eq!(String::from_utf8(out.bytes).unwrap(), text);
    assert!(out.largest <= 1 << 17, "a write of {} bytes", out.largest);
}

/// A block ends early once its model records stop: the events after a
/// trace's opening records (containers, first uses of streams and values)
/// are stored grouped by list, not in trace order, and the file still
/// replays to the reference trace. Closing destructions stay in the last
/// block, so a window in the middle reads only the blocks it needs.
#[test]
fn blocks_end_after_model_records() {
    let destroy = "%EventDef PajeDestroyContainer 7\n% Time date\n% Type string\n% Name string\n%EndEventDef\n";
    let mut text = HEAD.replace("0 P 0 P\n", &format!("{destroy}0 P 0 P\n"));
    for c in 3..9 {
        text.push_str(&format!("6 0 p{c} P 0 p{c}\n"));
    }
    let n = 4000;
    for i in 0..n {
        let c = 1 + i % 8;
        text.push_str(&format!("12 {i} S p{c} v\n13 {i}.5 S p{c}\n"));
    }
    let file = convert(&text, 1000).unwrap();
    let layouts = file.frame_layouts().unwrap();
    let stored: u64 = layouts.iter().map(|l| l.events).sum();
    assert_eq!(stored, file.events());
    // Only the opening records and an eighth of a block of events after
    // them are in trace order (without the cut: the whole first block).
    assert_eq!(layouts[0].frames, 1, "{layouts:?}");
    assert!(layouts[0].events < 200, "{layouts:?}");
    assert!(file.blocks() <= (stored as usize).div_ceil(1000) + 1);
    let want = canon(&reference(&file, false).expect("valid"));
    for threads in [1, 4] {
        match replay(&file, threads, false) {
            Replayed::Done(t) => assert_eq!(canon(&t), want, "{threads} threads"),
            Replayed::Fallback(why) => panic!("not replayed: {why}"),
        }
    }

    for c in 1..9 {
        text.push_str(&format!("7 {n} P p{c}\n"));
    }
    let file = convert(&text, 1000).unwrap();
    let mut o = ReplayOptions::default();
    o.window = Some((2000.0, 2010.0));
    let (r, stats) = file.replay_counts(&o).unwrap();
    assert!(matches!(r, Replayed::Done(_)));
    assert!(
        stats.blocks_read <= 3,
        "{} of {} blocks read",
        stats.blocks_read,
        stats.blocks
    );
}

/// A progress counter given to [`PtbFile::read`] ends at the file's event
/// count, on the caller's thread and with decoding threads.
#[test]
fn read_counts_progress_up_to_every_event() {
    let mut o = GenOptions::plain();
    o.events = 5000;
    let file = convert(&generate(11, &o), 400).expect("converts");
    assert!(file.events() > 2000, "{} events", file.events());
    for threads in [0, 3] {
        let counter = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut ro = ReadOptions::default();
        ro.threads = threads;
        ro.progress = Some(counter.clone());
        let mut seen = 0u64;
        file.read(&ro, |_| -> Result<(), ()> {
            seen += 1;
            Ok(())
        })
        .unwrap();
        let done = counter.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(done, file.events(), "{threads} threads");
        assert_eq!(seen, file.events(), "{threads} threads");
    }
}

/// An event of a definition wider than a Pajé event line (no text reader
/// gives one; a writer fed by hand can store it) is refused with an error
/// naming its frame on every read path, never a panic.
#[test]
fn events_of_too_wide_definitions_are_refused() {
    let mut text = String::from(
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineEventType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
         %EventDef PajeNewEvent 3\n% Time date\n% Type string\n% Container string\n% Value string\n",
    );
    for k in 0..40 {
        text.push_str(&format!("% X{k} string\n"));
    }
    text.push_str("%EndEventDef\n0 P 0 P\n1 E P E\n2 0 p P 0 p\n");
    let mut w = Writer::new(Vec::new(), WriteOptions::default()).unwrap();
    let mut ro = trama_paje::ReadOptions::default();
    ro.threads = 1;
    let stats = read_paje(text.as_bytes(), &ro, |ev| w.event(&ev).map_err(|_| ())).unwrap();
    let def = stats
        .definitions
        .iter()
        .find(|d| d.id() == b"3")
        .expect("the wide definition");
    let mut words: Vec<String> = ["3", "1.5", "E", "p", "v"].map(String::from).to_vec();
    words.extend((0..40).map(|k| format!("x{k}")));
    let (mut buf, mut spans) = (Vec::new(), Vec::new());
    for word in &words {
        let start = buf.len() as u32;
        buf.extend_from_slice(word.as_bytes());
        spans.push(trama_events::Span {
            start,
            end: buf.len() as u32,
        });
        buf.push(b' ');
    }
    w.event(&trama_events::Event::new(def, 99, &buf, &spans))
        .unwrap();
    let (bytes, _) = w
        .finish(&stats.definitions, SourceStats { lines: 99 })
        .unwrap();
    let file = PtbFile::from_vec(bytes).expect("the file opens");
    let limit = format!("the {} of a Pajé event line", trama_paje::MAX_FIELDS);
    for threads in [0, 2] {
        let mut ro = ReadOptions::default();
        ro.threads = threads;
        match file.read(&ro, |_| -> Result<(), ()> { Ok(()) }) {
            Err(trama_ptb::ReadError::Format(e)) => {
                assert!(e.what.contains(&limit), "{e}");
                assert!(e.offset > 0, "{e}");
            }
            _ => panic!("read: no error"),
        }
    }
    let e = file
        .replay_counts(&ReplayOptions::default())
        .expect_err("replay: an error");
    assert!(e.what.contains(&limit), "{e}");
    let mut out = Vec::new();
    assert!(trama_ptb::write_text(&file, &ReadOptions::default(), &mut out).is_err());
}
