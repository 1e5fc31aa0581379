//! Traces as a source, so per-node traces can be merged: Pajé text, and
//! any trace trama reads, whose text `trama-open` makes
//! (`Opened::into_source`).
//!
//! The trace is read in file order by the Pajé reader (on a thread of its
//! own, handing records over in small batches, so memory stays bounded
//! whatever the file's size); quotes are syntax (`"MPI State"` is the
//! name `MPI State`). A container's path is the chain of its ancestors,
//! each step being `(container type name, container name)`; types and
//! values are named by their names (aliases are resolved). Times are read
//! exactly to the nanosecond from their decimal text. Containers nest at
//! most [`MAX_DEPTH`] levels deep.
//!
//! Mapping: `PajeCreateContainer`/`PajeDestroyContainer` → [`What::Create`]/
//! [`What::Destroy`]; set/push/pop state, new event, set/add/sub variable
//! and start/end link → the records of the same name; type definitions →
//! [`Decl`]s (the merge keeps entity and link types, and takes the
//! container types from its plan); entity values → [`Decl::Value`] with
//! their colours. `PajeResetState` has no record: it is an error.
//! Extra (user-defined) fields are not carried; [`TraceSource::dropped_extras`]
//! counts them by field name once the source is read.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use trama_events::{Event, EventKind, Field};
use trama_num::{PastNanos, SecondsSyntax};
use trama_paje::{read_paje, QuoteMode, ReadOptions};

use crate::reading::{open_file, Stepwise};
use trama_records::{
    Decl, EntityKind, Nanos, Path, Record, Source, SourceError, Step, VarOp, What,
};

/// Records handed over at a time: small, since a merge holds one batch in
/// flight per source and may have many sources.
const BATCH: usize = 256;

type Batch = Result<Vec<Record>, SourceError>;

/// How deep a trace's containers may nest: a container's path holds all
/// its ancestors, so the paths of a chain grow with the square of its
/// depth.
pub const MAX_DEPTH: usize = 4096;

/// A Pajé text trace read as a [`Source`].
pub struct TraceSource {
    name: String,
    rx: Receiver<Batch>,
    batch: VecDeque<Record>,
    thread: Option<JoinHandle<()>>,
    dropped: Arc<Mutex<BTreeMap<String, u64>>>,
    finished: bool,
}

/// How to read a Pajé trace as a source (nothing to choose yet).
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceOptions {}

impl TraceSource {
    /// Opens a Pajé trace (plain, gzip or zstd) from a file.
    pub fn open(
        path: impl AsRef<std::path::Path>,
        opts: &TraceOptions,
    ) -> Result<TraceSource, SourceError> {
        let (name, file) = open_file(path.as_ref(), "")?;
        TraceSource::from_reader(name, file, opts)
    }

    /// Reads a Pajé trace (plain, gzip or zstd) from any reader; `name`
    /// names it in messages.
    pub fn from_reader<R: std::io::Read + Send + 'static>(
        name: impl Into<String>,
        reader: R,
        _opts: &TraceOptions,
    ) -> Result<TraceSource, SourceError> {
        let name = name.into();
        let input = trama_input::Input::from_reader(name.clone(), reader)
            .map_err(|e| SourceError::file(&name, e.to_string()))?;
        let (tx, rx) = sync_channel::<Batch>(1);
        let dropped = Arc::new(Mutex::new(BTreeMap::new()));
        let (thread_name, dropped2) = (name.clone(), dropped.clone());
        let thread = std::thread::Builder::new()
            .name("trama-paje-source".into())
            .spawn(move || {
                let mut conv = Converter::new(thread_name.clone());
                let mut opts = ReadOptions::default();
                opts.threads = 1;
                opts.quotes = QuoteMode::Strip;
                opts.chunk_size = 64 << 10;
                let mut batch = Vec::with_capacity(BATCH);
                let result = read_paje(input, &opts, |ev| -> Result<(), SourceError> {
                    conv.event(&ev, &mut batch)?;
                    if batch.len() >= BATCH {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                        // The receiver is gone: stop reading.
                        tx.send(Ok(full)).map_err(|_| {
                            SourceError::file(&thread_name, "the merge stopped reading")
                        })?;
                    }
                    Ok(())
                });
                *dropped2.lock().expect("not poisoned") = std::mem::take(&mut conv.dropped);
                let last = match result {
                    Ok(_) => Ok(batch),
                    Err(trama_paje::ReadError::Handler(e)) => Err(e),
                    Err(trama_paje::ReadError::Syntax {
                        line,
                        error,
                        contents,
                    }) => Err(SourceError::line(
                        &thread_name,
                        line,
                        format!("{error} (line: {contents})"),
                    )),
                    Err(trama_paje::ReadError::Io(e)) => {
                        Err(SourceError::file(&thread_name, e.to_string()))
                    }
                };
                let _ = tx.send(last);
            })
            .map_err(|e| SourceError::file(&name, e.to_string()))?;
        Ok(TraceSource {
            name,
            rx,
            batch: VecDeque::new(),
            thread: Some(thread),
            dropped,
            finished: false,
        })
    }

    /// Extra fields not carried, by name, with the number of events that had them.
    pub fn dropped_extras(&self) -> BTreeMap<String, u64> {
        self.dropped.lock().expect("not poisoned").clone()
    }
}

impl Drop for TraceSource {
    fn drop(&mut self) {
        // Unblock the reading thread, then wait for it.
        let (_tx, rx) = sync_channel(0);
        drop(std::mem::replace(&mut self.rx, rx));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Source for TraceSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_record(&mut self) -> Result<Option<Record>, SourceError> {
        self.next_queued()
    }
}

impl Stepwise for TraceSource {
    fn queue(&mut self) -> &mut VecDeque<Record> {
        &mut self.batch
    }

    /// Takes the next batch from the reading thread.
    fn step(&mut self) -> Result<bool, SourceError> {
        if self.finished {
            return Ok(false);
        }
        match self.rx.recv() {
            Ok(Ok(b)) => self.batch = b.into(),
            Ok(Err(e)) => {
                self.finished = true;
                return Err(e);
            }
            Err(_) => self.finished = true,
        }
        Ok(true)
    }
}

#[derive(Clone)]
struct TypeInfo {
    name: String,
}

struct Converter {
    file: String,
    /// Container type alias or name → name.
    container_types: Map<String, String>,
    /// Entity type alias or name → its name.
    types: Map<String, TypeInfo>,
    /// Entity type name → value alias or name → value name.
    values: Map<String, Map<String, String>>,
    /// Container alias or name → path.
    containers: Map<String, Path>,
    dropped: BTreeMap<String, u64>,
}

fn text(ev: &Event<'_>, f: Field) -> String {
    String::from_utf8_lossy(ev.get(f)).into_owned()
}

/// A field's text, borrowed when it is valid UTF-8.
fn word<'a>(ev: &Event<'a>, f: Field) -> std::borrow::Cow<'a, str> {
    String::from_utf8_lossy(ev.get(f))
}

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

impl Converter {
    fn new(file: String) -> Converter {
        let mut containers = Map::default();
        containers.insert("0".to_string(), Path::from(Vec::<Step>::new()));
        Converter {
            file,
            container_types: Map::default(),
            types: Map::default(),
            values: Map::default(),
            containers,
            dropped: BTreeMap::new(),
        }
    }

    fn err(&self, ev: &Event<'_>, message: String) -> SourceError {
        SourceError::line(&self.file, ev.line(), message)
    }

    fn time(&self, ev: &Event<'_>) -> Result<Nanos, SourceError> {
        let t = ev.get(Field::Time);
        decimal_nanos(t).ok_or_else(|| {
            self.err(
                ev,
                format!("time '{}' is not a number", String::from_utf8_lossy(t)),
            )
        })
    }

    fn container(&self, ev: &Event<'_>, f: Field) -> Result<Path, SourceError> {
        let id = word(ev, f);
        self.containers
            .get(&*id)
            .cloned()
            .ok_or_else(|| self.err(ev, format!("unknown container '{id}'")))
    }

    fn entity_type(&self, ev: &Event<'_>) -> Result<TypeInfo, SourceError> {
        let id = word(ev, Field::Type);
        self.types
            .get(&*id)
            .cloned()
            .ok_or_else(|| self.err(ev, format!("unknown type '{id}'")))
    }

    fn value(&self, ty: &str, ev: &Event<'_>) -> String {
        let v = word(ev, Field::Value);
        self.values
            .get(ty)
            .and_then(|m| m.get(&*v))
            .cloned()
            .unwrap_or_else(|| v.into_owned())
    }

    fn parent_type(&self, ev: &Event<'_>) -> Result<Option<String>, SourceError> {
        let id = text(ev, Field::Type);
        if id == "0" {
            return Ok(None);
        }
        self.container_types
            .get(&id)
            .cloned()
            .map(Some)
            .ok_or_else(|| self.err(ev, format!("unknown container type '{id}'")))
    }

    fn define(&mut self, ev: &Event<'_>, out: &mut Vec<Record>) -> Result<(), SourceError> {
        let name = text(ev, Field::Name);
        let alias = ev
            .def()
            .slot(Field::Alias)
            .map(|_| text(ev, Field::Alias))
            .filter(|a| !a.is_empty());
        let kind = ev.kind();
        let decl = match kind {
            EventKind::DefineContainerType => {
                let parent = self.parent_type(ev)?;
                self.container_types.insert(name.clone(), name.clone());
                if let Some(a) = &alias {
                    self.container_types.insert(a.clone(), name.clone());
                }
                Decl::ContainerType { name, parent }
            }
            EventKind::DefineStateType
            | EventKind::DefineEventType
            | EventKind::DefineVariableType => {
                let container = self
                    .parent_type(ev)?
                    .unwrap_or_else(|| trama_records::ROOT_TYPE.to_string());
                let info = TypeInfo { name: name.clone() };
                self.types.insert(name.clone(), info.clone());
                if let Some(a) = &alias {
                    self.types.insert(a.clone(), info);
                }
                Decl::EntityType {
                    kind: match kind {
                        EventKind::DefineStateType => EntityKind::State,
                        EventKind::DefineEventType => EntityKind::Event,
                        _ => EntityKind::Variable,
                    },
                    name,
                    container,
                    color: ev.def().slot(Field::Color).map(|_| text(ev, Field::Color)),
                }
            }
            EventKind::DefineLinkType => {
                let container = self.parent_type(ev)?;
                let ct = |f: Field| -> Result<String, SourceError> {
                    let id = text(ev, f);
                    self.container_types
                        .get(&id)
                        .cloned()
                        .ok_or_else(|| self.err(ev, format!("unknown container type '{id}'")))
                };
                let (start, end) = (ct(Field::StartContainerType)?, ct(Field::EndContainerType)?);
                let info = TypeInfo { name: name.clone() };
                self.types.insert(name.clone(), info.clone());
                if let Some(a) = &alias {
                    self.types.insert(a.clone(), info);
                }
                Decl::LinkType {
                    name,
                    container,
                    start,
                    end,
                }
            }
            EventKind::DefineEntityValue => {
                let ty = self.entity_type(ev)?.name;
                let m = self.values.entry(ty.clone()).or_default();
                m.insert(name.clone(), name.clone());
                if let Some(a) = &alias {
                    m.insert(a.clone(), name.clone());
                }
                Decl::Value {
                    ty,
                    name,
                    color: ev.def().slot(Field::Color).map(|_| text(ev, Field::Color)),
                }
            }
            _ => unreachable!("only definitions"),
        };
        out.push(Record {
            time: out.last().map_or(0, |r| r.time),
            what: What::Declare(decl),
        });
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, out: &mut Vec<Record>) -> Result<(), SourceError> {
        let kind = ev.kind();
        for name in ev.def().extra_names() {
            *self.dropped.entry(name.to_string()).or_default() += 1;
        }
        if kind.is_definition() {
            return self.define(ev, out);
        }
        let time = self.time(ev)?;
        let what = match kind {
            EventKind::CreateContainer => {
                let parent = self.container(ev, Field::Container)?;
                let ty_id = text(ev, Field::Type);
                let ty = self
                    .container_types
                    .get(&ty_id)
                    .cloned()
                    .ok_or_else(|| self.err(ev, format!("unknown container type '{ty_id}'")))?;
                let name = text(ev, Field::Name);
                if parent.len() >= MAX_DEPTH {
                    let cut: String = name.chars().take(80).collect();
                    return Err(self.err(
                        ev,
                        format!("container '{cut}' is nested {} levels deep: a trace read as a merge source nests at most {MAX_DEPTH} (each record names its container by its whole path)", parent.len() + 1),
                    ));
                }
                let mut steps: Vec<Step> = parent.to_vec();
                steps.push(Step {
                    ty,
                    name: name.clone(),
                });
                let p: Path = steps.into();
                // A container is referred to by its alias when it has one
                // (as PajeNG does): its name may be another's identifier
                // (`ms.trace` has a link container called `0`, the root's).
                let alias = ev
                    .def()
                    .slot(Field::Alias)
                    .map(|_| text(ev, Field::Alias))
                    .filter(|a| !a.is_empty());
                self.containers.insert(alias.unwrap_or(name), p.clone());
                What::Create { container: p }
            }
            EventKind::DestroyContainer => What::Destroy {
                container: self.container(ev, Field::Name)?,
            },
            EventKind::SetState | EventKind::PushState | EventKind::NewEvent => {
                let container = self.container(ev, Field::Container)?;
                let ty = self.entity_type(ev)?.name;
                let value = self.value(&ty, ev);
                match kind {
                    EventKind::SetState => What::SetState {
                        container,
                        ty: ty.into(),
                        value: value.into(),
                        extra: vec![],
                    },
                    EventKind::PushState => What::PushState {
                        container,
                        ty: ty.into(),
                        value: value.into(),
                        extra: vec![],
                    },
                    _ => What::Event {
                        container,
                        ty: ty.into(),
                        value: value.into(),
                        extra: vec![],
                    },
                }
            }
            EventKind::PopState => What::PopState {
                container: self.container(ev, Field::Container)?,
                ty: self.entity_type(ev)?.name.into(),
                extra: vec![],
            },
            EventKind::SetVariable | EventKind::AddVariable | EventKind::SubVariable => {
                let v = ev.get(Field::Value);
                let (value, used) = trama_num::strtod(v);
                if used == 0 {
                    return Err(self.err(
                        ev,
                        format!("value '{}' is not a number", String::from_utf8_lossy(v)),
                    ));
                }
                What::Variable {
                    container: self.container(ev, Field::Container)?,
                    ty: self.entity_type(ev)?.name.into(),
                    op: match kind {
                        EventKind::SetVariable => VarOp::Set,
                        EventKind::AddVariable => VarOp::Add,
                        _ => VarOp::Sub,
                    },
                    value,
                }
            }
            EventKind::StartLink | EventKind::EndLink => {
                let holder = self.container(ev, Field::Container)?;
                let container = (!holder.is_empty()).then_some(holder);
                let ty = self.entity_type(ev)?.name;
                let value = self.value(&ty, ev);
                let key = text(ev, Field::Key);
                if kind == EventKind::StartLink {
                    What::StartLink {
                        container,
                        ty: ty.into(),
                        from: self.container(ev, Field::StartContainer)?,
                        value: value.into(),
                        key: key.into(),
                        extra: vec![],
                    }
                } else {
                    What::EndLink {
                        container,
                        ty: ty.into(),
                        to: self.container(ev, Field::EndContainer)?,
                        value: value.into(),
                        key: key.into(),
                        extra: vec![],
                    }
                }
            }
            other => {
                return Err(self.err(
                    ev,
                    format!("{} cannot be merged (it has no record)", other.name()),
                ))
            }
        };
        out.push(Record { time, what });
        Ok(())
    }
}

/// A decimal time in seconds (`12`, `0.000001907`, `-3.5`, `1e-3`) as
/// nanoseconds: exact up to 9 decimals, rounded to the nearest beyond.
pub fn decimal_nanos(text: &[u8]) -> Option<Nanos> {
    const SYNTAX: SecondsSyntax = SecondsSyntax::PLAIN
        .sign(true)
        .bare_fraction(true)
        .past_nanos(PastNanos::Round)
        .double(true);
    trama_num::parse_seconds(text, SYNTAX).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use trama_records::collect;

    #[test]
    fn decimal_times_are_exact() {
        assert_eq!(decimal_nanos(b"0.000001907"), Some(1907));
        assert_eq!(
            decimal_nanos(b"1094222084.364200"),
            Some(1_094_222_084_364_200_000)
        );
        assert_eq!(decimal_nanos(b"-2.5"), Some(-2_500_000_000));
        assert_eq!(decimal_nanos(b"1.0000000005"), Some(1_000_000_001));
        assert_eq!(decimal_nanos(b"1e-3"), Some(1_000_000));
        assert_eq!(decimal_nanos(b"x"), None);
        assert_eq!(decimal_nanos(b""), None);
    }

    const TRACE: &str = "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineStateType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineEntityValue 5\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n\
%EventDef PajeCreateContainer 6\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
%EventDef PajeSetState 11\n% Time date\n% Container string\n% Type string\n% Value string\n%EndEventDef\n\
%EventDef PajeSetVariable 8\n% Time date\n% Container string\n% Type string\n% Value double\n%EndEventDef\n\
0 H 0 Host\n0 P H Proc\n2 S P \"MPI State\"\n5 v1 S \"MPI_Send\" \"1 0 0\"\n\
6 0 h1 H 0 node1\n6 0.5 p1 P h1 \"rank 0\"\n11 1.000000001 p1 S v1\n8 2 p1 S 3\n";

    #[test]
    fn paths_types_and_values_are_named() {
        let mut s =
            TraceSource::from_reader("t.paje", TRACE.as_bytes(), &TraceOptions::default()).unwrap();
        let recs = collect(&mut s).unwrap_or_else(|e| panic!("{e}"));
        let creates: Vec<_> = recs
            .iter()
            .filter_map(|r| match &r.what {
                What::Create { container } => {
                    Some(trama_records::DisplayPath(container).to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(creates, ["Host:node1", "Host:node1/Proc:rank 0"]);
        let st = recs
            .iter()
            .find(|r| matches!(r.what, What::SetState { .. }))
            .unwrap();
        assert_eq!(st.time, 1_000_000_001);
        match &st.what {
            What::SetState { ty, value, .. } => {
                assert_eq!(ty, "MPI State");
                assert_eq!(value, "MPI_Send");
            }
            _ => unreachable!(),
        }
        assert!(recs.iter().any(|r| r.what
            == What::Declare(Decl::Value {
                ty: "MPI State".into(),
                name: "MPI_Send".into(),
                color: Some("1 0 0".into())
            })));
        // A variable of a state type is an error of the trace... here the
        // reader takes the type by name; the value 3 is read as a number.
        assert!(recs
            .iter()
            .any(|r| matches!(&r.what, What::Variable { value, .. } if *value == 3.0)));
    }

    #[test]
    fn errors_name_file_and_line() {
        let bad = TRACE.replace("11 1.000000001 p1 S v1", "11 1.000000001 p9 S v1");
        let mut s = TraceSource::from_reader(
            "t.paje",
            std::io::Cursor::new(bad.into_bytes()),
            &TraceOptions::default(),
        )
        .unwrap();
        let e = collect(&mut s).unwrap_err().to_string();
        assert!(e.starts_with("t.paje:") && e.contains("'p9'"), "{e}");
    }
}
