//! The parts of a model a replay checks events against.

use super::NONE;
use crate::model::{Model, TypeKind};

/// The parts of a model a replay checks events against, in flat tables.
#[derive(Clone, Debug, Default)]
pub struct ReplayTables {
    pub(super) type_kind: Vec<TypeKind>,
    pub(super) type_parent: Vec<u32>,
    pub(super) type_start: Vec<u32>,
    pub(super) type_end: Vec<u32>,
    pub(super) type_name: Vec<String>,
    pub(super) cont_ty: Vec<u32>,
    pub(super) cont_name: Vec<String>,
    pub(super) children: Vec<Vec<u32>>,
    pub(super) value_ty: Vec<u32>,
}

impl ReplayTables {
    /// Tables of `model`.
    pub fn new(model: &Model) -> ReplayTables {
        let mut t = ReplayTables::default();
        t.sync(model);
        t
    }

    /// Adds what `model` has gained since the last call (types, values and
    /// containers are only ever added).
    pub fn sync(&mut self, model: &Model) {
        let name = |id| String::from_utf8_lossy(model.str(id)).into_owned();
        for ty in &model.types[self.type_kind.len()..] {
            self.type_kind.push(ty.kind);
            self.type_parent.push(ty.parent.map_or(NONE, |p| p.0));
            self.type_start.push(ty.start_type.map_or(NONE, |p| p.0));
            self.type_end.push(ty.end_type.map_or(NONE, |p| p.0));
            self.type_name.push(name(ty.name));
        }
        for v in &model.values[self.value_ty.len()..] {
            self.value_ty.push(v.ty.0);
        }
        let first = self.cont_ty.len();
        for (i, c) in model.containers.iter().enumerate().skip(first) {
            self.cont_ty.push(c.ty.0);
            self.cont_name.push(name(c.name));
            self.children.push(Vec::new());
            if let Some(p) = c.parent {
                if let Some(ch) = self.children.get_mut(p.index()) {
                    ch.push(i as u32);
                }
            }
        }
    }

    /// Number of types.
    pub fn types(&self) -> usize {
        self.type_kind.len()
    }

    /// The nature of a type.
    pub fn type_kind(&self, ty: u32) -> Option<TypeKind> {
        self.type_kind.get(ty as usize).copied()
    }

    /// The type of a container.
    pub fn container_type(&self, c: u32) -> Option<u32> {
        self.cont_ty.get(c as usize).copied()
    }

    /// The type a value belongs to.
    pub fn value_type(&self, v: u32) -> Option<u32> {
        self.value_ty.get(v as usize).copied()
    }
}
