//! The type hierarchy, the container tree and the entity values: the part of
//! a trace that the simulator builds and every consumer reads.

use crate::idmap::IdMap;
use crate::intern::{Interner, Scratch, StrId};

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            /// The index of this handle.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// Handle of a type (container, state, event, variable or link type).
    TypeId
);
id_type!(
    /// Handle of a container.
    ContainerId
);
id_type!(
    /// Handle of a value of a state, event or link type.
    ValueId
);
id_type!(
    /// Handle of an entity list: the entities of one type in one container.
    ListId
);

impl TypeId {
    /// The root container type `0`.
    pub const ROOT: TypeId = TypeId(0);
}

impl ContainerId {
    /// The root container `0`.
    pub const ROOT: ContainerId = ContainerId(0);
}

/// The nature of a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// Containers (nodes, processes, threads…).
    Container,
    /// States, nested in stacks.
    State,
    /// Punctual events.
    Event,
    /// Variables: step functions of time.
    Variable,
    /// Links between two containers.
    Link,
}

impl TypeKind {
    /// The word pj_dump prints for entities of this kind.
    pub fn label(self) -> &'static str {
        match self {
            TypeKind::Container => "Container",
            TypeKind::State => "State",
            TypeKind::Event => "Event",
            TypeKind::Variable => "Variable",
            TypeKind::Link => "Link",
        }
    }

    /// The kind's name in lower case (`container`, `state`, `event`,
    /// `variable`, `link`), as messages and the exports name it.
    pub fn name(self) -> &'static str {
        match self {
            TypeKind::Container => "container",
            TypeKind::State => "state",
            TypeKind::Event => "event",
            TypeKind::Variable => "variable",
            TypeKind::Link => "link",
        }
    }
}

/// A type of the hierarchy.
#[derive(Clone, Debug)]
pub struct TypeInfo {
    /// Its name.
    pub name: StrId,
    /// Its alias ([`StrId::EMPTY`] when none).
    pub alias: StrId,
    /// Its nature.
    pub kind: TypeKind,
    /// The container type it belongs to (none for the root type).
    pub parent: Option<TypeId>,
    /// Depth in the hierarchy (root type = 0).
    pub depth: u32,
    /// For link types: the type of start containers.
    pub start_type: Option<TypeId>,
    /// For link types: the type of end containers.
    pub end_type: Option<TypeId>,
    /// The color given at definition ([`StrId::EMPTY`] when none).
    pub color: StrId,
    /// Child types, in byte order of their identifier.
    pub children: Vec<TypeId>,
}

impl TypeInfo {
    /// The identifier: the alias if any, else the name.
    pub fn ident(&self) -> StrId {
        self.alias.or(self.name)
    }
}

/// A value of a state, event or link type.
#[derive(Clone, Debug)]
pub struct ValueInfo {
    /// The type it belongs to.
    pub ty: TypeId,
    /// Its name (what dumps print).
    pub name: StrId,
    /// Its alias ([`StrId::EMPTY`] when none).
    pub alias: StrId,
    /// Its color ([`StrId::EMPTY`] when none).
    pub color: StrId,
}

/// A container.
#[derive(Clone, Debug)]
pub struct ContainerInfo {
    /// Its name.
    pub name: StrId,
    /// Its alias ([`StrId::EMPTY`] when none).
    pub alias: StrId,
    /// Its type.
    pub ty: TypeId,
    /// Its parent (none for the root).
    pub parent: Option<ContainerId>,
    /// Creation time.
    pub start: f64,
    /// Destruction time (-1 while alive).
    pub end: f64,
    /// Depth in the tree (root = 0).
    pub depth: u32,
    /// User-defined fields of the creating event, as flat (name, value) pairs.
    pub extras: Vec<StrId>,
    /// Children, in byte order of their identifier.
    pub children: Vec<ContainerId>,
    /// Entity lists of this container, one per type that has entities.
    pub lists: Vec<(TypeId, ListId)>,
}

impl ContainerInfo {
    /// The identifier: the alias if any, else the name.
    pub fn ident(&self) -> StrId {
        self.alias.or(self.name)
    }
}

/// The entities of one type in one container.
#[derive(Clone, Copy, Debug)]
pub struct ListInfo {
    /// The container.
    pub container: ContainerId,
    /// The type.
    pub ty: TypeId,
    /// The nature of the type.
    pub kind: TypeKind,
}

/// Types, values, containers and strings of a trace.
#[derive(Clone, Debug)]
pub struct Model {
    /// Every string.
    pub strings: Interner,
    /// Every type; [`TypeId::ROOT`] is the root type `0`.
    pub types: Vec<TypeInfo>,
    /// Every value of every categorized type.
    pub values: Vec<ValueInfo>,
    /// Every container; [`ContainerId::ROOT`] is the root `0`.
    pub containers: Vec<ContainerInfo>,
    /// Every entity list.
    pub lists: Vec<ListInfo>,
    pub(crate) type_by_ident: IdMap<TypeId>,
    pub(crate) container_by_ident: IdMap<ContainerId>,
    pub(crate) values_by_type: Vec<IdMap<ValueId>>,
    /// User-defined values of entities in flight, when the sink does not
    /// keep them ([`Sink::keeps_strings`](crate::Sink::keeps_strings)).
    pub(crate) scratch: Scratch,
}

impl Default for Model {
    fn default() -> Self {
        let mut strings = Interner::default();
        let zero = strings.intern(b"0");
        let mut m = Model {
            strings,
            types: vec![TypeInfo {
                name: zero,
                alias: zero,
                kind: TypeKind::Container,
                parent: None,
                depth: 0,
                start_type: None,
                end_type: None,
                color: StrId::EMPTY,
                children: Vec::new(),
            }],
            values: Vec::new(),
            containers: vec![ContainerInfo {
                name: zero,
                alias: zero,
                ty: TypeId::ROOT,
                parent: None,
                start: 0.0,
                end: -1.0,
                depth: 0,
                extras: Vec::new(),
                children: Vec::new(),
                lists: Vec::new(),
            }],
            lists: Vec::new(),
            type_by_ident: IdMap::default(),
            container_by_ident: IdMap::default(),
            values_by_type: vec![IdMap::default()],
            scratch: Scratch::default(),
        };
        m.type_by_ident.insert(b"0", TypeId::ROOT);
        m.container_by_ident.insert(b"0", ContainerId::ROOT);
        m
    }
}

/// The nodes of a tree of `size` nodes in depth-first order from `root`,
/// each node's children in the order `children` gives them.
fn depth_first<'a, I: Copy + 'a>(root: I, size: usize, children: impl Fn(I) -> &'a [I]) -> Vec<I> {
    let mut out = Vec::with_capacity(size);
    let mut stack = vec![root];
    while let Some(x) = stack.pop() {
        out.push(x);
        stack.extend(children(x).iter().rev());
    }
    out
}

/// For each `name(Id) -> Info = field`, the method `name` that gives the
/// element of `field` an `Id` designates.
macro_rules! accessors {
    ($($(#[$doc:meta])* $name:ident($id:ty) -> $info:ty = $field:ident;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name(&self, id: $id) -> &$info {
            &self.$field[id.index()]
        }
    )*};
}

/// `s` without one pair of surrounding double quotes.
fn unquoted(s: &[u8]) -> &[u8] {
    match s {
        [b'"', inner @ .., b'"'] => inner,
        _ => s,
    }
}

/// The text of `s` as people read it (see [`Model::label`]).
pub fn label(s: &[u8]) -> String {
    String::from_utf8_lossy(unquoted(s)).into_owned()
}

impl Model {
    /// A string's bytes.
    #[inline]
    pub fn str(&self, id: StrId) -> &[u8] {
        if Scratch::holds(id) {
            self.scratch.get(id)
        } else {
            self.strings.get(id)
        }
    }

    /// A string as people read it: its text without the double quotes
    /// PajeNG keeps as part of a quoted name (`"MPI State"` is shown as
    /// `MPI State`). The dump keeps the exact bytes ([`Model::str`]).
    pub fn label(&self, id: StrId) -> String {
        label(self.str(id))
    }

    /// Whether `name`, as a person types it, names the string `id`: its
    /// exact text or its [label](Model::label).
    pub fn names(&self, id: StrId, name: &str) -> bool {
        let s = self.str(id);
        s == name.as_bytes() || unquoted(s) == name.as_bytes()
    }

    accessors! {
        /// A type.
        ty(TypeId) -> TypeInfo = types;
        /// A container.
        container(ContainerId) -> ContainerInfo = containers;
        /// A value.
        value(ValueId) -> ValueInfo = values;
        /// A list.
        list(ListId) -> ListInfo = lists;
    }

    /// The type with this identifier (alias, or name when it has no alias).
    pub fn type_by_ident(&self, ident: &[u8]) -> Option<TypeId> {
        self.type_by_ident.get(ident)
    }

    /// The container with this identifier (alias, or name when it has no alias).
    pub fn container_by_ident(&self, ident: &[u8]) -> Option<ContainerId> {
        self.container_by_ident.get(ident)
    }

    /// The value of `ty` with this identifier.
    pub fn value_by_ident(&self, ty: TypeId, ident: &[u8]) -> Option<ValueId> {
        self.values_by_type.get(ty.index())?.get(ident)
    }

    /// Each value's label, as legends and tables show it: its name as
    /// people read it ([`Model::label`]), followed by its alias in
    /// parentheses when another value of its type has the same name and
    /// this one has an alias other than its name (`compute (c1)` beside
    /// `compute`), so that two values never read alike.
    pub fn value_labels(&self) -> Vec<String> {
        let names: Vec<String> = self.values.iter().map(|v| self.label(v.name)).collect();
        let mut count: std::collections::HashMap<(TypeId, &str), u32> = Default::default();
        for (v, n) in self.values.iter().zip(&names) {
            *count.entry((v.ty, n)).or_default() += 1;
        }
        self.values
            .iter()
            .zip(&names)
            .map(|(v, n)| {
                let alias = unquoted(self.str(v.alias));
                if count[&(v.ty, n.as_str())] > 1 && !alias.is_empty() && alias != n.as_bytes() {
                    format!("{n} ({})", String::from_utf8_lossy(alias))
                } else {
                    n.clone()
                }
            })
            .collect()
    }

    /// Values of a type, in definition order.
    pub fn values_of(&self, ty: TypeId) -> impl Iterator<Item = ValueId> + '_ {
        self.values
            .iter()
            .enumerate()
            .filter(move |(_, v)| v.ty == ty)
            .map(|(i, _)| ValueId(i as u32))
    }

    /// The list of entities of `ty` in `container`, if it has any.
    pub fn list_of(&self, container: ContainerId, ty: TypeId) -> Option<ListId> {
        self.containers[container.index()]
            .lists
            .iter()
            .find(|(t, _)| *t == ty)
            .map(|(_, l)| *l)
    }

    /// Containers in depth-first order from the root, each container's
    /// children in [`Model::children_in_order`]: the order of every view
    /// (the dump keeps PajeNG's, [`ContainerInfo::children`]).
    pub fn containers_depth_first(&self) -> Vec<ContainerId> {
        let mut out = Vec::with_capacity(self.containers.len());
        let mut stack = vec![ContainerId::ROOT];
        while let Some(c) = stack.pop() {
            out.push(c);
            stack.extend(self.children_in_order(c).into_iter().rev());
        }
        out
    }

    /// The children of `c` in [natural order](crate::natural_cmp) of their
    /// identifiers (alias, else name, as people read them): `rank-9` before
    /// `rank-10`, SimGrid's numbered hosts in their numbers' order.
    pub fn children_in_order(&self, c: ContainerId) -> Vec<ContainerId> {
        let mut v = self.container(c).children.clone();
        let ident = |c: &ContainerId| unquoted(self.str(self.container(*c).ident()));
        v.sort_by(|a, b| crate::natural::natural_cmp_bytes(ident(a), ident(b)));
        v
    }

    /// Types in depth-first order from the root type, children in identifier order.
    pub fn types_depth_first(&self) -> Vec<TypeId> {
        depth_first(TypeId::ROOT, self.types.len(), |t| &self.ty(t).children)
    }

    /// Sorts `ids` by the identifier bytes given by `key`.
    pub(crate) fn insert_sorted<T: Copy>(
        strings: &Interner,
        v: &mut Vec<T>,
        item: T,
        key: impl Fn(T) -> StrId,
    ) {
        let k = strings.get(key(item));
        let pos = v.partition_point(|&x| strings.get(key(x)) < k);
        v.insert(pos, item);
    }
}
