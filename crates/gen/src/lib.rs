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

pub mod golden;
mod mutate;
mod rng;

pub use mutate::mutate;
pub use rng::Rng;

use std::collections::{BTreeMap, BTreeSet};

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

// ----- event kinds and fields -------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum K {
    DefCt,
    DefVt,
    DefSt,
    DefEt,
    DefLt,
    DefEv,
    Create,
    Destroy,
    Set,
    Push,
    Pop,
    Reset,
    NewEv,
    SetV,
    AddV,
    SubV,
    StartL,
    EndL,
}

const KINDS: [K; 18] = [
    K::DefCt,
    K::DefVt,
    K::DefSt,
    K::DefEt,
    K::DefLt,
    K::DefEv,
    K::Create,
    K::Destroy,
    K::Set,
    K::Push,
    K::Pop,
    K::Reset,
    K::NewEv,
    K::SetV,
    K::AddV,
    K::SubV,
    K::StartL,
    K::EndL,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum F {
    Time,
    Name,
    Type,
    Container,
    StartContainerType,
    EndContainerType,
    StartContainer,
    EndContainer,
    Value,
    Key,
    Alias,
    Color,
}

impl K {
    fn name(self) -> &'static str {
        match self {
            K::DefCt => "PajeDefineContainerType",
            K::DefVt => "PajeDefineVariableType",
            K::DefSt => "PajeDefineStateType",
            K::DefEt => "PajeDefineEventType",
            K::DefLt => "PajeDefineLinkType",
            K::DefEv => "PajeDefineEntityValue",
            K::Create => "PajeCreateContainer",
            K::Destroy => "PajeDestroyContainer",
            K::Set => "PajeSetState",
            K::Push => "PajePushState",
            K::Pop => "PajePopState",
            K::Reset => "PajeResetState",
            K::NewEv => "PajeNewEvent",
            K::SetV => "PajeSetVariable",
            K::AddV => "PajeAddVariable",
            K::SubV => "PajeSubVariable",
            K::StartL => "PajeStartLink",
            K::EndL => "PajeEndLink",
        }
    }

    fn obligatory(self) -> &'static [F] {
        use F::*;
        match self {
            K::DefCt | K::DefVt | K::DefSt | K::DefEt | K::DefEv => &[Name, Type],
            K::DefLt => &[Name, Type, StartContainerType, EndContainerType],
            K::Create => &[Time, Name, Type, Container],
            K::Destroy => &[Time, Name, Type],
            K::Set | K::Push | K::NewEv | K::SetV | K::AddV | K::SubV => {
                &[Time, Type, Container, Value]
            }
            K::Pop | K::Reset => &[Time, Type, Container],
            K::StartL => &[Time, Type, Container, Value, StartContainer, Key],
            K::EndL => &[Time, Type, Container, Value, EndContainer, Key],
        }
    }

    fn takes_alias(self) -> bool {
        matches!(
            self,
            K::DefCt | K::DefVt | K::DefSt | K::DefEt | K::DefLt | K::DefEv | K::Create
        )
    }

    fn takes_color(self) -> bool {
        matches!(self, K::DefVt | K::DefEv | K::DefSt)
    }

    fn takes_extras(self) -> bool {
        matches!(
            self,
            K::Create | K::Set | K::Push | K::NewEv | K::SetV | K::StartL | K::EndL
        )
    }
}

impl F {
    fn name(self) -> &'static str {
        match self {
            F::Time => "Time",
            F::Name => "Name",
            F::Type => "Type",
            F::Container => "Container",
            F::StartContainerType => "StartContainerType",
            F::EndContainerType => "EndContainerType",
            F::StartContainer => "StartContainer",
            F::EndContainer => "EndContainer",
            F::Value => "Value",
            F::Key => "Key",
            F::Alias => "Alias",
            F::Color => "Color",
        }
    }

    /// The Pajé 1.x name, when the field had another one.
    fn old_name(self, kind: K) -> Option<&'static str> {
        match self {
            F::Type => Some(
                if kind.name().starts_with("PajeDefine") || kind == K::Create {
                    "ContainerType"
                } else {
                    "EntityType"
                },
            ),
            F::StartContainerType => Some("SourceContainerType"),
            F::EndContainerType => Some("DestContainerType"),
            F::StartContainer => Some("SourceContainer"),
            F::EndContainer => Some("DestContainer"),
            _ => None,
        }
    }

    fn ty(self, kind: K) -> &'static str {
        match self {
            F::Time => "date",
            F::Color => "color",
            F::Value if matches!(kind, K::SetV | K::AddV | K::SubV) => "double",
            _ => "string",
        }
    }
}

#[derive(Clone, Debug)]
enum Slot {
    Std(F),
    Extra(usize),
}

#[derive(Clone, Debug)]
struct Def {
    id: String,
    kind: K,
    /// Field lines of the `%EventDef` block: (written name, type).
    header: Vec<(String, &'static str)>,
    slots: Vec<Slot>,
    written: bool,
}

const EXTRA_NAMES: [&str; 6] = ["Tag", "Size", "Mark", "Rank", "Note", "Cpu"];

// ----- the model being generated ----------------------------------------

#[derive(Clone, Debug)]
struct Ct {
    name: String,
    alias: Option<String>,
    parent: usize,
    children: Vec<usize>,
    etypes: Vec<usize>,
    defined: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ek {
    State,
    Event,
    Var,
    Link,
}

#[derive(Clone, Debug)]
struct Val {
    name: String,
    alias: Option<String>,
    defined: bool,
}

#[derive(Clone, Debug)]
struct Et {
    kind: Ek,
    name: String,
    alias: Option<String>,
    ct: usize,
    start_ct: usize,
    end_ct: usize,
    values: Vec<Val>,
    defined: bool,
    color: String,
}

#[derive(Clone, Debug)]
struct Cont {
    name: String,
    alias: Option<String>,
    ct: usize,
    alive: bool,
    children: Vec<usize>,
    clock: u64,
    state_depth: BTreeMap<usize, usize>,
    var_set: BTreeSet<usize>,
    next_key: u64,
}

#[derive(Clone, Debug)]
struct Pending {
    cont: usize,
    et: usize,
    key: String,
    value: usize,
    start_first: bool,
    other: usize,
}

fn ident(name: &str, alias: &Option<String>) -> String {
    alias.clone().unwrap_or_else(|| name.to_string())
}

struct Gen<'o> {
    o: &'o GenOptions,
    r: Rng,
    out: String,
    nl: &'static str,
    defs: Vec<Def>,
    defs_of: BTreeMap<K, Vec<usize>>,
    cts: Vec<Ct>,
    ets: Vec<Et>,
    conts: Vec<Cont>,
    pending: Vec<Pending>,
    clock: u64,
    force_time: Option<u64>,
    uncapped: bool,
    counter: usize,
    timed_events: usize,
}

/// Generates a valid Pajé text trace from `seed`.
pub fn generate(seed: u64, options: &GenOptions) -> String {
    let mut g = Gen {
        o: options,
        r: Rng::new(seed),
        out: String::new(),
        nl: if options.crlf { "\r\n" } else { "\n" },
        defs: Vec::new(),
        defs_of: BTreeMap::new(),
        cts: Vec::new(),
        ets: Vec::new(),
        conts: Vec::new(),
        pending: Vec::new(),
        clock: 0,
        force_time: None,
        uncapped: false,
        counter: 0,
        timed_events: 0,
    };
    g.run();
    g.out
}

impl Gen<'_> {
    fn run(&mut self) {
        if self.o.noise {
            let nl = self.nl;
            self.out.push_str("# generated by trama-gen");
            self.out.push_str(nl);
        }
        self.plan_definitions();
        self.plan_types();
        self.clock = self.r.below(3) as u64 * 1000;
        // The root container.
        self.conts.push(Cont {
            name: "0".into(),
            alias: None,
            ct: 0,
            alive: true,
            children: Vec::new(),
            clock: self.clock,
            state_depth: BTreeMap::new(),
            var_set: BTreeSet::new(),
            next_key: 0,
        });
        if !self.o.definitions_mid_file {
            let ids: Vec<usize> = (0..self.defs.len()).collect();
            for d in ids {
                self.write_def(d);
            }
            for ct in 1..self.cts.len() {
                self.ensure_ct(ct);
            }
            for et in 0..self.ets.len() {
                self.ensure_et(et);
                for v in 0..self.ets[et].values.len() {
                    self.ensure_value(et, v);
                }
            }
        }
        self.initial_containers(0);
        let mut n = 0;
        while n < self.o.events {
            n += self.step();
        }
        self.finish_links();
        if self.o.destroy_containers {
            let alive: Vec<usize> = (1..self.conts.len())
                .filter(|&c| self.conts[c].alive)
                .collect();
            for c in alive {
                if self.conts[c].alive && self.r.chance(0.3) {
                    self.destroy(c);
                }
            }
        }
        if self.timed_events == 0 {
            // Make sure some timed event ends the trace.
            let c = self.conts.len() - 1;
            if c > 0 && self.conts[c].alive {
                self.destroy(c);
            }
        }
        if self.o.closing_event {
            self.closing_event();
        }
        if self.o.trailing_definitions {
            self.trailing_definitions();
        }
        if self.o.noise && self.r.chance(0.3) {
            // No newline at the very end.
            while self.out.ends_with('\n') || self.out.ends_with('\r') {
                self.out.pop();
            }
        }
    }

    // ----- plan -------------------------------------------------------

    fn plan_definitions(&mut self) {
        let mut next_id = *self.r.pick(&[0usize, 1, 10, 100]);
        let per_kind = self.o.ids_per_kind.max(1);
        for kind in KINDS {
            let n = if per_kind == 1 {
                1
            } else {
                self.r.range(1, per_kind)
            };
            for i in 0..n {
                let mut fields: Vec<F> = kind.obligatory().to_vec();
                if self.o.aliases && kind.takes_alias() {
                    fields.push(F::Alias);
                }
                if kind.takes_color() && self.r.chance(0.5) {
                    fields.push(F::Color);
                }
                let mut slots: Vec<Slot> = fields.iter().map(|&f| Slot::Std(f)).collect();
                let mut extras: Vec<&'static str> = Vec::new();
                if self.o.extra_fields && kind.takes_extras() && (i > 0 || self.r.chance(0.5)) {
                    for _ in 0..self.r.range(1, 2) {
                        let e = *self.r.pick(&EXTRA_NAMES);
                        if !extras.contains(&e) {
                            extras.push(e);
                            slots.push(Slot::Extra(extras.len() - 1));
                        }
                    }
                }
                if self.o.shuffle_fields && (i > 0 || self.r.chance(0.5)) {
                    self.r.shuffle(&mut slots);
                }
                let header = slots
                    .iter()
                    .map(|s| match *s {
                        Slot::Std(f) => {
                            let name = match f.old_name(kind) {
                                Some(old) if self.o.old_field_names && self.r.chance(0.5) => old,
                                _ => f.name(),
                            };
                            (name.to_string(), f.ty(kind))
                        }
                        Slot::Extra(e) => (
                            extras[e].to_string(),
                            *self.r.pick(&["string", "int", "double"]),
                        ),
                    })
                    .collect();
                let id = next_id.to_string();
                next_id += self.r.range(1, 3);
                self.defs_of.entry(kind).or_default().push(self.defs.len());
                self.defs.push(Def {
                    id,
                    kind,
                    header,
                    slots,
                    written: false,
                });
            }
        }
    }

    fn fresh(&mut self) -> usize {
        self.counter += 1;
        self.counter
    }

    /// A name from `base`: unique, and quoted with a space sometimes.
    fn name(&mut self, base: &str) -> String {
        let n = self.fresh();
        if self.o.quoted_names && self.r.chance(0.4) {
            format!("\"{base} {n}\"")
        } else {
            format!("{base}{n}")
        }
    }

    fn alias(&mut self, prefix: &str) -> Option<String> {
        if self.o.aliases {
            let n = self.fresh();
            Some(format!("{prefix}{n}"))
        } else {
            None
        }
    }

    fn plan_types(&mut self) {
        self.cts.push(Ct {
            name: "0".into(),
            alias: None,
            parent: usize::MAX,
            children: Vec::new(),
            etypes: Vec::new(),
            defined: true,
        });
        let depth = self.o.container_depth.max(1);
        let mut level: Vec<usize> = vec![0];
        for l in 1..=depth {
            let mut next = Vec::new();
            for (i, &p) in level.clone().iter().enumerate() {
                // The first container type of a level always has children,
                // so that every level exists.
                let n = if l == 1 || i == 0 {
                    self.r.range(1, 2)
                } else {
                    self.r.range(0, 2)
                };
                for _ in 0..n {
                    let base = *self
                        .r
                        .pick(&["Proc", "Thread", "Host", "Node", "Rank", "Worker"]);
                    let name = self.name(base);
                    let alias = self.alias("T");
                    let id = self.cts.len();
                    self.cts.push(Ct {
                        name,
                        alias,
                        parent: p,
                        children: Vec::new(),
                        etypes: Vec::new(),
                        defined: false,
                    });
                    self.cts[p].children.push(id);
                    next.push(id);
                }
            }
            level = next;
        }
        for ct in 0..self.cts.len() {
            let root = ct == 0;
            if root && !self.o.root_entities {
                continue;
            }
            let states = if root {
                usize::from(self.r.chance(0.3))
            } else {
                self.r.range(1, 2)
            };
            for _ in 0..states {
                self.new_etype(Ek::State, ct);
            }
            if !root && self.r.chance(0.6) {
                self.new_etype(Ek::Event, ct);
            }
            if self.o.variables {
                let n = if root {
                    usize::from(self.r.chance(0.3))
                } else {
                    self.r.range(0, 2)
                };
                for _ in 0..n {
                    self.new_etype(Ek::Var, ct);
                }
            }
        }
        if self.o.links && self.cts.len() > 1 {
            let mut any = false;
            let first = usize::from(!self.o.root_entities);
            for ct in first..self.cts.len() {
                if self.r.chance(0.5) || (!any && ct + 1 == self.cts.len()) {
                    self.new_etype(Ek::Link, ct);
                    any = true;
                }
            }
        }
    }

    fn new_etype(&mut self, kind: Ek, ct: usize) {
        let base = match kind {
            Ek::State => *self.r.pick(&["State", "MPI State", "Activity"]),
            Ek::Event => *self.r.pick(&["Event", "Signal"]),
            Ek::Var => *self.r.pick(&["Mem", "Power", "Load"]),
            Ek::Link => *self.r.pick(&["Comm", "Msg"]),
        };
        let base = base.replace(' ', "_");
        let name = self.name(&base);
        let alias = self.alias("T");
        let (mut start_ct, mut end_ct) = (0, 0);
        if kind == Ek::Link {
            start_ct = self.r.range(1, self.cts.len() - 1);
            end_ct = self.r.range(1, self.cts.len() - 1);
        }
        let mut values = Vec::new();
        if kind != Ek::Var {
            let words: &[&str] = match kind {
                Ek::State => &["run", "wait", "MPI_Send", "MPI Recv", "idle", "io"],
                Ek::Event => &["tick", "fault", "mark"],
                _ => &["msg", "data", "ctl"],
            };
            for _ in 0..self.r.range(1, 4) {
                let w = self.r.pick(words).replace(' ', "_");
                let name = self.name(&w);
                let explicit = self.r.chance(0.5);
                let alias = if explicit && self.r.chance(0.7) {
                    self.alias("v")
                } else {
                    None
                };
                values.push(Val {
                    name,
                    alias,
                    defined: !explicit,
                });
            }
        }
        let color = self.color();
        let id = self.ets.len();
        self.ets.push(Et {
            kind,
            name,
            alias,
            ct,
            start_ct,
            end_ct,
            values,
            defined: false,
            color,
        });
        self.cts[ct].etypes.push(id);
    }

    fn color(&mut self) -> String {
        let c = [
            self.r.below(11) as f64 / 10.0,
            self.r.below(11) as f64 / 10.0,
            self.r.below(11) as f64 / 10.0,
        ];
        if self.o.quoted_names {
            format!("\"{} {} {}\"", c[0], c[1], c[2])
        } else {
            format!("{},{},{}", c[0], c[1], c[2])
        }
    }

    // ----- writing ----------------------------------------------------

    fn noise_before(&mut self) {
        if !self.o.noise {
            return;
        }
        let nl = self.nl;
        if self.r.chance(0.02) {
            self.out.push_str(nl);
        }
        if self.r.chance(0.02) {
            self.out
                .push_str(if self.r.chance(0.5) { "   \t" } else { "" });
            self.out.push_str(if self.o.quoted_names {
                "# a comment, with \"quotes\" and %EventDef"
            } else {
                "# a comment with %EventDef 1 2 3"
            });
            self.out.push_str(nl);
        }
    }

    fn sep(&mut self) -> &'static str {
        if self.o.noise && self.r.chance(0.05) {
            const SEPARATORS: [&str; 3] = ["\t", "  ", " \t "];
            SEPARATORS[self.r.below(SEPARATORS.len())]
        } else {
            " "
        }
    }

    fn line(&mut self, words: &[String]) {
        self.noise_before();
        if self.o.noise && self.r.chance(0.02) {
            self.out.push_str("  ");
        }
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                let s = self.sep();
                self.out.push_str(s);
            }
            self.out.push_str(w);
        }
        if self.o.noise && self.r.chance(0.02) {
            self.out.push_str(" # trailing comment");
        } else if self.o.noise && self.r.chance(0.02) {
            self.out.push_str(" \t");
        }
        let nl = self.nl;
        self.out.push_str(nl);
    }

    fn write_def(&mut self, d: usize) {
        if self.defs[d].written {
            return;
        }
        self.defs[d].written = true;
        self.noise_before();
        let nl = self.nl;
        let def = self.defs[d].clone();
        let start = if self.o.noise && self.r.chance(0.2) {
            "% EventDef"
        } else {
            "%EventDef"
        };
        self.out
            .push_str(&format!("{start} {} {}{nl}", def.kind.name(), def.id));
        for (name, ty) in &def.header {
            let lead = if self.o.noise {
                *self.r.pick(&["% ", "%\t", "%  "])
            } else {
                "% "
            };
            self.out.push_str(&format!("{lead}{name} {ty}{nl}"));
        }
        let end = if self.o.noise && self.r.chance(0.2) {
            "% EndEventDef"
        } else {
            "%EndEventDef"
        };
        self.out.push_str(end);
        self.out.push_str(nl);
    }

    fn time_str(&mut self, t: u64) -> String {
        let (i, f) = (t / 1000, t % 1000);
        if !self.o.varied_time_format {
            return format!("{i}.{f:03}");
        }
        match self.r.below(6) {
            0 if f == 0 => format!("{i}"),
            1 => format!("{i}.{f:03}000"),
            2 => format!("{t}e-3"),
            3 if t > 0 => {
                // d.ddd…eN
                let s = t.to_string();
                let exp = s.len() as i64 - 1 - 3;
                format!("{}.{}e{exp}", &s[..1], &s[1..])
            }
            _ => format!("{i}.{f:03}"),
        }
    }

    /// Writes one event with the given field values through one of the
    /// identifiers of `kind`.
    fn event(&mut self, kind: K, vals: &[(F, String)]) {
        let ids = self.defs_of[&kind].clone();
        let d = *self.r.pick(&ids);
        self.write_def(d);
        let def = self.defs[d].clone();
        let mut words = vec![def.id.clone()];
        for s in &def.slots {
            match *s {
                Slot::Std(f) => {
                    let v = vals
                        .iter()
                        .find(|(g, _)| *g == f)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_else(|| panic!("no value for {f:?} of {kind:?}"));
                    words.push(v);
                }
                Slot::Extra(_) => {
                    let v = match self.r.below(4) {
                        0 => self.r.below(1000).to_string(),
                        1 => format!("x{}", self.r.below(50)),
                        2 => format!("{}.5", self.r.below(100)),
                        _ => {
                            if self.o.quoted_names {
                                format!("\"tag {}\"", self.r.below(9))
                            } else {
                                format!("t{}", self.r.below(9))
                            }
                        }
                    };
                    words.push(v);
                }
            }
        }
        if vals.iter().any(|(f, _)| *f == F::Time) {
            self.timed_events += 1;
        }
        self.line(&words);
    }

    // ----- definitions ------------------------------------------------

    fn ct_ident(&self, ct: usize) -> String {
        ident(&self.cts[ct].name, &self.cts[ct].alias)
    }

    fn et_ident(&self, et: usize) -> String {
        ident(&self.ets[et].name, &self.ets[et].alias)
    }

    fn c_ident(&self, c: usize) -> String {
        ident(&self.conts[c].name, &self.conts[c].alias)
    }

    fn v_ident(&self, et: usize, v: usize) -> String {
        let val = &self.ets[et].values[v];
        ident(&val.name, &val.alias)
    }

    fn ensure_ct(&mut self, ct: usize) {
        if self.cts[ct].defined {
            return;
        }
        let p = self.cts[ct].parent;
        self.ensure_ct(p);
        self.cts[ct].defined = true;
        let mut vals = vec![
            (F::Name, self.cts[ct].name.clone()),
            (F::Type, self.ct_ident(p)),
        ];
        if let Some(a) = &self.cts[ct].alias {
            vals.push((F::Alias, a.clone()));
        }
        self.event(K::DefCt, &vals);
    }

    fn ensure_et(&mut self, et: usize) {
        if self.ets[et].defined {
            return;
        }
        let e = self.ets[et].clone();
        self.ensure_ct(e.ct);
        let kind = match e.kind {
            Ek::State => K::DefSt,
            Ek::Event => K::DefEt,
            Ek::Var => K::DefVt,
            Ek::Link => K::DefLt,
        };
        let mut vals = vec![(F::Name, e.name.clone()), (F::Type, self.ct_ident(e.ct))];
        if e.kind == Ek::Link {
            self.ensure_ct(e.start_ct);
            self.ensure_ct(e.end_ct);
            vals.push((F::StartContainerType, self.ct_ident(e.start_ct)));
            vals.push((F::EndContainerType, self.ct_ident(e.end_ct)));
        }
        if let Some(a) = &e.alias {
            vals.push((F::Alias, a.clone()));
        }
        vals.push((F::Color, e.color.clone()));
        self.ets[et].defined = true;
        self.event(kind, &vals);
    }

    fn ensure_value(&mut self, et: usize, v: usize) {
        self.ensure_et(et);
        if self.ets[et].values[v].defined {
            return;
        }
        self.ets[et].values[v].defined = true;
        let val = self.ets[et].values[v].clone();
        let mut vals = vec![(F::Name, val.name.clone()), (F::Type, self.et_ident(et))];
        // A value defined without alias gets the name as identifier; the
        // Alias field, when the definition has one, then repeats the name.
        vals.push((F::Alias, val.alias.clone().unwrap_or(val.name.clone())));
        let color = self.color();
        vals.push((F::Color, color));
        self.event(K::DefEv, &vals);
    }

    fn trailing_definitions(&mut self) {
        for _ in 0..self.r.range(1, 2) {
            let kinds = [Ek::State, Ek::Event];
            let kind = *self.r.pick(&kinds);
            let ct = self.r.range(1, self.cts.len() - 1);
            self.new_etype(kind, ct);
            let et = self.ets.len() - 1;
            self.ensure_et(et);
            if !self.ets[et].values.is_empty() {
                self.ets[et].values[0].defined = false;
                self.ensure_value(et, 0);
            }
        }
    }

    // ----- containers -------------------------------------------------

    fn tick(&mut self, c: usize) -> u64 {
        if let Some(t) = self.force_time.take() {
            self.clock = t;
            self.conts[c].clock = t;
            return t;
        }
        let d = if self.r.chance(0.25) {
            0
        } else if self.r.chance(0.9) {
            self.r.range(1, 2000) as u64
        } else {
            self.r.range(1, 3_000_000) as u64
        };
        if self.o.global_clock {
            self.clock += d;
            self.clock
        } else {
            self.conts[c].clock += d;
            self.conts[c].clock
        }
    }

    /// Destroys (or creates) a container strictly after every other event.
    fn closing_event(&mut self) {
        self.finish_links();
        let latest = self
            .conts
            .iter()
            .map(|c| c.clock)
            .max()
            .unwrap_or(0)
            .max(self.clock);
        let t = latest + self.r.range(1, 1000) as u64;
        let alive: Vec<usize> = (1..self.conts.len())
            .filter(|&c| self.conts[c].alive)
            .collect();
        self.force_time = Some(t);
        if alive.is_empty() {
            let ct = *self.r.pick(&self.cts[0].children.clone());
            self.uncapped = true;
            self.create(0, ct);
            self.uncapped = false;
        } else {
            let c = *self.r.pick(&alive);
            self.destroy(c);
        }
        self.force_time = None;
    }

    fn initial_containers(&mut self, c: usize) {
        let ct = self.conts[c].ct;
        for child_ct in self.cts[ct].children.clone() {
            let n = self.r.range(1, self.o.max_children.max(1));
            for _ in 0..n {
                if let Some(child) = self.create(c, child_ct) {
                    self.initial_containers(child);
                }
            }
        }
    }

    fn create(&mut self, parent: usize, ct: usize) -> Option<usize> {
        if self.conts.len() > self.o.max_containers && !self.uncapped {
            return None;
        }
        self.ensure_ct(ct);
        let base = self.cts[ct].name.trim_matches('"').to_lowercase();
        let base: String = base.chars().filter(|c| c.is_ascii_alphabetic()).collect();
        let (name, alias) = if self.o.aliases {
            // Names may repeat under aliases: number them within the parent.
            let k = self.conts[parent].children.len();
            let name = if self.o.quoted_names && self.r.chance(0.4) {
                format!("\"{base} {k}\"")
            } else {
                format!("{base}{k}")
            };
            (name, self.alias("c"))
        } else {
            (self.name(&base), None)
        };
        let t = self.tick(parent);
        let id = self.conts.len();
        self.conts.push(Cont {
            name,
            alias,
            ct,
            alive: true,
            children: Vec::new(),
            clock: t,
            state_depth: BTreeMap::new(),
            var_set: BTreeSet::new(),
            next_key: 0,
        });
        self.conts[parent].children.push(id);
        let ts = self.time_str(t);
        let mut vals = vec![
            (F::Time, ts),
            (F::Name, self.conts[id].name.clone()),
            (F::Type, self.ct_ident(ct)),
            (F::Container, self.c_ident(parent)),
        ];
        if let Some(a) = &self.conts[id].alias {
            vals.push((F::Alias, a.clone()));
        }
        self.event(K::Create, &vals);
        Some(id)
    }

    fn subtree(&self, c: usize, out: &mut Vec<usize>) {
        out.push(c);
        for &ch in &self.conts[c].children {
            self.subtree(ch, out);
        }
    }

    fn destroy(&mut self, c: usize) {
        self.finish_links();
        let mut sub = Vec::new();
        self.subtree(c, &mut sub);
        let t = if self.o.global_clock {
            self.tick(c)
        } else {
            let latest = sub.iter().map(|&x| self.conts[x].clock).max().unwrap_or(0);
            self.conts[c].clock = latest;
            self.tick(c)
        };
        for &x in &sub {
            self.conts[x].alive = false;
        }
        let ts = self.time_str(t);
        let vals = vec![
            (F::Time, ts),
            (F::Name, self.c_ident(c)),
            (F::Type, self.ct_ident(self.conts[c].ct)),
        ];
        self.event(K::Destroy, &vals);
    }

    // ----- entities ---------------------------------------------------

    /// One random action; returns the number of entity events written.
    fn step(&mut self) -> usize {
        let alive: Vec<usize> = (0..self.conts.len())
            .filter(|&c| self.conts[c].alive)
            .collect();
        let roll = self.r.below(100);
        if roll < 2 && self.o.dynamic_containers {
            let p = *self.r.pick(&alive);
            let ct = self.conts[p].ct;
            if let Some(&child_ct) = self.cts[ct].children.first() {
                let child_ct = if self.r.chance(0.5) {
                    *self.r.pick(&self.cts[ct].children.clone())
                } else {
                    child_ct
                };
                self.create(p, child_ct);
            }
            return 0;
        }
        if roll < 3 && self.o.destroy_containers && alive.len() > 2 {
            let c = alive[1 + self.r.below(alive.len() - 1)];
            self.destroy(c);
            return 0;
        }
        if roll < 25 && !self.pending.is_empty() {
            let i = self.r.below(self.pending.len());
            self.complete_link(i);
            return 1;
        }
        if roll < 45 && self.o.links && self.start_link(&alive) {
            return 1;
        }
        let c = *self.r.pick(&alive);
        let ct = self.conts[c].ct;
        let ets: Vec<usize> = self.cts[ct]
            .etypes
            .iter()
            .copied()
            .filter(|&e| self.ets[e].kind != Ek::Link)
            .collect();
        if ets.is_empty() {
            // Nothing to do here: let time pass.
            self.tick(c);
            return 1;
        }
        let et = *self.r.pick(&ets);
        match self.ets[et].kind {
            Ek::State => self.state_op(c, et),
            Ek::Event => {
                let v = self.r.below(self.ets[et].values.len());
                let value = self.value_token(et, v);
                self.simple(K::NewEv, c, et, Some(value));
            }
            Ek::Var => self.var_op(c, et),
            Ek::Link => unreachable!(),
        }
        1
    }

    fn value_token(&mut self, et: usize, v: usize) -> String {
        self.ensure_value(et, v);
        self.v_ident(et, v)
    }

    fn simple(&mut self, kind: K, c: usize, et: usize, value: Option<String>) {
        self.ensure_et(et);
        let t = self.tick(c);
        let ts = self.time_str(t);
        let mut vals = vec![
            (F::Time, ts),
            (F::Type, self.et_ident(et)),
            (F::Container, self.c_ident(c)),
        ];
        if let Some(v) = value {
            vals.push((F::Value, v));
        }
        self.event(kind, &vals);
    }

    fn state_op(&mut self, c: usize, et: usize) {
        let depth = *self.conts[c].state_depth.get(&et).unwrap_or(&0);
        let max = self.o.max_state_depth.max(1);
        let mut ops = vec![K::Set];
        if depth < max {
            ops.extend([K::Push, K::Push]);
        }
        if depth > 0 {
            ops.extend([K::Pop, K::Pop, K::Pop]);
            if self.o.reset_state {
                ops.push(K::Reset);
            }
        }
        let op = *self.r.pick(&ops);
        let new_depth = match op {
            K::Set => 1,
            K::Push => depth + 1,
            K::Pop => depth - 1,
            _ => 0,
        };
        self.conts[c].state_depth.insert(et, new_depth);
        let value = if matches!(op, K::Set | K::Push) {
            let v = self.r.below(self.ets[et].values.len());
            Some(self.value_token(et, v))
        } else {
            None
        };
        self.simple(op, c, et, value);
    }

    fn var_op(&mut self, c: usize, et: usize) {
        let op = if self.conts[c].var_set.contains(&et) {
            *self.r.pick(&[K::SetV, K::AddV, K::AddV, K::SubV])
        } else {
            K::SetV
        };
        self.conts[c].var_set.insert(et);
        let v = match self.r.below(8) {
            0 => "0.1".to_string(),
            1 => format!("{}", self.r.below(100)),
            2 => format!("{}.25", self.r.below(1000)),
            3 => format!("-{}.5", self.r.below(10)),
            4 => "1e3".to_string(),
            5 => format!("{}.{:03}", self.r.below(100_000), self.r.below(1000)),
            6 => "3.14159265".to_string(),
            _ => format!("{}", self.r.below(5)),
        };
        self.simple(op, c, et, Some(v));
    }

    fn start_link(&mut self, alive: &[usize]) -> bool {
        let links: Vec<usize> = (0..self.ets.len())
            .filter(|&e| self.ets[e].kind == Ek::Link)
            .collect();
        if links.is_empty() {
            return false;
        }
        let et = *self.r.pick(&links);
        let l = self.ets[et].clone();
        let of = |ct: usize| -> Vec<usize> {
            alive
                .iter()
                .copied()
                .filter(|&c| self.conts[c].ct == ct)
                .collect()
        };
        let (cs, ss, es) = (of(l.ct), of(l.start_ct), of(l.end_ct));
        if cs.is_empty() || ss.is_empty() || es.is_empty() {
            return false;
        }
        let c = *self.r.pick(&cs);
        let s = *self.r.pick(&ss);
        let e = *self.r.pick(&es);
        let value = self.r.below(l.values.len());
        let k = self.conts[c].next_key;
        self.conts[c].next_key += 1 + self.r.below(3) as u64;
        let key = if self.r.chance(0.5) {
            k.to_string()
        } else {
            format!("k{k}")
        };
        let start_first = !self.o.reversed_links || self.r.chance(0.7);
        let p = Pending {
            cont: c,
            et,
            key,
            value,
            start_first,
            other: if start_first { e } else { s },
        };
        self.link_event(&p, start_first, if start_first { s } else { e });
        self.pending.push(p);
        true
    }

    fn link_event(&mut self, p: &Pending, start: bool, other: usize) {
        self.ensure_et(p.et);
        let value = self.value_token(p.et, p.value);
        let t = self.tick(p.cont);
        let ts = self.time_str(t);
        let vals = vec![
            (F::Time, ts),
            (F::Type, self.et_ident(p.et)),
            (F::Container, self.c_ident(p.cont)),
            (F::Value, value),
            (
                if start {
                    F::StartContainer
                } else {
                    F::EndContainer
                },
                self.c_ident(other),
            ),
            (F::Key, p.key.clone()),
        ];
        self.event(if start { K::StartL } else { K::EndL }, &vals);
    }

    fn complete_link(&mut self, i: usize) {
        let p = self.pending.swap_remove(i);
        self.link_event(&p, !p.start_first, p.other);
    }

    fn finish_links(&mut self) {
        while !self.pending.is_empty() {
            let i = self.r.below(self.pending.len());
            self.complete_link(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
