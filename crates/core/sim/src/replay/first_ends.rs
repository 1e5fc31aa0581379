//! The check that no link key was used twice, over every block of a
//! parallel replay: hashes of links' first ends, compared in parallel.

/// Hashes of links' first ends ([`Replay::first_ends`]), spread over 256
/// buckets by their top bits so that [`has_duplicates`] checks buckets in
/// parallel, each small enough to stay in cache.
#[derive(Clone, Debug)]
pub struct FirstEnds {
    buckets: Vec<Vec<u64>>,
}

impl Default for FirstEnds {
    fn default() -> Self {
        FirstEnds {
            buckets: vec![Vec::new(); 256],
        }
    }
}

impl FirstEnds {
    /// Adds hashes.
    pub fn add(&mut self, hashes: &[u64]) {
        for &h in hashes {
            self.buckets[(h >> 56) as usize].push(h);
        }
    }

    /// Number of hashes.
    pub fn len(&self) -> usize {
        self.buckets.iter().map(|b| b.len()).sum()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// True when two of the hashes gathered in `parts` are equal: a link key
/// may have been reused (or, very rarely, two keys hash alike), and the
/// reference engine must decide. Buckets are checked on `threads` threads
/// (the caller's and `threads - 1` more), each taking the next bucket not
/// taken until one finds a duplicate.
pub fn has_duplicates(parts: &[FirstEnds], threads: usize) -> bool {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let total: usize = parts.iter().map(FirstEnds::len).sum();
    if total < 2 {
        return false;
    }
    // Small sets are not worth a thread.
    let threads = if total < 1 << 14 { 1 } else { threads };
    let next = AtomicUsize::new(0);
    let found = AtomicBool::new(false);
    let work = || {
        let mut table = Vec::new();
        while !found.load(Ordering::Relaxed) {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= 256 {
                break;
            }
            if bucket_has_duplicates(parts, b, &mut table) {
                found.store(true, Ordering::Relaxed);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.max(1) {
            scope.spawn(work);
        }
        work();
    });
    found.into_inner()
}

/// True when two hashes of bucket `b` of `parts` are equal; `table` is
/// scratch space.
fn bucket_has_duplicates(parts: &[FirstEnds], b: usize, table: &mut Vec<u64>) -> bool {
    let n: usize = parts.iter().map(|p| p.buckets[b].len()).sum();
    if n < 2 {
        return false;
    }
    // Open addressing, linear probing; 0 marks an empty slot (a zero hash
    // is stored as 1, which at worst reports a duplicate that is not one:
    // the reference engine then decides).
    let size = (2 * n).next_power_of_two();
    let mask = size - 1;
    table.clear();
    table.resize(size, 0);
    for p in parts {
        for &h in &p.buckets[b] {
            let h = h.max(1);
            // The top byte is the bucket's: spread with the low bits.
            let mut i = (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & mask;
            loop {
                match table[i] {
                    0 => {
                        table[i] = h;
                        break;
                    }
                    x if x == h => return true,
                    _ => i = (i + 1) & mask,
                }
            }
        }
    }
    false
}
