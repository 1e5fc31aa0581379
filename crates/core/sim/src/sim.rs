//! The Pajé simulator, sequential ([`Simulator`]) or on two threads
//! ([`Pipeline`]), with PajeNG's semantics:
//!
//! - every reference to a type, container or value goes through its
//!   identifier: the alias when there is one, else the name;
//! - states live in one stack per (container, state type): `PajeSetState`
//!   empties the stack and pushes; `PajePushState` pushes one level deeper;
//!   `PajePopState` ends the top; `PajeResetState` ends them all;
//! - variables are step functions: Set/Add/Sub at the time of the last
//!   value update it in place, otherwise close it and open a new value;
//!   values are read as C `strtof` does (float32) and summed in double
//!   (values of a reader whose numbers are the source's own, such as OTF2's,
//!   are read exactly: [`SimOptions::precision`]);
//! - links are matched by (container, link type, key), in either order; a
//!   key cannot be used again once its link is complete;
//! - entities of one type in one container must come in time order; events
//!   on a destroyed container are ignored; destroying a container ends its
//!   open entities and destroys its children;
//! - the trace ends at the time of its last event (an event without a time
//!   field counts as time 0, as in PajeNG), or at the stop-at time;
//! - with [`SimOptions::lenient`], events on unknown containers and pops of
//!   empty stacks are ignored and a container destroyed before its last
//!   event is destroyed at that event's time, each with a warning naming
//!   its line (the first few of each kind, then their count).
//!
//! The work is split in two stages: a resolver checks references and turns
//! events into handles; an engine applies entity semantics and feeds the
//! [`Sink`]. [`Simulator`] runs both on the caller's thread; [`Pipeline`]
//! runs the engine on a second thread. Both give identical results.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use trama_events::Event;

use crate::engine::Engine;
pub use crate::engine::SimOptions;
use crate::error::SimError;
use crate::model::Model;
use crate::model::TypeId;
use crate::op::{Batch, Op};
use crate::resolve::{HandleEvent, Resolver};
pub use crate::sink::{CountingSink, Entity, OpenEntity, Sink};

/// What a finished simulation returns: the model, the sink and warnings.
pub type Finished<S> = (Model, S, Vec<String>);

/// Replays events on the caller's thread and feeds a [`Sink`].
pub struct Simulator<S> {
    resolver: Resolver,
    engine: Engine<S>,
    batch: Batch,
}

impl<S: Sink> Simulator<S> {
    /// A simulator with only the root type and container.
    pub fn new(sink: S, opts: SimOptions) -> Simulator<S> {
        Simulator {
            resolver: resolver(&opts),
            engine: Engine::new(sink, opts),
            batch: Batch::default(),
        }
    }

    /// The model built so far.
    pub fn model(&self) -> &Model {
        self.engine.model()
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        self.engine.sink()
    }

    /// Events simulated so far.
    pub fn events(&self) -> u64 {
        self.engine.events()
    }

    /// Simulates one event.
    pub fn event(&mut self, ev: &Event<'_>) -> Result<(), SimError> {
        self.step(|r, b| r.resolve(ev, b))
    }

    /// Simulates one entity event given by handles (binary readers).
    pub fn event_handles(&mut self, ev: &HandleEvent<'_>) -> Result<(), SimError> {
        self.step(|r, b| r.resolve_handles(ev, b))
    }

    /// Declares a value as its first use would (binary keyframes).
    pub fn declare_value(&mut self, ty: TypeId, name: &[u8]) -> Result<(), SimError> {
        self.step(|r, b| r.declare_value(ty, name, b).map(|_| ()))
    }

    #[inline]
    fn step(
        &mut self,
        resolve: impl FnOnce(&mut Resolver, &mut Batch) -> Result<(), SimError>,
    ) -> Result<(), SimError> {
        self.batch.clear();
        resolve(&mut self.resolver, &mut self.batch)?;
        self.engine.apply_batch(&self.batch)
    }

    /// Ends the trace: destroys every container still alive at the end time.
    pub fn finish(self) -> Result<Finished<S>, SimError> {
        let (model, sink, warnings) = self.engine.finish()?;
        Ok((
            model,
            sink,
            with_resolver_warnings(&self.resolver, warnings),
        ))
    }
}

/// The resolver the options ask for.
fn resolver(opts: &SimOptions) -> Resolver {
    let mut r = Resolver::new(opts.keep_extras);
    r.set_lenient(opts.lenient);
    r.set_precision(opts.precision);
    r
}

/// The resolver's warnings (what it let pass) before the engine's.
fn with_resolver_warnings(resolver: &Resolver, engine: Vec<String>) -> Vec<String> {
    let mut w = resolver.warnings();
    if w.is_empty() {
        return engine;
    }
    w.extend(engine);
    w
}

/// Operations per batch handed to the engine thread.
const BATCH_OPS: usize = 16384;

/// The pipeline is closed: an error occurred (it comes out of
/// [`Pipeline::run`]) or the sink stopped; stop feeding events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("simulation pipeline closed")
    }
}

impl std::error::Error for Closed {}

/// The resolver's side of a two-thread simulation; see [`Pipeline::run`].
pub struct Pipeline {
    resolver: Resolver,
    batch: Batch,
    tx: SyncSender<Batch>,
    free: Receiver<Batch>,
    closed: bool,
}

impl Pipeline {
    /// Runs a simulation whose engine works on a second thread: `feed`
    /// receives the [`Pipeline`] and calls [`Pipeline::event`] for every
    /// event, in order. Returns what `feed` returned and, when the engine
    /// succeeded, the finished simulation. The first error in trace order
    /// wins, whichever stage found it.
    pub fn run<S, F, T>(sink: S, opts: SimOptions, feed: F) -> (T, Result<Finished<S>, SimError>)
    where
        S: Sink + Send,
        F: FnOnce(&mut Pipeline) -> T,
    {
        let (tx, rx) = sync_channel::<Batch>(4);
        let (free_tx, free_rx) = sync_channel::<Batch>(8);
        let mut front = Pipeline {
            resolver: resolver(&opts),
            batch: Batch::default(),
            tx,
            free: free_rx,
            closed: false,
        };
        std::thread::scope(|scope| {
            let run_engine = move || {
                let mut engine = Engine::new(sink, opts);
                for batch in rx.iter() {
                    engine.apply_batch(&batch)?;
                    if engine.sink().stopped() {
                        break;
                    }
                    let mut batch = batch;
                    batch.clear();
                    let _ = free_tx.try_send(batch);
                }
                engine.finish()
            };
            let engine = std::thread::Builder::new()
                .name("trama-engine".into())
                .spawn_scoped(scope, run_engine)
                .expect("cannot start the simulation thread");
            let out = feed(&mut front);
            front.flush();
            let resolver = std::mem::replace(&mut front.resolver, Resolver::new(false));
            drop(front);
            let result = match engine.join() {
                Ok(r) => r.map(|(model, sink, warnings)| {
                    (model, sink, with_resolver_warnings(&resolver, warnings))
                }),
                Err(panic) => std::panic::resume_unwind(panic),
            };
            (out, result)
        })
    }

    /// Resolves one event and queues it for the engine. An error stops the
    /// pipeline: the engine first applies everything before it, so that an
    /// earlier engine error takes precedence. Returns [`Closed`] when the
    /// pipeline is closed (an error occurred here or in the engine): the
    /// caller should stop feeding; the error comes out of [`Pipeline::run`].
    #[inline]
    pub fn event(&mut self, ev: &Event<'_>) -> Result<(), Closed> {
        self.stage(|r, b| r.resolve(ev, b))
    }

    /// Like [`Pipeline::event`], for an entity event given by handles.
    #[inline]
    pub fn event_handles(&mut self, ev: &HandleEvent<'_>) -> Result<(), Closed> {
        self.stage(|r, b| r.resolve_handles(ev, b))
    }

    /// Like [`Simulator::declare_value`].
    pub fn declare_value(&mut self, ty: TypeId, name: &[u8]) -> Result<(), Closed> {
        self.stage(|r, b| r.declare_value(ty, name, b).map(|_| ()))
    }

    /// Runs one resolver step and queues what it produced.
    #[inline]
    fn stage(
        &mut self,
        step: impl FnOnce(&mut Resolver, &mut Batch) -> Result<(), SimError>,
    ) -> Result<(), Closed> {
        if self.closed {
            return Err(Closed);
        }
        if let Err(e) = step(&mut self.resolver, &mut self.batch) {
            self.batch.ops.push(Op::Fail);
            self.batch.fail = Some(Box::new(e));
            self.flush();
            self.closed = true;
            return Err(Closed);
        }
        if self.batch.ops.len() >= BATCH_OPS || self.batch.bytes.len() >= 1 << 24 {
            self.flush();
        }
        if self.closed {
            Err(Closed)
        } else {
            Ok(())
        }
    }

    fn flush(&mut self) {
        if self.batch.ops.is_empty() || self.closed {
            return;
        }
        let next = self.free.try_recv().unwrap_or_default();
        let batch = std::mem::replace(&mut self.batch, next);
        if self.tx.send(batch).is_err() {
            // The engine stopped on an error.
            self.closed = true;
        }
    }
}
