//! Writing: lines with their noise, definitions and times, and the
//! definitions of types and values written before their first use.

use super::{ident, Ek, Gen};
use crate::kinds::{Slot, F, K};

impl Gen<'_> {
    pub(super) fn noise_before(&mut self) {
        if !self.o.noise {
            return;
        }
        let nl = self.nl;
        if self.r.chance(0.02) {
            self.out.push_str(nl);
        }
        if self.r.chance(0.02) {
            self.out
                .push_str(if self.r.chance(0.5) { "   \t" } else { "" });
            self.out.push_str(if self.o.quoted_names {
                "# a comment, with \"quotes\" and %EventDef"
            } else {
                "# a comment with %EventDef 1 2 3"
            });
            self.out.push_str(nl);
        }
    }

    pub(super) fn sep(&mut self) -> &'static str {
        if self.o.noise && self.r.chance(0.05) {
            const SEPARATORS: [&str; 3] = ["\t", "  ", " \t "];
            SEPARATORS[self.r.below(SEPARATORS.len())]
        } else {
            " "
        }
    }

    pub(super) fn line(&mut self, words: &[String]) {
        self.noise_before();
        if self.o.noise && self.r.chance(0.02) {
            self.out.push_str("  ");
        }
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                let s = self.sep();
                self.out.push_str(s);
            }
            self.out.push_str(w);
        }
        if self.o.noise && self.r.chance(0.02) {
            self.out.push_str(" # trailing comment");
        } else if self.o.noise && self.r.chance(0.02) {
            self.out.push_str(" \t");
        }
        let nl = self.nl;
        self.out.push_str(nl);
    }

    pub(super) fn write_def(&mut self, d: usize) {
        if self.defs[d].written {
            return;
        }
        self.defs[d].written = true;
        self.noise_before();
        let nl = self.nl;
        let def = self.defs[d].clone();
        let start = if self.o.noise && self.r.chance(0.2) {
            "% EventDef"
        } else {
            "%EventDef"
        };
        self.out
            .push_str(&format!("{start} {} {}{nl}", def.kind.name(), def.id));
        for (name, ty) in &def.header {
            let lead = if self.o.noise {
                *self.r.pick(&["% ", "%\t", "%  "])
            } else {
                "% "
            };
            self.out.push_str(&format!("{lead}{name} {ty}{nl}"));
        }
        let end = if self.o.noise && self.r.chance(0.2) {
            "% EndEventDef"
        } else {
            "%EndEventDef"
        };
        self.out.push_str(end);
        self.out.push_str(nl);
    }

    pub(super) fn time_str(&mut self, t: u64) -> String {
        let (i, f) = (t / 1000, t % 1000);
        if !self.o.varied_time_format {
            return format!("{i}.{f:03}");
        }
        match self.r.below(6) {
            0 if f == 0 => format!("{i}"),
            1 => format!("{i}.{f:03}000"),
            2 => format!("{t}e-3"),
            3 if t > 0 => {
                // d.ddd…eN
                let s = t.to_string();
                let exp = s.len() as i64 - 1 - 3;
                format!("{}.{}e{exp}", &s[..1], &s[1..])
            }
            _ => format!("{i}.{f:03}"),
        }
    }

    /// Writes one event with the given field values through one of the
    /// identifiers of `kind`.
    pub(super) fn event(&mut self, kind: K, vals: &[(F, String)]) {
        let ids = self.defs_of[&kind].clone();
        let d = *self.r.pick(&ids);
        self.write_def(d);
        let def = self.defs[d].clone();
        let mut words = vec![def.id.clone()];
        for s in &def.slots {
            match *s {
                Slot::Std(f) => {
                    let v = vals
                        .iter()
                        .find(|(g, _)| *g == f)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_else(|| panic!("no value for {f:?} of {kind:?}"));
                    words.push(v);
                }
                Slot::Extra(_) => {
                    let v = match self.r.below(4) {
                        0 => self.r.below(1000).to_string(),
                        1 => format!("x{}", self.r.below(50)),
                        2 => format!("{}.5", self.r.below(100)),
                        _ => {
                            if self.o.quoted_names {
                                format!("\"tag {}\"", self.r.below(9))
                            } else {
                                format!("t{}", self.r.below(9))
                            }
                        }
                    };
                    words.push(v);
                }
            }
        }
        if vals.iter().any(|(f, _)| *f == F::Time) {
            self.timed_events += 1;
        }
        self.line(&words);
    }

    // ----- definitions ------------------------------------------------

    pub(super) fn ct_ident(&self, ct: usize) -> String {
        ident(&self.cts[ct].name, &self.cts[ct].alias)
    }

    pub(super) fn et_ident(&self, et: usize) -> String {
        ident(&self.ets[et].name, &self.ets[et].alias)
    }

    pub(super) fn c_ident(&self, c: usize) -> String {
        ident(&self.conts[c].name, &self.conts[c].alias)
    }

    pub(super) fn v_ident(&self, et: usize, v: usize) -> String {
        let val = &self.ets[et].values[v];
        ident(&val.name, &val.alias)
    }

    pub(super) fn ensure_ct(&mut self, ct: usize) {
        if self.cts[ct].defined {
            return;
        }
        let p = self.cts[ct].parent;
        self.ensure_ct(p);
        self.cts[ct].defined = true;
        let mut vals = vec![
            (F::Name, self.cts[ct].name.clone()),
            (F::Type, self.ct_ident(p)),
        ];
        if let Some(a) = &self.cts[ct].alias {
            vals.push((F::Alias, a.clone()));
        }
        self.event(K::DefCt, &vals);
    }

    pub(super) fn ensure_et(&mut self, et: usize) {
        if self.ets[et].defined {
            return;
        }
        let e = self.ets[et].clone();
        self.ensure_ct(e.ct);
        let kind = match e.kind {
            Ek::State => K::DefSt,
            Ek::Event => K::DefEt,
            Ek::Var => K::DefVt,
            Ek::Link => K::DefLt,
        };
        let mut vals = vec![(F::Name, e.name.clone()), (F::Type, self.ct_ident(e.ct))];
        if e.kind == Ek::Link {
            self.ensure_ct(e.start_ct);
            self.ensure_ct(e.end_ct);
            vals.push((F::StartContainerType, self.ct_ident(e.start_ct)));
            vals.push((F::EndContainerType, self.ct_ident(e.end_ct)));
        }
        if let Some(a) = &e.alias {
            vals.push((F::Alias, a.clone()));
        }
        vals.push((F::Color, e.color.clone()));
        self.ets[et].defined = true;
        self.event(kind, &vals);
    }

    pub(super) fn ensure_value(&mut self, et: usize, v: usize) {
        self.ensure_et(et);
        if self.ets[et].values[v].defined {
            return;
        }
        self.ets[et].values[v].defined = true;
        let val = self.ets[et].values[v].clone();
        let mut vals = vec![(F::Name, val.name.clone()), (F::Type, self.et_ident(et))];
        // A value defined without alias gets the name as identifier; the
        // Alias field, when the definition has one, then repeats the name.
        vals.push((F::Alias, val.alias.clone().unwrap_or(val.name.clone())));
        let color = self.color();
        vals.push((F::Color, color));
        self.event(K::DefEv, &vals);
    }

    pub(super) fn trailing_definitions(&mut self) {
        for _ in 0..self.r.range(1, 2) {
            let kinds = [Ek::State, Ek::Event];
            let kind = *self.r.pick(&kinds);
            let ct = self.r.range(1, self.cts.len() - 1);
            self.new_etype(kind, ct);
            let et = self.ets.len() - 1;
            self.ensure_et(et);
            if !self.ets[et].values.is_empty() {
                self.ets[et].values[0].defined = false;
                self.ensure_value(et, 0);
            }
        }
    }
}
