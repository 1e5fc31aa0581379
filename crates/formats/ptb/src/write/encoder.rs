//! The encoding side of a [`Writer`](super::Writer), on a thread of its
//! own: each event stored in the runs of the block being written, model
//! records and strings gathered, the simulation followed for keyframes.

use std::io::{self, Write};
use std::thread::JoinHandle;

use crossbeam_channel::Sender;
use hashbrown::HashMap;
use trama_events::{Event, Field, StringMode};
use trama_sim::replay::{
    ModelBuilder, ModelEffect, Replay, ReplayEvent, ReplayState, ReplayTables, NONE,
};
use trama_sim::EntityHandles;

use super::fields::{FieldStep, RunBuf, StreamInfo};
use super::output::{self, Job, WriterResult};
use super::{WriteError, WriteOptions};
use crate::format::*;
use crate::state;
use crate::varint;

/// The encoding side of a [`Writer`], on a thread of its own: streams, link
/// pairing, columns, strings, model records, the simulation followed for
/// keyframes; frames go to the compressing thread.
pub(super) struct Encoder<W: Write + Send + 'static> {
    pub(super) opts: WriteOptions,
    /// A mirror of the model (from the same model events and values), for
    /// the simulation's tables and the containers' end times.
    pub(super) mb: ModelBuilder,
    pub(super) tables: ReplayTables,
    /// The simulation of what was written, for keyframes (interned mode);
    /// `None` once it failed.
    pub(super) replay: Option<Replay<()>>,
    /// Size of the replay's pools of extras and long keys after its last
    /// compaction.
    pub(super) kept: usize,
    pub(super) invalid_at: Option<u64>,
    /// The runs of the block being written (the first `nruns` are in use)
    /// and the one of the event being stored.
    pub(super) runs: Vec<RunBuf>,
    pub(super) nruns: usize,
    pub(super) cur: usize,
    /// Per list (numbered by `list_ids`), the run it goes to in block
    /// `.0 - 1`; the run of model events; per stream, its list and its run.
    pub(super) list_run: Vec<(u64, u32)>,
    pub(super) model_run: Option<u32>,
    pub(super) stream_info: Vec<StreamInfo>,
    /// Lists (container << 32 | type) numbered in order of first use.
    pub(super) list_ids: HashMap<u64, u32>,
    /// The `ORDER` and `LINES` columns.
    pub(super) order: Vec<u32>,
    /// So far in the block, every event is timed (not NaN nor -0) and
    /// times never decrease: trace order is the merge of the runs by time
    /// (`ORDER` then only says how ties go). The times of the block's
    /// events.
    pub(super) merged: bool,
    pub(super) times: Vec<f64>,
    pub(super) lines: Vec<u8>,
    pub(super) count: u64,
    pub(super) first_line: u64,
    pub(super) prev_line: u64,
    pub(super) first_model: u64,
    pub(super) t_min: f64,
    pub(super) t_max: f64,
    pub(super) timed: bool,
    pub(super) strings: HashMap<Box<[u8]>, u32>,
    pub(super) new_strings: Vec<u8>,
    pub(super) new_count: u64,
    pub(super) nstrings: u64,
    pub(super) model: Vec<u8>,
    pub(super) model_count: u64,
    pub(super) model_total: u64,
    /// Events of the block since its last model record, and `model_total`
    /// then.
    pub(super) quiet: u64,
    pub(super) seen_model: u64,
    pub(super) events: u64,
    pub(super) extras: Vec<u32>,
    /// Per definition index: where its steps lie in `steps` (`u32::MAX`
    /// before its first event).
    pub(super) plans: Vec<(u32, u32)>,
    pub(super) steps: Vec<(FieldStep, u32)>,
    /// Streams by container and definition: (type, stream) of the first
    /// type seen, others by (container, definition, type).
    pub(super) streams: Vec<Vec<(u32, u32)>>,
    pub(super) other_streams: HashMap<(u32, u32, u32), u32>,
    pub(super) nstreams: u32,
    /// Pending links by list and key, with their numbers.
    pub(super) pending: HashMap<(u32, u128), u64>,
    pub(super) pending_long: HashMap<(u32, Box<[u8]>), u64>,
    /// Per list: links numbered so far.
    pub(super) list_links: Vec<u64>,
    /// The time of the last event, and each container's destruction time
    /// (NaN while alive), for the footer.
    pub(super) last_time: f64,
    pub(super) dead: Vec<f64>,
    pub(super) blocks: u64,
    pub(super) keyframes: u64,
    pub(super) since_keyframe: usize,
    pub(super) tx: Option<Sender<Job>>,
    pub(super) thread: Option<JoinHandle<WriterResult<W>>>,
}

impl<W: Write + Send + 'static> Encoder<W> {
    /// Starts a file on `out` (the header is written at once).
    pub(super) fn new(out: W, opts: WriteOptions) -> io::Result<Encoder<W>> {
        let (tx, thread) = output::start(out, &opts)?;
        let block_events = opts.block_events.clamp(1, 1 << 16);
        let interned = opts.strings == StringMode::Interned;
        Ok(Encoder {
            opts: WriteOptions {
                block_events,
                ..opts
            },
            mb: ModelBuilder::new(false),
            tables: ReplayTables::default(),
            replay: interned.then(|| Replay::new(ReplayState::new(), ())),
            kept: 0,
            invalid_at: None,
            runs: Vec::new(),
            nruns: 0,
            cur: 0,
            list_run: Vec::new(),
            model_run: None,
            stream_info: Vec::new(),
            list_ids: HashMap::new(),
            order: Vec::new(),
            merged: true,
            times: Vec::new(),
            lines: Vec::new(),
            count: 0,
            first_line: 0,
            prev_line: 0,
            first_model: 0,
            t_min: 0.0,
            t_max: 0.0,
            timed: false,
            strings: HashMap::new(),
            new_strings: Vec::new(),
            new_count: 0,
            nstrings: 0,
            model: Vec::new(),
            model_count: 0,
            model_total: 0,
            quiet: 0,
            seen_model: 0,
            events: 0,
            extras: Vec::new(),
            plans: Vec::new(),
            steps: Vec::new(),
            streams: Vec::new(),
            other_streams: HashMap::new(),
            nstreams: 0,
            pending: HashMap::new(),
            pending_long: HashMap::new(),
            list_links: Vec::new(),
            last_time: 0.0,
            dead: vec![f64::NAN],
            blocks: 0,
            keyframes: 0,
            since_keyframe: 0,
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    pub(super) fn send(&mut self, job: Job) -> io::Result<()> {
        let ok = self.tx.as_ref().is_some_and(|tx| tx.send(job).is_ok());
        if ok {
            Ok(())
        } else {
            // The writing thread stopped: its error tells why.
            Err(self.join_err())
        }
    }

    pub(super) fn join_err(&mut self) -> io::Error {
        self.tx = None;
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(p)) => std::panic::resume_unwind(p),
            _ => io::Error::other("the binary writer stopped"),
        }
    }

    /// Stores one event, whose references the [`Writer`] resolved (`handles`
    /// for entity events), and follows the simulation for the keyframes.
    ///
    /// A measured hot loop (every event of a conversion to `.ptb`; its
    /// instructions counted in BENCHMARKS.md): kept in one function.
    pub(super) fn event(
        &mut self,
        ev: &Event<'_>,
        handles: Option<EntityHandles>,
    ) -> Result<(), WriteError> {
        let def = ev.def();
        let kind = def.kind();
        let d = def.index();
        let line = ev.line();
        if self.count > 0 && self.cut_before(!is_entity(kind)) {
            self.flush()?;
        }
        if self.count == 0 {
            self.start_block()?;
            self.first_line = line;
            self.prev_line = line.saturating_sub(1);
            self.first_model = self.model_total;
            self.merged = true;
        }
        if !is_entity(kind) {
            let effect = self
                .mb
                .event(ev)
                .map_err(|e| WriteError::Trace(Box::new(e)))?;
            self.tables.sync(self.mb.model());
            self.model.push(REC_EVENT);
            varint::put(&mut self.model, d as u64);
            varint::put(&mut self.model, line);
            varint::put(&mut self.model, ev.word_count() as u64 - 1);
            for i in 1..ev.word_count() {
                varint::put_bytes(&mut self.model, ev.word(i));
            }
            self.model_count += 1;
            self.model_total += 1;
            self.last_time = effect.time();
            self.follow_model(effect, line);
            self.merged = false;
            self.times.push(f64::NAN);
            let r = match self.model_run {
                Some(r) => r,
                None => {
                    let r = self.new_run();
                    self.model_run = Some(r);
                    r
                }
            };
            self.enter_run(r, 0);
        } else {
            let h = handles.ok_or_else(|| io::Error::other("an entity event without handles"))?;
            let interned = self.opts.strings == StringMode::Interned;
            if h.new_value {
                self.mb
                    .new_value(h.ty, ev.get(Field::Value), line)
                    .map_err(|e| WriteError::Trace(Box::new(e)))?;
            }
            let mut list = 0;
            if interned {
                let s = self.stream(d, h.container.0, h.ty.0, line);
                list = self.stream_info[s as usize].list;
                let r = self.stream_run(s);
                self.enter_run(r, s + 1);
            } else {
                // One run: the events in order.
                if self.nruns == 0 {
                    self.new_run();
                }
                self.enter_run(0, d + 1);
            }
            if h.new_value && interned {
                self.tables.sync(self.mb.model());
                self.model.push(REC_VALUE);
                varint::put(&mut self.model, h.ty.0 as u64);
                varint::put(&mut self.model, line);
                varint::put_bytes(&mut self.model, ev.get(Field::Value));
                self.model_count += 1;
                self.model_total += 1;
                if let Some(r) = &mut self.replay {
                    r.new_value(false);
                }
            }
            let (from, to) = match self.plans.get(d as usize) {
                Some(&(from, to)) if from != u32::MAX => (from, to),
                _ => self.plan(def, interned),
            };
            let mut time = 0.0;
            let mut timed = false;
            let mut number = 0.0;
            let mut key: &[u8] = &[];
            let mut pair = None;
            self.extras.clear();
            let mut k = 0;
            for at in from..to {
                let (step, i) = self.steps[at as usize];
                let w = ev.word(i as usize);
                match step {
                    FieldStep::Time => {
                        time = self.put_time(w);
                        timed = true;
                    }
                    FieldStep::Other => self.runs[self.cur].handles.push(h.other.0),
                    FieldStep::Value => {
                        let v = if h.new_value { 0 } else { h.value.0 + 1 };
                        self.runs[self.cur].handles.push(v);
                    }
                    FieldStep::Number => number = self.put_number(w),
                    FieldStep::Key => {
                        pair = self.pair(list, h.container.0, w);
                        key = w;
                    }
                    FieldStep::Str => {
                        self.put_str(w);
                    }
                    FieldStep::Extra => {
                        let id = self.put_str(w);
                        self.extras.push(name_code(d, k));
                        self.extras.push(string_code(id));
                        k += 1;
                    }
                }
            }
            let t0 = self.times.last().copied().unwrap_or(f64::NEG_INFINITY);
            if !timed
                || t0.is_nan()
                || time.is_nan()
                || time < t0
                || time.to_bits() == (-0.0f64).to_bits()
            {
                self.merged = false;
            }
            self.times.push(time);
            self.last_time = time;
            if let Some(r) = &mut self.replay {
                let link = matches!(
                    kind,
                    trama_events::EventKind::StartLink | trama_events::EventKind::EndLink
                );
                let ev = ReplayEvent {
                    kind,
                    time,
                    container: h.container.0,
                    ty: h.ty.0,
                    value: h.value.0,
                    other: if link { h.other.0 } else { NONE },
                    number,
                    key,
                    pair,
                    extras: &self.extras,
                };
                if r.entity(&self.tables, &ev).is_err() {
                    self.replay = None;
                    self.invalid_at = Some(line);
                }
            }
        }
        varint::put(
            &mut self.lines,
            line.wrapping_sub(self.prev_line).wrapping_sub(1),
        );
        self.prev_line = line;
        self.count += 1;
        self.events += 1;
        if self.model_total != self.seen_model {
            self.seen_model = self.model_total;
            self.quiet = 0;
        } else {
            self.quiet += 1;
        }
        if self.count as usize >= self.opts.block_events {
            self.flush()?;
        }
        Ok(())
    }

    /// Whether the block ends before this event rather than at its size: a
    /// block holding model records is stored in trace order, slower to read
    /// than one grouped by list. So a block whose model records stopped an
    /// eighth of the block size ago ends before its next entity event (the
    /// events after a trace's opening records are stored grouped). Blocks
    /// never get smaller than an eighth of the size, and a trace whose model
    /// records come all along keeps whole blocks. (A block is not ended
    /// before a model event: at the end of a trace, that would leave the
    /// closing destructions a block of their own with no timed entity event,
    /// whose time range, 0 to 0, a window could not tell from events at 0.)
    pub(super) fn cut_before(&self, model: bool) -> bool {
        self.opts.strings == StringMode::Interned
            && !model
            && self.model_count > 0
            && self.quiet >= (self.opts.block_events as u64 / 8).max(1)
    }

    /// What a model event does to the simulation and to the footer's
    /// container end times.
    pub(super) fn follow_model(&mut self, effect: ModelEffect, line: u64) {
        match effect {
            ModelEffect::Container { .. } => self.dead.push(f64::NAN),
            ModelEffect::Destroy { container, time } => {
                let m = self.mb.model();
                let mut todo = vec![container.0];
                while let Some(c) = todo.pop() {
                    match self.dead.get_mut(c as usize) {
                        Some(d) if d.is_nan() => *d = time,
                        _ => continue,
                    }
                    todo.extend(m.containers[c as usize].children.iter().map(|c| c.0));
                }
            }
            _ => {}
        }
        let Some(r) = &mut self.replay else { return };
        let ok = match effect {
            ModelEffect::Type(_) => {
                r.new_type();
                true
            }
            ModelEffect::Value(_) => {
                r.new_value(true);
                true
            }
            ModelEffect::Container { id, time } => r.new_container(id.0, time).is_ok(),
            ModelEffect::Destroy { container, time } => {
                r.destroy_event(&self.tables, container.0, time).is_ok()
            }
            ModelEffect::Time(t) => {
                r.time_event(t);
                true
            }
        };
        if !ok {
            self.replay = None;
            self.invalid_at = Some(line);
        }
    }

    /// Before the first event of every block but the first: a keyframe,
    /// when it is small beside the blocks since the last one (under an
    /// eighth of them), so keyframes stay a small part of the file.
    pub(super) fn start_block(&mut self) -> io::Result<()> {
        if self.blocks == 0 {
            return Ok(());
        }
        let Some(r) = &self.replay else {
            return Ok(());
        };
        let mut payload = Vec::new();
        varint::put(&mut payload, self.blocks);
        state::encode(&r.state, &mut payload);
        if payload.len() * 8 > self.since_keyframe {
            return Ok(());
        }
        self.since_keyframe = 0;
        self.keyframes += 1;
        self.send(Job::new(KIND_KEYFRAME, payload, 0, self.blocks))
    }
}

impl<W: Write + Send + 'static> Drop for Encoder<W> {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
