//! [`GenOptions`]: what a generated trace contains.

use crate::Rng;

/// What a generated trace contains. Build it from [`GenOptions::default`]
/// (a rich trace) or [`GenOptions::plain`] (no quotes, one clock, nothing
/// after the last timed event) and change fields.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct GenOptions {
    /// Number of entity events (states, events, variables, link ends) to
    /// write, besides definitions and container creations/destructions.
    pub events: usize,
    /// Levels of container types below the root (at least 1).
    pub container_depth: usize,
    /// Most containers of one type created in one parent at the start.
    pub max_children: usize,
    /// Most containers in the whole trace (the root excluded).
    pub max_containers: usize,
    /// Some names are quoted words with spaces (`"rank 3"`). Such traces
    /// read differently with quotes kept or stripped, but are valid in both.
    pub quoted_names: bool,
    /// Types, containers and some values get an `Alias` and are referred
    /// to by it (else by name). With aliases, container names may repeat.
    pub aliases: bool,
    /// Some event definitions carry user-defined fields (`Tag`, `Size`, …).
    pub extra_fields: bool,
    /// Event identifiers defined per event kind (each with its own field
    /// order when `shuffle_fields`); at least 1.
    pub ids_per_kind: usize,
    /// Fields of event definitions come in random order.
    pub shuffle_fields: bool,
    /// Definitions (`%EventDef` blocks, types, values) appear just before
    /// their first use instead of at the top of the file.
    pub definitions_mid_file: bool,
    /// Comments, blank lines, tabs and odd spacing.
    pub noise: bool,
    /// Lines end with `\r\n`.
    pub crlf: bool,
    /// Some containers are destroyed (with their sub-tree) during the trace
    /// or at its end.
    pub destroy_containers: bool,
    /// Containers are also created in the middle of the trace.
    pub dynamic_containers: bool,
    /// `PajeResetState` is used.
    pub reset_state: bool,
    /// Variables (`PajeSetVariable`, `PajeAddVariable`, `PajeSubVariable`,
    /// several updates at one time stamp).
    pub variables: bool,
    /// Links.
    pub links: bool,
    /// The root container `0` also gets states, variables and links.
    pub root_entities: bool,
    /// Some links have their `PajeEndLink` before their `PajeStartLink` in
    /// the file.
    pub reversed_links: bool,
    /// Deepest nesting of states (`PajePushState`); at least 1.
    pub max_state_depth: usize,
    /// One clock for the whole trace (times never decrease along the file).
    /// Without it each container has its own clock and times only increase
    /// per container, so the trace's last event may not be its latest.
    pub global_clock: bool,
    /// Untimed definitions after the last timed event (PajeNG then ends the
    /// trace at time 0).
    pub trailing_definitions: bool,
    /// The last timed event is a container destruction (or creation)
    /// strictly later than every other event, so that no entity starts at
    /// or after the end of the trace. (pj_dump 1.3.6 drops all but the
    /// first entity of a list that start at or after the end of the trace;
    /// later PajeNG versions dump them.)
    pub closing_event: bool,
    /// Times are written in several notations (`12`, `12.000`, `12000e-3`).
    pub varied_time_format: bool,
    /// Definitions use the old Pajé 1.x field names (`ContainerType`,
    /// `SourceContainer`, …) sometimes: read them with strict mode off.
    pub old_field_names: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            events: 200,
            container_depth: 2,
            max_children: 3,
            max_containers: 30,
            quoted_names: false,
            aliases: true,
            extra_fields: true,
            ids_per_kind: 2,
            shuffle_fields: true,
            definitions_mid_file: true,
            noise: true,
            crlf: false,
            destroy_containers: true,
            dynamic_containers: true,
            reset_state: true,
            variables: true,
            links: true,
            root_entities: true,
            reversed_links: true,
            max_state_depth: 3,
            global_clock: false,
            trailing_definitions: false,
            closing_event: false,
            varied_time_format: true,
            old_field_names: false,
        }
    }
}

impl GenOptions {
    /// Like the default, but with nothing on which PajeNG versions differ:
    /// no quotes, one clock, no definition after the last timed event, and
    /// a closing event.
    pub fn plain() -> GenOptions {
        GenOptions {
            quoted_names: false,
            global_clock: true,
            trailing_definitions: false,
            closing_event: true,
            old_field_names: false,
            ..GenOptions::default()
        }
    }

    /// Options with every switch drawn at random from `seed` (sizes stay
    /// moderate: up to `max_events` events).
    pub fn varied(seed: u64, max_events: usize) -> GenOptions {
        let mut r = Rng::new(seed ^ 0xA5A5_0F0F);
        GenOptions {
            events: r.range(0, max_events),
            container_depth: r.range(1, 3),
            max_children: r.range(1, 3),
            max_containers: r.range(1, 24),
            quoted_names: r.chance(0.5),
            aliases: r.chance(0.5),
            extra_fields: r.chance(0.5),
            ids_per_kind: r.range(1, 3),
            shuffle_fields: r.chance(0.5),
            definitions_mid_file: r.chance(0.5),
            noise: r.chance(0.5),
            crlf: r.chance(0.3),
            destroy_containers: r.chance(0.5),
            dynamic_containers: r.chance(0.5),
            reset_state: r.chance(0.5),
            variables: r.chance(0.7),
            links: r.chance(0.7),
            root_entities: r.chance(0.5),
            reversed_links: r.chance(0.5),
            max_state_depth: r.range(1, 4),
            global_clock: r.chance(0.5),
            trailing_definitions: r.chance(0.2),
            closing_event: r.chance(0.5),
            varied_time_format: r.chance(0.5),
            old_field_names: false,
        }
    }
}
