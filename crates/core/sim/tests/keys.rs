//! Link keys remembered in a filter of fixed size: exact while they are
//! few; past that a reused key is only suspected (handed to the sink, or a
//! warning), and simulating again with the suspects kept exactly gives the
//! error of the exact simulation.

// A failed simulation ends the test: its error's size does not matter.
#![allow(clippy::result_large_err)]

use std::sync::Arc;

use trama_sim::{
    CountingSink, Entity, KeySuspects, LinkKeys, ListId, Model, SimError, SimOptions, Simulator,
    Sink,
};

fn header() -> String {
    let mut text = trama_gen::link_event_defs();
    text.push_str("0 P 0 P\n1 L 0 P P L\n2 0 p1 P 0 p1\n2 0 p2 P 0 p2\n");
    text
}

/// `n` links of unique keys, then key `k1` used again (line of the reuse).
fn reused_after(n: usize) -> (String, u64) {
    let mut text = header();
    for i in 0..n {
        text.push_str(&format!("3 {i} L 0 p1 v k{i}\n4 {i}.5 L 0 p2 v k{i}\n"));
    }
    let line = text.lines().count() as u64 + 1;
    text.push_str(&format!("3 {n} L 0 p1 v k1\n4 {n}.5 L 0 p2 v k1\n"));
    (text, line)
}

/// Counts links and keeps the suspects it is told of.
#[derive(Default)]
struct Suspicious {
    counts: CountingSink,
    suspects: Vec<(ListId, Vec<u8>, u64)>,
}

impl Sink for Suspicious {
    fn entity(&mut self, model: &Model, list: ListId, idx: u32, e: &Entity<'_>) {
        self.counts.entity(model, list, idx, e);
    }

    fn possibly_reused_key(&mut self, _: &Model, list: ListId, key: &[u8], line: u64) -> bool {
        self.suspects.push((list, key.to_vec(), line));
        true
    }
}

fn simulate<S: Sink>(text: &str, sink: S, keys: LinkKeys) -> Result<(S, Vec<String>), SimError> {
    let mut o = SimOptions::default();
    o.link_keys = keys;
    let mut sim = Simulator::new(sink, o);
    let mut failed = None;
    trama_paje::read_paje(text.as_bytes(), &trama_paje::ReadOptions::default(), |ev| {
        sim.event(&ev).map_err(|e| failed = Some(e))
    })
    .ok();
    if let Some(e) = failed {
        return Err(e);
    }
    sim.finish().map(|(_, sink, warnings)| (sink, warnings))
}

/// A filter of 4 KiB keeps 56 keys exactly, then takes them in.
const SMALL: usize = 4096;

#[test]
fn a_filter_is_exact_while_its_keys_are_few() {
    // 1 MiB: the first 14,336 keys are kept exactly.
    let (text, _) = reused_after(100);
    let exact = simulate(&text, CountingSink::default(), LinkKeys::Exact).err();
    let filter = simulate(&text, Suspicious::default(), LinkKeys::Filter(1 << 20)).err();
    assert_eq!(filter.map(|e| e.to_string()), exact.map(|e| e.to_string()));
}

#[test]
fn a_filter_hands_a_reused_key_to_the_sink_and_goes_on() {
    let (text, line) = reused_after(100);
    let exact = simulate(&text, CountingSink::default(), LinkKeys::Exact).err();
    let exact = exact.expect("the exact simulation rejects the reuse");
    assert_eq!(exact.line, line);
    assert!(exact.to_string().contains("link key 'k1'"), "{exact}");

    let (sink, warnings) = simulate(&text, Suspicious::default(), LinkKeys::Filter(SMALL))
        .expect("a filter only suspects");
    assert_eq!(sink.suspects, [(ListId(0), b"k1".to_vec(), line)]);
    assert_eq!(sink.counts.links, 101);
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn a_suspect_no_sink_takes_is_a_warning_with_its_line() {
    let (text, line) = reused_after(100);
    let (_, warnings) = simulate(&text, CountingSink::default(), LinkKeys::Filter(SMALL))
        .expect("a filter only suspects");
    assert_eq!(
        warnings,
        [format!(
            "link key 'k1' of type 'L' in container '0' possibly reused (line {line}): \
             the input cannot be read again to confirm it"
        )]
    );
}

#[test]
fn warnings_of_many_suspects_name_ten_and_count_the_others() {
    // A filter of one block suspects nearly every key after a few dozen.
    let (text, _) = reused_after(2000);
    let (_, warnings) = simulate(&text, CountingSink::default(), LinkKeys::Filter(64))
        .expect("a filter only suspects");
    assert_eq!(warnings.len(), 11, "{warnings:?}");
    let more: u64 = warnings[10]
        .strip_prefix("… and ")
        .and_then(|w| w.strip_suffix(" more link keys possibly reused"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", warnings[10]));
    assert!(more > 1000, "{more}");
}

#[test]
fn confirming_the_suspects_gives_the_exact_error() {
    let (text, _) = reused_after(100);
    let exact = simulate(&text, CountingSink::default(), LinkKeys::Exact).err();
    let mut suspects = KeySuspects::default();
    suspects.insert(ListId(0), b"k1");
    // Another list's key of the same name is not a reuse.
    suspects.insert(ListId(1), b"k2");
    let confirmed = simulate(
        &text,
        CountingSink::default(),
        LinkKeys::Confirm(Arc::new(suspects)),
    )
    .err();
    let (exact, confirmed) = (exact.unwrap(), confirmed.unwrap());
    assert_eq!(confirmed.line, exact.line);
    assert_eq!(confirmed.to_string(), exact.to_string());

    // Keys not under suspicion are taken as new.
    let mut other = KeySuspects::default();
    other.insert(ListId(0), b"k2");
    let (sink, _) = simulate(
        &text,
        CountingSink::default(),
        LinkKeys::Confirm(Arc::new(other)),
    )
    .expect("k1 is not a suspect");
    assert_eq!(sink.links, 101);
}
