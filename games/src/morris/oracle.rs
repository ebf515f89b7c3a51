//! A plain solver to check the engines against.
//!
//! It shares nothing with the engines but the rules and the symmetry table
//! (no index, no un-moves, no levels): every position reached
//! from the roots by legal moves becomes a node of an explicit graph (a hash
//! map from the position's smallest symmetric image), successors are listed
//! by forward move generation, and the values come from the textbook
//! retrograde queue over the reversed edges. Slow and memory-hungry; meant
//! for games of a few million positions.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};

use super::moves::{legal_moves, terminal_value};
use super::position::{Color, Position};
use super::rules::MorrisRules;
use super::symmetry::canonical_pair;
use super::PointSet;
use crate::Value;

/// A node: the canonical (side to move, other side) sets and the number of
/// placements made (2P in the movement phase), or where placing and moving
/// mix, the hands.
type Key = (u32, u32, u32);

/// Values and depths of every position reachable from some roots.
pub struct Oracle {
    rules: MorrisRules,
    nodes: HashMap<Key, u32>,
    positions: Vec<Position>,
    values: Vec<(Value, u32)>,
}

impl Oracle {
    /// Every position of the game, from the start.
    pub fn whole_game(rules: &MorrisRules) -> Oracle {
        Oracle::solve(rules, vec![Position::start(rules)])
    }

    /// Every position reached from the empty board with any hands up to
    /// the game's start, either side to move: where placing and moving mix
    /// (RULES.md §3a), every start the game's stores answer.
    pub fn every_start(rules: &MorrisRules) -> Oracle {
        let [k, l] = rules.start_hands();
        let mut roots = Vec::new();
        for first in 0..=k {
            for second in 0..=l {
                for to_move in [Color::First, Color::Second] {
                    let empty = PointSet::EMPTY;
                    if let Ok(p) = Position::new(rules, empty, empty, to_move, [first, second]) {
                        roots.push(p);
                    }
                }
            }
        }
        Oracle::solve(rules, roots)
    }

    /// Every movement position whose sides both have 3 to `max` pieces.
    pub fn movement(rules: &MorrisRules, max: u32) -> Oracle {
        let mut roots = Vec::new();
        for m in 3..=max {
            for mover in subsets(PointSet::FULL, m) {
                if canonical_pair(mover, PointSet::EMPTY).0 != mover {
                    continue;
                }
                for o in 3..=max {
                    for opponent in subsets(mover.complement(), o) {
                        let position = movement_position(rules, mover, opponent);
                        roots.push(position);
                    }
                }
            }
        }
        Oracle::solve(rules, roots)
    }

    /// The value and depth of a position the oracle has seen (or of a
    /// finished game).
    pub fn value(&self, position: &Position) -> Option<(Value, u32)> {
        if let Some(v) = terminal_value(&self.rules, position) {
            return Some((v, 0));
        }
        let id = self.nodes.get(&key(&self.rules, position))?;
        Some(self.values[*id as usize])
    }

    /// Every position solved (one per symmetry class) with its value and depth.
    pub fn solutions(&self) -> impl Iterator<Item = (Position, (Value, u32))> + '_ {
        self.positions
            .iter()
            .zip(&self.values)
            .map(|(p, v)| (*p, *v))
    }

    /// Positions (symmetry classes) solved.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    fn solve(rules: &MorrisRules, roots: Vec<Position>) -> Oracle {
        let mut nodes: HashMap<Key, u32> = HashMap::new();
        let mut positions: Vec<Position> = Vec::new();
        let mut queue: VecDeque<Position> = VecDeque::new();
        for root in roots {
            if let Entry::Vacant(slot) = nodes.entry(key(rules, &root)) {
                slot.insert(positions.len() as u32);
                positions.push(root);
                queue.push_back(root);
            }
        }
        // Forward: every node's distinct successors, node u's in
        // `successors[starts[u]..starts[u + 1]]`: one flat list, where a
        // vector per node took three times the memory (4 GB for the whole
        // four-piece game).
        let mut successors: Vec<u32> = Vec::new();
        let mut starts: Vec<usize> = vec![0];
        let mut next: Vec<u32> = Vec::new();
        while let Some(position) = queue.pop_front() {
            next.clear();
            for (_, child) in legal_moves(rules, &position) {
                let k = key(rules, &child);
                next.push(*nodes.entry(k).or_insert_with(|| {
                    positions.push(child);
                    queue.push_back(child);
                    (positions.len() - 1) as u32
                }));
            }
            next.sort_unstable();
            next.dedup();
            successors.extend_from_slice(&next);
            starts.push(successors.len());
        }
        // Backward: the retrograde queue, in order of depth; node v's
        // predecessors in `predecessors[from[v]..from[v + 1]]`.
        let n = positions.len();
        let mut from: Vec<usize> = vec![0; n + 1];
        for &v in &successors {
            from[v as usize + 1] += 1;
        }
        for v in 0..n {
            from[v + 1] += from[v];
        }
        let mut predecessors: Vec<u32> = vec![0; successors.len()];
        let mut filled = from.clone();
        for u in 0..n {
            for &v in &successors[starts[u]..starts[u + 1]] {
                predecessors[filled[v as usize]] = u as u32;
                filled[v as usize] += 1;
            }
        }
        let mut unresolved: Vec<usize> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        drop((filled, successors, starts));
        let mut values: Vec<Option<(Value, u32)>> = vec![None; n];
        let mut ready: VecDeque<u32> = VecDeque::new();
        for (u, position) in positions.iter().enumerate() {
            if let Some(v) = terminal_value(rules, position) {
                values[u] = Some((v, 0));
                ready.push_back(u as u32);
            }
        }
        while let Some(u) = ready.pop_front() {
            let (value, depth) = values[u as usize].expect("queued nodes are solved");
            for &p in &predecessors[from[u as usize]..from[u as usize + 1]] {
                let p = p as usize;
                if values[p].is_some() {
                    continue;
                }
                match value {
                    Value::Loss => values[p] = Some((Value::Win, depth + 1)),
                    Value::Win => {
                        unresolved[p] -= 1;
                        if unresolved[p] > 0 {
                            continue;
                        }
                        values[p] = Some((Value::Loss, depth + 1));
                    }
                    Value::Draw => continue,
                }
                ready.push_back(p as u32);
            }
        }
        Oracle {
            rules: *rules,
            nodes,
            positions,
            values: values
                .into_iter()
                .map(|v| v.unwrap_or((Value::Draw, 0)))
                .collect(),
        }
    }
}

fn key(rules: &MorrisRules, position: &Position) -> Key {
    let (mover, opponent) = position.sides();
    let (m, o, _) = canonical_pair(mover, opponent);
    if rules.mixes_hands() {
        // The hands, not the placements made, tell such positions apart;
        // the colours do not.
        let me = position.to_move();
        let hands = u32::from(position.hand(me)) << 8 | u32::from(position.hand(me.other()));
        return (m.bits(), o.bits(), 1 << 16 | hands);
    }
    (m.bits(), o.bits(), position.ply(rules))
}

/// A movement-phase position (the values do not depend on colours).
pub fn movement_position(rules: &MorrisRules, mover: PointSet, opponent: PointSet) -> Position {
    Position::from_sides(rules, mover, opponent, Color::First, [0, 0])
        .expect("disjoint sets within the piece count")
}

/// Every `size`-point subset of `within`.
fn subsets(within: PointSet, size: u32) -> Vec<PointSet> {
    let points: Vec<_> = within.iter().collect();
    let mut out = Vec::new();
    let mut chosen = Vec::new();
    fn walk(
        points: &[super::Point],
        size: usize,
        start: usize,
        chosen: &mut Vec<super::Point>,
        out: &mut Vec<PointSet>,
    ) {
        if chosen.len() == size {
            out.push(chosen.iter().copied().collect());
            return;
        }
        for i in start..points.len() {
            chosen.push(points[i]);
            walk(points, size, i + 1, chosen, out);
            chosen.pop();
        }
    }
    walk(&points, size as usize, 0, &mut chosen, &mut out);
    out
}
