//! Perfect-enough indexing of Morris positions by symmetry class.
//!
//! A table holds the positions where the side to move has `m` pieces and the
//! other side `o` (and, where the slice splits by parity, a fixed parity of
//! pieces on odd points). Entry = (class of the mover's set, the opponent's
//! set among the free points): the mover's set is mapped to the smallest
//! image of its symmetry class (its *representative*), the opponent's set
//! goes along, and is then ranked among the free points, odd and even points
//! apart so that one parity can be kept alone. Where the representative has
//! symmetries of its own, the opponent's set takes its smallest image under
//! them; the other images stay in the table as "don't care" entries, so a
//! table is a little larger than its number of classes.

use std::sync::LazyLock;

use super::board::{Point, PointSet, POINTS};
use super::colex::{mask_rank, pdep, pext, rank12, rank12_table, unrank12, BINOMIAL, HALF};
use super::symmetry::{BOARD_SYMMETRIES, SYMMETRIES};

pub use super::colex::for_each_subset;

/// Mover sets whose classes [`TableIndex::mover_classes`] looks up
/// together.
const CLASS_BATCH: usize = 32;

/// A representative of mover sets with its own symmetries.
#[derive(Debug, Clone, Copy)]
struct Shape {
    mask: u32,
    /// The symmetries that fix it (bit s).
    stabilizer: u16,
}

/// Every mover set's representative and the symmetry that maps it there.
struct Representatives {
    /// Per piece count, per colex rank of the set: representative number
    /// (within the piece count) << 4 | symmetry.
    of_rank: Vec<Vec<u32>>,
    /// Per piece count: the representatives in increasing order.
    reps: Vec<Vec<Shape>>,
}

static REPRESENTATIVES: LazyLock<Representatives> = LazyLock::new(|| {
    let sym = &*BOARD_SYMMETRIES;
    let mut of_rank: Vec<Vec<u32>> = (0..=POINTS)
        .map(|m| vec![u32::MAX; BINOMIAL[POINTS][m] as usize])
        .collect();
    let mut reps = vec![Vec::new(); POINTS + 1];
    for mask in 0..1u32 << POINTS {
        let count = mask.count_ones() as usize;
        if of_rank[count][mask_rank(PointSet(mask))] != u32::MAX {
            continue;
        }
        // The smallest member of a class is met first: it is the representative.
        let id = reps[count].len() as u32;
        let mut stabilizer = 0u16;
        for s in 0..SYMMETRIES {
            let image = sym.apply(s, PointSet(mask));
            if image.bits() == mask {
                stabilizer |= 1 << s;
            }
            let entry = &mut of_rank[count][mask_rank(image)];
            if *entry == u32::MAX {
                *entry = id << 4 | sym.inverse(s) as u32;
            }
        }
        reps[count].push(Shape { mask, stabilizer });
    }
    Representatives { of_rank, reps }
});

/// Which positions a table holds: piece counts, and the parity of pieces on
/// odd points (`None`: both parities).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableKey {
    pub mover: u32,
    pub opponent: u32,
    pub parity: Option<u32>,
}

impl TableKey {
    /// The same positions with the sides swapped (the parity counts the
    /// pieces of both sides): the engines' layout, whose runs are by the
    /// class of the side that moved last.
    pub fn swapped(self) -> TableKey {
        TableKey {
            mover: self.opponent,
            opponent: self.mover,
            parity: self.parity,
        }
    }
}

/// One representative of a table: where its run of entries starts and
/// what an index computation needs of it, in one place.
#[derive(Debug, Clone, Copy)]
struct Run {
    base: u64,
    mask: u32,
    stabilizer: u16,
    odd_mover: u8,
}

/// The entries of one odd-point count `k` of the opponent within a run:
/// where they start, and how many even subsets each odd subset spans.
#[derive(Debug, Clone, Copy, Default)]
struct Part {
    before: u64,
    per_odd: u64,
}

/// The index of one table: entry number ↔ (mover set, opponent set).
#[derive(Debug, Clone)]
pub struct TableIndex {
    key: TableKey,
    runs: Vec<Run>,
    len: u64,
    /// Per odd-point count of the representative, per odd-point count `k`
    /// of the opponent (one more: the run's length).
    parts: Vec<[Part; HALF + 2]>,
}

/// One entry, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub mover: PointSet,
    pub opponent: PointSet,
    /// Whether this entry is the class's own (not a duplicate kept for
    /// indexing only).
    pub canonical: bool,
    /// Arrangements in the class (16 / symmetries fixing the position).
    pub class_size: u32,
}

impl TableIndex {
    /// # Panics
    /// When the pieces do not fit the board.
    pub fn new(key: TableKey) -> TableIndex {
        let (m, o) = (key.mover as usize, key.opponent as usize);
        assert!(m + o <= POINTS, "{m} + {o} pieces do not fit the board");
        let all = &*REPRESENTATIVES;
        let parts: Vec<[Part; HALF + 2]> = (0..=m.min(HALF))
            .map(|odd_mover| {
                let (fo, fe) = free_counts(m, odd_mover);
                let mut parts = [Part::default(); HALF + 2];
                let mut before = 0;
                for (k, part) in parts.iter_mut().enumerate().take(o.min(HALF) + 1) {
                    part.before = before;
                    part.per_odd = if o - k <= fe { BINOMIAL[fe][o - k] } else { 0 };
                    if parity_allows(key.parity, odd_mover, k) && k <= fo && o - k <= fe {
                        before += BINOMIAL[fo][k] * part.per_odd;
                    }
                }
                for part in parts.iter_mut().skip(o.min(HALF) + 1) {
                    part.before = before;
                }
                parts
            })
            .collect();
        let mut runs = Vec::with_capacity(all.reps[m].len());
        let mut total = 0;
        for shape in &all.reps[m] {
            let odd_mover = PointSet(shape.mask).odd_count() as usize;
            runs.push(Run {
                base: total,
                mask: shape.mask,
                stabilizer: shape.stabilizer,
                odd_mover: odd_mover as u8,
            });
            total += parts[odd_mover][HALF + 1].before;
        }
        TableIndex {
            key,
            runs,
            len: total,
            parts,
        }
    }

    pub fn key(&self) -> TableKey {
        self.key
    }

    /// Entries of the table.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry of a position of this table (any symmetric image).
    ///
    /// # Panics
    /// In debug builds, when the position does not belong to the table.
    #[inline]
    pub fn index(&self, mover: PointSet, opponent: PointSet) -> u64 {
        self.index_in(&self.mover_class(mover), opponent)
    }

    /// What the entries of positions with this mover's set share; many
    /// successors of one position do (a placement or step leaves the other
    /// side's set as it was, and that side moves next).
    #[inline]
    pub fn mover_class(&self, mover: PointSet) -> MoverClass {
        let m = self.key.mover as usize;
        debug_assert_eq!(mover.len() as usize, m);
        self.class_of_code(REPRESENTATIVES.of_rank[m][mask_rank(mover)])
    }

    /// The classes of many mover sets: `classes[j]` is
    /// `mover_class(movers[j])`. A class takes two lookups, the second
    /// at what the first found, in tables of megabytes that miss the
    /// core's cache; made one after the other they wait for memory twice
    /// per set, made here a batch at a time they wait together.
    ///
    /// # Panics
    /// When the slices' lengths differ.
    pub fn mover_classes(&self, movers: &[PointSet], classes: &mut [MoverClass]) {
        assert_eq!(movers.len(), classes.len(), "one class per mover set");
        let of_rank = &REPRESENTATIVES.of_rank[self.key.mover as usize];
        let mut codes = [0u32; CLASS_BATCH];
        for (movers, classes) in movers
            .chunks(CLASS_BATCH)
            .zip(classes.chunks_mut(CLASS_BATCH))
        {
            for (code, &mover) in codes.iter_mut().zip(movers) {
                debug_assert_eq!(mover.len(), self.key.mover);
                *code = of_rank[mask_rank(mover)];
            }
            for (class, &code) in classes.iter_mut().zip(&codes) {
                *class = self.class_of_code(code);
            }
        }
    }

    /// The class of the mover sets whose representative code (number << 4
    /// | symmetry) is `code`.
    #[inline]
    fn class_of_code(&self, code: u32) -> MoverClass {
        let run = self.runs[(code >> 4) as usize];
        let free = !run.mask & PointSet::FULL.bits();
        MoverClass {
            base: run.base,
            odd_mover: run.odd_mover as usize,
            symmetry: (code & 15) as usize,
            stabilizer: run.stabilizer,
            odd_free: free & PointSet::ODD.bits(),
            even_free: free & !PointSet::ODD.bits(),
        }
    }

    /// The entry of the position (a mover's set in `class`, `opponent`).
    #[inline]
    pub fn index_in(&self, class: &MoverClass, opponent: PointSet) -> u64 {
        debug_assert_eq!(opponent.len(), self.key.opponent);
        // Symmetry 0 is the identity.
        let mut opp = if class.symmetry == 0 {
            opponent
        } else {
            BOARD_SYMMETRIES.apply(class.symmetry, opponent)
        };
        if class.stabilizer != 1 {
            opp = smallest_image(class.stabilizer, opp);
        }
        let odd_opp = opp.bits() & PointSet::ODD.bits();
        let even_opp = opp.bits() & !PointSet::ODD.bits();
        let k = odd_opp.count_ones() as usize;
        debug_assert!(
            parity_allows(self.key.parity, class.odd_mover, k),
            "wrong parity"
        );
        let part = self.parts[class.odd_mover][k];
        class.base
            + part.before
            + rank12(pext(odd_opp, class.odd_free)) * part.per_odd
            + rank12(pext(even_opp, class.even_free))
    }

    /// The entry at `index` (< [`TableIndex::len`]).
    ///
    /// # Panics
    /// When `index` is out of range.
    pub fn entry(&self, index: u64) -> Entry {
        assert!(index < self.len(), "entry {index} of {}", self.len());
        let id = self.rep_of(index);
        let (mover, opponent) = self.sides_in_rep(id, index);
        self.describe(mover, opponent, self.runs[id].stabilizer)
    }

    /// The representative whose run holds entry `index` (< len).
    pub fn rep_of(&self, index: u64) -> usize {
        self.runs.partition_point(|run| run.base <= index) - 1
    }

    /// The sides of entry `index`, which lies in the run of
    /// representative `id`: the mover's set is the representative.
    #[inline]
    pub fn sides_in_rep(&self, id: usize, index: u64) -> (PointSet, PointSet) {
        let run = self.runs[id];
        debug_assert!(self.rep_range(id).contains(&index));
        let parts = &self.parts[run.odd_mover as usize];
        let within = index - run.base;
        let mut k = 0;
        while parts[k + 1].before <= within {
            k += 1;
        }
        let part = parts[k];
        let within = within - part.before;
        let o = self.key.opponent as usize;
        let free = !run.mask & PointSet::FULL.bits();
        let odd = pdep(
            unrank12(k, within / part.per_odd),
            free & PointSet::ODD.bits(),
        );
        let even = pdep(
            unrank12(o - k, within % part.per_odd),
            free & !PointSet::ODD.bits(),
        );
        (PointSet(run.mask), PointSet(odd | even))
    }

    /// Calls `visit(index, entry)` for every entry in order.
    pub fn for_each_entry(&self, mut visit: impl FnMut(u64, Entry)) {
        for id in 0..self.rep_count() {
            self.for_each_entry_of_rep(id, &mut visit);
        }
    }

    /// Representatives of the mover's set: the table is cut into one run of
    /// entries per representative.
    pub fn rep_count(&self) -> usize {
        self.runs.len()
    }

    /// The entries of representative `id`.
    pub fn rep_range(&self, id: usize) -> std::ops::Range<u64> {
        let end = self.runs.get(id + 1).map_or(self.len, |next| next.base);
        self.runs[id].base..end
    }

    /// The mover's set of every entry of representative `id`'s run.
    pub fn representative(&self, id: usize) -> PointSet {
        PointSet(self.runs[id].mask)
    }

    /// Whether no symmetry but the identity fixes representative `id`: then
    /// every entry of its run is its class's own, with 16 arrangements.
    pub fn rep_is_asymmetric(&self, id: usize) -> bool {
        self.runs[id].stabilizer == 1
    }

    /// Calls `visit(index, entry)` for every entry of representative `id`.
    pub fn for_each_entry_of_rep(&self, id: usize, mut visit: impl FnMut(u64, Entry)) {
        let run = self.runs[id];
        let o = self.key.opponent as usize;
        let rep = PointSet(run.mask);
        let free = rep.complement().bits();
        let (odd_free, even_free) = (free & PointSet::ODD.bits(), free & !PointSet::ODD.bits());
        let parts = &self.parts[run.odd_mover as usize];
        let mut index = run.base;
        for k in 0..=o.min(HALF) {
            if parts[k + 1].before == parts[k].before {
                continue;
            }
            for_each_subset(odd_free, k, |odd_opp| {
                for_each_subset(even_free, o - k, |even_opp| {
                    let entry = self.describe(rep, PointSet(odd_opp | even_opp), run.stabilizer);
                    visit(index, entry);
                    index += 1;
                });
            });
        }
        debug_assert_eq!(index, self.rep_range(id).end);
    }

    fn describe(&self, rep: PointSet, opponent: PointSet, stabilizer: u16) -> Entry {
        if stabilizer == 1 {
            return Entry {
                mover: rep,
                opponent,
                canonical: true,
                class_size: SYMMETRIES as u32,
            };
        }
        let sym = &*BOARD_SYMMETRIES;
        let (mut fixing, mut canonical) = (1, true);
        // The identity (bit 0) fixes every set.
        let mut others = stabilizer & !1;
        while others != 0 {
            let image = sym.apply(others.trailing_zeros() as usize, opponent);
            fixing += u32::from(image == opponent);
            canonical &= image >= opponent;
            others &= others - 1;
        }
        Entry {
            mover: rep,
            opponent,
            canonical,
            class_size: SYMMETRIES as u32 / fixing,
        }
    }
}

impl TableIndex {
    /// The entries of positions of the class's run whose other side is
    /// `set` with one point added or moved; `None` when the class's
    /// representative has symmetries of its own (use
    /// [`TableIndex::index_in`] then). `class` must be seen from its
    /// representative ([`MoverClass::at_representative`]), and `set` and
    /// the points given later in that frame.
    #[inline]
    pub fn nearby(&self, class: &MoverClass, set: PointSet) -> Option<Nearby<'_>> {
        debug_assert_eq!(
            class.symmetry, 0,
            "the class is seen from its representative"
        );
        if class.stabilizer != 1 {
            return None;
        }
        let (even, odd) = (
            pext(set.bits(), class.even_free),
            pext(set.bits(), class.odd_free),
        );
        Some(Nearby {
            base: class.base,
            parts: &self.parts[class.odd_mover],
            free: class.even_free | class.odd_free,
            packed: u64::from(even) | u64::from(odd) << 32,
        })
    }
}

/// A set ranked once among the free points of a run, so that the entries
/// of sets one point away cost two table lookups each: the placements
/// from one position, the un-moves into it.
#[derive(Debug, Clone, Copy)]
pub struct Nearby<'a> {
    base: u64,
    parts: &'a [Part; HALF + 2],
    /// The run's free points.
    free: u32,
    /// The set's even points packed among the free even points (low
    /// half), its odd points among the free odd ones (high half): one
    /// register, changed by arithmetic alone.
    packed: u64,
}

/// The even points of the board; shifted by one, the odd ones.
const EVEN: u32 = !PointSet::ODD.bits() & PointSet::FULL.bits();

impl Nearby<'_> {
    /// The entry of the set with `to` (a free point outside it) added.
    #[inline]
    pub fn with(&self, to: Point) -> u64 {
        self.entry(self.packed | self.bit(to))
    }

    /// The entry of the set with its point `from` moved to `to` (a free
    /// point outside it).
    #[inline]
    pub fn moved(&self, from: Point, to: Point) -> u64 {
        self.entry(self.packed ^ self.bit(from) ^ self.bit(to))
    }

    /// The packed bit of a free point.
    #[inline]
    fn bit(&self, p: Point) -> u64 {
        let parity = p.index() as u32 & 1;
        let below = self.free & (EVEN << parity) & ((1 << p.index()) - 1);
        1 << (below.count_ones() + 32 * parity)
    }

    #[inline]
    fn entry(&self, packed: u64) -> u64 {
        let (even, odd) = (packed as u32, (packed >> 32) as u32);
        let part = self.parts[odd.count_ones() as usize];
        self.base + part.before + rank12(odd) * part.per_odd + rank12(even)
    }
}

impl TableIndex {
    /// The entries of positions of the class's run whose other side is a
    /// set with one point added, ranked per set once and per point with
    /// one small-table lookup (the placements from one position); `None`
    /// when the class's representative has symmetries of its own (use
    /// [`TableIndex::index_in`] then). `class` must be seen from its
    /// representative ([`MoverClass::at_representative`]), and sets and
    /// points given later in that frame.
    pub fn additions(&self, class: &MoverClass) -> Option<Additions<'_>> {
        debug_assert_eq!(
            class.symmetry, 0,
            "the class is seen from its representative"
        );
        if class.stabilizer != 1 {
            return None;
        }
        let mut slot = [0u8; POINTS];
        for free in [class.even_free, class.odd_free] {
            for (k, p) in PointSet(free).iter().enumerate() {
                slot[p.index()] = k as u8;
            }
        }
        Some(Additions {
            base: class.base,
            parts: &self.parts[class.odd_mover],
            odd_free: class.odd_free,
            even_free: class.even_free,
            slot,
            rank: rank12_table(),
        })
    }
}

/// A run's free points ranked once, for [`Additions::of`].
#[derive(Debug, Clone, Copy)]
pub struct Additions<'a> {
    base: u64,
    parts: &'a [Part; HALF + 2],
    odd_free: u32,
    even_free: u32,
    /// Of each free point, its place among the run's free points of its
    /// parity.
    slot: [u8; POINTS],
    rank: &'static [u16; 1 << HALF],
}

impl<'a> Additions<'a> {
    /// The entries of `set` (free points of the run) with one point added.
    #[inline]
    pub fn of(&self, set: PointSet) -> Added<'_> {
        let even = pext(set.bits(), self.even_free);
        let odd = pext(set.bits(), self.odd_free);
        let k = odd.count_ones() as usize;
        // An even point added leaves the odd points' part and rank as
        // they are; an odd one leaves the even points' rank.
        let same = self.parts[k];
        let more = self.parts[k + 1];
        Added {
            even,
            odd,
            even_base: self.base + same.before + u64::from(self.rank[odd as usize]) * same.per_odd,
            odd_base: self.base + more.before + u64::from(self.rank[even as usize]),
            odd_stride: more.per_odd,
            additions: self,
        }
    }
}

/// One set's entries with a point added: a lookup, a multiply and an add
/// each.
#[derive(Debug, Clone, Copy)]
pub struct Added<'a> {
    even: u32,
    odd: u32,
    even_base: u64,
    odd_base: u64,
    odd_stride: u64,
    additions: &'a Additions<'a>,
}

impl Added<'_> {
    /// The entry of the set with `to` (a free point of the run outside
    /// it) added.
    #[inline]
    pub fn with(&self, to: Point) -> u64 {
        let a = self.additions;
        let bit = 1u32 << a.slot[to.index()];
        if to.is_odd() {
            self.odd_base + u64::from(a.rank[(self.odd | bit) as usize]) * self.odd_stride
        } else {
            self.even_base + u64::from(a.rank[(self.even | bit) as usize])
        }
    }

    /// Visits the entry of the set with each point of `points` added
    /// ([`Added::with`] of each; free points of the run outside the set),
    /// the even points first, then the odd ones, each in ascending order:
    /// the points ranked a half at a time, with no lookup of their slots.
    #[inline]
    pub fn for_each_with(&self, points: PointSet, mut visit: impl FnMut(u64)) {
        let a = self.additions;
        let mut even = pext(points.bits(), a.even_free);
        while even != 0 {
            let bit = even & even.wrapping_neg();
            visit(self.even_base + u64::from(a.rank[(self.even | bit) as usize]));
            even ^= bit;
        }
        let mut odd = pext(points.bits(), a.odd_free);
        while odd != 0 {
            let bit = odd & odd.wrapping_neg();
            visit(self.odd_base + u64::from(a.rank[(self.odd | bit) as usize]) * self.odd_stride);
            odd ^= bit;
        }
    }
}

/// What [`TableIndex::index_in`] needs of a mover's set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MoverClass {
    base: u64,
    odd_mover: usize,
    symmetry: usize,
    stabilizer: u16,
    odd_free: u32,
    even_free: u32,
}

impl MoverClass {
    /// The symmetry that maps the mover's set onto its representative.
    pub fn symmetry(&self) -> usize {
        self.symmetry
    }

    /// The class as seen from its representative: positions already
    /// mapped by [`MoverClass::symmetry`] are indexed without mapping them
    /// again.
    pub fn at_representative(self) -> MoverClass {
        MoverClass {
            symmetry: 0,
            ..self
        }
    }

    /// Whether no symmetry but the identity fixes the mover's set. Then
    /// positions that share it and differ in the other side's set are
    /// never images of each other: they have distinct entries.
    pub fn is_asymmetric(&self) -> bool {
        self.stabilizer == 1
    }
}

/// The classes of a placement run's capture successors' side to move: the
/// run's other side less the one piece taken, by the point taken and the
/// successor's parity, each looked up once per run (the placement engine
/// and the checker walk placements by runs of that side);
/// [`TakenClasses::start`] at each run.
#[derive(Debug, Clone, Default)]
pub struct TakenClasses {
    /// The run's other side, before a capture.
    side: PointSet,
    /// Bit 2p + parity: `classes[p][parity]` holds a class.
    known: u64,
    classes: [[MoverClass; 2]; POINTS],
}

impl TakenClasses {
    /// Forgets the classes of the last run: the next run's other side is
    /// `side`.
    pub fn start(&mut self, side: PointSet) {
        self.side = side;
        self.known = 0;
    }

    /// The run's other side, before a capture.
    pub fn side(&self) -> PointSet {
        self.side
    }

    /// The class of the run's other side less `taken` in `index`, a table
    /// of parity `odd`.
    #[inline]
    pub fn class(&mut self, index: &TableIndex, taken: Point, odd: usize) -> &MoverClass {
        let bit = 1u64 << (2 * taken.index() + odd);
        let class = &mut self.classes[taken.index()][odd];
        if self.known & bit == 0 {
            *class = index.mover_class(self.side.without(taken));
            self.known |= bit;
        }
        class
    }
}

/// Free odd and even points when the mover has `m` pieces, `odd_mover` of
/// them on odd points.
fn free_counts(m: usize, odd_mover: usize) -> (usize, usize) {
    (HALF - odd_mover, HALF.saturating_sub(m - odd_mover))
}

fn parity_allows(parity: Option<u32>, odd_mover: usize, odd_opponent: usize) -> bool {
    parity.is_none_or(|p| (odd_mover + odd_opponent) as u32 % 2 == p)
}

/// The smallest image of `set` under the symmetries in `stabilizer`.
#[inline]
fn smallest_image(stabilizer: u16, set: PointSet) -> PointSet {
    let sym = &*BOARD_SYMMETRIES;
    let mut best = set;
    // The identity (bit 0) gives `set` itself.
    let mut others = stabilizer & !1;
    while others != 0 {
        let s = others.trailing_zeros() as usize;
        best = best.min(sym.apply(s, set));
        others &= others - 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn keys() -> impl Strategy<Value = TableKey> {
        (
            0u32..=12,
            0u32..=12,
            prop_oneof![Just(None), Just(Some(0)), Just(Some(1))],
        )
            .prop_map(|(mover, opponent, parity)| TableKey {
                mover,
                opponent,
                parity,
            })
    }

    /// Colex rank of `subset` among the subsets of `within` of its size.
    fn colex_rank(subset: u32, within: u32) -> u64 {
        let mut rank = 0;
        for (i, p) in PointSet(subset).iter().enumerate() {
            let below = (within & ((1u32 << p.index()) - 1)).count_ones() as usize;
            rank += BINOMIAL[below][i + 1];
        }
        rank
    }

    /// The layout from its definition, without any of the index's tables:
    /// representatives are the smallest images, in increasing order; within
    /// one, opponents by odd-point count, then odd points, then even points,
    /// each in colex order among the free points of its parity.
    struct Reference {
        key: TableKey,
        /// Every representative with the entries before its run.
        bases: Vec<(u32, u64)>,
    }

    fn images(set: PointSet) -> impl Iterator<Item = (PointSet, usize)> {
        (0..SYMMETRIES).map(move |s| (BOARD_SYMMETRIES.apply(s, set), s))
    }

    impl Reference {
        fn new(key: TableKey) -> Reference {
            let mut bases = Vec::new();
            let mut total = 0;
            for v in (0..1u32 << POINTS).filter(|v| v.count_ones() == key.mover) {
                let set = PointSet(v);
                if images(set).min().unwrap().0 == set {
                    bases.push((v, total));
                    total += (0..=key.opponent as usize)
                        .map(|k| Reference::part(key, set, k))
                        .sum::<u64>();
                }
            }
            Reference { key, bases }
        }

        /// Entries of a run with `k` opponent pieces on odd points.
        fn part(key: TableKey, rep: PointSet, k: usize) -> u64 {
            let o = key.opponent as usize;
            let free = rep.complement();
            let (fo, fe) = (
                free.odd_count() as usize,
                (free.len() - free.odd_count()) as usize,
            );
            if parity_allows(key.parity, rep.odd_count() as usize, k) && k <= fo && o - k <= fe {
                BINOMIAL[fo][k] * BINOMIAL[fe][o - k]
            } else {
                0
            }
        }

        fn index(&self, mover: PointSet, opponent: PointSet) -> u64 {
            let (rep, _) = images(mover).min().unwrap();
            let base = self.bases.iter().find(|(v, _)| *v == rep.bits()).unwrap().1;
            // The opponent as seen from the representative, smallest among
            // the representative's own symmetries.
            let opp = images(mover)
                .filter(|&(image, _)| image == rep)
                .map(|(_, s)| BOARD_SYMMETRIES.apply(s, opponent))
                .min()
                .unwrap();
            let free = rep.complement().bits();
            let (odd_free, even_free) = (free & PointSet::ODD.bits(), free & !PointSet::ODD.bits());
            let k = opp.odd_count() as usize;
            let before: u64 = (0..k).map(|j| Reference::part(self.key, rep, j)).sum();
            let o = self.key.opponent as usize;
            base + before
                + colex_rank(opp.bits() & odd_free, odd_free)
                    * BINOMIAL[even_free.count_ones() as usize][o - k]
                + colex_rank(opp.bits() & even_free, even_free)
        }
    }

    #[test]
    fn parity_halves_partition_the_table() {
        for (m, o) in [(3, 3), (4, 3), (5, 6)] {
            let size = |parity| {
                TableIndex::new(TableKey {
                    mover: m,
                    opponent: o,
                    parity,
                })
                .len()
            };
            assert_eq!(size(Some(0)) + size(Some(1)), size(None), "{m} v {o}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn index_and_entry_round_trip(key in keys(), pick in any::<u64>()) {
            let index = TableIndex::new(key);
            prop_assume!(!index.is_empty());
            let i = pick % index.len();
            let e = index.entry(i);
            prop_assert_eq!(e.mover.len(), key.mover);
            prop_assert_eq!(e.opponent.len(), key.opponent);
            prop_assert!(e.mover.intersection(e.opponent).is_empty());
            if e.canonical {
                prop_assert_eq!(index.index(e.mover, e.opponent), i);
            }
            // Every image of the position lands on the class's canonical entry.
            let sym = &*BOARD_SYMMETRIES;
            let home = index.index(e.mover, e.opponent);
            prop_assert!(index.entry(home).canonical);
            for s in 0..SYMMETRIES {
                prop_assert_eq!(index.index(sym.apply(s, e.mover), sym.apply(s, e.opponent)), home);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// The index keeps the layout stores are written in.
        #[test]
        fn index_follows_the_layout_definition(
            key in keys(),
            picks in proptest::collection::vec(any::<u64>(), 8),
        ) {
            let index = TableIndex::new(key);
            prop_assume!(!index.is_empty());
            let reference = Reference::new(key);
            for pick in picks {
                let e = index.entry(pick % index.len());
                let sym = &*BOARD_SYMMETRIES;
                let s = (pick >> 40) as usize % SYMMETRIES;
                let (m, o) = (sym.apply(s, e.mover), sym.apply(s, e.opponent));
                prop_assert_eq!(index.index(m, o), reference.index(m, o));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Classes looked up a batch at a time (more sets than one batch
        /// holds, and a part of one) are those looked up one by one.
        #[test]
        fn batched_classes_are_the_classes(
            key in keys(),
            picks in proptest::collection::vec(any::<u64>(), 0..2 * CLASS_BATCH + 5),
        ) {
            let index = TableIndex::new(key);
            prop_assume!(!index.is_empty());
            let sym = &*BOARD_SYMMETRIES;
            let movers: Vec<PointSet> = picks
                .iter()
                .map(|&pick| {
                    let e = index.entry(pick % index.len());
                    sym.apply((pick >> 40) as usize % SYMMETRIES, e.mover)
                })
                .collect();
            let mut classes = vec![MoverClass::default(); movers.len()];
            index.mover_classes(&movers, &mut classes);
            for (&mover, class) in movers.iter().zip(&classes) {
                prop_assert_eq!(*class, index.mover_class(mover));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Sets one point away, ranked from their neighbour (`nearby`,
        /// `additions`), land where the full index puts them.
        #[test]
        fn nearby_entries_equal_the_index(key in keys(), pick in any::<u64>()) {
            prop_assume!(key.mover + key.opponent < POINTS as u32);
            let index = TableIndex::new(key);
            prop_assume!(!index.is_empty());
            let e = index.entry(pick % index.len());
            let class = index.mover_class(e.mover).at_representative();
            let Some(near) = index.nearby(&class, e.opponent) else {
                prop_assert!(!index.rep_is_asymmetric(index.rep_of(pick % index.len())));
                return Ok(());
            };
            let free = e.mover.union(e.opponent).complement();
            let wider = TableIndex::new(TableKey { opponent: key.opponent + 1, parity: None, ..key });
            let wider_class = wider.mover_class(e.mover).at_representative();
            let wider_near = wider.nearby(&wider_class, e.opponent).unwrap();
            let additions = wider.additions(&wider_class).unwrap();
            let wider_added = additions.of(e.opponent);
            // Any of the free points, evens then odds, as `with` ranks them.
            let some = PointSet(free.bits() & (pick >> 20) as u32);
            let mut each = Vec::new();
            wider_added.for_each_with(some, |i| each.push(i));
            let evens = some.minus(PointSet::ODD).iter();
            let ranked: Vec<u64> = evens.chain(some.intersection(PointSet::ODD).iter()).map(|to| wider_added.with(to)).collect();
            prop_assert_eq!(each, ranked);
            for to in free.iter() {
                let added = e.opponent.with(to);
                prop_assert_eq!(wider_near.with(to), wider.index(e.mover, added));
                prop_assert_eq!(wider_added.with(to), wider.index(e.mover, added));
                for from in e.opponent.iter() {
                    let moved = e.opponent.without(from).with(to);
                    let same_parity = from.is_odd() == to.is_odd();
                    if key.parity.is_none() || same_parity {
                        prop_assert_eq!(near.moved(from, to), index.index(e.mover, moved));
                    }
                }
            }
        }
    }

    #[test]
    fn enumeration_agrees_with_entry() {
        for key in [
            TableKey {
                mover: 4,
                opponent: 2,
                parity: Some(1),
            },
            TableKey {
                mover: 3,
                opponent: 5,
                parity: None,
            },
        ] {
            let index = TableIndex::new(key);
            let mut next = 0;
            index.for_each_entry(|i, e| {
                assert_eq!(i, next);
                assert_eq!(index.entry(i), e, "entry {i}");
                next += 1;
            });
            assert_eq!(next, index.len());
        }
    }
}
