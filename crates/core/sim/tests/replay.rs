//! The replay gives the trace the reference engine gives, whatever the
//! points where its state is handed over to a new replay.
#![allow(clippy::result_large_err)]

use trama_events::{Event, EventKind, Field};
use trama_gen::{generate, GenOptions};
use trama_paje::{read_paje, ReadOptions};
use trama_testkit::{canon, traces};

use canon::canon;
use trama_sim::replay::{
    assemble_trace, has_duplicates, is_entity_kind, Bail, ColumnSink, ModelBuilder, ModelEffect,
    Replay, ReplayEvent, ReplaySink, ReplayState, ReplayTables, TraceParts, NONE,
};
use trama_sim::{CountingSink, Interner, SimOptions, Simulator, Trace};

fn reference(text: &str, keep_extras: bool) -> Option<Trace> {
    traces::simulated(keep_extras, |sim| {
        let mut ro = ReadOptions::default();
        ro.threads = 1;
        read_paje(text.as_bytes(), &ro, |ev| sim.event(&ev)).ok()
    })
}

/// The strings of user-defined fields, by code.
#[derive(Default)]
struct Codes {
    strings: Vec<Vec<u8>>,
}

impl Codes {
    fn code(&mut self, s: &[u8]) -> u32 {
        if let Some(i) = self.strings.iter().position(|x| x == s) {
            return i as u32;
        }
        self.strings.push(s.to_vec());
        self.strings.len() as u32 - 1
    }
}

struct Run<S> {
    replay: Replay<S>,
    done: Vec<Replay<S>>,
}

/// Replays `text`, handing the state over to a new replay after every
/// event whose index is in `splits`.
fn replayed<S: ReplaySink + Default>(
    text: &str,
    splits: &[usize],
    keep_extras: bool,
) -> Result<(Vec<Replay<S>>, ModelBuilder, Codes), Bail> {
    let mut mb = ModelBuilder::new(keep_extras);
    let mut tables = ReplayTables::default();
    let mut codes = Codes::default();
    let mut run = Run {
        replay: Replay::new(ReplayState::new(), S::default()).with_key_index(),
        done: Vec::new(),
    };
    let mut n = 0usize;
    let mut ro = ReadOptions::default();
    ro.threads = 1;
    read_paje(text.as_bytes(), &ro, |ev: Event<'_>| -> Result<(), Bail> {
        let time = ev
            .def()
            .slot(Field::Time)
            .map_or(0.0, |i| trama_num::atof(ev.word(i)));
        let r = &mut run.replay;
        if is_entity_kind(ev.kind()) {
            let h = mb.entity(&ev).map_err(|_| Bail("resolver"))?;
            tables.sync(mb.model());
            if h.new_value {
                r.new_value(false);
            }
            let variable = matches!(
                ev.kind(),
                EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable
            );
            let link = matches!(ev.kind(), EventKind::StartLink | EventKind::EndLink);
            let mut extras = Vec::new();
            for (name, value) in ev.def().extra_names().iter().zip(ev.extras()) {
                extras.push(codes.code(name.as_bytes()));
                extras.push(codes.code(value));
            }
            r.entity(
                &tables,
                &ReplayEvent {
                    kind: ev.kind(),
                    time,
                    container: h.container.0,
                    ty: h.ty.0,
                    value: h.value.0,
                    other: if link { h.other.0 } else { NONE },
                    number: if variable {
                        trama_num::strtof(ev.get(Field::Value)) as f64
                    } else {
                        0.0
                    },
                    key: if link { ev.get(Field::Key) } else { &[] },
                    pair: None,
                    extras: &extras,
                },
            )?;
        } else {
            let e = mb.event(&ev).map_err(|_| Bail("model"))?;
            tables.sync(mb.model());
            match e {
                ModelEffect::Type(_) => r.new_type(),
                ModelEffect::Value(_) => r.new_value(true),
                ModelEffect::Container { id, time } => r.new_container(id.0, time)?,
                ModelEffect::Destroy { container, time } => {
                    r.destroy_event(&tables, container.0, time)?
                }
                ModelEffect::Time(t) => r.time_event(t),
            }
        }
        if splits.contains(&n) {
            let state = run.replay.state.clone();
            let next = Replay::new(state, S::default()).with_key_index();
            run.done.push(std::mem::replace(&mut run.replay, next));
        }
        n += 1;
        Ok(())
    })
    .map_err(|e| match e {
        trama_paje::ReadError::Handler(b) => b,
        _ => Bail("syntax"),
    })?;
    tables.sync(mb.model());
    run.replay.finish(&tables, None)?;
    let mut all = run.done;
    all.push(run.replay);
    Ok((all, mb, codes))
}

fn assembled(text: &str, splits: &[usize], keep_extras: bool) -> Result<Trace, Bail> {
    let (replays, mb, codes) = replayed::<ColumnSink>(text, splits, false)?;
    let _ = keep_extras;
    let mut lists = Vec::new();
    let mut ends = Vec::new();
    let mut sinks = Vec::new();
    let mut warnings = Vec::new();
    let mut firsts = trama_sim::replay::FirstEnds::default();
    for r in replays {
        lists.extend(r.new_lists.iter().copied());
        ends.extend(r.destroyed.iter().copied());
        warnings.extend(r.warnings.iter().cloned());
        firsts.add(&r.first_ends);
        sinks.push(r.sink);
    }
    if has_duplicates(&[firsts], 2) {
        return Err(Bail("reused key"));
    }
    let parts = TraceParts {
        model: mb.into_model(),
        lists,
        ends,
        warnings,
    };
    Ok(assemble_trace(
        parts,
        sinks,
        |code, strings: &mut Interner| strings.intern(&codes.strings[code as usize]),
    ))
}

fn with_extras(text: &str, splits: &[usize]) -> Result<Trace, Bail> {
    let (replays, mb, codes) = replayed::<ExtrasSink>(text, splits, true)?;
    let mut lists = Vec::new();
    let mut ends = Vec::new();
    let mut sinks = Vec::new();
    for r in replays {
        lists.extend(r.new_lists.iter().copied());
        ends.extend(r.destroyed.iter().copied());
        sinks.push(r.sink.0);
    }
    let parts = TraceParts {
        model: mb.into_model(),
        lists,
        ends,
        warnings: Vec::new(),
    };
    Ok(assemble_trace(
        parts,
        sinks,
        |code, strings: &mut Interner| strings.intern(&codes.strings[code as usize]),
    ))
}

/// A column sink that keeps user-defined fields.
struct ExtrasSink(ColumnSink);

impl Default for ExtrasSink {
    fn default() -> Self {
        ExtrasSink(ColumnSink::new(true))
    }
}

impl ReplaySink for ExtrasSink {
    fn entity(&mut self, f: &trama_sim::replay::Final<'_>) {
        self.0.entity(f)
    }
}

fn event_count(text: &str) -> usize {
    let mut n = 0;
    let mut ro = ReadOptions::default();
    ro.threads = 1;
    read_paje(text.as_bytes(), &ro, |_| -> Result<(), ()> {
        n += 1;
        Ok(())
    })
    .unwrap();
    n
}

#[test]
fn replays_give_the_engine_s_trace_wherever_they_are_split() {
    let mut compared = 0;
    for seed in 0..300u64 {
        let text = traces::generated(seed, 3, 400);
        let Some(want) = reference(&text, false) else {
            continue;
        };
        let want = canon(&want);
        let n = event_count(&text);
        let splits: Vec<usize> = (0..n)
            .filter(|i| (i * 7 + seed as usize).is_multiple_of(23))
            .collect();
        for sp in [&[][..], &splits[..], &(0..n).collect::<Vec<_>>()[..]] {
            let got = assembled(&text, sp, false)
                .unwrap_or_else(|b| panic!("seed {seed}: the replay gave up: {b}"));
            let got = canon(&got);
            if got != want {
                let d = got.iter().zip(&want).position(|(a, b)| a != b);
                panic!(
                    "seed {seed}, {} splits: traces differ at {d:?}: {:?} vs {:?}",
                    sp.len(),
                    d.map(|i| &got[i]),
                    d.map(|i| &want[i])
                );
            }
        }
        let want_x = reference(&text, true).map(|t| canon(&t));
        let got_x = with_extras(&text, &splits).ok().map(|t| canon(&t));
        assert_eq!(got_x, want_x, "seed {seed}: with user-defined fields");
        compared += 1;
    }
    assert!(compared > 200, "only {compared} traces compared");
}

#[test]
fn counts_match_the_counting_sink() {
    for seed in 0..60u64 {
        let text = generate(seed, &GenOptions::varied(seed, 300));
        let mut sim = Simulator::new(CountingSink::default(), SimOptions::default());
        let mut ro = ReadOptions::default();
        ro.threads = 1;
        if read_paje(text.as_bytes(), &ro, |ev| sim.event(&ev)).is_err() {
            continue;
        }
        let Ok((_, want, _)) = sim.finish() else {
            continue;
        };
        let (replays, _, _) = replayed::<CountingSink>(&text, &[5, 50], false).unwrap();
        let mut got = CountingSink::default();
        for r in &replays {
            got.add(&r.sink);
        }
        assert_eq!(
            (got.states, got.events, got.variables, got.links),
            (want.states, want.events, want.variables, want.links),
            "seed {seed}"
        );
    }
}

/// Traces the engine rejects make the replay give up (at the same event or
/// at the end, for reused keys).
#[test]
fn invalid_traces_make_the_replay_give_up() {
    let head = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineStateType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineLinkType 4\n% Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string\n%EndEventDef\n\
%EventDef PajeCreateContainer 6\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
%EventDef PajeDestroyContainer 7\n% Time date\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajePushState 12\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
%EventDef PajePopState 13\n% Time date\n% Type string\n% Container string\n%EndEventDef\n\
%EventDef PajeStartLink 14\n% Time date\n% Type string\n% Container string\n% Value string\n% StartContainer string\n% Key string\n%EndEventDef\n\
%EventDef PajeEndLink 15\n% Time date\n% Type string\n% Container string\n% Value string\n% EndContainer string\n% Key string\n%EndEventDef\n\
0 P 0 P\n2 S P S\n4 L 0 P P L\n6 0 p1 P 0 p1\n6 0 p2 P 0 p2\n";
    for (body, why) in [
        ("13 1 S p1\n", "pop of an empty stack"),
        ("12 2 S p1 a\n12 1 S p1 b\n", "not in time order"),
        (
            "14 1 L 0 m p1 k\n15 2 L 0 m p2 k\n14 3 L 0 m p1 k\n15 4 L 0 m p2 k\n",
            "reused key",
        ),
        ("14 1 L 0 m p1 k\n", "incomplete links"),
        (
            "14 1 L 0 m p1 k\n15 2 L 0 n p2 k\n",
            "link ends with different values",
        ),
        (
            "12 5 S p1 a\n7 4 P p1\n",
            "container destroyed before its last event",
        ),
    ] {
        let text = format!("{head}{body}");
        assert!(
            reference(&text, false).is_none(),
            "{why}: the engine accepts it"
        );
        let b = assembled(&text, &[], false).err();
        assert_eq!(b, Some(Bail(why)), "{body}");
    }
}

#[test]
fn duplicates_are_found_with_any_number_of_threads() {
    // Distinct hashes (an odd multiplier is a bijection), spread over all
    // buckets, in two parts as two replay threads would leave them.
    let hashes: Vec<u64> = (1..=100_000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let (a, b) = hashes.split_at(40_000);
    for threads in [1, 3] {
        let mut p = trama_sim::replay::FirstEnds::default();
        let mut q = trama_sim::replay::FirstEnds::default();
        p.add(a);
        q.add(b);
        assert!(!has_duplicates(&[p.clone(), q.clone()], threads));
        // The same hash seen by both threads, then twice by one.
        q.add(&a[12_345..12_346]);
        assert!(has_duplicates(&[p.clone(), q], threads));
        p.add(&a[7..8]);
        assert!(has_duplicates(&[p], threads));
    }
    assert!(!has_duplicates(&[], 2));
}
