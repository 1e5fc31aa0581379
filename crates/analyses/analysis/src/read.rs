//! Readings of a trace that the analyses share: names, the depth-first
//! order of containers, the lists of one kind, levels and links.

use std::collections::HashMap;

use trama_sim::{
    Columns, ContainerId, EntityRef, ListId, ListInfo, StrId, Trace, TypeId, TypeKind,
};

/// A string of the model, as people read it (without PajeNG's quotes).
pub(crate) fn text(trace: &Trace, id: StrId) -> String {
    trace.model.label(id)
}

/// A container's name.
pub(crate) fn container_name(trace: &Trace, c: ContainerId) -> String {
    text(trace, trace.model.container(c).name)
}

/// Each container's position in depth-first order.
pub(crate) fn depth_first_positions(trace: &Trace) -> HashMap<ContainerId, usize> {
    let order = trace.model.containers_depth_first();
    order.iter().enumerate().map(|(i, c)| (*c, i)).collect()
}

/// The entity lists of `kind`: each list's description and its columns.
pub(crate) fn lists_of(
    trace: &Trace,
    kind: TypeKind,
) -> impl Iterator<Item = (&ListInfo, &Columns)> + '_ {
    trace
        .model
        .lists
        .iter()
        .zip(&trace.lists)
        .filter(move |(info, _)| info.kind == kind)
}

/// A container type by name or alias.
pub(crate) fn container_type(trace: &Trace, name: &str) -> Option<TypeId> {
    let m = &trace.model;
    m.types
        .iter()
        .enumerate()
        .find(|(_, t)| {
            t.kind == TypeKind::Container && (m.names(t.name, name) || m.names(t.alias, name))
        })
        .map(|(i, _)| TypeId(i as u32))
}

/// The ancestor of `c` (itself included) of type `ty`.
pub(crate) fn ancestor(trace: &Trace, c: ContainerId, ty: TypeId) -> Option<ContainerId> {
    let m = &trace.model;
    let mut x = Some(c);
    while let Some(cur) = x {
        if m.container(cur).ty == ty {
            return Some(cur);
        }
        x = m.container(cur).parent;
    }
    None
}

/// What a container counts as at `level` (a container type's name or
/// alias): its ancestor of that type, or itself without a level; `None`
/// when no container type is called `level`.
pub(crate) fn placer<'a>(
    trace: &'a Trace,
    level: Option<&str>,
) -> Option<impl Fn(ContainerId) -> Option<ContainerId> + 'a> {
    let ty = match level {
        Some(l) => Some(container_type(trace, l)?),
        None => None,
    };
    Some(move |c| match ty {
        Some(t) => ancestor(trace, c, t),
        None => Some(c),
    })
}

/// Every message with both ends (a link of a type `messages` counts),
/// list by list: the link, its start container and its end container.
pub(crate) fn links<'a>(
    trace: &'a Trace,
    messages: &'a crate::Messages,
) -> impl Iterator<Item = (EntityRef<'a>, ContainerId, ContainerId)> + 'a {
    trace
        .model
        .lists
        .iter()
        .enumerate()
        .filter(|(_, info)| info.kind == TypeKind::Link && messages.counts(info.ty))
        .flat_map(move |(l, _)| {
            (0..trace.lists[l].len()).filter_map(move |i| {
                let e = trace.entity(ListId(l as u32), i);
                let (from, to) = (e.from?, e.to?);
                Some((e, from, to))
            })
        })
}
