//! Definitions by identifier: a vector for the dense identifiers writers
//! give, a map for the rest.

use std::collections::HashMap;

/// Identifiers below this go into the vector.
const DENSE: u64 = 1 << 20;

/// Values by identifier.
#[derive(Clone, Debug)]
pub struct Table<T> {
    dense: Vec<Option<T>>,
    sparse: HashMap<u64, T>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            dense: Vec::new(),
            sparse: HashMap::new(),
        }
    }
}

impl<T> Table<T> {
    /// Sets the value of `id` (a later definition replaces an earlier one).
    pub fn insert(&mut self, id: u64, value: T) {
        if id < DENSE {
            let i = id as usize;
            if self.dense.len() <= i {
                self.dense.resize_with(i + 1, || None);
            }
            self.dense[i] = Some(value);
        } else {
            self.sparse.insert(id, value);
        }
    }

    /// The value of `id`.
    #[inline]
    pub fn get(&self, id: u64) -> Option<&T> {
        if id < DENSE {
            self.dense.get(id as usize).and_then(|v| v.as_ref())
        } else {
            self.sparse.get(&id)
        }
    }

    /// Every identifier and value, dense ones in order, then the others.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> {
        self.dense
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_ref().map(|v| (i as u64, v)))
            .chain(self.sparse.iter().map(|(k, v)| (*k, v)))
    }

    /// How many identifiers have a value.
    pub fn len(&self) -> usize {
        self.dense.iter().filter(|v| v.is_some()).count() + self.sparse.len()
    }

    /// Whether no identifier has a value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
