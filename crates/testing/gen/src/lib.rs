//! Random Pajé text traces for testing.
//!
//! [`generate`] turns a seed into a *valid* Pajé trace (the dialect PajeNG
//! reads): the same seed and options give the same bytes on every run and
//! platform. What the trace uses is chosen by [`GenOptions`]: a container
//! hierarchy, nested states, events, variables, links (some completed
//! end-first), several event identifiers per event kind with different
//! field orders, user-defined fields, aliases, quoted names, definitions in
//! the middle of the file, comments, blank lines and CRLF.
//!
//! Guarantees of a generated trace:
//! - every identifier (type, container, value) is defined once and used
//!   after its definition; container names or aliases are unique, also once
//!   quotes are stripped;
//! - entities of one type in one container come in time order, containers
//!   are destroyed no earlier than their last event, every link is completed
//!   before its container ends, pops never empty a stack, additions to a
//!   variable come after a first `PajeSetVariable`;
//! - event identifiers are integers and times are exact decimals.
//!
//! [`mutate`] garbles an input (byte flips, dropped, duplicated, swapped or
//! truncated lines, swapped or replaced fields, …) for robustness tests:
//! its output is usually invalid.
//!
//! [`opents`] writes realistic OpenTS (T-system) XML traces of any size,
//! as a stream, from a simulated run of a divide-and-conquer program.
//!
//! [`deep`] writes valid traces whose containers, types or states nest
//! as deep as asked (a million levels and more), as a stream.
//!
//! [`clog2`] writes MPE CLOG-2 logs whose content is known exactly.
//!
//! [`golden`] checks a test's output against a committed file, and
//! rewrites the file with `TRAMA_BLESS=1`.
//!
//! ```
//! use trama_gen::{generate, mutate, GenOptions};
//! // A rich trace, and one without what PajeNG versions read differently.
//! let trace = generate(42, &GenOptions::default());
//! assert_eq!(trace, generate(42, &GenOptions::default()));
//! assert!(trace.contains("%EventDef PajeCreateContainer"));
//! let mut options = GenOptions::plain();
//! options.events = 50;
//! options.max_state_depth = 2;
//! let small = generate(7, &options);
//! assert!(!small.contains('"'));
//! // A garbled variant for robustness tests.
//! let garbled = mutate(7, small.as_bytes());
//! assert_ne!(garbled, small.as_bytes());
//! ```
#![deny(missing_docs)]

pub mod clog2;
pub mod deep;
pub mod golden;
pub mod json;
mod kinds;
mod model;
mod mutate;
pub mod opents;
mod options;
pub mod otf2;
mod rng;

pub use model::generate;
pub use mutate::mutate;
pub use options::GenOptions;
pub use rng::Rng;

/// The `%EventDef` block of a trace of links with keys: container type
/// (0), link type (1), container creation (2), link start (3) and end (4),
/// each with the usual fields, the links' with a `Key`.
pub fn link_event_defs() -> String {
    let mut text = String::new();
    for (id, name, fields) in [
        (0, "PajeDefineContainerType", "Alias string\n% Type string\n% Name string"),
        (1, "PajeDefineLinkType", "Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string"),
        (2, "PajeCreateContainer", "Time date\n% Alias string\n% Type string\n% Container string\n% Name string"),
        (3, "PajeStartLink", "Time date\n% Type string\n% Container string\n% StartContainer string\n% Value string\n% Key string"),
        (4, "PajeEndLink", "Time date\n% Type string\n% Container string\n% EndContainer string\n% Value string\n% Key string"),
    ] {
        text.push_str(&format!("%EventDef {name} {id}\n% {fields}\n%EndEventDef\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::KINDS;

    #[test]
    fn deterministic() {
        for seed in 0..20 {
            let o = GenOptions::varied(seed, 300);
            assert_eq!(generate(seed, &o), generate(seed, &o));
        }
        assert_ne!(
            generate(1, &GenOptions::default()),
            generate(2, &GenOptions::default())
        );
    }

    #[test]
    fn plain_traces_have_no_quotes_and_end_with_a_timed_event() {
        for seed in 0..20 {
            let t = generate(seed, &GenOptions::plain());
            let lines: Vec<&str> = t
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                .collect();
            assert!(lines.iter().all(|l| !l.contains('"') || l.starts_with('%')));
            let last = lines.last().unwrap();
            assert!(!last.starts_with('%'));
        }
    }

    #[test]
    fn every_kind_and_feature_shows_up() {
        let o = GenOptions {
            events: 2000,
            quoted_names: true,
            crlf: true,
            ..GenOptions::default()
        };
        let t = generate(3, &o);
        assert!(t.contains("\r\n"));
        assert!(t.contains('"'));
        for k in KINDS {
            assert!(t.contains(k.name()), "{k:?} missing");
        }
        assert!(t.contains("Tag") || t.contains("Size") || t.contains("Mark"));
    }
}
