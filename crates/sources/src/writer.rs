//! Writes a stream of [`Record`]s as a Pajé trace.
//!
//! The writer keeps what it has declared and declares the rest on first
//! use, right before the record that needs it:
//!
//! - a container type per `(type, parent type)` of the paths it meets
//!   (the top of every path sits in PajeNG's root container `0`);
//! - a container per path, created at the time of the first record that
//!   names it (or at its own [`What::Create`]); its alias is its name,
//!   or `name~2`, `name~3`... when another path took that name first;
//! - a state, event or variable type per `(name, container type)`, a link
//!   type per `(name, container type)` with the start and end container
//!   types of its first link;
//! - the values of states, events and links (with a colour derived from
//!   the name, stable from run to run, unless a [`Decl::Value`] gave one).
//!
//! Field order and extra fields follow a [`Dialect`]: PajeNG's reference
//! header ([`Dialect::standard`]) or any header given as text
//! ([`Dialect::from_header`]). A record with extra fields is written with
//! the definition of its kind whose extra fields have exactly those names.
//!
//! Times are printed as seconds from [`WriterOptions::origin`] with
//! [`WriterOptions::decimals`] decimals, exactly (integer arithmetic).
//! Words holding blanks or `#` are quoted; a `"` inside a word becomes `'`.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use trama_events::{EventDef, EventKind, Field, FieldType};

use crate::record::{Decl, DisplayPath, EntityKind, Nanos, Path, Record, Step, VarOp, What};

/// The event definitions a trace is written with.
#[derive(Clone, Debug)]
pub struct Dialect {
    header: String,
    defs: Vec<EventDef>,
}

/// PajeNG's reference header (the one of its test traces), with the push
/// state and start link variants that carry `Mark` and `Size`.
const STANDARD_HEADER: &str = "\
%EventDef PajeDefineContainerType 0
%       Alias string
%       Type string
%       Name string
%EndEventDef
%EventDef PajeDefineVariableType 1
%       Alias string
%       Type string
%       Name string
%       Color color
%EndEventDef
%EventDef PajeDefineStateType 2
%       Alias string
%       Type string
%       Name string
%EndEventDef
%EventDef PajeDefineEventType 3
%       Alias string
%       Type string
%       Name string
%EndEventDef
%EventDef PajeDefineLinkType 4
%       Alias string
%       Type string
%       StartContainerType string
%       EndContainerType string
%       Name string
%EndEventDef
%EventDef PajeDefineEntityValue 5
%       Alias string
%       Type string
%       Name string
%       Color color
%EndEventDef
%EventDef PajeCreateContainer 6
%       Time date
%       Alias string
%       Type string
%       Container string
%       Name string
%EndEventDef
%EventDef PajeDestroyContainer 7
%       Time date
%       Type string
%       Name string
%EndEventDef
%EventDef PajeSetVariable 8
%       Time date
%       Container string
%       Type string
%       Value double
%EndEventDef
%EventDef PajeAddVariable 9
%       Time date
%       Container string
%       Type string
%       Value double
%EndEventDef
%EventDef PajeSubVariable 10
%       Time date
%       Container string
%       Type string
%       Value double
%EndEventDef
%EventDef PajeSetState 11
%       Time date
%       Container string
%       Type string
%       Value string
%EndEventDef
%EventDef PajePushState 12
%       Time date
%       Container string
%       Type string
%       Value string
%EndEventDef
%EventDef PajePushState 13
%       Time date
%       Container string
%       Type string
%       Value string
%       Mark string
%EndEventDef
%EventDef PajePopState 14
%       Time date
%       Container string
%       Type string
%EndEventDef
%EventDef PajeResetState 15
%       Time date
%       Type string
%       Container string
%EndEventDef
%EventDef PajeStartLink 16
%       Time date
%       Container string
%       Type string
%       StartContainer string
%       Value string
%       Key string
%EndEventDef
%EventDef PajeStartLink 17
%       Time date
%       Container string
%       Type string
%       StartContainer string
%       Value string
%       Key string
%       Size double
%EndEventDef
%EventDef PajeStartLink 18
%       Time date
%       Container string
%       Type string
%       StartContainer string
%       Value string
%       Key string
%       Size double
%       Mark string
%EndEventDef
%EventDef PajeEndLink 19
%       Time date
%       Container string
%       Type string
%       EndContainer string
%       Value string
%       Key string
%EndEventDef
%EventDef PajeNewEvent 20
%       Time date
%       Container string
%       Type string
%       Value string
%EndEventDef
";

/// An error of the header given to [`Dialect::from_header`].
#[derive(Debug, thiserror::Error)]
#[error("header line {line}: {message}")]
pub struct DialectError {
    /// The line of the header text (1-based).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl Dialect {
    /// PajeNG's reference header.
    pub fn standard() -> Dialect {
        Dialect::from_header(STANDARD_HEADER).expect("the standard header is valid")
    }

    /// Reads the `%EventDef` blocks of `header` (other lines are not
    /// allowed but blank lines and `#` comments). The header is written
    /// as given.
    pub fn from_header(header: &str) -> Result<Dialect, DialectError> {
        let mut defs: Vec<EventDef> = Vec::new();
        let mut open: Option<EventDef> = None;
        for (i, raw) in header.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| DialectError { line, message };
            let text = raw.trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            let Some(rest) = text.strip_prefix('%') else {
                return Err(err(format!("not a header line: '{text}'")));
            };
            let words: Vec<&str> = rest.split_whitespace().collect();
            match words.first().copied() {
                Some("EventDef") => {
                    if open.is_some() {
                        return Err(err("%EventDef inside a definition".into()));
                    }
                    let (Some(kind), Some(id)) = (words.get(1), words.get(2)) else {
                        return Err(err("%EventDef needs an event name and an id".into()));
                    };
                    let kind = EventKind::from_name(kind.as_bytes())
                        .ok_or_else(|| err(format!("unknown event '{kind}'")))?;
                    if defs.iter().any(|d| d.id() == id.as_bytes()) {
                        return Err(err(format!("event id '{id}' defined twice")));
                    }
                    open = Some(EventDef::new(kind, id.as_bytes(), line as u64));
                }
                Some("EndEventDef") => {
                    let def = open
                        .take()
                        .ok_or_else(|| err("%EndEventDef without %EventDef".into()))?;
                    let missing = def.missing_fields();
                    if !missing.is_empty() {
                        return Err(err(format!(
                            "{} {} lacks the field {}",
                            def.kind().name(),
                            String::from_utf8_lossy(def.id()),
                            missing[0].name()
                        )));
                    }
                    defs.push(def);
                }
                Some(name) => {
                    let def = open
                        .as_mut()
                        .ok_or_else(|| err(format!("field '{name}' outside a definition")))?;
                    let ty = words
                        .get(1)
                        .ok_or_else(|| err(format!("field '{name}' has no type")))?;
                    let ty = FieldType::from_name(ty.as_bytes())
                        .ok_or_else(|| err(format!("unknown field type '{ty}'")))?;
                    match Field::from_name(name.as_bytes(), true) {
                        Some(f) if f != Field::Extra && f != Field::Event => {
                            def.add_field(f, ty)
                                .map_err(|_| err(format!("field '{name}' twice")))?
                        }
                        _ => def.add_extra(name, ty),
                    }
                }
                None => return Err(err("empty '%' line".into())),
            }
        }
        if open.is_some() {
            return Err(DialectError {
                line: header.lines().count(),
                message: "header ends inside a definition".into(),
            });
        }
        let mut header = header.to_string();
        if !header.ends_with('\n') {
            header.push('\n');
        }
        Ok(Dialect { header, defs })
    }

    /// The definitions, in header order.
    pub fn defs(&self) -> &[EventDef] {
        &self.defs
    }

    /// The header text.
    pub fn header(&self) -> &str {
        &self.header
    }

    /// Adds a definition of `kind` carrying the standard fields of the
    /// reference header plus `extras` (`(name, field type)`), unless one
    /// with exactly those extras exists.
    pub fn with_extras(mut self, kind: EventKind, extras: &[(&str, FieldType)]) -> Dialect {
        let names: Vec<&str> = extras.iter().map(|e| e.0).collect();
        if self.find(kind, &names).is_some() {
            return self;
        }
        let base = Dialect::standard()
            .defs
            .into_iter()
            .find(|d| d.kind() == kind && d.extra_names().is_empty())
            .expect("every kind written has a plain definition");
        let mut id = self.defs.len();
        while self
            .defs
            .iter()
            .any(|d| d.id() == id.to_string().as_bytes())
        {
            id += 1;
        }
        let mut def = EventDef::new(kind, id.to_string().as_bytes(), 0);
        for (f, t) in &base.fields()[1..] {
            def.add_field(*f, *t).expect("distinct fields");
        }
        for (name, t) in extras {
            def.add_extra(name, *t);
        }
        self.header.push_str(&def.to_header());
        self.defs.push(def);
        self
    }

    fn find(&self, kind: EventKind, extras: &[&str]) -> Option<usize> {
        self.defs.iter().position(|d| {
            d.kind() == kind
                && d.extra_names().len() == extras.len()
                && extras
                    .iter()
                    .all(|e| d.extra_names().iter().any(|n| &**n == *e))
        })
    }
}

/// Options of a [`PajeWriter`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct WriterOptions {
    /// The time printed as 0.
    pub origin: Nanos,
    /// Decimals of printed times (at most 9).
    pub decimals: u32,
    /// A comment written at the top of the trace (each line prefixed by `# `).
    pub comment: Option<String>,
    /// Declare each value of a state, event or link type
    /// (`PajeDefineEntityValue`, with its colour) before its first use;
    /// without, values are named by their first use (default true).
    pub declare_values: bool,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            origin: 0,
            decimals: 9,
            comment: None,
            declare_values: true,
        }
    }
}

/// An error while writing.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The output failed.
    #[error("writing the trace: {0}")]
    Io(#[from] io::Error),
    /// A record cannot be written (named by the reason).
    #[error("{0}")]
    Record(String),
}

#[derive(Clone, Debug)]
struct ContainerInfo {
    alias: Arc<str>,
    type_alias: Arc<str>,
    alive: bool,
}

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Writes records as Pajé text (see the module documentation).
pub struct PajeWriter<W: Write> {
    out: W,
    dialect: Dialect,
    opts: WriterOptions,
    line: Vec<u8>,
    /// `(name, parent type alias)` → container type alias.
    container_types: HashMap<(String, String), Arc<str>>,
    /// `(kind, container type alias)` → name → entity type alias.
    entity_types: Map<(EntityKind, Arc<str>), Map<String, Arc<str>>>,
    /// Container type alias → name → link type alias.
    link_types: Map<Arc<str>, Map<String, Arc<str>>>,
    /// Every type alias taken (types of all kinds share one namespace).
    type_aliases: HashSet<String>,
    containers: Map<Path, ContainerInfo>,
    /// The same, by the address of the path's shared steps: records of a
    /// source share one `Path` per container, so most lookups end here
    /// without hashing names.
    by_address: Map<usize, (Path, ContainerInfo)>,
    container_aliases: HashSet<String>,
    /// Type alias → values declared.
    values: Map<Arc<str>, HashSet<String>>,
    colors: HashMap<(String, String), String>,
    /// The definition without extra fields of each kind.
    plain: [Option<usize>; 19],
    root: Arc<str>,
    number: String,
    records: u64,
}

const ROOT: &str = "0";

impl<W: Write> PajeWriter<W> {
    /// Starts a trace: writes the comment and the dialect's header.
    pub fn new(mut out: W, dialect: Dialect, opts: WriterOptions) -> Result<Self, WriteError> {
        if opts.decimals > 9 {
            return Err(WriteError::Record(format!(
                "{} decimals asked; times are kept to the nanosecond (9)",
                opts.decimals
            )));
        }
        if let Some(c) = &opts.comment {
            for l in c.lines() {
                writeln!(out, "# {l}")?;
            }
        }
        out.write_all(dialect.header.as_bytes())?;
        let mut type_aliases = HashSet::new();
        type_aliases.insert(ROOT.to_string());
        let mut container_aliases = HashSet::new();
        container_aliases.insert(ROOT.to_string());
        let mut plain = [None; 19];
        for (k, slot) in EventKind::ALL.iter().zip(plain.iter_mut()) {
            *slot = dialect.find(*k, &[]);
        }
        Ok(PajeWriter {
            out,
            dialect,
            opts,
            line: Vec::with_capacity(256),
            container_types: HashMap::new(),
            entity_types: Map::default(),
            link_types: Map::default(),
            type_aliases,
            containers: Map::default(),
            by_address: Map::default(),
            container_aliases,
            values: Map::default(),
            colors: HashMap::new(),
            plain,
            root: Arc::from(ROOT),
            number: String::new(),
            records: 0,
        })
    }

    /// Moves the time printed as 0 (for records written from now on).
    pub fn set_origin(&mut self, origin: Nanos) {
        self.opts.origin = origin;
    }

    /// Number of records written.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Writes one record (and whatever it needs declared first).
    pub fn write(&mut self, rec: &Record) -> Result<(), WriteError> {
        self.records += 1;
        let t = rec.time;
        match &rec.what {
            What::Declare(d) => self.declare(d)?,
            What::Create { container } => {
                if let Some(c) = self.containers.get(container) {
                    return Err(WriteError::Record(format!(
                        "container {} created twice{}",
                        DisplayPath(container),
                        if c.alive {
                            ""
                        } else {
                            " (after its destruction)"
                        }
                    )));
                }
                self.container(t, container)?;
            }
            What::Destroy { container } => {
                let c = self.container(t, container)?;
                let name = c.alias.clone();
                let ty = c.type_alias.clone();
                self.containers.get_mut(container).expect("just made").alive = false;
                // Other paths with these steps may be cached as alive.
                self.by_address.clear();
                self.emit(
                    EventKind::DestroyContainer,
                    &[],
                    &Fields {
                        time: Some(t),
                        ty: Some(&ty),
                        name: Some(&name),
                        ..Fields::default()
                    },
                )?;
            }
            What::SetState {
                container,
                ty,
                value,
                extra,
            }
            | What::PushState {
                container,
                ty,
                value,
                extra,
            }
            | What::Event {
                container,
                ty,
                value,
                extra,
            } => {
                let kind = rec.what.kind();
                let ek = if kind == EventKind::NewEvent {
                    EntityKind::Event
                } else {
                    EntityKind::State
                };
                let c = self.live(t, container)?;
                let ta = self.entity_type(ek, ty, &c.type_alias, None)?;
                self.value(&ta, value, None)?;
                self.emit(
                    kind,
                    extra,
                    &Fields {
                        time: Some(t),
                        container: Some(&c.alias),
                        ty: Some(&ta),
                        value: Some(value),
                        ..Fields::default()
                    },
                )?;
            }
            What::PopState {
                container,
                ty,
                extra,
            } => {
                let c = self.live(t, container)?;
                let ta = self.entity_type(EntityKind::State, ty, &c.type_alias, None)?;
                self.emit(
                    EventKind::PopState,
                    extra,
                    &Fields {
                        time: Some(t),
                        container: Some(&c.alias),
                        ty: Some(&ta),
                        ..Fields::default()
                    },
                )?;
            }
            What::Variable {
                container,
                ty,
                op,
                value,
            } => {
                if !value.is_finite() {
                    return Err(WriteError::Record(format!(
                        "variable {ty} of {} set to {value}, which Pajé cannot hold",
                        DisplayPath(container)
                    )));
                }
                let c = self.live(t, container)?;
                let ta = self.entity_type(EntityKind::Variable, ty, &c.type_alias, None)?;
                let kind = match op {
                    VarOp::Set => EventKind::SetVariable,
                    VarOp::Add => EventKind::AddVariable,
                    VarOp::Sub => EventKind::SubVariable,
                };
                let mut v = std::mem::take(&mut self.number);
                v.clear();
                use std::fmt::Write as _;
                let _ = write!(v, "{value}");
                let r = self.emit(
                    kind,
                    &[],
                    &Fields {
                        time: Some(t),
                        container: Some(&c.alias),
                        ty: Some(&ta),
                        value: Some(&v),
                        ..Fields::default()
                    },
                );
                self.number = v;
                r?;
            }
            What::StartLink {
                container,
                ty,
                from,
                value,
                key,
                extra,
            }
            | What::EndLink {
                container,
                ty,
                to: from,
                value,
                key,
                extra,
            } => {
                let start = matches!(rec.what, What::StartLink { .. });
                let (holder_alias, holder_type) = match container {
                    Some(p) => {
                        let c = self.live(t, p)?;
                        (c.alias, c.type_alias)
                    }
                    None => (self.root.clone(), self.root.clone()),
                };
                let end = self.live(t, from)?;
                let ta = self.link_type(ty, &holder_type, &end.type_alias)?;
                self.value(&ta, value, None)?;
                let mut f = Fields {
                    time: Some(t),
                    container: Some(&holder_alias),
                    ty: Some(&ta),
                    value: Some(value),
                    key: Some(key),
                    ..Fields::default()
                };
                if start {
                    f.start_container = Some(&end.alias);
                } else {
                    f.end_container = Some(&end.alias);
                }
                let kind = if start {
                    EventKind::StartLink
                } else {
                    EventKind::EndLink
                };
                self.emit(kind, extra, &f)?;
            }
        }
        Ok(())
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.out.flush()?;
        Ok(self.out)
    }

    fn declare(&mut self, d: &Decl) -> Result<(), WriteError> {
        match d {
            Decl::ContainerType { name, parent } => {
                let parent_alias = match parent {
                    None => self.root.clone(),
                    Some(p) => self.container_type_by_name(p)?,
                };
                self.container_type(name, &parent_alias)?;
            }
            Decl::EntityType {
                kind,
                name,
                container,
                color,
            } => {
                let ct = self.container_type_by_name(container)?;
                self.entity_type(*kind, name, &ct, color.as_deref())?;
            }
            Decl::LinkType {
                name,
                container,
                start,
                end,
            } => {
                let ct = match container {
                    None => self.root.clone(),
                    Some(c) => self.container_type_by_name(c)?,
                };
                let st = self.container_type_by_name(start)?;
                let et = self.container_type_by_name(end)?;
                self.declare_link_type(name, &ct, &st, &et)?;
            }
            Decl::Value { ty, name, color } => {
                let ta = self.entity_type_by_name(ty)?;
                self.value(&ta, name, color.as_deref())?;
            }
        }
        Ok(())
    }

    fn container_type_by_name(&self, name: &str) -> Result<Arc<str>, WriteError> {
        let mut found = self
            .container_types
            .iter()
            .filter(|((n, _), _)| n == name)
            .map(|(_, a)| a.clone());
        match (found.next(), found.next()) {
            (Some(a), None) => Ok(a),
            (None, _) => Err(WriteError::Record(format!(
                "container type '{name}' used in a declaration before it is declared"
            ))),
            (Some(_), Some(_)) => Err(WriteError::Record(format!(
                "container type '{name}' is ambiguous: it appears under several parents"
            ))),
        }
    }

    fn entity_type_by_name(&self, name: &str) -> Result<Arc<str>, WriteError> {
        let mut found = self
            .entity_types
            .values()
            .chain(self.link_types.values())
            .filter_map(|m| m.get(name).cloned());
        match (found.next(), found.next()) {
            (Some(a), None) => Ok(a),
            (None, _) => Err(WriteError::Record(format!(
                "a value is declared for type '{name}' before the type"
            ))),
            (Some(_), Some(_)) => Err(WriteError::Record(format!(
                "type '{name}' is ambiguous: several container types hold it"
            ))),
        }
    }

    fn fresh_type_alias(&mut self, name: &str) -> Arc<str> {
        let mut alias = name.to_string();
        let mut n = 2;
        while self.type_aliases.contains(&alias) {
            alias = format!("{name}~{n}");
            n += 1;
        }
        self.type_aliases.insert(alias.clone());
        Arc::from(alias)
    }

    fn container_type(&mut self, name: &str, parent_alias: &str) -> Result<Arc<str>, WriteError> {
        let key = (name.to_string(), parent_alias.to_string());
        if let Some(a) = self.container_types.get(&key) {
            return Ok(a.clone());
        }
        let alias = self.fresh_type_alias(name);
        self.container_types.insert(key, alias.clone());
        self.emit(
            EventKind::DefineContainerType,
            &[],
            &Fields {
                alias: Some(&alias),
                ty: Some(parent_alias),
                name: Some(name),
                ..Fields::default()
            },
        )?;
        Ok(alias)
    }

    fn entity_type(
        &mut self,
        kind: EntityKind,
        name: &str,
        container_type: &Arc<str>,
        color: Option<&str>,
    ) -> Result<Arc<str>, WriteError> {
        let key = (kind, container_type.clone());
        if let Some(a) = self.entity_types.get(&key).and_then(|m| m.get(name)) {
            return Ok(a.clone());
        }
        let alias = self.fresh_type_alias(name);
        self.entity_types
            .entry(key)
            .or_default()
            .insert(name.to_string(), alias.clone());
        let event = match kind {
            EntityKind::State => EventKind::DefineStateType,
            EntityKind::Event => EventKind::DefineEventType,
            EntityKind::Variable => EventKind::DefineVariableType,
        };
        let color = color.map(str::to_string).unwrap_or_else(|| color_of(name));
        self.emit(
            event,
            &[],
            &Fields {
                alias: Some(&alias),
                ty: Some(&**container_type),
                name: Some(name),
                color: Some(&color),
                ..Fields::default()
            },
        )?;
        Ok(alias)
    }

    fn link_type(
        &mut self,
        name: &str,
        container_type: &Arc<str>,
        end_type: &str,
    ) -> Result<Arc<str>, WriteError> {
        if let Some(a) = self
            .link_types
            .get(container_type)
            .and_then(|m| m.get(name))
        {
            return Ok(a.clone());
        }
        self.declare_link_type(name, container_type, end_type, end_type)
    }

    fn declare_link_type(
        &mut self,
        name: &str,
        container_type: &Arc<str>,
        start: &str,
        end: &str,
    ) -> Result<Arc<str>, WriteError> {
        if let Some(a) = self
            .link_types
            .get(container_type)
            .and_then(|m| m.get(name))
        {
            return Ok(a.clone());
        }
        let alias = self.fresh_type_alias(name);
        self.link_types
            .entry(container_type.clone())
            .or_default()
            .insert(name.to_string(), alias.clone());
        self.emit(
            EventKind::DefineLinkType,
            &[],
            &Fields {
                alias: Some(&alias),
                ty: Some(&**container_type),
                name: Some(name),
                start_type: Some(start),
                end_type: Some(end),
                ..Fields::default()
            },
        )?;
        Ok(alias)
    }

    fn value(&mut self, ty: &Arc<str>, name: &str, color: Option<&str>) -> Result<(), WriteError> {
        if let Some(c) = color {
            self.colors
                .insert((ty.to_string(), name.to_string()), c.to_string());
        }
        if self.values.get(ty).is_some_and(|v| v.contains(name)) {
            return Ok(());
        }
        let key = (ty.to_string(), name.to_string());
        // Values are declared only when asked and when the dialect can
        // carry them; otherwise the first use of a value names it.
        let Some(i) = self
            .dialect
            .find(EventKind::DefineEntityValue, &[])
            .filter(|_| self.opts.declare_values)
        else {
            return Ok(());
        };
        let color = self
            .colors
            .get(&key)
            .cloned()
            .unwrap_or_else(|| color_of(name));
        let _ = i;
        self.values
            .entry(ty.clone())
            .or_default()
            .insert(name.to_string());
        self.emit(
            EventKind::DefineEntityValue,
            &[],
            &Fields {
                alias: Some(name),
                ty: Some(&**ty),
                name: Some(name),
                color: Some(&color),
                ..Fields::default()
            },
        )
    }

    /// The container of `path`, created (with its ancestors) if needed.
    fn container(&mut self, t: Nanos, path: &Path) -> Result<ContainerInfo, WriteError> {
        if let Some((p, c)) = self.by_address.get(&address(path)) {
            if Arc::ptr_eq(p, path) {
                return Ok(c.clone());
            }
        }
        if let Some(c) = self.containers.get(path) {
            let c = c.clone();
            self.remember(path, &c);
            return Ok(c);
        }
        if path.is_empty() {
            return Err(WriteError::Record("a record names an empty path".into()));
        }
        let (parent_alias, parent_type) = if path.len() == 1 {
            (self.root.clone(), self.root.clone())
        } else {
            let parent: Path = path[..path.len() - 1].into();
            let p = self.container(t, &parent)?;
            if !p.alive {
                return Err(WriteError::Record(format!(
                    "container {} is used after its parent was destroyed",
                    DisplayPath(path)
                )));
            }
            (p.alias, p.type_alias)
        };
        let step = &path[path.len() - 1];
        let type_alias = self.container_type(&step.ty, &parent_type)?;
        let mut alias = step.name.clone();
        let mut n = 2;
        while self.container_aliases.contains(&alias) {
            alias = format!("{}~{n}", step.name);
            n += 1;
        }
        self.container_aliases.insert(alias.clone());
        let info = ContainerInfo {
            alias: Arc::from(alias.as_str()),
            type_alias: type_alias.clone(),
            alive: true,
        };
        self.containers.insert(path.clone(), info.clone());
        self.remember(path, &info);
        // Without an Alias field the name must identify the container.
        let def_has_alias = self
            .dialect
            .find(EventKind::CreateContainer, &[])
            .is_some_and(|i| self.dialect.defs[i].slot(Field::Alias).is_some());
        let name = if def_has_alias { &step.name } else { &alias };
        self.emit(
            EventKind::CreateContainer,
            &[],
            &Fields {
                time: Some(t),
                alias: Some(&alias),
                ty: Some(&type_alias),
                container: Some(&parent_alias),
                name: Some(name),
                ..Fields::default()
            },
        )?;
        Ok(info)
    }

    /// Caches a container by its path's address. Keeping the path keeps
    /// the address from being reused; sources that build a new path per
    /// record would fill the cache, so it is emptied when large.
    fn remember(&mut self, path: &Path, c: &ContainerInfo) {
        if self.by_address.len() >= 1 << 16 {
            self.by_address.clear();
        }
        self.by_address
            .insert(address(path), (path.clone(), c.clone()));
    }

    /// A container records may be written on: alive.
    fn live(&mut self, t: Nanos, path: &Path) -> Result<ContainerInfo, WriteError> {
        let c = self.container(t, path)?;
        if !c.alive {
            return Err(WriteError::Record(format!(
                "a record at {} names container {} after its destruction",
                TimeText(t - self.opts.origin, self.opts.decimals),
                DisplayPath(path)
            )));
        }
        Ok(c)
    }

    fn emit(
        &mut self,
        kind: EventKind,
        extra: &[(String, String)],
        f: &Fields<'_>,
    ) -> Result<(), WriteError> {
        let i = if extra.is_empty() {
            self.plain[kind as usize]
        } else {
            let names: Vec<&str> = extra.iter().map(|(n, _)| n.as_str()).collect();
            self.dialect.find(kind, &names)
        };
        let i = i.ok_or_else(|| {
            let names: Vec<&str> = extra.iter().map(|(n, _)| n.as_str()).collect();
            WriteError::Record(format!(
                "the trace's header has no {} with exactly the extra fields [{}]",
                kind.name(),
                names.join(", ")
            ))
        })?;
        let def = &self.dialect.defs[i];
        self.line.clear();
        self.line.extend_from_slice(def.id());
        let mut extra_i = 0;
        for (field, _) in &def.fields()[1..] {
            self.line.push(b' ');
            let text: Option<&str> = match field {
                Field::Time => {
                    use std::io::Write as _;
                    let t = f.time.unwrap_or(self.opts.origin) - self.opts.origin;
                    let _ = write!(self.line, "{}", TimeText(t, self.opts.decimals));
                    continue;
                }
                Field::Alias => f.alias,
                Field::Name => f.name,
                Field::Type => f.ty,
                Field::Container => f.container,
                Field::StartContainerType => f.start_type,
                Field::EndContainerType => f.end_type,
                Field::StartContainer => f.start_container,
                Field::EndContainer => f.end_container,
                Field::Value => f.value,
                Field::Key => f.key,
                Field::Color => f.color,
                Field::Extra => {
                    let name = &def.extra_names()[extra_i];
                    extra_i += 1;
                    extra
                        .iter()
                        .find(|(n, _)| n == &**name)
                        .map(|(_, v)| v.as_str())
                }
                Field::Line | Field::File | Field::Filename | Field::Event => None,
            };
            let Some(text) = text else {
                return Err(WriteError::Record(format!(
                    "{} {} has a field {} this writer cannot fill",
                    kind.name(),
                    String::from_utf8_lossy(def.id()),
                    field.name()
                )));
            };
            push_word(&mut self.line, text);
        }
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        Ok(())
    }
}

/// The address of a path's shared steps.
fn address(p: &Path) -> usize {
    Arc::as_ptr(p) as *const Step as usize
}

#[derive(Default)]
struct Fields<'a> {
    time: Option<Nanos>,
    alias: Option<&'a str>,
    name: Option<&'a str>,
    ty: Option<&'a str>,
    container: Option<&'a str>,
    start_type: Option<&'a str>,
    end_type: Option<&'a str>,
    start_container: Option<&'a str>,
    end_container: Option<&'a str>,
    value: Option<&'a str>,
    key: Option<&'a str>,
    color: Option<&'a str>,
}

/// Appends a word, quoted when it holds blanks or is empty.
fn push_word(out: &mut Vec<u8>, w: &str) {
    let needs_quotes = w.is_empty()
        || w.bytes()
            .any(|b| b.is_ascii_whitespace() || b == b'"' || b == b'#');
    if !needs_quotes {
        out.extend_from_slice(w.as_bytes());
        return;
    }
    out.push(b'"');
    for b in w.bytes() {
        out.push(match b {
            b'"' => b'\'',
            b'\n' | b'\r' | b'\t' => b' ',
            b => b,
        });
    }
    out.push(b'"');
}

/// A time in nanoseconds printed as seconds with `decimals` decimals,
/// rounded half away from zero.
pub struct TimeText(pub Nanos, pub u32);

impl fmt::Display for TimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let TimeText(t, decimals) = *self;
        let neg = t < 0;
        let mut abs = (t as i128).unsigned_abs();
        let drop = 10u128.pow(9 - decimals.min(9));
        abs = (abs + drop / 2) / drop;
        let scale = 10u128.pow(decimals.min(9));
        let (secs, frac) = (abs / scale, abs % scale);
        if neg && abs != 0 {
            f.write_str("-")?;
        }
        if decimals == 0 {
            write!(f, "{secs}")
        } else {
            write!(f, "{secs}.{frac:0width$}", width = decimals as usize)
        }
    }
}

/// A colour for a name, stable across runs: a hue from the name's hash,
/// as `"r g b"` in 0..1.
fn color_of(name: &str) -> String {
    // FNV-1a: stable, unlike the standard hasher.
    let mut h: u32 = 0x811c9dc5;
    for b in name.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x01000193);
    }
    let hue = (h % 360) as f64 / 60.0;
    let (s, v) = (0.65, 0.9);
    let c = v * s;
    let x = c * (1.0 - (hue % 2.0 - 1.0).abs());
    let (r, g, b) = match hue as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    format!("{:.3} {:.3} {:.3}", r + m, g + m, b + m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::path;

    fn write(records: &[Record], dialect: Dialect) -> Result<String, WriteError> {
        let mut w = PajeWriter::new(Vec::new(), dialect, WriterOptions::default())?;
        for r in records {
            w.write(r)?;
        }
        Ok(String::from_utf8(w.finish()?).unwrap())
    }

    fn body(s: &str) -> Vec<&str> {
        s.lines().filter(|l| !l.starts_with('%')).collect()
    }

    #[test]
    fn times_are_exact() {
        assert_eq!(TimeText(1_500_000_001, 9).to_string(), "1.500000001");
        assert_eq!(TimeText(-1_500_000_001, 9).to_string(), "-1.500000001");
        assert_eq!(TimeText(1_500_000_500, 6).to_string(), "1.500001");
        assert_eq!(
            TimeText(1_094_222_084_364_200_000, 6).to_string(),
            "1094222084.364200"
        );
        assert_eq!(TimeText(499_999_999, 0).to_string(), "0");
        assert_eq!(TimeText(-1, 6).to_string(), "0.000000");
    }

    #[test]
    fn declares_on_first_use() {
        let p = path(&[("host", "n1"), ("thread", "Web Content")]);
        let recs = vec![
            Record {
                time: 1_000_000_000,
                what: What::SetState {
                    container: p.clone(),
                    ty: "sched".into(),
                    value: "running".into(),
                    extra: vec![],
                },
            },
            Record {
                time: 2_000_000_000,
                what: What::Variable {
                    container: path(&[("host", "n1")]),
                    ty: "mem.util.free".into(),
                    op: VarOp::Set,
                    value: 12.5,
                },
            },
        ];
        let out = write(&recs, Dialect::standard()).unwrap();
        let c1 = color_of("running");
        let c2 = color_of("mem.util.free");
        assert_eq!(
            body(&out),
            vec![
                "0 host 0 host",
                "6 1.000000000 n1 host 0 n1",
                "0 thread host thread",
                "6 1.000000000 \"Web Content\" thread n1 \"Web Content\"",
                "2 sched thread sched",
                &format!("5 running sched running \"{c1}\""),
                "11 1.000000000 \"Web Content\" sched running",
                &format!("1 mem.util.free host mem.util.free \"{c2}\""),
                "8 2.000000000 n1 mem.util.free 12.5",
            ]
        );
    }

    #[test]
    fn same_names_get_distinct_aliases() {
        let a = path(&[("host", "a"), ("thread", "1")]);
        let b = path(&[("host", "b"), ("thread", "1")]);
        let ev = |p: &Path| Record {
            time: 0,
            what: What::Event {
                container: p.clone(),
                ty: "comm".into(),
                value: "x".into(),
                extra: vec![],
            },
        };
        let out = write(&[ev(&a), ev(&b)], Dialect::standard()).unwrap();
        assert!(out.contains("\n6 0.000000000 1 thread a 1\n"));
        assert!(out.contains("\n6 0.000000000 1~2 thread b 1\n"));
        assert!(out.contains("\n20 0.000000000 1~2 comm x\n"));
    }

    #[test]
    fn extras_choose_the_definition() {
        let p = path(&[("P", "r0")]);
        let recs = vec![
            Record {
                time: 0,
                what: What::PushState {
                    container: p.clone(),
                    ty: "S".into(),
                    value: "MPI_Send".into(),
                    extra: vec![("Mark".into(), "0".into())],
                },
            },
            Record {
                time: 5,
                what: What::StartLink {
                    container: None,
                    ty: "L".into(),
                    from: p.clone(),
                    value: "PTP".into(),
                    key: "k1".into(),
                    extra: vec![("Size".into(), "4".into()), ("Mark".into(), "0".into())],
                },
            },
        ];
        let out = write(&recs, Dialect::standard()).unwrap();
        let b = body(&out);
        assert!(b.contains(&"13 0.000000000 r0 S MPI_Send 0"), "{b:?}");
        assert!(b.contains(&"4 L 0 P P L"), "{b:?}");
        assert!(b.contains(&"18 0.000000005 0 L r0 PTP k1 4 0"), "{b:?}");
        let bad = Record {
            time: 0,
            what: What::PopState {
                container: p,
                ty: "S".into(),
                extra: vec![("Nope".into(), "1".into())],
            },
        };
        let e = write(&[bad], Dialect::standard()).unwrap_err().to_string();
        assert!(e.contains("PajePopState") && e.contains("Nope"), "{e}");
    }

    #[test]
    fn custom_header_orders_fields() {
        let header = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
                      %EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Container string\n% Type string\n% Name string\n%EndEventDef\n\
                      %EventDef PajeDestroyContainer 2\n% Time date\n% Type string\n% Name string\n%EndEventDef\n";
        let d = Dialect::from_header(header).unwrap();
        let root = path(&[("ROOT", "root")]);
        let recs = vec![
            Record {
                time: 0,
                what: What::Declare(Decl::ContainerType {
                    name: "ROOT".into(),
                    parent: None,
                }),
            },
            Record {
                time: 0,
                what: What::Create {
                    container: root.clone(),
                },
            },
            Record {
                time: 7,
                what: What::Destroy {
                    container: root.clone(),
                },
            },
        ];
        let out = write(&recs, d.clone()).unwrap();
        assert_eq!(
            body(&out),
            vec![
                "0 ROOT 0 ROOT",
                "1 0.000000000 root 0 ROOT root",
                "2 0.000000007 ROOT root"
            ]
        );
        let mut again = recs.clone();
        again.push(Record {
            time: 8,
            what: What::Create { container: root },
        });
        assert!(write(&again, d)
            .unwrap_err()
            .to_string()
            .contains("created twice"));
    }

    #[test]
    fn header_errors_name_the_line() {
        let e = Dialect::from_header("%EventDef PajeNewEvent 1\n% Time date\n%EndEventDef\n")
            .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.message.contains("Container") || e.message.contains("Type"),
            "{e}"
        );
        let e = Dialect::from_header("%EventDef PajeBogus 1\n").unwrap_err();
        assert!(e.message.contains("PajeBogus"));
    }

    #[test]
    fn standard_output_reads_back() {
        // The standard dialect's header is accepted by the reader's rules:
        // every definition has its obligatory fields.
        let d = Dialect::standard();
        assert_eq!(d.defs().len(), 21);
        assert!(d.defs().iter().all(|d| d.missing_fields().is_empty()));
    }
}
