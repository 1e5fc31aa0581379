//! The record model every source converter produces.
//!
//! A source (a libRastro trace, a CLOG-2 file, a Ganglia log, ...) is read
//! into a stream of [`Record`]s: Pajé-level facts (a state pushed, a
//! variable set, a message sent) about containers named by their **path in
//! the source's own hierarchy** ([`Path`]: a list of `(type, name)` steps
//! from the top). Times are integer nanoseconds in the source's own clock
//! ([`Nanos`]), so no precision is lost before synchronization.
//!
//! The merge (crate `trama-merge`) then corrects the clocks, rewrites the
//! paths into the unified hierarchy of a plan, and writes one Pajé trace
//! with [`PajeWriter`](crate::PajeWriter), which declares container types,
//! containers and entity types on first use unless a source declared them
//! itself with [`What::Declare`].
//!
//! A [`Source`] yields its records in non-decreasing time order.
//! Declarations are untimed: the merge writes them as soon as they reach
//! the head of their source, whatever their `time` (give them the time of
//! the record that follows, or 0 in a [`VecSource`] so they sort first).
//!
//! Here too: [`VecSource`], a source of records already in memory, and
//! [`PathMap`], the map by container path that the writer and the merge
//! keep. The readers' own shared pieces (`OpenSource`, `CountedSource`)
//! are in `trama-sources`.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use trama_events::EventKind;

/// A time: nanoseconds in the source's own clock, from the source's own
/// origin (the Unix epoch, the program start, the machine's boot...).
pub type Nanos = i64;

/// One step of a container path: the container's type and its name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Step {
    /// The container type (a level of the source's hierarchy: `host`, `rank`...).
    pub ty: String,
    /// The container's name in the source (`node01`, `rank 3`, `1234`...).
    pub name: String,
}

/// A container named by its path from the top of the source's hierarchy.
/// Cheap to clone; sources keep one `Path` per container and hand out clones.
pub type Path = Arc<[Step]>;

/// The container type of the root container (Pajé's `0`): an entity type
/// declared in it lives in the root (e.g. PajeNG's `ms.trace` marks
/// events there).
pub const ROOT_TYPE: &str = "0";

/// Builds a [`Path`] from `(type, name)` pairs, top first.
pub fn path<T: AsRef<str>, N: AsRef<str>>(steps: &[(T, N)]) -> Path {
    steps
        .iter()
        .map(|(t, n)| Step {
            ty: t.as_ref().to_string(),
            name: n.as_ref().to_string(),
        })
        .collect()
}

/// A map from container paths to values, quick for the paths sources hand
/// out again: records of a source share one [`Path`] per container, so
/// most lookups end on the address of the path's shared steps without
/// hashing names. Keeping a path there keeps its address from being
/// reused; sources that build a new path per record would fill it, so it
/// is emptied when large.
pub struct PathMap<V> {
    by_path: HashMap<Path, V, foldhash::fast::RandomState>,
    by_address: HashMap<usize, (Path, V), foldhash::fast::RandomState>,
}

impl<V> Default for PathMap<V> {
    fn default() -> Self {
        PathMap {
            by_path: HashMap::default(),
            by_address: HashMap::default(),
        }
    }
}

impl<V: Clone> PathMap<V> {
    /// The value of `path`, if any; its address is remembered for the
    /// next lookups.
    pub fn get(&mut self, path: &Path) -> Option<V> {
        if let Some((p, v)) = self.by_address.get(&address(path)) {
            if Arc::ptr_eq(p, path) {
                return Some(v.clone());
            }
        }
        let v = self.by_path.get(path)?.clone();
        self.remember(path, &v);
        Some(v)
    }

    /// The value of `path`, if any, looked up by its steps alone.
    pub fn peek(&self, path: &Path) -> Option<&V> {
        self.by_path.get(path)
    }

    /// The value of `path`, to change; the addresses remembered, which
    /// hold copies, are forgotten.
    pub fn get_mut(&mut self, path: &Path) -> Option<&mut V> {
        self.by_address.clear();
        self.by_path.get_mut(path)
    }

    /// Sets the value of `path`.
    pub fn insert(&mut self, path: &Path, value: V) {
        if self.by_path.insert(path.clone(), value.clone()).is_some() {
            self.by_address.clear();
        }
        self.remember(path, &value);
    }

    fn remember(&mut self, path: &Path, value: &V) {
        if self.by_address.len() >= 1 << 16 {
            self.by_address.clear();
        }
        self.by_address
            .insert(address(path), (path.clone(), value.clone()));
    }
}

/// The address of a path's shared steps.
fn address(p: &Path) -> usize {
    Arc::as_ptr(p) as *const Step as usize
}

/// Prints a path as `type:name/type:name`.
pub struct DisplayPath<'a>(pub &'a [Step]);

impl fmt::Display for DisplayPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            write!(f, "{}:{}", s.ty, s.name)?;
        }
        Ok(())
    }
}

/// One fact of a source, at a time of the source's clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// When, in nanoseconds of the source's clock.
    pub time: Nanos,
    /// What happened.
    pub what: What,
}

/// A name or a word of a record (a type, a value, a key, an extra
/// field's name or text): kept inline up to 24 bytes, so that most
/// records cost no allocation of their own.
pub type Name = compact_str::CompactString;

/// Extra (user-defined) field values of a record, as `(field name, text)`,
/// in any order. The writer places them where its dialect says and rejects
/// a name its dialect does not define.
pub type Extras = Vec<(Name, Name)>;

/// What a record says.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// A type or value declaration (untimed in Pajé).
    Declare(Decl),
    /// A container starts. Containers are also created on first use, so a
    /// source says this only when it knows the creation time.
    Create {
        /// The container.
        container: Path,
    },
    /// A container ends.
    Destroy {
        /// The container.
        container: Path,
    },
    /// The state of type `ty` of `container` becomes `value`.
    SetState {
        /// The container.
        container: Path,
        /// The state type's name.
        ty: Name,
        /// The value's name.
        value: Name,
        /// Extra fields.
        extra: Extras,
    },
    /// `value` is pushed on the state stack of type `ty`.
    PushState {
        /// The container.
        container: Path,
        /// The state type's name.
        ty: Name,
        /// The value's name.
        value: Name,
        /// Extra fields.
        extra: Extras,
    },
    /// The top of the state stack of type `ty` is popped.
    PopState {
        /// The container.
        container: Path,
        /// The state type's name.
        ty: Name,
        /// Extra fields.
        extra: Extras,
    },
    /// A point event.
    Event {
        /// The container.
        container: Path,
        /// The event type's name.
        ty: Name,
        /// The value's name.
        value: Name,
        /// Extra fields.
        extra: Extras,
    },
    /// The variable `ty` of `container` is set to, raised by or lowered by `value`.
    Variable {
        /// The container.
        container: Path,
        /// The variable type's name.
        ty: Name,
        /// Set, add or subtract.
        op: VarOp,
        /// The amount.
        value: f64,
    },
    /// A message leaves `from`. `key` pairs it with its [`What::EndLink`]
    /// (keys are unique within a source; the merge keeps sources apart).
    StartLink {
        /// The container that holds the link, or `None` for the top of the
        /// trace (the usual case: the common ancestor of both ends).
        container: Option<Path>,
        /// The link type's name.
        ty: Name,
        /// The sending container.
        from: Path,
        /// The value's name (a message tag, a kind of message).
        value: Name,
        /// The key pairing both ends.
        key: Name,
        /// Extra fields.
        extra: Extras,
    },
    /// A message arrives at `to`.
    EndLink {
        /// The container that holds the link, as in its start.
        container: Option<Path>,
        /// The link type's name.
        ty: Name,
        /// The receiving container.
        to: Path,
        /// The value's name.
        value: Name,
        /// The key pairing both ends.
        key: Name,
        /// Extra fields.
        extra: Extras,
    },
}

/// How a [`What::Variable`] record changes its variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarOp {
    /// `PajeSetVariable`.
    Set,
    /// `PajeAddVariable`.
    Add,
    /// `PajeSubVariable`.
    Sub,
}

/// A declaration. Types are named by their name; a container type's parent
/// is `None` for the top (PajeNG's type `0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decl {
    /// A container type below `parent`.
    ContainerType {
        /// Its name.
        name: String,
        /// The parent container type, `None` for the top.
        parent: Option<String>,
    },
    /// A state, event or variable type in containers of type `container`
    /// ([`ROOT_TYPE`] for the root container, as in Pajé).
    EntityType {
        /// Which: [`EntityKind::State`], [`EntityKind::Event`] or [`EntityKind::Variable`].
        kind: EntityKind,
        /// Its name.
        name: String,
        /// The container type its entities live in.
        container: String,
        /// A colour (`"r g b"` in 0..1) for variables, if any.
        color: Option<String>,
    },
    /// A link type in containers of type `container`, between containers of
    /// types `start` and `end`.
    LinkType {
        /// Its name.
        name: String,
        /// The container type links live in (`None`: the top).
        container: Option<String>,
        /// The start containers' type.
        start: String,
        /// The end containers' type.
        end: String,
    },
    /// A value of an entity type, with an optional colour (`"r g b"`).
    Value {
        /// The entity type's name.
        ty: String,
        /// The value's name.
        name: String,
        /// Its colour.
        color: Option<String>,
    },
}

/// The kinds of entity types a [`Decl::EntityType`] declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntityKind {
    /// States (`PajeDefineStateType`).
    State,
    /// Point events (`PajeDefineEventType`).
    Event,
    /// Variables (`PajeDefineVariableType`).
    Variable,
}

/// The paths a record names, borrowed as the record is (shared or
/// mutable): the container a link end is drawn in, if it names one, and
/// the subject (see [`What::subject`]).
macro_rules! paths_of {
    ($what:expr) => {
        match $what {
            What::Declare(_) => (None, None),
            What::Create { container }
            | What::Destroy { container }
            | What::SetState { container, .. }
            | What::PushState { container, .. }
            | What::PopState { container, .. }
            | What::Event { container, .. }
            | What::Variable { container, .. } => (None, Some(container)),
            What::StartLink {
                container: Some(holder),
                from: end,
                ..
            }
            | What::EndLink {
                container: Some(holder),
                to: end,
                ..
            } => (Some(holder), Some(end)),
            What::StartLink { from: end, .. } | What::EndLink { to: end, .. } => (None, Some(end)),
        }
    };
}

impl What {
    /// The Pajé event kind this record is written as.
    pub fn kind(&self) -> EventKind {
        match self {
            What::Declare(Decl::ContainerType { .. }) => EventKind::DefineContainerType,
            What::Declare(Decl::EntityType { kind, .. }) => match kind {
                EntityKind::State => EventKind::DefineStateType,
                EntityKind::Event => EventKind::DefineEventType,
                EntityKind::Variable => EventKind::DefineVariableType,
            },
            What::Declare(Decl::LinkType { .. }) => EventKind::DefineLinkType,
            What::Declare(Decl::Value { .. }) => EventKind::DefineEntityValue,
            What::Create { .. } => EventKind::CreateContainer,
            What::Destroy { .. } => EventKind::DestroyContainer,
            What::SetState { .. } => EventKind::SetState,
            What::PushState { .. } => EventKind::PushState,
            What::PopState { .. } => EventKind::PopState,
            What::Event { .. } => EventKind::NewEvent,
            What::Variable { op, .. } => match op {
                VarOp::Set => EventKind::SetVariable,
                VarOp::Add => EventKind::AddVariable,
                VarOp::Sub => EventKind::SubVariable,
            },
            What::StartLink { .. } => EventKind::StartLink,
            What::EndLink { .. } => EventKind::EndLink,
        }
    }

    /// Every container path the record names, so the merge can rewrite them.
    pub fn paths_mut(&mut self) -> impl Iterator<Item = &mut Path> {
        let (holder, subject) = paths_of!(self);
        holder.into_iter().chain(subject)
    }

    /// The container the record is about (the sender or receiver of a link
    /// end), whose host's clock its time was read on; `None` for declarations.
    pub fn subject(&self) -> Option<&Path> {
        paths_of!(self).1
    }
}

impl What {
    /// The subject's path, to rewrite it (see [`What::subject`]).
    pub fn subject_mut(&mut self) -> Option<&mut Path> {
        paths_of!(self).1
    }
}

/// Where in its input an error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// A line of a text input (1-based).
    Line(u64),
    /// A byte offset of a binary input.
    Byte(u64),
    /// The input as a whole.
    File,
}

/// An error of a source: the file, where in it, and what was wrong
/// (quoting the offending token).
#[derive(Debug, thiserror::Error)]
pub struct SourceError {
    /// The input's name (its path).
    pub file: String,
    /// Where in it.
    pub location: Location,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for SourceError {
    /// The message's long words (a token of a damaged file) are cut.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = trama_events::shorten(&self.message);
        match self.location {
            Location::Line(l) => write!(f, "{}:{}: {message}", self.file, l),
            Location::Byte(b) => write!(f, "{}: at byte {b}: {message}", self.file),
            Location::File => write!(f, "{}: {message}", self.file),
        }
    }
}

impl SourceError {
    /// An error at `location` of `file`, or about the whole file.
    pub fn at(
        file: impl Into<String>,
        location: Option<Location>,
        message: impl Into<String>,
    ) -> SourceError {
        SourceError {
            file: file.into(),
            location: location.unwrap_or(Location::File),
            message: message.into(),
        }
    }

    /// An error at a line of a text input.
    pub fn line(file: impl Into<String>, line: u64, message: impl Into<String>) -> SourceError {
        SourceError {
            file: file.into(),
            location: Location::Line(line),
            message: message.into(),
        }
    }

    /// An error at a byte offset of a binary input.
    pub fn byte(file: impl Into<String>, offset: u64, message: impl Into<String>) -> SourceError {
        SourceError {
            file: file.into(),
            location: Location::Byte(offset),
            message: message.into(),
        }
    }

    /// An error about the input as a whole (it cannot be opened, it is empty...).
    pub fn file(file: impl Into<String>, message: impl Into<String>) -> SourceError {
        SourceError {
            file: file.into(),
            location: Location::File,
            message: message.into(),
        }
    }
}

/// An extra (user-defined) field a source's records carry for one event kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtraField {
    /// The event kind.
    pub kind: EventKind,
    /// The field's name.
    pub name: String,
    /// Its Pajé field type (`string`, `double`, `int`, `hex`, `date`, `color`).
    pub field_type: String,
}

/// A stream of records in non-decreasing time order.
pub trait Source: Send {
    /// The source's name in messages (usually its file's path).
    fn name(&self) -> &str;

    /// The next record, `None` at the end.
    fn next_record(&mut self) -> Result<Option<Record>, SourceError>;

    /// Extra fields its records carry (the writer's dialect must hold them).
    fn extra_fields(&self) -> Vec<ExtraField> {
        Vec::new()
    }

    /// Where in its input the record last served comes from (a line, the
    /// byte offset of a binary event), when the source knows it: an error
    /// the record causes further on (a container created twice) names it.
    fn position(&self) -> Option<Location> {
        None
    }
}

/// A source over records already in memory, for readers whose input is not
/// in time order (or small): sorted by time once, keeping the input order
/// of equal times.
pub struct VecSource {
    name: String,
    records: std::vec::IntoIter<Record>,
    extras: Vec<ExtraField>,
}

impl VecSource {
    /// Sorts `records` by time (stable) and serves them.
    pub fn new(name: impl Into<String>, mut records: Vec<Record>) -> VecSource {
        records.sort_by_key(|r| r.time);
        VecSource {
            name: name.into(),
            records: records.into_iter(),
            extras: Vec::new(),
        }
    }

    /// Declares the extra fields the records carry.
    pub fn with_extra_fields(mut self, extras: Vec<ExtraField>) -> VecSource {
        self.extras = extras;
        self
    }
}

impl Source for VecSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        Ok(self.records.next())
    }

    fn extra_fields(&self) -> Vec<ExtraField> {
        self.extras.clone()
    }
}

/// Reads a whole source into a vector (for tests and small inputs).
pub fn collect(source: &mut dyn Source) -> Result<Vec<Record>, SourceError> {
    let mut out = Vec::new();
    while let Some(r) = source.next_record()? {
        out.push(r);
    }
    Ok(out)
}
