//! Tables read all over: memory the kernel may back with huge pages, and
//! cells asked for before they are needed.

/// Asks for huge pages on the whole 2 MiB pages inside `table`. Tables of
/// hundreds of megabytes read at random miss the TLB on nearly every read
/// with 4 KiB pages. The advice works on pages not yet touched, so it comes
/// before the first write; failing, it only leaves small pages.
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
            // advice changes no contents.
            unsafe { libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = table;
}

/// Asks the processor to bring `items[i]` into the cache: the engines and
/// the checker look up cells all over tables of gigabytes, and a batch of prefetched lookups
/// waits for memory once instead of once per lookup.
#[inline(always)]
pub fn prefetch<T>(items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = items.get(i) {
        // SAFETY: a prefetch reads nothing architecturally; the address is
        // an element of `items`.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (item as *const T).cast::<i8>(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, i);
}
