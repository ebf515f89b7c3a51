//! Decoded slices kept between checks, up to a memory budget, oldest out
//! first: slices are checked in plan order, so a slice's dependencies were
//! mostly decoded for the checks just before it.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Arc;

pub struct Loaded<K, V> {
    budget: u64,
    bytes: u64,
    slices: HashMap<K, (Arc<V>, u64)>,
    order: VecDeque<K>,
}

impl<K: Hash + Eq + Copy, V> Loaded<K, V> {
    pub fn new(budget: u64) -> Loaded<K, V> {
        Loaded {
            budget,
            bytes: 0,
            slices: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// The keys of the slices kept.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.order.iter()
    }

    pub fn get(&self, key: K) -> Option<Arc<V>> {
        self.slices.get(&key).map(|(v, _)| Arc::clone(v))
    }

    /// Drops the slice kept under `key`, if any.
    pub fn remove(&mut self, key: K) {
        if let Some((_, bytes)) = self.slices.remove(&key) {
            self.bytes -= bytes;
            self.order.retain(|k| *k != key);
        }
    }

    /// Drops the oldest slices that `keep` does not name until `bytes` more
    /// fit in the budget beside the rest (or only kept ones are left).
    pub fn make_room(&mut self, bytes: u64, keep: impl Fn(&K) -> bool) {
        while self.bytes + bytes > self.budget {
            let Some(at) = self.order.iter().position(|k| !keep(k)) else {
                break;
            };
            let Some(gone) = self.order.remove(at) else {
                break;
            };
            if let Some((_, gone)) = self.slices.remove(&gone) {
                self.bytes -= gone;
            }
        }
    }

    /// Keeps `value` (taking `bytes`), dropping the oldest slices while the
    /// budget is exceeded (never the one just kept).
    pub fn insert(&mut self, key: K, value: V, bytes: u64) -> Arc<V> {
        let value = Arc::new(value);
        if let Some((_, old)) = self.slices.insert(key, (Arc::clone(&value), bytes)) {
            self.bytes -= old;
            self.order.retain(|k| *k != key);
        }
        self.bytes += bytes;
        self.order.push_back(key);
        while self.bytes > self.budget && self.order.len() > 1 {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some((_, gone)) = self.slices.remove(&oldest) {
                self.bytes -= gone;
            }
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_go_first_and_the_newest_stays() {
        let mut loaded = Loaded::new(10);
        loaded.insert(1, "a", 4);
        loaded.insert(2, "b", 4);
        assert!(loaded.get(1).is_some());
        loaded.insert(3, "c", 4);
        assert!(loaded.get(1).is_none(), "over budget: the oldest left");
        assert!(loaded.get(2).is_some() && loaded.get(3).is_some());
        loaded.insert(4, "big", 100);
        assert!(loaded.get(4).is_some(), "the newest stays even over budget");
        assert!(loaded.get(3).is_none());
    }

    #[test]
    fn room_is_made_from_the_oldest_slices_not_kept() {
        let mut loaded = Loaded::new(12);
        for key in 1..=3 {
            loaded.insert(key, "x", 4);
        }
        loaded.make_room(4, |&k| k == 1);
        assert!(loaded.get(1).is_some(), "named to keep, though oldest");
        assert!(loaded.get(2).is_none(), "the oldest of the others");
        assert!(loaded.get(3).is_some(), "4 + 4 + 4 fit in 12");
        loaded.make_room(100, |&k| k == 1);
        assert!(loaded.get(1).is_some() && loaded.get(3).is_none());
        loaded.make_room(100, |_| true);
        assert!(loaded.get(1).is_some(), "only kept ones left: they stay");
    }
}
