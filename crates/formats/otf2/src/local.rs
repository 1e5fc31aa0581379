//! A location's local definitions (`<name>/<location>.def`): the tables
//! that map the identifiers its events use to global ones, and the clock
//! offsets that correct its timestamps.
//!
//! A mapping table is the mapping type (one byte), then an identifier
//! map: the number of entries (compressed), the mode (one byte: 0 dense,
//! the global identifier of each local one from 0; 1 sparse, pairs of
//! local and global identifiers), then the entries (compressed). A clock
//! offset is a timestamp (full), an offset in ticks (compressed signed)
//! and a standard deviation (`double`): between two offsets the
//! correction is interpolated linearly, past the last one the last
//! interval's line goes on (as the OTF2 library does; a single offset
//! corrects nothing).

use std::collections::{BTreeMap, HashMap};

use crate::buf::Cursor;
use crate::chunks::Chunks;
use crate::error::Bad;
use crate::records::def;

/// Mapping types of identifiers events refer to.
pub mod mapping {
    /// Strings.
    pub const STRING: usize = 0;
    /// Regions.
    pub const REGION: usize = 3;
    /// Metrics.
    pub const METRIC: usize = 5;
    /// Communicators.
    pub const COMM: usize = 6;
    /// Number of mapping types.
    pub const COUNT: usize = 15;
}

/// Local identifiers to global ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdMap {
    /// Global identifiers of local identifiers 0, 1, 2, …
    Dense(Vec<u64>),
    /// Pairs.
    Sparse(HashMap<u64, u64>),
}

impl IdMap {
    /// The global identifier of `local` (itself when the map has none).
    #[inline]
    pub fn map(&self, local: u64) -> u64 {
        match self {
            IdMap::Dense(v) => v.get(local as usize).copied().unwrap_or(local),
            IdMap::Sparse(m) => m.get(&local).copied().unwrap_or(local),
        }
    }
}

/// A stretch of the clock correction: from `begin` to `end` (raw ticks),
/// `offset` plus `slope` per tick past `begin`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockInterval {
    /// Its first tick.
    pub begin: u64,
    /// Its last tick.
    pub end: u64,
    /// The offset at `begin`.
    pub offset: i64,
    /// The change of the offset per tick.
    pub slope: f64,
}

/// What a location's local definitions say.
#[derive(Clone, Debug, Default)]
pub struct LocalDefinitions {
    /// Mapping tables, by mapping type.
    pub maps: Vec<Option<IdMap>>,
    /// The clock correction, in time order (empty: none).
    pub clock: Vec<ClockInterval>,
    /// Records read by name, the skipped ones included.
    pub counts: BTreeMap<String, u64>,
}

impl LocalDefinitions {
    /// The map of mapping type `kind`.
    #[inline]
    pub fn map(&self, kind: usize) -> Option<&IdMap> {
        self.maps.get(kind).and_then(|m| m.as_ref())
    }
}

/// Reads a local definitions file.
pub(crate) fn read_local(data: &[u8], chunk_size: usize) -> Result<LocalDefinitions, Bad> {
    let mut l = LocalDefinitions {
        maps: vec![None; mapping::COUNT],
        ..LocalDefinitions::default()
    };
    let mut offsets: Vec<(u64, i64)> = Vec::new();
    let mut chunks = Chunks::open_definitions(data, chunk_size)?;
    while let Some((id, mut c)) = chunks.next_definition()? {
        let name = match id {
            def::MAPPING_TABLE => {
                let kind = c.u8()? as usize;
                let map = id_map(&mut c)?;
                if let Some(slot) = l.maps.get_mut(kind) {
                    *slot = Some(map);
                }
                "MAPPING_TABLE".to_string()
            }
            def::CLOCK_OFFSET => {
                let time = c.u64_full()?;
                let offset = c.i64c()?;
                let _deviation = c.f64()?;
                offsets.push((time, offset));
                "CLOCK_OFFSET".to_string()
            }
            _ => match crate::records::definition_name(id) {
                Some(n) => format!("local {n}"),
                None => format!("unknown definition record {id}"),
            },
        };
        *l.counts.entry(name).or_default() += 1;
    }
    for w in offsets.windows(2) {
        let ((t0, o0), (t1, o1)) = (w[0], w[1]);
        if t1 <= t0 {
            continue;
        }
        l.clock.push(ClockInterval {
            begin: t0,
            end: t1,
            offset: o0,
            slope: (o1 - o0) as f64 / (t1 - t0) as f64,
        });
    }
    Ok(l)
}

fn id_map(c: &mut Cursor<'_>) -> Result<IdMap, Bad> {
    let at = c.pos;
    let n = c.u64c()?;
    let mode = c.u8()?;
    // Each entry takes one byte at least.
    let per = if mode == 0 { 1 } else { 2 };
    if n.saturating_mul(per) > c.remaining() as u64 {
        return Err(Bad::new(
            at,
            format!(
                "an identifier map of {n} entries in {} bytes",
                c.remaining()
            ),
        ));
    }
    match mode {
        0 => {
            let mut v = Vec::with_capacity(n as usize);
            for _ in 0..n {
                v.push(c.u64c()?);
            }
            Ok(IdMap::Dense(v))
        }
        1 => {
            let mut m = HashMap::with_capacity(n as usize);
            for _ in 0..n {
                let local = c.u64c()?;
                m.insert(local, c.u64c()?);
            }
            Ok(IdMap::Sparse(m))
        }
        m => Err(Bad::new(at, format!("unknown identifier map mode {m}"))),
    }
}

/// Applies a location's clock correction to timestamps in time order.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClockCorrection {
    current: usize,
}

impl ClockCorrection {
    /// The corrected `time` (itself without intervals).
    #[inline]
    pub fn correct(&mut self, intervals: &[ClockInterval], time: u64) -> u64 {
        if intervals.is_empty() {
            return time;
        }
        while self.current + 1 < intervals.len() && time > intervals[self.current].end {
            self.current += 1;
        }
        let i = &intervals[self.current];
        let diff = if time >= i.begin {
            (time - i.begin) as f64
        } else {
            -((i.begin - time) as f64)
        };
        let offset = i
            .offset
            .wrapping_add((i.slope * diff).round_ties_even() as i64);
        time.wrapping_add(offset as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A local definitions file: a sparse map of regions, a dense map of
    /// communicators, two clock offsets, a record of another type.
    fn file(big: bool) -> Vec<u8> {
        let full = |v: u64| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let mut d = vec![3, if big { 0x23 } else { 0x42 }];
        d.extend(full(1));
        d.extend(full(0));
        // Sparse: 2 pairs (7 → 300, 9 → 1).
        d.extend_from_slice(&[5, 13, 3, 1, 2, 1, 1, 7, 2]);
        d.extend(if big { [0x01, 0x2c] } else { [0x2c, 0x01] });
        d.extend_from_slice(&[1, 9, 1, 1]);
        // Dense: 2 entries (0 → 4, 1 → 0).
        d.extend_from_slice(&[5, 7, 6, 1, 2, 0, 1, 4, 0]);
        // Clock offsets at ticks 100 (offset 10) and 200 (offset -10).
        d.extend_from_slice(&[6, 18]);
        d.extend(full(100));
        d.extend_from_slice(&[1, 10]);
        d.extend(full(0));
        d.extend_from_slice(&[6, 25]);
        d.extend(full(200));
        d.push(8);
        d.extend(full((-10i64) as u64));
        d.extend(full(0));
        // A local string: counted, skipped.
        d.extend_from_slice(&[10, 3, 0, b'x', 0]);
        d.push(2);
        d
    }

    #[test]
    fn mapping_tables_and_clock_offsets_both_ways() {
        for big in [false, true] {
            let l = read_local(&file(big), 1 << 20).unwrap();
            let regions = l.map(mapping::REGION).unwrap();
            assert!(matches!(regions, IdMap::Sparse(_)));
            assert_eq!(regions.map(7), 300);
            assert_eq!(regions.map(9), 1);
            assert_eq!(regions.map(8), 8);
            let comms = l.map(mapping::COMM).unwrap();
            assert_eq!((comms.map(0), comms.map(1), comms.map(2)), (4, 0, 2));
            assert_eq!(l.clock.len(), 1);
            let mut c = ClockCorrection::default();
            assert_eq!(c.correct(&l.clock, 150), 150);
            assert_eq!(c.correct(&l.clock, 100), 110);
            assert_eq!(l.counts["MAPPING_TABLE"], 2);
            assert_eq!(l.counts["CLOCK_OFFSET"], 2);
            assert_eq!(l.counts["local STRING"], 1);
        }
    }

    #[test]
    fn interpolated_correction() {
        let iv = [
            ClockInterval {
                begin: 100,
                end: 200,
                offset: 10,
                slope: 0.1,
            },
            ClockInterval {
                begin: 200,
                end: 300,
                offset: 20,
                slope: -0.2,
            },
        ];
        let mut c = ClockCorrection::default();
        assert_eq!(c.correct(&iv, 50), 55);
        assert_eq!(c.correct(&iv, 150), 165);
        assert_eq!(c.correct(&iv, 250), 260);
        assert_eq!(c.correct(&iv, 400), 380);
    }
}
