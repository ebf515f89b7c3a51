//! Fast images of cell masks under a fixed map of cells to bits.

/// Maps each cell of a mask to a bit of the image, one table lookup per byte
/// of the input. Built once per permutation; an image costs a few loads.
#[derive(Debug, Clone)]
pub struct CellMap {
    tables: Vec<[u64; 256]>,
}

impl CellMap {
    /// `target[c]` is the bit that cell `c` maps to.
    pub fn new(target: &[u32]) -> CellMap {
        let chunks = target.len().div_ceil(8).max(1);
        let mut tables = vec![[0u64; 256]; chunks];
        for (chunk, table) in tables.iter_mut().enumerate() {
            for (byte, entry) in table.iter_mut().enumerate() {
                for bit in 0..8 {
                    let cell = chunk * 8 + bit;
                    if byte & (1 << bit) != 0 && cell < target.len() {
                        *entry |= 1u64 << target[cell];
                    }
                }
            }
        }
        CellMap { tables }
    }

    #[inline]
    pub fn apply(&self, mask: u64) -> u64 {
        let mut image = 0;
        for (chunk, table) in self.tables.iter().enumerate() {
            image |= table[((mask >> (8 * chunk)) & 0xff) as usize];
        }
        image
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_every_cell() {
        let target: Vec<u32> = (0..20).map(|c| (c * 7) % 20).collect();
        let map = CellMap::new(&target);
        for (c, &bit) in target.iter().enumerate() {
            assert_eq!(map.apply(1 << c), 1 << bit);
        }
        assert_eq!(map.apply(0b11), (1 << target[0]) | (1 << target[1]));
    }
}
