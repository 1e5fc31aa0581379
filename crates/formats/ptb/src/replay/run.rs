//! The events of one run of an events frame replayed, along the fast path
//! of each definition.

use trama_sim::replay::{Bail, Replay, ReplayEvent, ReplaySink, Valued};

use crate::decimal;
use crate::format::*;
use crate::model::{Effect, Prepass};
use crate::read::{bad, FormatError, Op, PtbFile, RunSpan, Slot};
use crate::varint::{self, read_bytes, read_fixed, read_small, read_wide, read_wide_short, Cursor};

/// A run's cursors: byte offsets in the payload of its next value in each
/// column, and its previous time (decimal mantissa and scale).
#[derive(Clone, Copy, Debug)]
pub(super) struct Pos {
    pub(super) ps: usize,
    pub(super) ph: usize,
    pub(super) pt: usize,
    pub(super) pn: usize,
    pub(super) pstr: usize,
    pub(super) pk: usize,
    pub(super) pl: usize,
    pub(super) pm: i64,
    pub(super) psc: u8,
    pub(super) has_prev: bool,
}

impl Pos {
    pub(super) fn new(r: &RunSpan) -> Pos {
        Pos {
            ps: r.start[STREAMS],
            ph: r.start[HANDLES],
            pt: r.start[TIMES],
            pn: r.start[NUMS],
            pstr: r.start[STRS],
            pk: r.start[KEYS],
            pl: r.start[LINKS],
            pm: 0,
            psc: 0,
            has_prev: false,
        }
    }

    /// Are the cursors at these ends?
    pub(super) fn at(&self, end: &[usize; NCOLS]) -> bool {
        self.ps == end[STREAMS]
            && self.ph == end[HANDLES]
            && self.pt == end[TIMES]
            && self.pn == end[NUMS]
            && self.pstr == end[STRS]
            && self.pk == end[KEYS]
            && self.pl == end[LINKS]
    }
}

/// What the events of a frame share while replayed run by run.
pub(super) struct Ctx<'a> {
    /// The frame's offset (for messages) and payload.
    pub(super) offset: u64,
    pub(super) p: &'a [u8],
    /// The data of `TIMES` (apart from the payload in split frames).
    pub(super) t: &'a [u8],
    pub(super) ws: usize,
    pub(super) wh: usize,
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) timed: bool,
    pub(super) bad_value: bool,
    /// Grouped frames: the list of the run (its index among the streams'
    /// lists; `u32::MAX` before its first event) and its container.
    pub(super) list: u32,
    pub(super) container: u32,
    /// Grouped frames: the run's previous time, whether a time decreased
    /// (or was NaN), and how many of its events are not timed.
    pub(super) run_prev: f64,
    pub(super) unsorted: bool,
    pub(super) untimed: u64,
}

impl PtbFile {
    /// Replays `m` events of one run from its cursors `pos`. `Ok(Err((why,
    /// j)))` when the replay gives up at the run's `j`-th event.
    ///
    /// Each entity event names its stream, which gives its definition,
    /// container and type; the handler of the definition's kind decodes
    /// the rest and calls the replay's method for that kind, so that an
    /// event's kind is tested once. Columns are read through one position
    /// each without failing (past a column's end the reads run into the
    /// next, past the payload they read zeros): the caller checks that the
    /// run's columns were used up exactly, and what garbage does before
    /// that at worst makes the replay give up (the reference simulation
    /// then reports the damage). `GROUPED`: the run is replayed on its own
    /// (all its events are on one list, set in `ctx`, and use no model
    /// record).
    ///
    /// A measured hot loop (every event of a replay; BENCHMARKS.md, "Fewer
    /// look-ups in the replay"): kept in one function, its readers macros,
    /// so that an event is decoded without a call.
    #[inline]
    pub(super) fn replay_run<S: ReplaySink, const GROUPED: bool>(
        &self,
        pre: &Prepass,
        ctx: &mut Ctx<'_>,
        pos: &mut Pos,
        m: u64,
        replay: &mut Replay<S>,
        extras: &mut Vec<u32>,
    ) -> Result<Result<(), (Bail, u64)>, FormatError> {
        let (p, tp) = (ctx.p, ctx.t);
        let (ws, wh) = (ctx.ws, ctx.wh);
        let Pos {
            mut ps,
            mut ph,
            mut pt,
            mut pn,
            mut pstr,
            mut pk,
            mut pl,
            mut pm,
            mut psc,
            mut has_prev,
        } = *pos;
        let (mut lo, mut hi, mut timed, mut bad_value) = (ctx.lo, ctx.hi, ctx.timed, ctx.bad_value);
        let (mut run_prev, mut unsorted, mut untimed) = (ctx.run_prev, ctx.unsorted, ctx.untimed);
        let mut list = ctx.list;
        let mut container = ctx.container;
        let tables = &pre.tables;
        let nstrings = self.string_count();
        let off = ctx.offset;
        let ebad = |what: String| bad(off, format!("events frame: {what}"));
        let mut outcome = Ok(());
        for j in 0..m {
            let v = read_fixed(p, &mut ps, ws);
            if v == 0 {
                if GROUPED {
                    return Err(ebad("a model event in a grouped frame".into()));
                }
                let at = replay.state.model_cursor;
                let effect = match (
                    self.records.recs.get(at as usize),
                    pre.effects.get(at as usize),
                ) {
                    (Some(m), Some(e)) if m.tag == REC_EVENT => *e,
                    _ => return Err(ebad(format!("model record {at} missing or not an event"))),
                };
                let r = match effect {
                    Effect::Type => {
                        replay.new_type();
                        Ok(())
                    }
                    Effect::DefinedValue => {
                        replay.new_value(true);
                        Ok(())
                    }
                    Effect::Container { id, time } => replay.new_container(id, time),
                    Effect::Destroy { container, time } => {
                        replay.destroy_event(tables, container, time)
                    }
                    Effect::Time(t) => {
                        replay.time_event(t);
                        Ok(())
                    }
                    Effect::FirstValue { .. } | Effect::Stream => unreachable_effect(),
                };
                if let Err(b) = r {
                    outcome = Err((b, j));
                    break;
                }
                continue;
            }
            let Some(hot) = pre.hot.get(v as usize - 1) else {
                return Err(ebad(format!("no stream {}", v - 1)));
            };
            let s = &hot.stream;
            let at = replay.state.model_cursor;
            if GROUPED {
                if s.record >= at {
                    return Err(ebad("a stream declared in a grouped frame".into()));
                }
                if s.list != list {
                    if list != u32::MAX {
                        return Err(ebad("a run of two lists".into()));
                    }
                    list = s.list;
                    container = s.container;
                }
            } else if s.record == at {
                replay.model_record();
            } else if s.record > at {
                return Err(ebad("stream used before its declaration".into()));
            }
            let (def, ct, ty) = (s.def, s.container, s.ty);
            let f = &hot.fast;
            macro_rules! time {
                () => {{
                    let v = read_wide(tp, &mut pt, &mut bad_value);
                    let t = if v & 1 == 0 && has_prev {
                        pm = pm.wrapping_add(varint::unzigzag(v >> 1));
                        // An integer over a power of ten: never NaN nor -0.
                        decimal::to_f64(pm, psc)
                    } else {
                        let t = self
                            .time_rest(
                                v,
                                (tp, p),
                                (&mut pt, &mut pstr),
                                (&mut pm, &mut psc, &mut has_prev),
                                &mut bad_value,
                            )
                            .ok_or_else(|| ebad("bad time".into()))?;
                        // (NaN counts as decreasing; -0 is not mergeable.)
                        unsorted |= t.is_nan() | (t.to_bits() == NEG_ZERO);
                        t
                    };
                    if t < lo {
                        lo = t;
                    }
                    if t > hi {
                        hi = t;
                    }
                    if GROUPED {
                        unsorted |= t < run_prev;
                        run_prev = t;
                    }
                    timed = true;
                    t
                }};
            }
            macro_rules! timed_or_zero {
                () => {{
                    if f.timed {
                        time!()
                    } else {
                        untimed += GROUPED as u64;
                        0.0
                    }
                }};
            }
            macro_rules! value {
                ($v:expr) => {{
                    let v = $v;
                    if v == 0 {
                        if GROUPED {
                            return Err(ebad("a new value in a grouped frame".into()));
                        }
                        self.first_value(pre, replay)
                            .ok_or_else(|| ebad("value record missing".into()))?
                    } else {
                        v - 1
                    }
                }};
            }
            macro_rules! strings {
                () => {{
                    extras.clear();
                    for &x in &f.strs[..f.nstrs as usize] {
                        let id = read_small(p, &mut pstr, &mut bad_value);
                        if id >= nstrings {
                            return Err(ebad(format!("no string {id}")));
                        }
                        if x > 0 {
                            extras.push(name_code(def, x as usize - 1));
                            extras.push(string_code(id));
                        }
                    }
                }};
            }
            macro_rules! link {
                () => {{
                    let r = read_wide_short(p, &mut pl, &mut bad_value);
                    if r == 0 {
                        (read_bytes(p, &mut pk, &mut bad_value), None)
                    } else {
                        (&[][..], Some(r))
                    }
                }};
            }
            macro_rules! handles {
                () => {{
                    let mut h = [0u32; 2];
                    if f.nh > 0 {
                        h[0] = read_fixed(p, &mut ph, wh);
                        if f.nh > 1 {
                            h[1] = read_fixed(p, &mut ph, wh);
                        }
                    }
                    h
                }};
            }
            let r = match hot.op {
                Op::PushState | Op::SetState | Op::NewEvent => {
                    let t = timed_or_zero!();
                    let h = handles!();
                    let v = value!(h[f.vi as usize]);
                    strings!();
                    let e = Valued {
                        container: ct,
                        ty,
                        value: v,
                        time: t,
                        extras,
                    };
                    match hot.op {
                        Op::PushState => replay.push_state(tables, e),
                        Op::SetState => replay.set_state(tables, e),
                        _ => replay.new_event(tables, e),
                    }
                }
                Op::PopState | Op::ResetState => {
                    let t = timed_or_zero!();
                    handles!();
                    strings!();
                    if hot.op == Op::PopState {
                        replay.pop_state(tables, ct, ty, t)
                    } else {
                        replay.reset_state(tables, ct, ty, t)
                    }
                }
                Op::Variable => {
                    let t = timed_or_zero!();
                    handles!();
                    let x = self
                        .number(p, &mut pn, &mut pstr, &mut bad_value)
                        .ok_or_else(|| ebad("bad number".into()))?;
                    strings!();
                    replay.variable_event(tables, hot.kind, ct, ty, t, x, extras)
                }
                Op::Link => {
                    let t = timed_or_zero!();
                    let h = handles!();
                    let v = value!(h[f.vi as usize]);
                    let o = h[f.oi as usize];
                    let (key, pair) = link!();
                    strings!();
                    let start = hot.kind == trama_events::EventKind::StartLink;
                    replay.link_event(tables, start, ct, ty, v, o, t, key, pair, extras)
                }
                Op::Model => return Err(ebad("a model event stored as an entity".into())),
                Op::Wide => return Err(ebad(crate::read::wide(&self.defs[def as usize]))),
                Op::Generic => {
                    let plan = &self.plans[def as usize];
                    extras.clear();
                    untimed += (GROUPED && !plan.slots.contains(&Slot::Time)) as u64;
                    let mut ev = ReplayEvent {
                        kind: plan.kind,
                        time: 0.0,
                        container: ct,
                        ty,
                        value: trama_sim::replay::NONE,
                        other: trama_sim::replay::NONE,
                        number: 0.0,
                        key: &[],
                        pair: None,
                        extras: &[],
                    };
                    for &s in &plan.slots {
                        match s {
                            Slot::Time => ev.time = time!(),
                            Slot::Container | Slot::Type => {}
                            Slot::Other => ev.other = read_fixed(p, &mut ph, wh),
                            Slot::Value => ev.value = value!(read_fixed(p, &mut ph, wh)),
                            Slot::Number => {
                                ev.number = self
                                    .number(p, &mut pn, &mut pstr, &mut bad_value)
                                    .ok_or_else(|| ebad("bad number".into()))?
                            }
                            Slot::Key => (ev.key, ev.pair) = link!(),
                            Slot::Str | Slot::Extra(_) => {
                                let id = read_small(p, &mut pstr, &mut bad_value);
                                if id >= nstrings {
                                    return Err(ebad(format!("no string {id}")));
                                }
                                if let Slot::Extra(k) = s {
                                    extras.push(name_code(def, k as usize));
                                    extras.push(string_code(id));
                                }
                            }
                        }
                    }
                    ev.extras = extras;
                    replay.entity(tables, &ev)
                }
            };
            if let Err(b) = r {
                outcome = Err((b, j));
                break;
            }
        }
        *pos = Pos {
            ps,
            ph,
            pt,
            pn,
            pstr,
            pk,
            pl,
            pm,
            psc,
            has_prev,
        };
        (ctx.lo, ctx.hi, ctx.timed, ctx.bad_value) = (lo, hi, timed, bad_value);
        (ctx.run_prev, ctx.unsorted, ctx.untimed) = (run_prev, unsorted, untimed);
        ctx.list = list;
        ctx.container = container;
        Ok(outcome)
    }

    /// A time that does not follow the previous one's scale: `v` is its
    /// first varint (odd), the rest follows in `TIMES`, or in `STRS` when
    /// stored as text. `None` when malformed.
    #[inline(never)]
    pub(super) fn time_rest(
        &self,
        v: u64,
        (tp, p): (&[u8], &[u8]),
        (pt, pstr): (&mut usize, &mut usize),
        (pm, psc, has_prev): (&mut i64, &mut u8, &mut bool),
        bad: &mut bool,
    ) -> Option<f64> {
        if v & 1 == 0 {
            return None;
        }
        let s = *tp.get(*pt)?;
        *pt += 1;
        if s == TIME_TEXT {
            let id = read_small(p, pstr, bad);
            return Some(trama_num::atof(self.string(id as u64)?));
        }
        if s > decimal::MAX_SCALE {
            return None;
        }
        let m = varint::unzigzag(read_wide(tp, pt, bad));
        (*pm, *psc, *has_prev) = (m, s, true);
        Some(decimal::to_f64(m, s))
    }

    /// A variable's value as the file's precision reads it (`strtof` for
    /// Pajé text), from `NUMS` (or `STRS`).
    #[inline(always)]
    pub(super) fn number(
        &self,
        p: &[u8],
        pn: &mut usize,
        pstr: &mut usize,
        bad: &mut bool,
    ) -> Option<f64> {
        let v = read_wide(p, pn, bad);
        if v & 31 == NUM_TEXT {
            let id = read_small(p, pstr, bad);
            return Some(self.precision().read(self.string(id as u64)?));
        }
        let s = (v & 31) as u8;
        if s > decimal::MAX_SCALE {
            return None;
        }
        Some(decimal::value(
            varint::unzigzag(v >> 5),
            s,
            self.precision(),
        ))
    }

    /// The value created by an event's first use: the next model record.
    #[cold]
    pub(super) fn first_value<S: ReplaySink>(
        &self,
        pre: &Prepass,
        replay: &mut Replay<S>,
    ) -> Option<u32> {
        let at = replay.state.model_cursor;
        match (
            self.records.recs.get(at as usize),
            pre.effects.get(at as usize),
        ) {
            (Some(m), Some(&Effect::FirstValue { id })) if m.tag == REC_VALUE => {
                replay.new_value(false);
                Some(id)
            }
            _ => None,
        }
    }
}

/// The bits of -0.
const NEG_ZERO: u64 = 0x8000_0000_0000_0000;

fn unreachable_effect() -> Result<(), Bail> {
    Err(Bail(
        "a record of a value or stream where an event's is due",
    ))
}

/// The line of event `n` of a frame, from its `LINES` column (for messages).
pub(super) fn line_at(mut lines: Cursor<'_>, first_line: u64, n: u64) -> u64 {
    let mut line = first_line.wrapping_sub(1);
    for _ in 0..=n {
        line = line
            .wrapping_add(1)
            .wrapping_add(lines.varint().unwrap_or(0));
    }
    line
}
