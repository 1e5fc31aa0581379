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
pub mod output;
mod rng;

pub use model::generate;
pub use mutate::mutate;
pub use options::GenOptions;
pub use rng::{Rng, XorShift, XorShift64};

/// The `%EventDef` block of the Pajé event `name` numbered `id`, with
/// `fields` in order: their names separated by spaces, each of type
/// `string` unless a colon gives another (`Time:date`, `Value:double`).
///
/// ```
/// assert_eq!(
///     trama_gen::event_def("PajePopState", 5, "Time:date Type Container"),
///     "%EventDef PajePopState 5\n% Time date\n% Type string\n% Container string\n%EndEventDef\n"
/// );
/// ```
pub fn event_def(name: &str, id: u32, fields: &str) -> String {
    let mut text = format!("%EventDef {name} {id}\n");
    for field in fields.split_whitespace() {
        let (field, ty) = field.split_once(':').unwrap_or((field, "string"));
        text.push_str(&format!("% {field} {ty}\n"));
    }
    text.push_str("%EndEventDef\n");
    text
}

/// The usual fields of the Pajé event `name`, as [`event_def`] takes
/// them, for the events the generators write.
fn usual_fields(name: &str) -> Option<&'static str> {
    Some(match name {
        "PajeDefineContainerType"
        | "PajeDefineStateType"
        | "PajeDefineEventType"
        | "PajeDefineVariableType" => "Alias Type Name",
        "PajeDefineLinkType" => "Alias Type StartContainerType EndContainerType Name",
        "PajeCreateContainer" => "Time:date Alias Type Container Name",
        "PajeDestroyContainer" => "Time:date Type Name",
        "PajeSetState" | "PajePushState" | "PajeNewEvent" => "Time:date Type Container Value",
        "PajePopState" => "Time:date Type Container",
        "PajeSetVariable" => "Time:date Type Container Value:double",
        "PajeStartLink" => "Time:date Type Container StartContainer Value Key",
        "PajeEndLink" => "Time:date Type Container EndContainer Value Key",
        _ => return None,
    })
}

/// The `%EventDef` blocks of `spec`, in order: definitions separated by
/// `;`, each the event's name, its number, then its fields as
/// [`event_def`] takes them, or none for the usual ones (those of
/// [`deep`]'s traces). Panics on a definition without a number, or
/// without fields for an event that has no usual ones.
///
/// ```
/// assert_eq!(
///     trama_gen::event_defs("PajePopState 5; PajeNewEvent 6 Time:date Type Container Value"),
///     [
///         trama_gen::event_def("PajePopState", 5, "Time:date Type Container"),
///         trama_gen::event_def("PajeNewEvent", 6, "Time:date Type Container Value"),
///     ]
///     .concat()
/// );
/// ```
pub fn event_defs(spec: &str) -> String {
    spec.split(';')
        .map(|def| {
            let mut words = def.trim().splitn(3, ' ');
            let name = words.next().unwrap_or_default();
            let id = words.next().and_then(|w| w.parse().ok());
            let id = id.unwrap_or_else(|| panic!("no event number in `{def}`"));
            let fields = words.next().map(str::trim).filter(|f| !f.is_empty());
            let fields = fields.or_else(|| usual_fields(name));
            event_def(
                name,
                id,
                fields.unwrap_or_else(|| panic!("no fields in `{def}`")),
            )
        })
        .collect()
}

/// The `%EventDef` block of a trace of links with keys: container type
/// (0), link type (1), container creation (2), link start (3) and end (4),
/// each with the usual fields, the links' with a `Key`.
pub fn link_event_defs() -> String {
    event_defs(
        "PajeDefineContainerType 0; PajeDefineLinkType 1; PajeCreateContainer 2; \
         PajeStartLink 3; PajeEndLink 4",
    )
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
