//! Decompressed blocks, shared by every probe of a tablebase: looked up by
//! (slice number, block index) without allocating, read-locked on a hit,
//! the oldest dropped first once they pass the capacity.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// A block part's key: its slice's number in the tablebase (below
/// [`egdb_db_format::MAX_STORE_SLICES`], as no store holds more: 21 bits),
/// the block's index, the part's (below 2048: blocks are at most 16 MiB,
/// parts 8 KiB).
pub(super) fn key(slice: u32, block: u32, part: u32) -> u64 {
    (u64::from(slice) << 43) | (u64::from(block) << 11) | u64::from(part & 0x7FF)
}

/// Keys are two small numbers: one multiply spreads them well enough, far
/// cheaper than SipHash on every probe.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ (n >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(super) struct BlockCache {
    blocks: HashMap<u64, Arc<Vec<u8>>, BuildHasherDefault<KeyHasher>>,
    /// Insertion order, for eviction.
    order: VecDeque<u64>,
    bytes: u64,
    capacity: u64,
}

impl BlockCache {
    pub(super) fn new(capacity: u64) -> BlockCache {
        BlockCache {
            blocks: HashMap::default(),
            order: VecDeque::new(),
            bytes: 0,
            capacity,
        }
    }

    pub(super) fn get(&self, key: u64) -> Option<Arc<Vec<u8>>> {
        self.blocks.get(&key).cloned()
    }

    pub(super) fn insert(&mut self, key: u64, block: Arc<Vec<u8>>) {
        let size = block.len() as u64;
        if self.blocks.insert(key, block).is_some() {
            return;
        }
        self.bytes += size;
        self.order.push_back(key);
        while self.bytes > self.capacity && self.order.len() > 1 {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(old) = self.blocks.remove(&old) {
                self.bytes -= old.len() as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_blocks_go_first_past_the_capacity() {
        let mut cache = BlockCache::new(250);
        for i in 0..4 {
            cache.insert(key(1, i, 0), Arc::new(vec![0; 100]));
        }
        assert!(cache.get(key(1, 0, 0)).is_none() && cache.get(key(1, 1, 0)).is_none());
        assert!(cache.get(key(1, 2, 0)).is_some() && cache.get(key(1, 3, 0)).is_some());
        assert!(cache.get(key(2, 3, 0)).is_none() && cache.get(key(1, 3, 1)).is_none());
        // A block larger than the whole capacity is still kept, alone.
        cache.insert(key(3, 0, 0), Arc::new(vec![0; 1000]));
        assert!(cache.get(key(3, 0, 0)).is_some() && cache.get(key(1, 3, 0)).is_none());
    }
}

/// Blocks each thread used last, by slot: most probes find their block
/// here, touching neither the shared cache's lock nor any reference count
/// (both are contended cache lines when threads probe side by side).
const NEAR_SLOTS: usize = 64;

type NearSlot = Option<(u64, u64, Arc<Vec<u8>>)>;

thread_local! {
    static NEAR: std::cell::RefCell<Vec<NearSlot>> =
        std::cell::RefCell::new(vec![None; NEAR_SLOTS]);
}

fn near_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % NEAR_SLOTS
}

/// `read(block)` if this thread holds block `key` of tablebase `owner`.
pub(super) fn near<R>(owner: u64, key: u64, read: impl FnOnce(&[u8]) -> R) -> Option<R> {
    NEAR.with(|near| match &near.borrow()[near_slot(key)] {
        Some((o, k, block)) if *o == owner && *k == key => Some(read(block)),
        _ => None,
    })
}

/// Keeps `block` near this thread, in place of whatever shared its slot.
pub(super) fn keep_near(owner: u64, key: u64, block: Arc<Vec<u8>>) {
    NEAR.with(|near| near.borrow_mut()[near_slot(key)] = Some((owner, key, block)));
}
