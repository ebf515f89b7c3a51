//! A solved slice in memory.

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

/// Asks for huge pages on the whole 2 MiB pages inside `table`.
pub fn advise_huge_pages<T>(table: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = table.as_ptr() as usize;
        let end = start + std::mem::size_of_val(table);
        let first = start.next_multiple_of(HUGE);
        if end >= first + HUGE {
            let len = (end - first) / HUGE * HUGE;
            // SAFETY: the range lies inside the table's allocation, and the
            // advice changes no contents. Failure only means small pages.
            unsafe { libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
        }
    }
}
