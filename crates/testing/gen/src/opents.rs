//! Realistic OpenTS (T-system) XML traces, of any size, written as a stream.
//!
//! [`write_opents`] writes the trace of a simulated run of a
//! divide-and-conquer T-program (like `fib`) on `ranks` nodes, in the
//! layout of seed 004 (see trama's OpenTS reader, `trama_sources::opents`):
//! a root `<trace ranks cmd time>`, then one `<slice num time>` every
//! 1/25 s, each with a `<rank num>` per rank holding
//! `<resource mbytes mflops tasks idle sched mpi/>`, `<task type count>`
//! elements and a `<message sbytes scount rbytes rcount>` with an
//! `<extra type ...>` per kind of message. The same seed and options give
//! the same bytes; memory does not grow with the trace (a slice is built in
//! a small buffer, then written).
//!
//! # The simulated run
//!
//! Tasks are spawned on rank 0 first. A rank starts as many of its
//! *prenatal* (ready) tasks per slice as its speed allows; a started task
//! either divides (two prenatal children; the parent is *suspended* until
//! two children's results are in) or is a leaf (it *finishes*). An idle
//! rank asks a ring neighbour for work (a `ctrl` message); the neighbour
//! *exports* up to half its prenatal tasks to it (`data` messages, one per
//! task), written as `<detail count to>` under `exported` on the sender;
//! the receiver reports them as `imported` in the next slice, and sends
//! results back (`data`) as its tasks finish. The run has three phases:
//!
//! - a ramp-up (the first 15 % of the slices): work grows on rank 0 and
//!   reaches the other ranks along the ring, each one joining later;
//! - a busy middle (up to 70 %): every rank works, with queues held around
//!   a target, and stealing when one runs dry;
//! - an imbalanced tail: the upper half of the ranks drain their queues
//!   and stay idle (they stop stealing), the lower half keep working on a
//!   load that shrinks to nothing by the end.
//!
//! # What the counters mean
//!
//! The seed does not say whether counters are per slice or totals; here
//! `started`, `exported`, `imported` and `finished` count the events
//! during the slice, while `prenatal`, `active` and `suspended` are the
//! queue sizes when the slice is sampled. Message counters are per slice.
//! `resource` holds free memory (MB, drifting down slowly: a quarter of it
//! is gone by the end, less what queued tasks hold), speed (Mflop/s,
//! roughly constant per rank, with noise) and the times (s) spent running
//! tasks, idle, in the scheduler and in MPI, which add up to the slice's
//! length (idle is high on a rank without work). Slice times are
//! `num × 0.04` plus a small positive jitter, with 6 decimals.
//!
//! # Messages
//!
//! Five kinds: `ctrl` and `data`, the seed's main ones, and three the seed
//! does not name (it only says there are five): `ack` (a receiver's
//! acknowledgement of data messages), `load` (queue lengths sent to the
//! ring neighbours every 5 slices) and `term` (termination detection: a
//! token passed by idle ranks in the tail, and rank 0's final broadcast).
//! Besides, every rank but 0 sends its counters to rank 0 each slice (a
//! `ctrl` message), as the tracer does. Each `extra` holds a
//! `<detail to count bytes/>` per destination (the extension trama's reader
//! accepts); a rank's `sbytes`/`scount` (of the `extra` and, summed over
//! kinds, of the `message`) are the sums of its details, its
//! `rbytes`/`rcount` what the others sent it in the slice.
//!
//! Elements whose counts are all zero are left out, as a tracer would:
//! the per-slice task counts and the `extra`s of kinds a rank neither sent
//! nor received in the slice (`prenatal`, `active`, `suspended` and the
//! `message` are always written).
//!
//! ```
//! use trama_gen::opents::{write_opents, OpentsGenOptions};
//! let mut opts = OpentsGenOptions::default();
//! opts.ranks = 4;
//! opts.slices = 50;
//! let mut out = Vec::new();
//! let bytes = write_opents(7, &opts, &mut out).unwrap();
//! assert_eq!(bytes, out.len() as u64);
//! let text = String::from_utf8(out).unwrap();
//! assert!(text.starts_with("<?xml"));
//! assert_eq!(text.matches("<slice ").count(), 50);
//! ```

use std::io::{self, Write};

use crate::Rng;

/// The kinds of messages, in the order their `extra`s are written.
pub const MESSAGE_KINDS: [&str; 5] = ["ctrl", "data", "ack", "load", "term"];

const CTRL: usize = 0;
const DATA: usize = 1;
const ACK: usize = 2;
const LOAD: usize = 3;
const TERM: usize = 4;

/// The slice period, in microseconds.
const PERIOD_US: u64 = 40_000;

/// What to generate.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpentsGenOptions {
    /// Ranks (nodes), at least 1 (default 8).
    pub ranks: u32,
    /// Slices (samples, one every 1/25 s; default 250, 10 s).
    pub slices: u64,
    /// The command line in the header (default `fib 40`).
    pub cmd: String,
    /// The start time in the header, `DD.MM.YYYY HH:MM` (default
    /// `27.04.2006 15:58`).
    pub start: String,
}

impl Default for OpentsGenOptions {
    fn default() -> Self {
        OpentsGenOptions {
            ranks: 8,
            slices: 250,
            cmd: "fib 40".to_string(),
            start: "27.04.2006 15:58".to_string(),
        }
    }
}

/// What [`write_opents_counted`] wrote.
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpentsGenStats {
    /// Bytes written.
    pub bytes: u64,
    /// Slices written.
    pub slices: u64,
    /// `<rank>` elements written (`slices × ranks`).
    pub rank_elements: u64,
    /// `<detail>`s of `exported` tasks (each a migration, count > 0).
    pub migrations: u64,
    /// `<detail>`s of `extra`s (each messages to one rank, count > 0).
    pub messages: u64,
    /// Tasks exported in all (the sum of the migrations' counts).
    pub tasks_exported: u64,
    /// Messages sent in all (the sum of the message details' counts).
    pub messages_sent: u64,
}

/// Writes a trace of `opts.slices` slices of `opts.ranks` ranks to `out`;
/// the bytes written. See the module's documentation.
pub fn write_opents(seed: u64, opts: &OpentsGenOptions, out: &mut impl Write) -> io::Result<u64> {
    write_opents_counted(seed, opts, out).map(|s| s.bytes)
}

/// [`write_opents`], saying what it wrote.
pub fn write_opents_counted(
    seed: u64,
    opts: &OpentsGenOptions,
    out: &mut impl Write,
) -> io::Result<OpentsGenStats> {
    let mut sim = Sim::new(seed, opts);
    let mut w = Chunked {
        out,
        buf: Vec::with_capacity(CHUNK + 64 * 1024),
        bytes: 0,
    };
    write!(
        w.buf,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<trace ranks=\"{}\" cmd=\"{}\" time=\"{}\">\n",
        sim.n,
        escape(&opts.cmd),
        escape(&opts.start)
    )?;
    for k in 0..opts.slices {
        sim.step(k);
        sim.write_slice(k, &mut w.buf)?;
        w.maybe_flush()?;
    }
    w.buf.extend_from_slice(b"</trace>\n");
    w.flush()?;
    sim.stats.bytes = w.bytes;
    sim.stats.slices = opts.slices;
    sim.stats.rank_elements = opts.slices * u64::from(sim.n);
    Ok(sim.stats)
}

/// About how many slices make a trace of `bytes` bytes with these options
/// (the phases kept in proportion): measured on a shorter run of the same
/// seed, with a 3 % margin, so that the trace is usually a little larger.
pub fn slices_for_size(seed: u64, opts: &OpentsGenOptions, bytes: u64) -> u64 {
    let mut probe = opts.clone();
    probe.slices = 2_000;
    let mut sink = Counter(0);
    let got = write_opents(seed, &probe, &mut sink).unwrap_or(1).max(1);
    let per_slice = got as f64 / probe.slices as f64;
    ((bytes as f64 / per_slice) * 1.03).ceil().max(1.0) as u64
}

/// Counts the bytes written to it.
struct Counter(u64);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

const CHUNK: usize = 256 * 1024;

/// Slices are formatted into `buf`, handed to `out` in chunks.
struct Chunked<'a, W: Write> {
    out: &'a mut W,
    buf: Vec<u8>,
    bytes: u64,
}

impl<W: Write> Chunked<'_, W> {
    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.bytes += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One rank's state.
#[derive(Clone, Debug, Default)]
struct Rank {
    prenatal: u64,
    suspended: u64,
    /// Children's results in, not yet matched with their parent.
    done_children: u64,
    cores: u64,
    /// Speed in hundredths of Mflop/s.
    mflops: u64,
    /// Free memory at the start, in tenths of MB.
    mem0: i64,
    /// Free memory now, in tenths of MB.
    mem: i64,
    /// Results owed to the ranks that exported tasks here: (origin, count).
    owed: Vec<(u32, u64)>,
    /// Steering of the division probability (random walk).
    drift: f64,
    /// Slices left of a shallow stretch of the tree (few divisions: the
    /// rank runs dry and steals).
    shallow: u32,
    // This slice's events.
    started: u64,
    finished: u64,
    imported: u64,
    active: u64,
}

/// Messages from one rank to another in one slice.
#[derive(Clone, Copy, Debug)]
struct Send {
    from: u32,
    kind: u8,
    to: u32,
    count: u64,
    bytes: u64,
}

struct Sim {
    rng: Rng,
    n: u32,
    slices: u64,
    ranks: Vec<Rank>,
    /// Tasks exported to each rank, arriving at the next slice.
    incoming: Vec<u64>,
    /// Results sent to each rank, arriving at the next slice.
    results: Vec<u64>,
    /// This slice's migrations: (from, to, count), merged and sorted.
    exports: Vec<(u32, u32, u64)>,
    /// This slice's messages, merged and sorted by (from, kind, to).
    sends: Vec<Send>,
    /// Received per rank and kind: (count, bytes).
    recv: Vec<[(u64, u64); 5]>,
    /// Slice times in microseconds (this one and the one before).
    time_us: u64,
    prev_us: u64,
    stats: OpentsGenStats,
}

impl Sim {
    fn new(seed: u64, opts: &OpentsGenOptions) -> Sim {
        let n = opts.ranks.max(1);
        let mut rng = Rng::new(seed ^ 0x0BE7_5EED);
        let ranks = (0..n)
            .map(|_| Rank {
                cores: *rng.pick(&[1, 2, 2, 4]),
                mflops: 80_000 + rng.below(80_000) as u64,
                mem0: 5_000 + rng.below(20_000) as i64,
                ..Rank::default()
            })
            .collect();
        let mut sim = Sim {
            rng,
            n,
            slices: opts.slices.max(1),
            ranks,
            incoming: vec![0; n as usize],
            results: vec![0; n as usize],
            exports: Vec::new(),
            sends: Vec::new(),
            recv: vec![[(0, 0); 5]; n as usize],
            time_us: 0,
            prev_us: 0,
            stats: OpentsGenStats::default(),
        };
        // The program's first task.
        sim.ranks[0].prenatal = 1;
        sim
    }

    /// Ring distance from rank 0.
    fn distance(&self, r: u32) -> u32 {
        r.min(self.n - r)
    }

    fn send(&mut self, from: u32, kind: usize, to: u32, count: u64, bytes: u64) {
        if from != to && count > 0 {
            self.sends.push(Send {
                from,
                kind: kind as u8,
                to,
                count,
                bytes,
            });
        }
    }

    /// Simulates slice `k`.
    fn step(&mut self, k: u64) {
        let f = k as f64 / self.slices as f64;
        let (tail, ramp) = (f >= 0.7, f < 0.15);
        self.exports.clear();
        self.sends.clear();
        for r in self.recv.iter_mut() {
            *r = [(0, 0); 5];
        }
        // Times: strictly increasing, 0.04 s apart plus jitter.
        self.prev_us = self.time_us;
        self.time_us = (k + 1) * PERIOD_US + 100 + self.rng.below(2_900) as u64;
        if k == 0 {
            self.prev_us = self.time_us - PERIOD_US;
        }
        // Arrivals of the last slice's exports and results.
        for r in 0..self.n as usize {
            let rank = &mut self.ranks[r];
            rank.imported = std::mem::take(&mut self.incoming[r]);
            rank.prenatal += rank.imported;
            rank.done_children += std::mem::take(&mut self.results[r]);
        }
        // A new computation if the work died out before the tail.
        if !tail
            && self
                .ranks
                .iter()
                .all(|r| r.prenatal == 0 && r.suspended == 0)
        {
            self.ranks[0].prenatal += 1;
        }
        for r in 0..self.n {
            self.execute(r, k, f, (ramp, tail));
        }
        self.return_results();
        if self.n > 1 {
            for r in 0..self.n {
                self.steal(r, k, (ramp, tail));
            }
            self.tracer_traffic(k, tail);
        }
        self.acknowledge_and_merge();
    }

    /// Execution on rank `r` in slice `k` (`f`: the share of the run
    /// done): tasks started, spawning or not, parents finished, memory.
    fn execute(&mut self, r: u32, k: u64, f: f64, (ramp, tail): (bool, bool)) {
        let n = self.n;
        let upper = n.div_ceil(2);
        let rank = &mut self.ranks[r as usize];
        let cap = (rank.cores * rank.mflops / 4_000).max(1);
        let target = 2 * cap;
        rank.drift =
            (rank.drift + (self.rng.below(1_001) as f64 / 1_000.0 - 0.5) * 0.06).clamp(-0.15, 0.15);
        if rank.shallow > 0 {
            rank.shallow -= 1;
        } else if !ramp && self.rng.chance(0.02) {
            rank.shallow = 3 + self.rng.below(10) as u32;
        }
        let p = if ramp {
            0.62
        } else if tail && r >= upper && n > 1 {
            0.2
        } else if rank.shallow > 0 {
            0.15
        } else {
            // Queues held around a target, which shrinks to nothing in the tail.
            let scale = if tail {
                ((0.97 - f) / 0.27).clamp(0.0, 1.0)
            } else {
                1.0
            };
            let t = target as f64 * scale;
            let q = rank.prenatal as f64;
            (0.5 + 0.25 * (t - q) / t.max(1.0) + rank.drift).clamp(0.05, 0.8)
        };
        let jitter = 85 + self.rng.below(31) as u64;
        let started = rank.prenatal.min(cap * jitter / 100);
        rank.prenatal -= started;
        let mut spawners = (started as f64 * p) as u64;
        if self.rng.chance(started as f64 * p - spawners as f64) {
            spawners += 1;
        }
        let leaves = started - spawners;
        rank.prenatal += 2 * spawners;
        rank.suspended += spawners;
        rank.done_children += leaves;
        // A parent finishes with its second child's result, which may
        // finish its own parent: a few rounds per slice.
        let mut parents = 0;
        for _ in 0..4 {
            let p = (rank.done_children / 2).min(rank.suspended);
            if p == 0 {
                break;
            }
            rank.done_children -= p;
            rank.suspended -= p;
            parents += p;
        }
        // Without work left, waiting parents are resumed anyway (their
        // children's results are in transit).
        if rank.prenatal == 0 && rank.owed.is_empty() && rank.suspended > 0 {
            let p = rank.suspended.min(cap);
            rank.suspended -= p;
            parents += p;
            rank.done_children = 0;
        }
        rank.started = started;
        rank.finished = leaves + parents;
        rank.active = rank.cores.min(rank.prenatal + u64::from(started > 0));
        // A slow leak (a quarter of the memory over the run), memory
        // held by queued and waiting tasks, and noise.
        let leak = rank.mem0 * k as i64 / 4 / self.slices as i64;
        let held = (rank.prenatal + rank.suspended) as i64 / 64;
        let noise = self.rng.below(5) as i64 - 2;
        rank.mem = (rank.mem0 - leak - held + noise).max(100);
    }

    /// Results of imported tasks go back to their origins.
    fn return_results(&mut self) {
        let n = self.n;
        for r in 0..n {
            let rank = &mut self.ranks[r as usize];
            if rank.owed.is_empty() || rank.finished == 0 {
                continue;
            }
            let mut budget = rank.finished.div_ceil(2);
            let mut back = Vec::new();
            for (origin, owed) in rank.owed.iter_mut() {
                let give = (*owed).min(budget);
                *owed -= give;
                budget -= give;
                if give > 0 {
                    back.push((*origin, give));
                }
            }
            rank.owed.retain(|o| o.1 > 0);
            for (origin, give) in back {
                self.results[origin as usize] += give;
                let bytes = give * (48 + self.rng.below(32) as u64);
                self.send(r, DATA, origin, give, bytes);
            }
        }
    }

    /// Work stealing by rank `r`, when idle, from a ring neighbour.
    fn steal(&mut self, r: u32, k: u64, (ramp, tail): (bool, bool)) {
        let n = self.n;
        let upper = n.div_ceil(2);
        if self.ranks[r as usize].prenatal > 0 || self.incoming[r as usize] > 0 {
            return;
        }
        if ramp {
            // The work reaches the ranks along the ring, one step at a time.
            let joins = u64::from(self.distance(r)) * self.slices * 15 / 100 / u64::from(n / 2 + 1);
            if k < joins {
                return;
            }
        } else if tail && r >= upper {
            return;
        }
        let (left, right) = ((r + n - 1) % n, (r + 1) % n);
        let mut victim =
            if self.ranks[left as usize].prenatal >= self.ranks[right as usize].prenatal {
                left
            } else {
                right
            };
        if !ramp && self.rng.chance(0.25) {
            victim = self.rng.below(n as usize) as u32;
        }
        if tail && victim >= upper {
            victim = self.rng.below(upper as usize) as u32;
        }
        if victim == r {
            return;
        }
        self.send(r, CTRL, victim, 1, 32);
        let have = self.ranks[victim as usize].prenatal;
        if have >= 2 {
            let give = (have / 2).min(8 + self.rng.below(24) as u64);
            self.ranks[victim as usize].prenatal -= give;
            self.incoming[r as usize] += give;
            let rank = &mut self.ranks[r as usize];
            match rank.owed.iter_mut().find(|o| o.0 == victim) {
                Some(o) => o.1 += give,
                None => rank.owed.push((victim, give)),
            }
            self.exports.push((victim, r, give));
            let bytes = give * (180 + self.rng.below(120) as u64);
            self.send(victim, DATA, r, give, bytes);
        } else {
            // "No work here."
            self.send(victim, CTRL, r, 1, 24);
        }
    }

    /// The tracer's own traffic, load exchanges and termination messages.
    fn tracer_traffic(&mut self, k: u64, tail: bool) {
        let n = self.n;
        // The counters of every rank go to rank 0 (the tracer's own traffic).
        for r in 1..n {
            let bytes = 160 + self.rng.below(40) as u64;
            self.send(r, CTRL, 0, 1, bytes);
        }
        // Queue lengths to the neighbours every 5 slices.
        if k.is_multiple_of(5) {
            for r in 0..n {
                self.send(r, LOAD, (r + 1) % n, 1, 24);
                self.send(r, LOAD, (r + n - 1) % n, 1, 24);
            }
        }
        // Termination detection in the tail; the final broadcast.
        if tail {
            for r in 0..n {
                let rank = &self.ranks[r as usize];
                if rank.prenatal == 0 && rank.started == 0 && self.rng.chance(0.1) {
                    self.send(r, TERM, (r + 1) % n, 1, 16);
                }
            }
        }
        if k + 1 == self.slices {
            for r in 1..n {
                self.send(0, TERM, r, 1, 16);
            }
        }
    }

    /// Acknowledgements of data messages, then what was sent and exported
    /// merged and ordered.
    fn acknowledge_and_merge(&mut self) {
        // Acknowledgements of data messages (one per 4, at least one).
        let acks: Vec<(u32, u32, u64)> = self
            .sends
            .iter()
            .filter(|s| s.kind as usize == DATA)
            .map(|s| (s.to, s.from, s.count.div_ceil(4)))
            .collect();
        for (from, to, count) in acks {
            self.send(from, ACK, to, count, 8 * count);
        }
        // Merge and order what was sent and exported.
        self.sends.sort_unstable_by_key(|s| (s.from, s.kind, s.to));
        self.sends.dedup_by(|b, a| {
            if (a.from, a.kind, a.to) == (b.from, b.kind, b.to) {
                a.count += b.count;
                a.bytes += b.bytes;
                true
            } else {
                false
            }
        });
        for s in &self.sends {
            let r = &mut self.recv[s.to as usize][s.kind as usize];
            r.0 += s.count;
            r.1 += s.bytes;
        }
        self.exports.sort_unstable();
        self.exports.dedup_by(|b, a| {
            if (a.0, a.1) == (b.0, b.1) {
                a.2 += b.2;
                true
            } else {
                false
            }
        });
    }

    /// Writes slice `k` (after [`Sim::step`]) into `buf`.
    fn write_slice(&mut self, k: u64, buf: &mut Vec<u8>) -> io::Result<()> {
        let dt = self.time_us - self.prev_us;
        writeln!(
            buf,
            "<slice num=\"{k}\" time=\"{}.{:06}\">",
            self.time_us / 1_000_000,
            self.time_us % 1_000_000
        )?;
        let (mut si, mut ei) = (0, 0);
        for r in 0..self.n {
            let rank = &self.ranks[r as usize];
            // Sends and migrations of this rank: runs of the sorted lists.
            let s0 = si;
            while si < self.sends.len() && self.sends[si].from == r {
                si += 1;
            }
            let e0 = ei;
            while ei < self.exports.len() && self.exports[ei].0 == r {
                ei += 1;
            }
            let sends = &self.sends[s0..si];
            let exports = &self.exports[e0..ei];
            // Time: tasks while busy, the scheduler per started task, MPI per message.
            let cap = (rank.cores * rank.mflops / 4_000).max(1);
            let load = (rank.started * 1_000 / cap).min(1_000);
            let mut tasks = dt * load * (900 + self.rng.below(60) as u64) / 1_000_000;
            let mut sched = 150 + self.rng.below(250) as u64 + rank.started * 8;
            let msgs: u64 = sends.iter().map(|s| s.count).sum::<u64>()
                + self.recv[r as usize].iter().map(|x| x.0).sum::<u64>();
            let mut mpi = 40 + msgs * 12 + self.rng.below(60) as u64;
            let used = tasks + sched + mpi;
            if used > dt {
                // Scaled down to fit the slice.
                tasks = tasks * dt / used;
                sched = sched * dt / used;
                mpi = mpi * dt / used;
            }
            let idle = dt - tasks - sched - mpi;
            let mflops = rank.mflops * (970 + self.rng.below(61) as u64) / 1_000;
            let mem = rank.mem;
            let us = |x: u64| (x / 1_000_000, x % 1_000_000);
            let ((ts, tf), (is, if_), (ss, sf), (ms, mf)) =
                (us(tasks), us(idle), us(sched), us(mpi));
            write!(
                buf,
                "  <rank num=\"{r}\">\n    <resource mbytes=\"{}.{}\" mflops=\"{}.{:02}\" tasks=\"{ts}.{tf:06}\" idle=\"{is}.{if_:06}\" sched=\"{ss}.{sf:06}\" mpi=\"{ms}.{mf:06}\" />\n",
                mem / 10,
                mem % 10,
                mflops / 100,
                mflops % 100
            )?;
            let exported: u64 = exports.iter().map(|e| e.2).sum();
            for (ty, count, always) in [
                ("started", rank.started, false),
                ("prenatal", rank.prenatal, true),
                ("exported", exported, false),
                ("imported", rank.imported, false),
                ("active", rank.active, true),
                ("suspended", rank.suspended, true),
                ("finished", rank.finished, false),
            ] {
                if count == 0 && !always {
                    continue;
                }
                if ty == "exported" {
                    writeln!(buf, "    <task type=\"exported\" count=\"{count}\">")?;
                    for &(_, to, c) in exports {
                        writeln!(buf, "      <detail count=\"{c}\" to=\"{to}\" />")?;
                        self.stats.migrations += 1;
                        self.stats.tasks_exported += c;
                    }
                    buf.extend_from_slice(b"    </task>\n");
                } else {
                    writeln!(buf, "    <task type=\"{ty}\" count=\"{count}\" />")?;
                }
            }
            // Messages: totals, then a kind at a time.
            let mut sent = [(0u64, 0u64); 5];
            for s in sends {
                sent[s.kind as usize].0 += s.count;
                sent[s.kind as usize].1 += s.bytes;
            }
            let recv = self.recv[r as usize];
            let total = |v: &[(u64, u64); 5]| v.iter().fold((0, 0), |(c, b), x| (c + x.0, b + x.1));
            let (sc, sb) = total(&sent);
            let (rc, rb) = total(&recv);
            writeln!(
                buf,
                "    <message sbytes=\"{sb}\" scount=\"{sc}\" rbytes=\"{rb}\" rcount=\"{rc}\">"
            )?;
            let mut at = 0;
            for (kind, name) in MESSAGE_KINDS.iter().enumerate() {
                let ((sc, sb), (rc, rb)) = (sent[kind], recv[kind]);
                let from = at;
                while at < sends.len() && sends[at].kind as usize == kind {
                    at += 1;
                }
                if sc == 0 && rc == 0 {
                    continue;
                }
                write!(
                    buf,
                    "      <extra type=\"{name}\" sbytes=\"{sb}\" scount=\"{sc}\" rbytes=\"{rb}\" rcount=\"{rc}\""
                )?;
                if from == at {
                    buf.extend_from_slice(b" />\n");
                    continue;
                }
                buf.extend_from_slice(b">\n");
                for s in &sends[from..at] {
                    writeln!(
                        buf,
                        "        <detail to=\"{}\" count=\"{}\" bytes=\"{}\" />",
                        s.to, s.count, s.bytes
                    )?;
                    self.stats.messages += 1;
                    self.stats.messages_sent += s.count;
                }
                buf.extend_from_slice(b"      </extra>\n");
            }
            buf.extend_from_slice(b"    </message>\n  </rank>\n");
        }
        buf.extend_from_slice(b"</slice>\n");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> OpentsGenOptions {
        OpentsGenOptions {
            ranks: 6,
            slices: 300,
            ..OpentsGenOptions::default()
        }
    }

    #[test]
    fn same_seed_same_bytes() {
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        let n = write_opents(3, &small(), &mut a).unwrap();
        write_opents(3, &small(), &mut b).unwrap();
        write_opents(4, &small(), &mut c).unwrap();
        assert_eq!(n, a.len() as u64);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn phases_show_in_the_counters() {
        let mut out = Vec::new();
        let stats = write_opents_counted(1, &small(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(stats.migrations > 20, "{stats:?}");
        assert!(stats.messages > 1_000, "{stats:?}");
        // Per slice, the ranks that started no task.
        let idle: Vec<usize> = text
            .split("<slice ")
            .skip(1)
            .map(|s| 6 - s.matches("type=\"started\"").count())
            .collect();
        let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len() as f64;
        let (ramp, busy, tail) = (&idle[..20], &idle[100..200], &idle[240..290]);
        // Ranks join during the ramp-up, all work in the middle, half idle at the end.
        assert!(mean(ramp) > 2.0, "{}", mean(ramp));
        assert!(mean(busy) < 0.5, "{}", mean(busy));
        assert!(mean(tail) >= 2.5, "{}", mean(tail));
        for kind in MESSAGE_KINDS {
            assert!(text.contains(&format!("<extra type=\"{kind}\"")), "{kind}");
        }
        // Free memory drifts down.
        let mbytes: Vec<f64> = text
            .match_indices("<rank num=\"0\">\n    <resource mbytes=\"")
            .map(|(i, m)| {
                let rest = &text[i + m.len()..];
                rest[..rest.find('"').unwrap()].parse().unwrap()
            })
            .collect();
        assert_eq!(mbytes.len(), 300);
        assert!(
            mbytes[299] < mbytes[0] * 0.8,
            "{} {}",
            mbytes[0],
            mbytes[299]
        );
    }

    #[test]
    fn size_estimate_is_close() {
        let o = small();
        let want = 3_000_000;
        let mut o2 = o.clone();
        o2.slices = slices_for_size(5, &o, want);
        let mut sink = Counter(0);
        let got = write_opents(5, &o2, &mut sink).unwrap();
        assert!(got >= want && got < want * 11 / 10, "{got}");
    }
}
