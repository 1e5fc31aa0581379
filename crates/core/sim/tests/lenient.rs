//! The lenient simulation: each problem of a real trace it lets pass is a
//! warning naming its line, the rest of the trace is simulated as usual,
//! and a valid trace gives the same result as without it. The strict
//! simulation's error for an unknown container says what would read it.
#![allow(clippy::result_large_err)]

use trama_testkit::{canon, traces};

use trama_paje::{read_paje, ReadOptions};
use trama_sim::{Pipeline, SimError, SimOptions, Simulator, Trace, TraceBuilder};

/// The definitions of the traces below, a container type `P` and a state
/// type `S`.
fn header() -> String {
    let mut text = trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeCreateContainer 2; \
         PajeDestroyContainer 3; PajeSetState 4; PajePopState 5",
    );
    text.push_str("0 P 0 Proc\n1 S P St\n");
    text
}

/// Line of the first event after [`header`].
fn first() -> u64 {
    header().lines().count() as u64 + 1
}

fn options(lenient: bool) -> SimOptions {
    let mut o = SimOptions::default();
    o.lenient = lenient;
    o
}

/// The trace and warnings of `text`, on one thread and on two (which must agree).
fn simulate(text: &str, lenient: bool) -> Result<(Trace, Vec<String>), SimError> {
    let mut ro = ReadOptions::default();
    ro.threads = 1;
    let mut sim = Simulator::new(TraceBuilder::default(), options(lenient));
    let read = read_paje(text.as_bytes(), &ro, |ev| sim.event(&ev));
    let one = match read {
        Ok(_) => sim.finish(),
        Err(trama_paje::ReadError::Handler(e)) => Err(e),
        Err(e) => panic!("{e}"),
    };
    let (_, two) = Pipeline::run(TraceBuilder::default(), options(lenient), |front| {
        read_paje(text.as_bytes(), &ro, |ev| front.event(&ev)).ok()
    });
    let one = one.map(|(m, s, w)| (s.into_trace(m, Vec::new()), w));
    let two = two.map(|(m, s, w)| (s.into_trace(m, Vec::new()), w));
    match (&one, &two) {
        (Ok((a, wa)), Ok((b, wb))) => {
            assert_eq!(canon::canon(a), canon::canon(b));
            assert_eq!(wa, wb);
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("one thread and two disagree"),
    }
    one
}

#[test]
fn an_unknown_container_suggests_lenient_and_a_sort_window() {
    let text = format!("{}2 0 p1 P 0 p1\n4 1 S mm0 a\n2 2 mm0 P 0 mm0\n", header());
    let e = simulate(&text, false).unwrap_err();
    assert_eq!(e.line, first() + 1);
    let m = e.to_string();
    assert!(m.contains("unknown container 'mm0'"), "{m}");
    assert!(
        m.contains("--lenient") && m.contains("--sort-window"),
        "{m}"
    );
    // Not when the container exists under another identifier.
    let text = format!("{}2 0 p1 P 0 proc1\n4 1 S proc1 a\n", header());
    let m = simulate(&text, false).unwrap_err().to_string();
    assert!(m.contains("alias 'p1'") && !m.contains("--lenient"), "{m}");
}

#[test]
fn lenient_ignores_events_on_unknown_containers_and_names_their_lines() {
    let kept = format!("{}2 0 p1 P 0 p1\n4 1 S p1 a\n4 3 S p1 b\n", header());
    let with = format!(
        "{}2 0 p1 P 0 p1\n4 1 S p1 a\n4 2 S mm0 x\n4 3 S p1 b\n",
        header()
    );
    let (want, none) = simulate(&kept, true).unwrap();
    assert!(none.is_empty(), "{none:?}");
    let (got, warnings) = simulate(&with, true).unwrap();
    assert_eq!(canon::canon(&got), canon::canon(&want));
    assert_eq!(
        warnings,
        [format!(
            "line {}: PajeSetState on unknown container 'mm0' ignored (--lenient)",
            first() + 2
        )]
    );
}

#[test]
fn lenient_names_the_first_lines_of_a_class_and_counts_them_all() {
    let mut text = format!("{}2 0 p1 P 0 p1\n", header());
    for i in 0..1000 {
        text.push_str(&format!("4 {i} S w{i} x\n"));
    }
    let (_, warnings) = simulate(&text, true).unwrap();
    let shown = trama_sim::SHOWN as usize;
    assert_eq!(warnings.len(), shown + 1, "{warnings:?}");
    assert!(warnings[0].starts_with(&format!("line {}:", first() + 1)));
    assert!(
        warnings[shown].starts_with("1000 events on unknown containers ignored in all"),
        "{warnings:?}"
    );
}

/// The strict simulation of `text` fails at `line`; the lenient one warns
/// once: its trace and warnings.
fn fails_strict_warns_once(text: &str, line: u64) -> (Trace, Vec<String>) {
    let strict = simulate(text, false).unwrap_err();
    assert_eq!(strict.line, line);
    let (got, warnings) = simulate(text, true).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    (got, warnings)
}

#[test]
fn lenient_ignores_a_pop_of_an_empty_stack() {
    let text = format!(
        "{}2 0 p1 P 0 p1\n4 1 S p1 a\n5 2 S p1\n5 3 S p1\n",
        header()
    );
    let (got, warnings) = fails_strict_warns_once(&text, first() + 3);
    assert!(
        warnings[0].starts_with(&format!("line {}: PajePopState", first() + 3)),
        "{warnings:?}"
    );
    // The state popped at 2 keeps its end; the trace ends at 3.
    let l = trama_sim::ListId(0);
    assert_eq!(got.lists[0].len(), 1);
    let e = got.entity(l, 0);
    assert_eq!((e.start, e.end), (1.0, 2.0));
}

#[test]
fn lenient_destroys_a_container_at_its_last_event() {
    let text = format!(
        "{}2 0 p1 P 0 p1\n4 5 S p1 a\n3 2 P p1\n2 6 p2 P 0 p2\n",
        header()
    );
    let (got, warnings) = fails_strict_warns_once(&text, first() + 2);
    assert!(
        warnings[0].contains(
            "destroyed at 2.000000, before its last event at 5.000000; it is destroyed at 5.000000"
        ),
        "{warnings:?}"
    );
    let p1 = got.model.container(trama_sim::ContainerId(1));
    assert_eq!(p1.end, 5.0);
}

#[test]
fn lenient_changes_nothing_on_valid_traces() {
    for seed in 0..40 {
        let text = traces::generated(seed, 7, 400);
        let strict = simulate(&text, false);
        let Ok((want, want_warnings)) = strict else {
            continue;
        };
        let (got, warnings) = simulate(&text, true).unwrap();
        assert_eq!(canon::canon(&got), canon::canon(&want), "seed {seed}");
        assert_eq!(warnings, want_warnings, "seed {seed}");
    }
}
