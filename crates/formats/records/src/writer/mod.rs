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
//! the definition of its kind whose extra fields have exactly those names;
//! when there is none but each name is an extra field of some definition of
//! its kind, such a definition is added (with those fields' types) and
//! declared right before the record.
//!
//! Times are printed as seconds from [`WriterOptions::origin`] with
//! [`WriterOptions::decimals`] decimals, exactly (integer arithmetic).
//! Words holding blanks or `#` are quoted; a `"` inside a word becomes `'`.

mod declare;
mod dialect;
mod out;
mod text;

pub use dialect::{Dialect, DialectError};
pub use out::{EventOut, TextOut, Words};
pub use text::TimeText;

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::sync::Arc;

use trama_events::{EventKind, Field};

use crate::record::{DisplayPath, EntityKind, Name, Nanos, Path, PathMap, Record, VarOp, What};

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
    /// The consumer of the events stopped (it keeps why).
    #[error("the consumer of the events stopped")]
    Stopped,
}

#[derive(Clone, Debug)]
struct ContainerInfo {
    alias: Arc<str>,
    type_alias: Arc<str>,
    alive: bool,
}

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Writes records as Pajé text (see the module documentation).
pub struct PajeWriter<W: Write>(Declarer<TextOut<W>>);

impl<W: Write> PajeWriter<W> {
    /// Starts a trace: writes the comment and the dialect's header.
    pub fn new(mut out: W, dialect: Dialect, opts: WriterOptions) -> Result<Self, WriteError> {
        check_decimals(&opts)?;
        let mut lines = 0;
        if let Some(c) = &opts.comment {
            for l in c.lines() {
                writeln!(out, "# {l}")?;
                lines += 1;
            }
        }
        out.write_all(dialect.header().as_bytes())?;
        lines += dialect.header().bytes().filter(|b| *b == b'\n').count() as u64;
        Ok(PajeWriter(Declarer::with_output(
            TextOut::new(out, lines),
            dialect,
            opts,
        )?))
    }

    /// Moves the time printed as 0 (for records written from now on).
    pub fn set_origin(&mut self, origin: Nanos) {
        self.0.set_origin(origin)
    }

    /// Number of records written.
    pub fn records(&self) -> u64 {
        self.0.records()
    }

    /// Writes one record (and whatever it needs declared first).
    pub fn write(&mut self, rec: &Record) -> Result<(), WriteError> {
        self.0.write(rec)
    }

    /// The engine behind the writer, to drive it as any other.
    pub fn engine(&mut self) -> &mut Declarer<TextOut<W>> {
        &mut self.0
    }

    /// Flushes and returns the output.
    pub fn finish(self) -> Result<W, WriteError> {
        let mut out = self.0.finish().into_inner();
        out.flush()?;
        Ok(out)
    }
}

/// Times are kept to the nanosecond: at most 9 decimals.
fn check_decimals(opts: &WriterOptions) -> Result<(), WriteError> {
    if opts.decimals > 9 {
        return Err(WriteError::Record(format!(
            "{} decimals asked; times are kept to the nanosecond (9)",
            opts.decimals
        )));
    }
    Ok(())
}

/// The engine that declares types, containers and values on first use
/// (see the module documentation) and hands each event, by its
/// definition and words, to an [`EventOut`]: Pajé text ([`PajeWriter`]),
/// or a consumer of events (the simulation).
pub struct Declarer<O: EventOut> {
    out: O,
    dialect: Dialect,
    opts: WriterOptions,
    words: Words,
    /// `(name, parent type alias)` → container type alias.
    container_types: HashMap<(String, String), Arc<str>>,
    /// `(kind, container type alias)` → name → entity type alias.
    /// (The container type alias by its address: every alias is kept in
    /// `container_types` or is `root`, so no two share one.)
    entity_types: Map<(EntityKind, usize), Map<String, Arc<str>>>,
    /// Container type alias → name → link type alias.
    link_types: Map<Arc<str>, Map<String, Arc<str>>>,
    /// Every type alias taken (types of all kinds share one namespace).
    type_aliases: HashSet<String>,
    containers: PathMap<ContainerInfo>,
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
impl<O: EventOut> Declarer<O> {
    /// Starts handing events to `out`, whose header (the dialect's
    /// definitions) is already given.
    pub fn with_output(out: O, dialect: Dialect, opts: WriterOptions) -> Result<Self, WriteError> {
        check_decimals(&opts)?;
        let mut type_aliases = HashSet::new();
        type_aliases.insert(ROOT.to_string());
        let mut container_aliases = HashSet::new();
        container_aliases.insert(ROOT.to_string());
        let mut plain = [None; 19];
        for (k, slot) in EventKind::ALL.iter().zip(plain.iter_mut()) {
            *slot = dialect.find(*k, &[]);
        }
        Ok(Declarer {
            out,
            dialect,
            opts,
            words: Words::default(),
            container_types: HashMap::new(),
            entity_types: Map::default(),
            link_types: Map::default(),
            type_aliases,
            containers: PathMap::default(),
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
                if let Some(c) = self.containers.peek(container) {
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
                // Other paths with these steps may be cached as alive:
                // get_mut forgets them.
                self.containers.get_mut(container).expect("just made").alive = false;
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
                self.entity(t, rec.what.kind(), container, ty, Some(value), extra)?;
            }
            What::PopState {
                container,
                ty,
                extra,
            } => {
                self.entity(t, EventKind::PopState, container, ty, None, extra)?;
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
                let kind = match op {
                    VarOp::Set => EventKind::SetVariable,
                    VarOp::Add => EventKind::AddVariable,
                    VarOp::Sub => EventKind::SubVariable,
                };
                let mut v = std::mem::take(&mut self.number);
                v.clear();
                text::push_f64(&mut v, *value);
                let r = self.entity(t, kind, container, ty, Some(&v), &[]);
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

    /// Writes a state, event or variable record of `kind` on a live
    /// container, declaring its type, and the value of a state or event,
    /// on first use.
    fn entity(
        &mut self,
        t: Nanos,
        kind: EventKind,
        container: &Path,
        ty: &str,
        value: Option<&str>,
        extra: &[(Name, Name)],
    ) -> Result<(), WriteError> {
        let ek = match kind {
            EventKind::NewEvent => EntityKind::Event,
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                EntityKind::Variable
            }
            _ => EntityKind::State,
        };
        let c = self.live(t, container)?;
        let ta = self.entity_type(ek, ty, &c.type_alias, None)?;
        if let (Some(v), false) = (value, ek == EntityKind::Variable) {
            self.value(&ta, v, None)?;
        }
        self.emit(
            kind,
            extra,
            &Fields {
                time: Some(t),
                container: Some(&c.alias),
                ty: Some(&ta),
                value,
                ..Fields::default()
            },
        )
    }

    /// The output, once every record is written.
    pub fn finish(self) -> O {
        self.out
    }

    /// The output.
    pub fn output(&mut self) -> &mut O {
        &mut self.out
    }

    /// The definitions of the trace so far (the dialect's, and those added
    /// for extra fields on first use).
    pub fn definitions(&self) -> &[trama_events::EventDef] {
        self.dialect.defs()
    }

    fn emit(
        &mut self,
        kind: EventKind,
        extra: &[(Name, Name)],
        f: &Fields<'_>,
    ) -> Result<(), WriteError> {
        let i = if extra.is_empty() {
            self.plain[kind as usize]
        } else {
            let names: Vec<&str> = extra.iter().map(|(n, _)| n.as_str()).collect();
            match self.dialect.find(kind, &names) {
                Some(i) => Some(i),
                // Another set of fields the header knows: defined here, on first use.
                None => match self.dialect.derive(kind, &names, self.out.lines() + 1) {
                    Some(i) => {
                        self.out.definition(&self.dialect.defs()[i])?;
                        Some(i)
                    }
                    None => None,
                },
            }
        };
        let i = i.ok_or_else(|| {
            let names: Vec<&str> = extra.iter().map(|(n, _)| n.as_str()).collect();
            WriteError::Record(format!(
                "the trace's header has no {} with exactly the extra fields [{}]",
                kind.name(),
                names.join(", ")
            ))
        })?;
        let def = &self.dialect.defs()[i];
        self.words.clear();
        self.words.push_raw(def.id());
        let mut extra_i = 0;
        for (field, _) in &def.fields()[1..] {
            let text: Option<&str> = match field {
                Field::Time => {
                    let t = f.time.unwrap_or(self.opts.origin) - self.opts.origin;
                    self.words.push_time(t, self.opts.decimals);
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
            self.words.push_text(text);
        }
        self.out.event(def, &self.words)
    }
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

#[cfg(test)]
mod tests {
    use super::declare::color_of;
    use super::*;
    use crate::record::{path, Decl};

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
    fn other_sets_of_known_extras_are_defined_on_first_use() {
        let p = path(&[("P", "r0")]);
        let link = |key: &str, extra: crate::Extras| Record {
            time: 5,
            what: What::StartLink {
                container: None,
                ty: "L".into(),
                from: p.clone(),
                value: "PTP".into(),
                key: key.into(),
                extra,
            },
        };
        // The standard header has links with Size, and with Size and Mark; not with Mark alone.
        let recs = vec![
            link("k1", vec![("Mark".into(), "7".into())]),
            link("k2", vec![("Mark".into(), "8".into())]),
        ];
        let out = write(&recs, Dialect::standard()).unwrap();
        let def = "%EventDef PajeStartLink 21\n";
        assert_eq!(out.matches(def).count(), 1, "{out}");
        let at = out.find(def).unwrap();
        let tail = &out[at..];
        assert!(tail.contains("Mark\tstring\n%EndEventDef\n"), "{tail}");
        assert!(!tail.contains("Size"), "{tail}");
        let first = out.find("21 0.000000005 0 L r0 PTP k1 7").unwrap();
        assert!(at < first, "{out}");
        assert!(out.contains("\n21 0.000000005 0 L r0 PTP k2 8\n"), "{out}");
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
}
