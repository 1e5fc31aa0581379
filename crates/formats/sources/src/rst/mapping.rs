//! The TOML mapping of a libRastro source: which records each event id
//! makes (the schema is documented in the [module](super) documentation).

use std::collections::BTreeMap;

use serde::Deserialize;
use trama_events::EventKind;

use super::template::{Scope, Template, Var};
use trama_records::{Decl, EntityKind, ExtraField, SourceError};

/// Largest event id a mapping may name (16382 and 16383 are libRastro's
/// stop and header events).
const MAX_MAPPED: u16 = 16381;

/// What to do with an event whose id the mapping does not name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownPolicy {
    /// Stop with an error naming the file, the byte offset and the id.
    #[default]
    Error,
    /// Skip it, counted in [`Skipped::unknown`](super::Skipped::unknown).
    Skip,
    /// Make it a point event of the mapping's event type, valued by the id.
    Event,
}

/// What to do with an OUT event that leaves a state the file is not in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutPolicy {
    /// Stop with an error naming the file, the byte offset and the state.
    #[default]
    Error,
    /// Skip it, counted in [`Skipped::unmatched_out`](super::Skipped::unmatched_out).
    Skip,
}

/// How IN and OUT events show states.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StateMode {
    /// IN pushes the state, OUT pops it (nesting is kept).
    #[default]
    Push,
    /// IN sets the state, OUT sets the `idle` state.
    Set,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMapping {
    name: Option<String>,
    #[serde(default)]
    unknown: UnknownPolicy,
    #[serde(default)]
    unmatched_out: OutPolicy,
    container: RawContainer,
    #[serde(default)]
    types: RawTypes,
    #[serde(default)]
    states: RawStates,
    #[serde(default)]
    links: RawLinks,
    #[serde(default)]
    events: BTreeMap<String, toml::Spanned<RawEvent>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContainer {
    path: Vec<[String; 2]>,
    #[serde(rename = "self")]
    me: Option<String>,
    #[serde(default)]
    link_holder: usize,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTypes {
    state: Option<String>,
    event: Option<String>,
    link: Option<String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStates {
    #[serde(default)]
    mode: StateMode,
    idle: Option<String>,
    #[serde(default)]
    extra: BTreeMap<String, String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLinks {
    key: Option<String>,
    #[serde(default)]
    extra: BTreeMap<String, String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    #[serde(default)]
    skip: bool,
    #[serde(default)]
    create: bool,
    #[serde(default)]
    destroy: bool,
    #[serde(rename = "in")]
    enter: Option<String>,
    out: Option<String>,
    set: Option<String>,
    event: Option<String>,
    send: Option<String>,
    recv: Option<String>,
    to: Option<String>,
    to_all_below: Option<String>,
    from: Option<String>,
    from_all_below: Option<String>,
    key: Option<String>,
    #[serde(rename = "type")]
    ty: Option<String>,
    extra: Option<BTreeMap<String, String>>,
}

/// A state, event or set-state record of an action: type, value, extras.
#[derive(Clone, Debug)]
pub(crate) struct Entity {
    pub ty: String,
    pub value: Template,
    pub extra: Vec<(String, Template)>,
}

/// Who is at the other end of a link.
#[derive(Clone, Debug)]
pub(crate) enum Partner {
    /// No partner: the key names the channel by itself.
    None,
    /// One partner, rendered from the event.
    One(Template),
    /// Every identity `0..n` but the file's own, `n` rendered from the event.
    AllBelow(Template),
}

/// A link end of an action.
#[derive(Clone, Debug)]
pub(crate) struct LinkSpec {
    pub ty: String,
    pub value: Template,
    pub partner: Partner,
    pub key: Template,
    pub extra: Vec<(String, Template)>,
}

/// What one event id makes, in this order: create, out, set, in, event,
/// send, recv, destroy.
#[derive(Clone, Debug, Default)]
pub(crate) struct Action {
    /// `events.<id>`, for messages.
    pub key: String,
    pub skip: bool,
    pub create: bool,
    pub destroy: bool,
    pub out: Option<(String, Template)>,
    pub set: Option<Entity>,
    pub enter: Option<Entity>,
    pub event: Option<Entity>,
    pub send: Option<LinkSpec>,
    pub recv: Option<LinkSpec>,
}

/// A compiled mapping: what each event id of a libRastro file becomes.
/// Build it from TOML with [`Mapping::from_toml`] or [`Mapping::load`], or
/// take a shipped one ([`Mapping::akypuera`], [`Mapping::deck`]).
#[derive(Clone, Debug)]
pub struct Mapping {
    pub(crate) name: String,
    pub(crate) unknown: UnknownPolicy,
    pub(crate) unmatched_out: OutPolicy,
    pub(crate) path: Vec<(String, Template)>,
    pub(crate) me: Template,
    pub(crate) link_holder: usize,
    pub(crate) mode: StateMode,
    pub(crate) idle: Option<String>,
    pub(crate) event_type: String,
    pub(crate) actions: Vec<Option<Box<Action>>>,
    decls: Vec<Decl>,
    extras: Vec<ExtraField>,
}

/// The Akypuera mapping shipped with trama (MPI traces of libaky).
pub const AKYPUERA_TOML: &str = include_str!("../../mappings/akypuera-mpi.toml");
/// The DECK mapping shipped with trama (ids of the seed's thesis).
pub const DECK_TOML: &str = include_str!("../../mappings/deck.toml");

fn line_of(text: &str, offset: usize) -> u64 {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// Builds an error about the mapping `file`, at `line` when known.
fn err(file: &str, line: Option<u64>, message: String) -> SourceError {
    match line {
        Some(l) => SourceError::line(file, l, message),
        None => SourceError::file(file, message),
    }
}

fn name_type(file: &str, key: &str, text: &str) -> Result<String, SourceError> {
    if text.is_empty() || text.contains(['{', '}']) {
        return Err(err(
            file,
            None,
            format!("{key}: a type name must be plain non-empty text, got \"{text}\""),
        ));
    }
    Ok(text.to_string())
}

impl Mapping {
    /// The Akypuera mapping (`mappings/akypuera-mpi.toml`).
    pub fn akypuera() -> Mapping {
        Mapping::from_toml("akypuera-mpi.toml", AKYPUERA_TOML)
            .expect("the shipped mapping is valid")
    }

    /// The DECK mapping (`mappings/deck.toml`).
    pub fn deck() -> Mapping {
        Mapping::from_toml("deck.toml", DECK_TOML).expect("the shipped mapping is valid")
    }

    /// Reads a mapping file.
    pub fn load(path: &std::path::Path) -> Result<Mapping, SourceError> {
        let file = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| SourceError::file(&file, e.to_string()))?;
        let text = trama_input::utf8_text(bytes)
            .map_err(|e| SourceError::line(&file, e.line, e.to_string()))?;
        Mapping::from_toml(&file, &text)
    }

    /// Parses a mapping; `file` names it in errors (which also give the
    /// line and the key at fault).
    pub fn from_toml(file: &str, text: &str) -> Result<Mapping, SourceError> {
        let raw: RawMapping = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            err(file, line, e.message().trim().to_string())
        })?;
        compile(file, text, raw)
    }

    /// The mapping's name (its `name` key, or the file's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The declarations a source of this mapping starts with: the
    /// container types of its path, then its state, event and link types.
    pub fn declarations(&self) -> &[Decl] {
        &self.decls
    }

    /// The extra fields its records may carry.
    pub fn extra_fields(&self) -> &[ExtraField] {
        &self.extras
    }

    /// The container types of the file's path, top first.
    pub fn path_types(&self) -> impl Iterator<Item = &str> {
        self.path.iter().map(|(t, _)| t.as_str())
    }

    pub(crate) fn action(&self, id: u16) -> Option<&Action> {
        self.actions.get(id as usize).and_then(|a| a.as_deref())
    }
}

fn compile(file: &str, text: &str, raw: RawMapping) -> Result<Mapping, SourceError> {
    let e = |key: &str, m: String| err(file, None, format!("{key}: {m}"));
    if raw.container.path.is_empty() {
        return Err(e(
            "container.path",
            "the path needs at least one step".into(),
        ));
    }
    let mut path = Vec::new();
    for (i, [ty, name]) in raw.container.path.iter().enumerate() {
        let key = format!("container.path[{i}]");
        let ty = name_type(file, &key, ty)?;
        let name = Template::parse(name, Scope::Header).map_err(|m| e(&key, m))?;
        path.push((ty, name));
    }
    let me = Template::parse(
        raw.container.me.as_deref().unwrap_or("{id1}"),
        Scope::Header,
    )
    .map_err(|m| e("container.self", m))?;
    let link_holder = raw.container.link_holder;
    if link_holder > path.len() {
        return Err(e(
            "container.link_holder",
            format!("{link_holder} steps asked, the path has {}", path.len()),
        ));
    }
    let state_type = name_type(
        file,
        "types.state",
        raw.types.state.as_deref().unwrap_or("state"),
    )?;
    let event_type = name_type(
        file,
        "types.event",
        raw.types.event.as_deref().unwrap_or("event"),
    )?;
    let link_type = name_type(
        file,
        "types.link",
        raw.types.link.as_deref().unwrap_or("link"),
    )?;
    let mode = raw.states.mode;
    let idle = raw.states.idle.clone();
    if mode == StateMode::Set && idle.is_none() {
        return Err(e(
            "states.idle",
            "the set mode needs the idle state an OUT sets".into(),
        ));
    }
    let state_extra = extras_of(file, "states.extra", &raw.states.extra)?;
    let link_extra = extras_of(file, "links.extra", &raw.links.extra)?;
    let default_key = raw
        .links
        .key
        .as_deref()
        .unwrap_or("{value}:{src}>{dst}:{seq}");
    Template::parse(default_key, Scope::Key).map_err(|m| e("links.key", m))?;

    let defaults = Defaults {
        file,
        state_type,
        event_type,
        link_type,
        mode,
        state_extra,
        link_extra,
        default_key,
    };
    let mut actions: Vec<Option<Box<Action>>> = vec![None; MAX_MAPPED as usize + 1];
    let mut gathered = Gathered::default();
    for (id_text, spanned) in &raw.events {
        let (id, a) = compile_event(&defaults, &mut gathered, text, id_text, spanned)?;
        actions[id as usize] = Some(Box::new(a));
    }
    check_outs(file, &gathered)?;
    let event_type = defaults.event_type;
    if raw.unknown == UnknownPolicy::Event {
        gathered.kinds_used.insert((1, event_type.clone()), ());
    }
    let decls = declarations(&path, link_holder, &gathered.kinds_used);
    Ok(Mapping {
        name: raw.name.unwrap_or_else(|| file.to_string()),
        unknown: raw.unknown,
        unmatched_out: raw.unmatched_out,
        path,
        me,
        link_holder,
        mode,
        idle,
        event_type,
        actions,
        decls,
        extras: gathered.extra_fields,
    })
}

/// The extra fields of table `key` (`m`: field name → template).
fn extras_of(
    file: &str,
    key: &str,
    m: &BTreeMap<String, String>,
) -> Result<Vec<(String, Template)>, SourceError> {
    m.iter()
        .map(|(n, t)| {
            let k = format!("{key}.{n}");
            let n = name_type(file, &k, n)?;
            let t = Template::parse(t, Scope::Event)
                .map_err(|m| err(file, None, format!("{k}: {m}")))?;
            Ok((n, t))
        })
        .collect()
}

/// What the header of a mapping fixes for its events: the default types,
/// the state mode, the default extra fields and link key.
struct Defaults<'a> {
    file: &'a str,
    state_type: String,
    event_type: String,
    link_type: String,
    mode: StateMode,
    state_extra: Vec<(String, Template)>,
    link_extra: Vec<(String, Template)>,
    default_key: &'a str,
}

/// What the events of a mapping gather: the states entered and left (to
/// check the OUTs), the entity types used, the extra fields.
#[derive(Default)]
struct Gathered {
    /// Type and value of each IN.
    entered: Vec<(String, Template)>,
    /// Key, type, value and line of each OUT.
    outs: Vec<(String, String, Template, u64)>,
    /// Kind (0 state, 1 event, 2 link) and name of each type used.
    kinds_used: BTreeMap<(u8, String), ()>,
    extra_fields: Vec<ExtraField>,
}

impl Gathered {
    /// Notes the extra fields `list` that records of `kind` carry.
    fn note_extra(&mut self, kind: EventKind, list: &[(String, Template)]) {
        for (n, _) in list {
            if !self
                .extra_fields
                .iter()
                .any(|f| f.kind == kind && &f.name == n)
            {
                self.extra_fields.push(ExtraField {
                    kind,
                    name: n.clone(),
                    field_type: "string".into(),
                });
            }
        }
    }
}

/// One `[events.N]` table being compiled: its key, line and keys.
struct EventCx<'a> {
    d: &'a Defaults<'a>,
    line: Option<u64>,
    key: String,
    r: &'a RawEvent,
    /// The event's own extra fields, if it gives them.
    own_extra: Option<Vec<(String, Template)>>,
}

impl EventCx<'_> {
    /// An error of this event.
    fn ee(&self, m: String) -> SourceError {
        err(self.d.file, self.line, format!("{}: {m}", self.key))
    }

    /// The template `t` of key `what`.
    fn tpl(&self, what: &str, t: &str, scope: Scope) -> Result<Template, SourceError> {
        Template::parse(t, scope).map_err(|m| self.ee(format!("{what}: {m}")))
    }

    /// The event's type, else `default`.
    fn ty_of(&self, default: &str) -> Result<String, SourceError> {
        match &self.r.ty {
            Some(t) => name_type(self.d.file, &format!("{}.type", self.key), t),
            None => Ok(default.to_string()),
        }
    }

    /// An entity the event makes: its type (the event's own, else
    /// `default_ty`), its value from the template `v` of key `what`, its
    /// extra fields (the event's own, else `default_extra`).
    fn entity(
        &self,
        what: &str,
        v: &str,
        default_ty: &str,
        default_extra: &[(String, Template)],
    ) -> Result<Entity, SourceError> {
        Ok(Entity {
            ty: self.ty_of(default_ty)?,
            value: self.tpl(what, v, Scope::Event)?,
            extra: self
                .own_extra
                .clone()
                .unwrap_or_else(|| default_extra.to_vec()),
        })
    }

    /// A link end the event makes (its `side`, send or recv, of value
    /// `v`, of key `key_t`), the partner named by key `one_k` (`one`) or
    /// `all_k` (`all`).
    fn link(
        &self,
        side: &str,
        v: &str,
        default_extra: &[(String, Template)],
        key_t: &Template,
        (one_k, one): (&str, &Option<String>),
        (all_k, all): (&str, &Option<String>),
    ) -> Result<LinkSpec, SourceError> {
        let needs_partner = key_t.uses(Var::Src) || key_t.uses(Var::Dst);
        let Entity { ty, value, extra } = self.entity(side, v, &self.d.link_type, default_extra)?;
        let partner = match (one, all) {
            (Some(_), Some(_)) => {
                return Err(self.ee(format!("give '{one_k}' or '{all_k}', not both")))
            }
            (Some(t), None) => Partner::One(self.tpl(one_k, t, Scope::Event)?),
            (None, Some(t)) => Partner::AllBelow(self.tpl(all_k, t, Scope::Event)?),
            (None, None) if needs_partner => {
                return Err(self.ee(format!(
                "the {side} needs '{one_k}' or '{all_k}' (its key \"{}\" names {{src}} or {{dst}})",
                key_t.source()
            )))
            }
            (None, None) => Partner::None,
        };
        Ok(LinkSpec {
            ty,
            value,
            partner,
            key: key_t.clone(),
            extra,
        })
    }
}

/// Compiles the table `[events.<id_text>]` into its id and action.
fn compile_event(
    d: &Defaults,
    g: &mut Gathered,
    text: &str,
    id_text: &str,
    spanned: &toml::Spanned<RawEvent>,
) -> Result<(u16, Action), SourceError> {
    let line_no = line_of(text, spanned.span().start);
    let line = Some(line_no);
    let key = format!("events.{id_text}");
    let ee = |m: String| err(d.file, line, format!("{key}: {m}"));
    let id: u16 = id_text
        .parse()
        .ok()
        .filter(|&i| i <= MAX_MAPPED)
        .ok_or_else(|| {
            ee(format!(
                "'{id_text}' is not an event id of 0..={MAX_MAPPED} (16382 and 16383 are libRastro's own)"
            ))
        })?;
    let r = spanned.get_ref();
    let own_extra = match &r.extra {
        Some(m) => Some(extras_of(d.file, &format!("{key}.extra"), m)?),
        None => None,
    };
    let mut a = Action {
        key: key.clone(),
        skip: r.skip,
        create: r.create,
        destroy: r.destroy,
        ..Action::default()
    };
    let any = r.create
        || r.destroy
        || r.enter.is_some()
        || r.out.is_some()
        || r.set.is_some()
        || r.event.is_some()
        || r.send.is_some()
        || r.recv.is_some();
    if r.skip && (any || r.extra.is_some() || r.ty.is_some()) {
        return Err(ee("'skip' cannot be combined with other keys".into()));
    }
    if !r.skip && !any {
        return Err(ee(
            "says nothing: give create, destroy, in, out, set, event, send, recv or skip".into(),
        ));
    }
    let cx = EventCx {
        d,
        line,
        key,
        r,
        own_extra,
    };
    event_states(&cx, g, &mut a, line_no)?;
    event_links(&cx, g, &mut a)?;
    Ok((id, a))
}

/// The states and event an event's `in`, `out`, `set` and `event` keys
/// make (`line_no`: the line of its table).
fn event_states(
    cx: &EventCx,
    g: &mut Gathered,
    a: &mut Action,
    line_no: u64,
) -> Result<(), SourceError> {
    let (d, r) = (cx.d, cx.r);
    if let Some(v) = &r.enter {
        let ent = cx.entity("in", v, &d.state_type, &d.state_extra)?;
        g.entered.push((ent.ty.clone(), ent.value.clone()));
        let kind = match d.mode {
            StateMode::Push => EventKind::PushState,
            StateMode::Set => EventKind::SetState,
        };
        g.note_extra(kind, &ent.extra);
        g.kinds_used.insert((0, ent.ty.clone()), ());
        a.enter = Some(ent);
    }
    if let Some(v) = &r.out {
        let ty = cx.ty_of(&d.state_type)?;
        let t = cx.tpl("out", v, Scope::Event)?;
        g.outs
            .push((cx.key.clone(), ty.clone(), t.clone(), line_no));
        g.kinds_used.insert((0, ty.clone()), ());
        a.out = Some((ty, t));
    }
    if let Some(v) = &r.set {
        let ent = cx.entity("set", v, &d.state_type, &[])?;
        g.note_extra(EventKind::SetState, &ent.extra);
        g.kinds_used.insert((0, ent.ty.clone()), ());
        a.set = Some(ent);
    }
    if let Some(v) = &r.event {
        let ent = cx.entity("event", v, &d.event_type, &[])?;
        g.note_extra(EventKind::NewEvent, &ent.extra);
        g.kinds_used.insert((1, ent.ty.clone()), ());
        a.event = Some(ent);
    }
    Ok(())
}

/// The link ends an event's `send` and `recv` keys make.
fn event_links(cx: &EventCx, g: &mut Gathered, a: &mut Action) -> Result<(), SourceError> {
    let (d, r) = (cx.d, cx.r);
    let key_t = cx.tpl("key", r.key.as_deref().unwrap_or(d.default_key), Scope::Key)?;
    if r.send.is_none() && (r.to.is_some() || r.to_all_below.is_some()) {
        return Err(cx.ee("'to' and 'to_all_below' belong to a 'send'".into()));
    }
    if r.recv.is_none() && (r.from.is_some() || r.from_all_below.is_some()) {
        return Err(cx.ee("'from' and 'from_all_below' belong to a 'recv'".into()));
    }
    if r.key.is_some() && r.send.is_none() && r.recv.is_none() {
        return Err(cx.ee("'key' belongs to a 'send' or a 'recv'".into()));
    }
    if let Some(v) = &r.send {
        let (one, all) = (("to", &r.to), ("to_all_below", &r.to_all_below));
        let spec = cx.link("send", v, &d.link_extra, &key_t, one, all)?;
        g.note_extra(EventKind::StartLink, &spec.extra);
        g.kinds_used.insert((2, spec.ty.clone()), ());
        a.send = Some(spec);
    }
    if let Some(v) = &r.recv {
        let (one, all) = (("from", &r.from), ("from_all_below", &r.from_all_below));
        let spec = cx.link("recv", v, &[], &key_t, one, all)?;
        g.note_extra(EventKind::EndLink, &spec.extra);
        g.kinds_used.insert((2, spec.ty.clone()), ());
        a.recv = Some(spec);
    }
    Ok(())
}

/// An OUT must leave a state some IN enters (push mode), or be the
/// idle-setting end of one (set mode): catch typos in state names.
fn check_outs(file: &str, g: &Gathered) -> Result<(), SourceError> {
    for (key, ty, t, line) in &g.outs {
        let known = g.entered.iter().any(|(ety, et)| {
            ety == ty && (et == t || et.literal().is_none() || t.literal().is_none())
        });
        if !known {
            return Err(err(
                file,
                Some(*line),
                format!(
                    "{key}: out = \"{}\" leaves a state no 'in' of type {ty} enters",
                    t.source()
                ),
            ));
        }
    }
    Ok(())
}

/// The declarations: the container types of `path`, then the state, event
/// and link types used (links held by the `link_holder`-th step, or none).
fn declarations(
    path: &[(String, Template)],
    link_holder: usize,
    kinds_used: &BTreeMap<(u8, String), ()>,
) -> Vec<Decl> {
    let mut decls = Vec::new();
    let mut parent: Option<String> = None;
    for (ty, _) in path {
        decls.push(Decl::ContainerType {
            name: ty.clone(),
            parent: parent.clone(),
        });
        parent = Some(ty.clone());
    }
    let leaf = path.last().expect("non-empty").0.clone();
    let holder = if link_holder == 0 {
        None
    } else {
        Some(path[link_holder - 1].0.clone())
    };
    for (kind, name) in kinds_used.keys() {
        decls.push(match kind {
            0 => Decl::EntityType {
                kind: EntityKind::State,
                name: name.clone(),
                container: leaf.clone(),
                color: None,
            },
            1 => Decl::EntityType {
                kind: EntityKind::Event,
                name: name.clone(),
                container: leaf.clone(),
                color: None,
            },
            _ => Decl::LinkType {
                name: name.clone(),
                container: holder.clone(),
                start: leaf.clone(),
                end: leaf.clone(),
            },
        });
    }
    decls
}
