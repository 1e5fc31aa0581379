//! The timed events: containers created and destroyed, states, events,
//! variables and links, each container on its clock or all on one.

use std::collections::{BTreeMap, BTreeSet};

use super::{Cont, Ek, Gen, Pending};
use crate::kinds::{F, K};

impl Gen<'_> {
    pub(super) fn tick(&mut self, c: usize) -> u64 {
        if let Some(t) = self.force_time.take() {
            self.clock = t;
            self.conts[c].clock = t;
            return t;
        }
        let d = if self.r.chance(0.25) {
            0
        } else if self.r.chance(0.9) {
            self.r.range(1, 2000) as u64
        } else {
            self.r.range(1, 3_000_000) as u64
        };
        if self.o.global_clock {
            self.clock += d;
            self.clock
        } else {
            self.conts[c].clock += d;
            self.conts[c].clock
        }
    }

    /// Destroys (or creates) a container strictly after every other event.
    pub(super) fn closing_event(&mut self) {
        self.finish_links();
        let latest = self
            .conts
            .iter()
            .map(|c| c.clock)
            .max()
            .unwrap_or(0)
            .max(self.clock);
        let t = latest + self.r.range(1, 1000) as u64;
        let alive: Vec<usize> = (1..self.conts.len())
            .filter(|&c| self.conts[c].alive)
            .collect();
        self.force_time = Some(t);
        if alive.is_empty() {
            let ct = *self.r.pick(&self.cts[0].children.clone());
            self.uncapped = true;
            self.create(0, ct);
            self.uncapped = false;
        } else {
            let c = *self.r.pick(&alive);
            self.destroy(c);
        }
        self.force_time = None;
    }

    pub(super) fn initial_containers(&mut self, c: usize) {
        let ct = self.conts[c].ct;
        for child_ct in self.cts[ct].children.clone() {
            let n = self.r.range(1, self.o.max_children.max(1));
            for _ in 0..n {
                if let Some(child) = self.create(c, child_ct) {
                    self.initial_containers(child);
                }
            }
        }
    }

    pub(super) fn create(&mut self, parent: usize, ct: usize) -> Option<usize> {
        if self.conts.len() > self.o.max_containers && !self.uncapped {
            return None;
        }
        self.ensure_ct(ct);
        let base = self.cts[ct].name.trim_matches('"').to_lowercase();
        let base: String = base.chars().filter(|c| c.is_ascii_alphabetic()).collect();
        let (name, alias) = if self.o.aliases {
            // Names may repeat under aliases: number them within the parent.
            let k = self.conts[parent].children.len();
            let name = if self.o.quoted_names && self.r.chance(0.4) {
                format!("\"{base} {k}\"")
            } else {
                format!("{base}{k}")
            };
            (name, self.alias("c"))
        } else {
            (self.name(&base), None)
        };
        let t = self.tick(parent);
        let id = self.conts.len();
        self.conts.push(Cont {
            name,
            alias,
            ct,
            alive: true,
            children: Vec::new(),
            clock: t,
            state_depth: BTreeMap::new(),
            var_set: BTreeSet::new(),
            next_key: 0,
        });
        self.conts[parent].children.push(id);
        let ts = self.time_str(t);
        let mut vals = vec![
            (F::Time, ts),
            (F::Name, self.conts[id].name.clone()),
            (F::Type, self.ct_ident(ct)),
            (F::Container, self.c_ident(parent)),
        ];
        if let Some(a) = &self.conts[id].alias {
            vals.push((F::Alias, a.clone()));
        }
        self.event(K::Create, &vals);
        Some(id)
    }

    pub(super) fn subtree(&self, c: usize, out: &mut Vec<usize>) {
        out.push(c);
        for &ch in &self.conts[c].children {
            self.subtree(ch, out);
        }
    }

    pub(super) fn destroy(&mut self, c: usize) {
        self.finish_links();
        let mut sub = Vec::new();
        self.subtree(c, &mut sub);
        let t = if self.o.global_clock {
            self.tick(c)
        } else {
            let latest = sub.iter().map(|&x| self.conts[x].clock).max().unwrap_or(0);
            self.conts[c].clock = latest;
            self.tick(c)
        };
        for &x in &sub {
            self.conts[x].alive = false;
        }
        let ts = self.time_str(t);
        let vals = vec![
            (F::Time, ts),
            (F::Name, self.c_ident(c)),
            (F::Type, self.ct_ident(self.conts[c].ct)),
        ];
        self.event(K::Destroy, &vals);
    }

    // ----- entities ---------------------------------------------------

    /// One random action; returns the number of entity events written.
    pub(super) fn step(&mut self) -> usize {
        let alive: Vec<usize> = (0..self.conts.len())
            .filter(|&c| self.conts[c].alive)
            .collect();
        let roll = self.r.below(100);
        if roll < 2 && self.o.dynamic_containers {
            let p = *self.r.pick(&alive);
            let ct = self.conts[p].ct;
            if let Some(&child_ct) = self.cts[ct].children.first() {
                let child_ct = if self.r.chance(0.5) {
                    *self.r.pick(&self.cts[ct].children.clone())
                } else {
                    child_ct
                };
                self.create(p, child_ct);
            }
            return 0;
        }
        if roll < 3 && self.o.destroy_containers && alive.len() > 2 {
            let c = alive[1 + self.r.below(alive.len() - 1)];
            self.destroy(c);
            return 0;
        }
        if roll < 25 && !self.pending.is_empty() {
            let i = self.r.below(self.pending.len());
            self.complete_link(i);
            return 1;
        }
        if roll < 45 && self.o.links && self.start_link(&alive) {
            return 1;
        }
        let c = *self.r.pick(&alive);
        let ct = self.conts[c].ct;
        let ets: Vec<usize> = self.cts[ct]
            .etypes
            .iter()
            .copied()
            .filter(|&e| self.ets[e].kind != Ek::Link)
            .collect();
        if ets.is_empty() {
            // Nothing to do here: let time pass.
            self.tick(c);
            return 1;
        }
        let et = *self.r.pick(&ets);
        match self.ets[et].kind {
            Ek::State => self.state_op(c, et),
            Ek::Event => {
                let v = self.r.below(self.ets[et].values.len());
                let value = self.value_token(et, v);
                self.simple(K::NewEv, c, et, Some(value));
            }
            Ek::Var => self.var_op(c, et),
            Ek::Link => unreachable!(),
        }
        1
    }

    pub(super) fn value_token(&mut self, et: usize, v: usize) -> String {
        self.ensure_value(et, v);
        self.v_ident(et, v)
    }

    pub(super) fn simple(&mut self, kind: K, c: usize, et: usize, value: Option<String>) {
        self.ensure_et(et);
        let t = self.tick(c);
        let ts = self.time_str(t);
        let mut vals = vec![
            (F::Time, ts),
            (F::Type, self.et_ident(et)),
            (F::Container, self.c_ident(c)),
        ];
        if let Some(v) = value {
            vals.push((F::Value, v));
        }
        self.event(kind, &vals);
    }

    pub(super) fn state_op(&mut self, c: usize, et: usize) {
        let depth = *self.conts[c].state_depth.get(&et).unwrap_or(&0);
        let max = self.o.max_state_depth.max(1);
        let mut ops = vec![K::Set];
        if depth < max {
            ops.extend([K::Push, K::Push]);
        }
        if depth > 0 {
            ops.extend([K::Pop, K::Pop, K::Pop]);
            if self.o.reset_state {
                ops.push(K::Reset);
            }
        }
        let op = *self.r.pick(&ops);
        let new_depth = match op {
            K::Set => 1,
            K::Push => depth + 1,
            K::Pop => depth - 1,
            _ => 0,
        };
        self.conts[c].state_depth.insert(et, new_depth);
        let value = if matches!(op, K::Set | K::Push) {
            let v = self.r.below(self.ets[et].values.len());
            Some(self.value_token(et, v))
        } else {
            None
        };
        self.simple(op, c, et, value);
    }

    pub(super) fn var_op(&mut self, c: usize, et: usize) {
        let op = if self.conts[c].var_set.contains(&et) {
            *self.r.pick(&[K::SetV, K::AddV, K::AddV, K::SubV])
        } else {
            K::SetV
        };
        self.conts[c].var_set.insert(et);
        let v = match self.r.below(8) {
            0 => "0.1".to_string(),
            1 => format!("{}", self.r.below(100)),
            2 => format!("{}.25", self.r.below(1000)),
            3 => format!("-{}.5", self.r.below(10)),
            4 => "1e3".to_string(),
            5 => format!("{}.{:03}", self.r.below(100_000), self.r.below(1000)),
            6 => "3.14159265".to_string(),
            _ => format!("{}", self.r.below(5)),
        };
        self.simple(op, c, et, Some(v));
    }

    pub(super) fn start_link(&mut self, alive: &[usize]) -> bool {
        let links: Vec<usize> = (0..self.ets.len())
            .filter(|&e| self.ets[e].kind == Ek::Link)
            .collect();
        if links.is_empty() {
            return false;
        }
        let et = *self.r.pick(&links);
        let l = self.ets[et].clone();
        let of = |ct: usize| -> Vec<usize> {
            alive
                .iter()
                .copied()
                .filter(|&c| self.conts[c].ct == ct)
                .collect()
        };
        let (cs, ss, es) = (of(l.ct), of(l.start_ct), of(l.end_ct));
        if cs.is_empty() || ss.is_empty() || es.is_empty() {
            return false;
        }
        let c = *self.r.pick(&cs);
        let s = *self.r.pick(&ss);
        let e = *self.r.pick(&es);
        let value = self.r.below(l.values.len());
        let k = self.conts[c].next_key;
        self.conts[c].next_key += 1 + self.r.below(3) as u64;
        let key = if self.r.chance(0.5) {
            k.to_string()
        } else {
            format!("k{k}")
        };
        let start_first = !self.o.reversed_links || self.r.chance(0.7);
        let p = Pending {
            cont: c,
            et,
            key,
            value,
            start_first,
            other: if start_first { e } else { s },
        };
        self.link_event(&p, start_first, if start_first { s } else { e });
        self.pending.push(p);
        true
    }

    pub(super) fn link_event(&mut self, p: &Pending, start: bool, other: usize) {
        self.ensure_et(p.et);
        let value = self.value_token(p.et, p.value);
        let t = self.tick(p.cont);
        let ts = self.time_str(t);
        let vals = vec![
            (F::Time, ts),
            (F::Type, self.et_ident(p.et)),
            (F::Container, self.c_ident(p.cont)),
            (F::Value, value),
            (
                if start {
                    F::StartContainer
                } else {
                    F::EndContainer
                },
                self.c_ident(other),
            ),
            (F::Key, p.key.clone()),
        ];
        self.event(if start { K::StartL } else { K::EndL }, &vals);
    }

    pub(super) fn complete_link(&mut self, i: usize) {
        let p = self.pending.swap_remove(i);
        self.link_event(&p, !p.start_first, p.other);
    }

    pub(super) fn finish_links(&mut self) {
        while !self.pending.is_empty() {
            let i = self.r.below(self.pending.len());
            self.complete_link(i);
        }
    }
}
