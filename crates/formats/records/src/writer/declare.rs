//! Declarations on first use: container types and containers (with their
//! aliases), entity and link types, and values with their colours.

use std::sync::Arc;

use trama_events::{EventKind, Field};

use super::{ContainerInfo, Declarer, EventOut, Fields, TimeText, WriteError};
use crate::record::{Decl, DisplayPath, EntityKind, Nanos, Path};

impl<O: EventOut> Declarer<O> {
    /// Writes what a [`crate::What::Declare`] record declares.
    pub(super) fn declare(&mut self, d: &Decl) -> Result<(), WriteError> {
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
                let ct = if container == crate::record::ROOT_TYPE {
                    self.root.clone()
                } else {
                    self.container_type_by_name(container)?
                };
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
        let found = self
            .container_types
            .iter()
            .filter(|((n, _), _)| n == name)
            .map(|(_, a)| a.clone());
        only_one(
            found,
            || format!("container type '{name}' used in a declaration before it is declared"),
            || format!("container type '{name}' is ambiguous: it appears under several parents"),
        )
    }

    fn entity_type_by_name(&self, name: &str) -> Result<Arc<str>, WriteError> {
        let found = self
            .entity_types
            .values()
            .chain(self.link_types.values())
            .filter_map(|m| m.get(name).cloned());
        only_one(
            found,
            || format!("a value is declared for type '{name}' before the type"),
            || format!("type '{name}' is ambiguous: several container types hold it"),
        )
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

    pub(super) fn entity_type(
        &mut self,
        kind: EntityKind,
        name: &str,
        container_type: &Arc<str>,
        color: Option<&str>,
    ) -> Result<Arc<str>, WriteError> {
        let key = (kind, Arc::as_ptr(container_type) as *const u8 as usize);
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

    /// The link type `name` held by `container_type`, declared on first use
    /// with both ends of the type of its first link's other end.
    pub(super) fn link_type(
        &mut self,
        name: &str,
        container_type: &Arc<str>,
        end_type: &str,
    ) -> Result<Arc<str>, WriteError> {
        self.declare_link_type(name, container_type, end_type, end_type)
    }

    /// The link type `name` held by `container_type`, declared (with these
    /// start and end types) unless it already is.
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

    pub(super) fn value(
        &mut self,
        ty: &Arc<str>,
        name: &str,
        color: Option<&str>,
    ) -> Result<(), WriteError> {
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

    /// The container of `path`, created (with its ancestors, outermost
    /// first) if needed; iterative, for paths of any length.
    pub(super) fn container(&mut self, t: Nanos, path: &Path) -> Result<ContainerInfo, WriteError> {
        if let Some(c) = self.containers.get(path) {
            return Ok(c);
        }
        // The empty path is the root container (entities of a type
        // declared in the root type live there).
        let root = ContainerInfo {
            alias: self.root.clone(),
            type_alias: self.root.clone(),
            alive: true,
        };
        if path.is_empty() {
            return Ok(root);
        }
        // The deepest ancestor already declared (the root if none).
        let mut known = path.len() - 1;
        let mut parent = root;
        while known > 0 {
            let prefix: Path = path[..known].into();
            if let Some(p) = self.containers.get(&prefix) {
                if !p.alive {
                    return Err(WriteError::Record(format!(
                        "container {} is used after its parent was destroyed",
                        DisplayPath(&path[..=known])
                    )));
                }
                parent = p;
                break;
            }
            known -= 1;
        }
        for len in known + 1..=path.len() {
            let prefix: Path = if len == path.len() {
                path.clone()
            } else {
                path[..len].into()
            };
            parent = self.new_container(t, &prefix, &parent)?;
        }
        Ok(parent)
    }

    /// Declares the container of `path` in `parent` (alive), at `t`.
    fn new_container(
        &mut self,
        t: Nanos,
        path: &Path,
        parent: &ContainerInfo,
    ) -> Result<ContainerInfo, WriteError> {
        let (parent_alias, parent_type) = (parent.alias.clone(), parent.type_alias.clone());
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
        self.containers.insert(path, info.clone());
        // Without an Alias field the name must identify the container.
        let def_has_alias = self
            .dialect
            .find(EventKind::CreateContainer, &[])
            .is_some_and(|i| self.dialect.defs()[i].slot(Field::Alias).is_some());
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

    /// A container records may be written on: alive.
    pub(super) fn live(&mut self, t: Nanos, path: &Path) -> Result<ContainerInfo, WriteError> {
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
}

/// A colour for a name, stable across runs: a hue from the name's hash,
/// as `"r g b"` in 0..1.
pub(super) fn color_of(name: &str) -> String {
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

/// The one alias `found` holds; an error saying `missing` when it holds
/// none, `ambiguous` when it holds several.
fn only_one(
    mut found: impl Iterator<Item = Arc<str>>,
    missing: impl FnOnce() -> String,
    ambiguous: impl FnOnce() -> String,
) -> Result<Arc<str>, WriteError> {
    match (found.next(), found.next()) {
        (Some(a), None) => Ok(a),
        (None, _) => Err(WriteError::Record(missing())),
        (Some(_), Some(_)) => Err(WriteError::Record(ambiguous())),
    }
}
