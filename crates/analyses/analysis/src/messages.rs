//! Which links are messages.
//!
//! The analyses of communication (matrix, ordering, Kiviat series, wait
//! attribution, slices, graph) count the links of the types a [`Messages`]
//! selects. By default every link type counts except those whose links all
//! last zero seconds: SimGrid's platform links (drawn at time 0 from host
//! to link and link to link) and its actor migrations describe the
//! topology, not messages. The selection says what it left out, so that
//! outputs can tell the reader; naming link types selects exactly those.

use serde::Serialize;
use trama_sim::{ListId, Trace, TypeId, TypeKind};

/// The link types whose links count as messages.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Messages {
    /// The link types counted; `None`: every one.
    #[serde(skip)]
    types: Option<Vec<TypeId>>,
    /// Link types left out by default, each with its number of links (all
    /// of zero duration).
    pub left_out: Vec<(String, u64)>,
}

/// A link type named in a selection that the trace does not have.
#[derive(Debug, thiserror::Error)]
#[error("--link-type: no link type is called '{name}' (the trace has: {known})")]
pub struct UnknownLinkType {
    /// The name given.
    pub name: String,
    /// The trace's link types, comma-separated.
    pub known: String,
}

impl Messages {
    /// Every link, whatever its type.
    pub fn all() -> Messages {
        Messages::default()
    }

    /// The link types called `names` (name or alias), or by default (no
    /// name) every link type but those whose links all last zero seconds.
    pub fn select(trace: &Trace, names: &[String]) -> Result<Messages, UnknownLinkType> {
        let m = &trace.model;
        let link_types: Vec<TypeId> = (0..m.types.len() as u32)
            .map(TypeId)
            .filter(|t| m.ty(*t).kind == TypeKind::Link)
            .collect();
        if !names.is_empty() {
            let mut types = Vec::new();
            for n in names {
                let Some(t) = link_types
                    .iter()
                    .find(|t| m.names(m.ty(**t).name, n) || m.names(m.ty(**t).alias, n))
                else {
                    return Err(UnknownLinkType {
                        name: n.clone(),
                        known: link_types
                            .iter()
                            .map(|t| m.label(m.ty(*t).name))
                            .collect::<Vec<_>>()
                            .join(", "),
                    });
                };
                types.push(*t);
            }
            return Ok(Messages {
                types: Some(types),
                left_out: Vec::new(),
            });
        }
        Ok(Messages::from_tally(trace, &Messages::tally(trace)))
    }

    /// Per type (by id): its links in `trace`, and whether one of them
    /// lasts some time. Tallies of parts of a trace add up with
    /// [`Messages::add_tally`].
    pub fn tally(trace: &Trace) -> Vec<(u64, bool)> {
        let m = &trace.model;
        let mut seen: Vec<(u64, bool)> = vec![(0, false); m.types.len()];
        for (l, info) in m.lists.iter().enumerate() {
            if info.kind != TypeKind::Link {
                continue;
            }
            let cols = &trace.lists[l];
            let s = &mut seen[info.ty.0 as usize];
            s.0 += cols.len() as u64;
            s.1 |= (0..cols.len()).any(|i| {
                let e = trace.entity(ListId(l as u32), i);
                e.end > e.start
            });
        }
        seen
    }

    /// Adds `part` (a [`Messages::tally`]) to `total`.
    pub fn add_tally(total: &mut Vec<(u64, bool)>, part: &[(u64, bool)]) {
        if total.len() < part.len() {
            total.resize(part.len(), (0, false));
        }
        for (t, p) in total.iter_mut().zip(part) {
            t.0 += p.0;
            t.1 |= p.1;
        }
    }

    /// The default selection (see [`Messages::select`]) from a tally of
    /// the links of `trace`'s link types.
    pub fn from_tally(trace: &Trace, seen: &[(u64, bool)]) -> Messages {
        let m = &trace.model;
        let at = |t: TypeId| seen.get(t.0 as usize).copied().unwrap_or((0, false));
        let (kept, left): (Vec<TypeId>, Vec<TypeId>) = (0..m.types.len() as u32)
            .map(TypeId)
            .filter(|t| m.ty(*t).kind == TypeKind::Link)
            .partition(|t| at(*t).1 || at(*t).0 == 0);
        Messages {
            left_out: left
                .iter()
                .map(|t| (m.label(m.ty(*t).name), at(*t).0))
                .collect(),
            types: (!left.is_empty()).then_some(kept),
        }
    }

    /// Whether the links of type `ty` count.
    pub fn counts(&self, ty: TypeId) -> bool {
        self.types.as_ref().is_none_or(|t| t.contains(&ty))
    }

    /// The link types a picture draws: `None` (every one) unless the
    /// default selection left some out, then those it counts.
    pub fn drawn(&self, trace: &Trace) -> Option<Vec<TypeId>> {
        (!self.left_out.is_empty()).then(|| {
            let m = &trace.model;
            (0..m.types.len() as u32)
                .map(TypeId)
                .filter(|t| m.ty(*t).kind == TypeKind::Link && self.counts(*t))
                .collect()
        })
    }

    /// A sentence for the reader about the link types left out, if any.
    pub fn note(&self) -> Option<String> {
        if self.left_out.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .left_out
            .iter()
            .map(|(n, k)| format!("{n} ({k} links)"))
            .collect();
        Some(format!(
            "link types whose links all last 0 s are not counted as messages (a platform's topology, not communication): {}; --link-type NAME counts a link type",
            list.join(", ")
        ))
    }
}
