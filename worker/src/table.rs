//! A solved slice in memory.

pub use egdb_check::memory::{advise_huge_pages, prefetch};

use crate::nim::planes::Planes;

/// A slice's table as the engines read and write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SliceTable {
    /// One win bit per position, 64 positions per word.
    Bits(Vec<u64>),
    /// Value and depth of 64 positions per word, in bit planes.
    Depths(Vec<Planes>),
}

/// A zeroed table of `len` entries whose memory the kernel may back with
/// huge pages: engines read tables of gigabytes all over, and with 4 KiB
/// pages nearly every read misses the TLB and every 4 KiB written faults.
pub fn zeroed_table<T: bytemuck::Zeroable>(len: usize) -> Vec<T> {
    // Large zeroed allocations are fresh, untouched pages: the advice
    // comes before the first write.
    let table = bytemuck::zeroed_vec::<T>(len);
    advise_huge_pages(&table);
    table
}

/// A zeroed table of atomics, in memory the kernel may back with huge
/// pages (see [`zeroed_table`]); `Plain` is the atomic's plain integer.
pub fn zeroed_atomics<Plain: bytemuck::Zeroable, Atomic: AtomicOf<Plain>>(
    len: usize,
) -> Vec<Atomic> {
    let mut plain = std::mem::ManuallyDrop::new(zeroed_table::<Plain>(len));
    let (ptr, len, capacity) = (plain.as_mut_ptr(), plain.len(), plain.capacity());
    // SAFETY: `AtomicOf` is implemented only for atomics with the size and
    // alignment of their plain integer (checked at compile time below), so
    // the allocation is a valid one of `len` atomics; zero is a valid atomic.
    unsafe { Vec::from_raw_parts(ptr.cast::<Atomic>(), len, capacity) }
}

/// An atomic integer laid out exactly as `Plain`.
///
/// # Safety
/// Implementors must have the size and alignment of `Plain`, and every
/// bit pattern of `Plain` must be a valid value.
pub unsafe trait AtomicOf<Plain> {}

// SAFETY: the standard library documents each atomic as having the same
// in-memory representation as its integer.
unsafe impl AtomicOf<u64> for std::sync::atomic::AtomicU64 {}
// SAFETY: as above.
unsafe impl AtomicOf<u8> for std::sync::atomic::AtomicU8 {}

const _: () = {
    use std::mem::{align_of, size_of};
    use std::sync::atomic::{AtomicU64, AtomicU8};
    assert!(
        size_of::<AtomicU64>() == size_of::<u64>() && align_of::<AtomicU64>() == align_of::<u64>()
    );
    assert!(size_of::<AtomicU8>() == size_of::<u8>() && align_of::<AtomicU8>() == align_of::<u8>());
};
