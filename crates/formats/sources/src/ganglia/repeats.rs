//! Repeats: which samples were already emitted, for the source and the
//! collector alike (the rules are in the [module](super) documentation).

use std::collections::{HashMap, HashSet};

use super::{Sample, NS};
use trama_records::Nanos;

pub(super) enum Verdict {
    New,
    Repeat,
    Unchanged,
}

impl Verdict {
    /// Whether the sample is new; a repeat is counted in `repeats`, an
    /// unchanged text in `unchanged`.
    pub(super) fn is_new(&self, repeats: &mut u64, unchanged: &mut u64) -> bool {
        match self {
            Verdict::New => true,
            Verdict::Repeat => {
                *repeats += 1;
                false
            }
            Verdict::Unchanged => {
                *unchanged += 1;
                false
            }
        }
    }
}

/// What was already emitted, for each container and metric.
#[derive(Default)]
pub(super) struct Seen {
    /// Containers by `1 cluster \0 host` or `0 host`.
    containers: HashMap<String, u32>,
    key: String,
    metrics: HashMap<String, u32>,
    /// Numeric samples emitted: (container, metric, time, value bits).
    numbers: HashSet<(u32, u32, Nanos, u64)>,
    /// The last text emitted for each string metric.
    texts: HashMap<(u32, u32), Box<str>>,
    /// The texts emitted for each string metric at each time.
    texts_at: HashMap<(u32, u32, Nanos), Vec<Box<str>>>,
}

impl Seen {
    /// The container's and metric's indices (new ones numbered in order of
    /// appearance) and whether the sample is new.
    pub(super) fn admit(&mut self, s: &Sample<'_>) -> (u32, u32, Verdict) {
        self.key.clear();
        match s.cluster {
            Some(cl) => {
                self.key.push('1');
                self.key.push_str(cl);
                self.key.push('\0');
            }
            None => self.key.push('0'),
        }
        self.key.push_str(s.host);
        let n = self.containers.len() as u32;
        let c = match self.containers.get(self.key.as_str()) {
            Some(&c) => c,
            None => {
                self.containers.insert(self.key.clone(), n);
                n
            }
        };
        let n = self.metrics.len() as u32;
        let m = match self.metrics.get(s.metric) {
            Some(&m) => m,
            None => {
                self.metrics.insert(s.metric.to_string(), n);
                n
            }
        };
        let verdict = match s.number {
            Some(v) => {
                // +0.0 and -0.0 are one value.
                let bits = (v + 0.0).to_bits();
                let seen = [s.time, s.time - NS, s.time + NS]
                    .iter()
                    .any(|&t| self.numbers.contains(&(c, m, t, bits)));
                if seen {
                    Verdict::Repeat
                } else {
                    self.numbers.insert((c, m, s.time, bits));
                    Verdict::New
                }
            }
            None => {
                let replayed = [s.time, s.time - NS, s.time + NS].iter().any(|&t| {
                    self.texts_at
                        .get(&(c, m, t))
                        .is_some_and(|v| v.iter().any(|x| **x == *s.value))
                });
                match self.texts.get(&(c, m)) {
                    Some(t) if **t == *s.value => Verdict::Unchanged,
                    _ if replayed => Verdict::Repeat,
                    _ => {
                        self.texts.insert((c, m), s.value.into());
                        self.texts_at
                            .entry((c, m, s.time))
                            .or_default()
                            .push(s.value.into());
                        Verdict::New
                    }
                }
            }
        };
        (c, m, verdict)
    }
}
