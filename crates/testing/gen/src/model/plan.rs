//! Planning: the `%EventDef` definitions of each kind, the container
//! types and the entity types with their values, names and colours.

use super::{Ct, Ek, Et, Gen, Val};
use crate::kinds::{Def, Slot, EXTRA_NAMES, F, KINDS};

impl Gen<'_> {
    pub(super) fn plan_definitions(&mut self) {
        let mut next_id = *self.r.pick(&[0usize, 1, 10, 100]);
        let per_kind = self.o.ids_per_kind.max(1);
        for kind in KINDS {
            let n = if per_kind == 1 {
                1
            } else {
                self.r.range(1, per_kind)
            };
            for i in 0..n {
                let mut fields: Vec<F> = kind.obligatory().to_vec();
                if self.o.aliases && kind.takes_alias() {
                    fields.push(F::Alias);
                }
                if kind.takes_color() && self.r.chance(0.5) {
                    fields.push(F::Color);
                }
                let mut slots: Vec<Slot> = fields.iter().map(|&f| Slot::Std(f)).collect();
                let mut extras: Vec<&'static str> = Vec::new();
                if self.o.extra_fields && kind.takes_extras() && (i > 0 || self.r.chance(0.5)) {
                    for _ in 0..self.r.range(1, 2) {
                        let e = *self.r.pick(&EXTRA_NAMES);
                        if !extras.contains(&e) {
                            extras.push(e);
                            slots.push(Slot::Extra(extras.len() - 1));
                        }
                    }
                }
                if self.o.shuffle_fields && (i > 0 || self.r.chance(0.5)) {
                    self.r.shuffle(&mut slots);
                }
                let header = slots
                    .iter()
                    .map(|s| match *s {
                        Slot::Std(f) => {
                            let name = match f.old_name(kind) {
                                Some(old) if self.o.old_field_names && self.r.chance(0.5) => old,
                                _ => f.name(),
                            };
                            (name.to_string(), f.ty(kind))
                        }
                        Slot::Extra(e) => (
                            extras[e].to_string(),
                            *self.r.pick(&["string", "int", "double"]),
                        ),
                    })
                    .collect();
                let id = next_id.to_string();
                next_id += self.r.range(1, 3);
                self.defs_of.entry(kind).or_default().push(self.defs.len());
                self.defs.push(Def {
                    id,
                    kind,
                    header,
                    slots,
                    written: false,
                });
            }
        }
    }

    pub(super) fn fresh(&mut self) -> usize {
        self.counter += 1;
        self.counter
    }

    /// A name from `base`: unique, and quoted with a space sometimes.
    pub(super) fn name(&mut self, base: &str) -> String {
        let n = self.fresh();
        if self.o.quoted_names && self.r.chance(0.4) {
            format!("\"{base} {n}\"")
        } else {
            format!("{base}{n}")
        }
    }

    pub(super) fn alias(&mut self, prefix: &str) -> Option<String> {
        if self.o.aliases {
            let n = self.fresh();
            Some(format!("{prefix}{n}"))
        } else {
            None
        }
    }

    pub(super) fn plan_types(&mut self) {
        self.cts.push(Ct {
            name: "0".into(),
            alias: None,
            parent: usize::MAX,
            children: Vec::new(),
            etypes: Vec::new(),
            defined: true,
        });
        let depth = self.o.container_depth.max(1);
        let mut level: Vec<usize> = vec![0];
        for l in 1..=depth {
            let mut next = Vec::new();
            for (i, &p) in level.clone().iter().enumerate() {
                // The first container type of a level always has children,
                // so that every level exists.
                let n = if l == 1 || i == 0 {
                    self.r.range(1, 2)
                } else {
                    self.r.range(0, 2)
                };
                for _ in 0..n {
                    let base = *self
                        .r
                        .pick(&["Proc", "Thread", "Host", "Node", "Rank", "Worker"]);
                    let name = self.name(base);
                    let alias = self.alias("T");
                    let id = self.cts.len();
                    self.cts.push(Ct {
                        name,
                        alias,
                        parent: p,
                        children: Vec::new(),
                        etypes: Vec::new(),
                        defined: false,
                    });
                    self.cts[p].children.push(id);
                    next.push(id);
                }
            }
            level = next;
        }
        for ct in 0..self.cts.len() {
            let root = ct == 0;
            if root && !self.o.root_entities {
                continue;
            }
            self.some_etypes(Ek::State, ct, 1);
            if !root && self.r.chance(0.6) {
                self.new_etype(Ek::Event, ct);
            }
            if self.o.variables {
                self.some_etypes(Ek::Var, ct, 0);
            }
        }
        if self.o.links && self.cts.len() > 1 {
            let mut any = false;
            let first = usize::from(!self.o.root_entities);
            for ct in first..self.cts.len() {
                if self.r.chance(0.5) || (!any && ct + 1 == self.cts.len()) {
                    self.new_etype(Ek::Link, ct);
                    any = true;
                }
            }
        }
    }

    /// Entity types of `kind` in container type `ct`: none or one (30 %)
    /// in the root, `min` to 2 elsewhere.
    fn some_etypes(&mut self, kind: Ek, ct: usize, min: usize) {
        let n = if ct == 0 {
            usize::from(self.r.chance(0.3))
        } else {
            self.r.range(min, 2)
        };
        for _ in 0..n {
            self.new_etype(kind, ct);
        }
    }

    pub(super) fn new_etype(&mut self, kind: Ek, ct: usize) {
        let base = match kind {
            Ek::State => *self.r.pick(&["State", "MPI State", "Activity"]),
            Ek::Event => *self.r.pick(&["Event", "Signal"]),
            Ek::Var => *self.r.pick(&["Mem", "Power", "Load"]),
            Ek::Link => *self.r.pick(&["Comm", "Msg"]),
        };
        let base = base.replace(' ', "_");
        let name = self.name(&base);
        let alias = self.alias("T");
        let (mut start_ct, mut end_ct) = (0, 0);
        if kind == Ek::Link {
            start_ct = self.r.range(1, self.cts.len() - 1);
            end_ct = self.r.range(1, self.cts.len() - 1);
        }
        let mut values = Vec::new();
        if kind != Ek::Var {
            let words: &[&str] = match kind {
                Ek::State => &["run", "wait", "MPI_Send", "MPI Recv", "idle", "io"],
                Ek::Event => &["tick", "fault", "mark"],
                _ => &["msg", "data", "ctl"],
            };
            for _ in 0..self.r.range(1, 4) {
                let w = self.r.pick(words).replace(' ', "_");
                let name = self.name(&w);
                let explicit = self.r.chance(0.5);
                let alias = if explicit && self.r.chance(0.7) {
                    self.alias("v")
                } else {
                    None
                };
                values.push(Val {
                    name,
                    alias,
                    defined: !explicit,
                });
            }
        }
        let color = self.color();
        let id = self.ets.len();
        self.ets.push(Et {
            kind,
            name,
            alias,
            ct,
            start_ct,
            end_ct,
            values,
            defined: false,
            color,
        });
        self.cts[ct].etypes.push(id);
    }

    pub(super) fn color(&mut self) -> String {
        let c = [
            self.r.below(11) as f64 / 10.0,
            self.r.below(11) as f64 / 10.0,
            self.r.below(11) as f64 / 10.0,
        ];
        if self.o.quoted_names {
            format!("\"{} {} {}\"", c[0], c[1], c[2])
        } else {
            format!("{},{},{}", c[0], c[1], c[2])
        }
    }
}
