//! A prefix code over a block's ranks shaped by how often each occurs
//! (Huffman's, no code longer than 15 bits), as the tree the range coder
//! walks: a frequent rank costs few coded bits, so decoding does less.

/// A child that is a leaf: the rank in the low byte.
const LEAF: u16 = 0x8000;
/// The longest code; lengths are stored in four bits.
pub const MAX_LEN: u8 = 15;

/// The tree of a complete prefix code: internal node 0 is the root.
pub struct CodeTree {
    /// Each internal node's children for a 0 and a 1: another internal
    /// node, or [`LEAF`] with a rank.
    children: Vec<[u16; 2]>,
    /// Each rank's code, its first bit highest, and its length.
    codes: Vec<(u16, u8)>,
}

/// What a walk down the tree reached.
pub enum Step {
    Node(usize),
    Rank(u8),
}

impl CodeTree {
    /// Code lengths for ranks that occur `counts` times (each at least
    /// once, 2 to 256 of them), none longer than [`MAX_LEN`].
    pub fn lengths(counts: &[u32]) -> Vec<u8> {
        let mut counts = counts.to_vec();
        loop {
            let lengths = huffman_lengths(&counts);
            if lengths.iter().all(|&l| l <= MAX_LEN) {
                return lengths;
            }
            // Flatter counts give a shallower tree; all ones a balanced one.
            for c in &mut counts {
                *c = c.div_ceil(2);
            }
        }
    }

    /// The canonical code of `lengths` (ranks of equal length in rank
    /// order).
    ///
    /// # Errors
    /// When the lengths do not make a complete code of 2 to 256 ranks.
    pub fn from_lengths(lengths: &[u8]) -> Result<CodeTree, String> {
        if !(2..=256).contains(&lengths.len()) {
            return Err(format!("a code of {} ranks", lengths.len()));
        }
        if lengths.iter().any(|&l| l == 0 || l > MAX_LEN) {
            return Err("a code length outside 1 to 15".to_string());
        }
        let kraft: u32 = lengths.iter().map(|&l| 1u32 << (MAX_LEN - l)).sum();
        if kraft != 1 << MAX_LEN {
            return Err("code lengths that do not make a complete code".to_string());
        }
        let mut order: Vec<usize> = (0..lengths.len()).collect();
        order.sort_by_key(|&r| (lengths[r], r));
        let mut codes = vec![(0u16, 0u8); lengths.len()];
        let (mut code, mut length) = (0u32, lengths[order[0]]);
        for &rank in &order {
            code <<= lengths[rank] - length;
            length = lengths[rank];
            codes[rank] = (code as u16, length);
            code += 1;
        }
        const OPEN: u16 = u16::MAX;
        let mut children = vec![[OPEN; 2]];
        for (rank, &(code, length)) in codes.iter().enumerate() {
            let mut node = 0usize;
            for level in (0..length).rev() {
                let bit = usize::from(code >> level & 1);
                if level == 0 {
                    children[node][bit] = LEAF | rank as u16;
                } else {
                    if children[node][bit] == OPEN {
                        children[node][bit] = children.len() as u16;
                        children.push([OPEN; 2]);
                    }
                    node = usize::from(children[node][bit]);
                }
            }
        }
        // A complete code fills every branch (Kraft's equality); checked
        // again on the tree, which the decoder trusts.
        if children.len() != lengths.len() - 1 || children.iter().flatten().any(|&c| c == OPEN) {
            return Err("code lengths that do not make a complete code".to_string());
        }
        Ok(CodeTree { children, codes })
    }

    /// Internal nodes: ranks - 1.
    pub fn nodes(&self) -> usize {
        self.children.len()
    }

    /// `rank`'s code, first bit highest, and its length.
    #[inline]
    pub fn code(&self, rank: u8) -> (u16, u8) {
        self.codes[usize::from(rank)]
    }

    /// Where bit `bit` leads from internal node `node`.
    #[inline]
    pub fn step(&self, node: usize, bit: u32) -> Step {
        let child = self.children[node][bit as usize];
        if child & LEAF != 0 {
            Step::Rank(child as u8)
        } else {
            Step::Node(usize::from(child))
        }
    }
}

/// Huffman's code lengths (unbounded).
fn huffman_lengths(counts: &[u32]) -> Vec<u8> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = counts.len();
    // Nodes 0 .. n are the ranks, then the merged ones; each one's parent.
    let mut parent = vec![usize::MAX; 2 * n - 1];
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = counts
        .iter()
        .enumerate()
        .map(|(r, &c)| Reverse((u64::from(c), r)))
        .collect();
    let mut next = n;
    while let (Some(Reverse((a, i))), Some(Reverse((b, j)))) = (heap.pop(), heap.pop()) {
        parent[i] = next;
        parent[j] = next;
        heap.push(Reverse((a + b, next)));
        next += 1;
    }
    (0..n)
        .map(|mut node| {
            let mut depth = 0u8;
            while parent[node] != usize::MAX {
                node = parent[node];
                depth = depth.saturating_add(1);
            }
            depth
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    fn walk(tree: &CodeTree, rank: u8) -> u8 {
        let (code, length) = tree.code(rank);
        let mut node = 0;
        for level in (0..length).rev() {
            match tree.step(node, u32::from(code >> level & 1)) {
                Step::Node(next) => node = next,
                Step::Rank(found) => {
                    assert_eq!(level, 0, "a leaf before the code's end");
                    return found;
                }
            }
        }
        panic!("the code of {rank} ends inside the tree")
    }

    /// Lengths at random (nearly always refused), and a prefix code's
    /// lengths as they are or with one length moved by one (the code then
    /// overfull or leaving a gap, or still one).
    fn any_lengths() -> impl Strategy<Value = Vec<u8>> {
        let edited = (
            proptest::collection::vec(1u32..1_000_000, 2..=256),
            any::<proptest::sample::Index>(),
            prop_oneof![Just(0i8), Just(-1), Just(1)],
        )
            .prop_map(|(counts, at, by)| {
                let mut lengths = CodeTree::lengths(&counts);
                let i = at.index(lengths.len());
                lengths[i] = lengths[i].saturating_add_signed(by);
                lengths
            });
        prop_oneof![proptest::collection::vec(0u8..=16, 0..=257), edited]
    }

    #[test]
    fn any_lengths_reach_both_trees_and_refusals() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut made, mut refused) = (0, 0);
        for _ in 0..300 {
            let lengths = any_lengths().new_tree(&mut runner).unwrap().current();
            match CodeTree::from_lengths(&lengths) {
                Ok(_) => made += 1,
                Err(_) => refused += 1,
            }
        }
        assert!(
            made >= 30 && refused >= 30,
            "{made} trees, {refused} refusals"
        );
    }

    proptest! {
        #[test]
        fn codes_lead_to_their_ranks_and_are_short_for_frequent_ones(counts in proptest::collection::vec(1u32..1_000_000, 2..=256)) {
            let lengths = CodeTree::lengths(&counts);
            let tree = CodeTree::from_lengths(&lengths).unwrap();
            prop_assert_eq!(tree.nodes(), counts.len() - 1);
            for rank in 0..counts.len() {
                prop_assert_eq!(walk(&tree, rank as u8), rank as u8);
            }
            let most = (0..counts.len()).max_by_key(|&r| counts[r]).unwrap();
            prop_assert!(lengths.iter().all(|&l| l >= lengths[most]));
        }

        #[test]
        fn any_lengths_make_a_tree_or_are_refused(lengths in any_lengths()) {
            if let Ok(tree) = CodeTree::from_lengths(&lengths) {
                for rank in 0..lengths.len() {
                    prop_assert_eq!(walk(&tree, rank as u8), rank as u8);
                }
            }
        }
    }

    #[test]
    fn skewed_counts_are_limited_to_fifteen_bits() {
        let counts: Vec<u32> = (0..40).map(|i| 1u32 << (i % 31)).collect();
        let lengths = CodeTree::lengths(&counts);
        assert!(lengths.iter().all(|&l| (1..=MAX_LEN).contains(&l)));
        assert!(CodeTree::from_lengths(&lengths).is_ok());
    }
}
