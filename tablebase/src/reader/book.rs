//! Opening books: every position within some plies of a root, each
//! symmetry class once, with its probe and every legal move's; and the
//! positions along one given line.

use std::collections::HashMap;

use egdb_games::{with_game, Family};
use rayon::prelude::*;

use super::{Answer, Tablebase};
use crate::TablebaseError;

/// One position of a book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookEntry {
    /// Its number: a book hands its entries over in this order, ply by ply.
    pub id: u64,
    /// Plies from the root.
    pub ply: u32,
    /// The moves from the root that reach it (in a book, the first line
    /// found breadth first, in move order).
    pub line: Vec<String>,
    /// Its symmetry class's canonical member, in notation: the same for
    /// every member.
    pub class: String,
    /// The position as `line` reaches it, its probe and every legal move's.
    pub answer: Answer,
    /// For each move of `answer.moves`, the id of the entry of the class it
    /// leads to, where the book holds one.
    pub next: Vec<Option<u64>>,
}

/// A position being expanded: where it came from and what it is.
struct Found<P> {
    position: P,
    line: Vec<String>,
    class: String,
}

impl Tablebase {
    /// Every position reachable from `root` (notation, or `start`) within
    /// `plies` plies, each symmetry class once — at the first ply that
    /// reaches it — handed to `visit` in id order. At most `max_positions`
    /// entries: a book that would hold more stops with an error once the
    /// ply that passes the limit is reached, before it is probed.
    ///
    /// # Errors
    /// [`TablebaseError::BookTooLarge`]; as [`Tablebase::answer`]; and
    /// whatever `visit` returns.
    pub fn book<E: From<TablebaseError>>(
        &self,
        root: &str,
        plies: u32,
        max_positions: u64,
        visit: impl FnMut(BookEntry) -> Result<(), E>,
    ) -> Result<(), E> {
        with_game!(&self.game, g => self.book_in(g, root, plies, max_positions, visit))
    }

    /// The positions along `moves` from `root`: the root first, then the
    /// position after each move, each with every legal move's probe.
    ///
    /// # Errors
    /// [`TablebaseError::NotAMove`] for a move that is not legal where it
    /// stands; as [`Tablebase::answer`].
    pub fn along(&self, root: &str, moves: &[&str]) -> Result<Vec<BookEntry>, TablebaseError> {
        with_game!(&self.game, g => self.along_in(g, root, moves))
    }

    fn book_in<F: Family, E: From<TablebaseError>>(
        &self,
        game: &F,
        root: &str,
        plies: u32,
        max_positions: u64,
        mut visit: impl FnMut(BookEntry) -> Result<(), E>,
    ) -> Result<(), E> {
        let root = game.parse_position(root).map_err(TablebaseError::from)?;
        let class = class_of(game, &root);
        let mut ids = HashMap::from([(class.clone(), 0u64)]);
        let mut frontier = vec![Found {
            position: root,
            line: Vec::new(),
            class,
        }];
        let mut first_id = 0u64;
        for ply in 0..=plies {
            let expanded = frontier
                .par_iter()
                .map(|found| self.expand(game, &found.position))
                .collect::<Result<Vec<_>, _>>()?;
            let mut reached = Vec::new();
            let mut entries = Vec::with_capacity(frontier.len());
            for (found, (answer, afters)) in frontier.into_iter().zip(expanded) {
                let mut next = Vec::with_capacity(afters.len());
                for (after, mv) in afters.into_iter().zip(&answer.moves) {
                    let class = class_of(game, &after);
                    let known = ids.get(&class).copied();
                    next.push(match known {
                        Some(id) => Some(id),
                        None if ply < plies => {
                            let id = ids.len() as u64;
                            if id >= max_positions {
                                return Err(TablebaseError::BookTooLarge {
                                    limit: max_positions,
                                    ply: ply + 1,
                                }
                                .into());
                            }
                            ids.insert(class.clone(), id);
                            let mut line = found.line.clone();
                            line.push(mv.mv.clone());
                            reached.push(Found {
                                position: after,
                                line,
                                class,
                            });
                            Some(id)
                        }
                        None => None,
                    });
                }
                entries.push((found.line, found.class, answer, next));
            }
            for (i, (line, class, answer, next)) in entries.into_iter().enumerate() {
                visit(BookEntry {
                    id: first_id + i as u64,
                    ply,
                    line,
                    class,
                    answer,
                    next,
                })?;
            }
            first_id = ids.len() as u64 - reached.len() as u64;
            frontier = reached;
        }
        Ok(())
    }

    fn along_in<F: Family>(
        &self,
        game: &F,
        root: &str,
        moves: &[&str],
    ) -> Result<Vec<BookEntry>, TablebaseError> {
        let mut position = game.parse_position(root)?;
        let mut line = Vec::new();
        let mut entries = Vec::with_capacity(moves.len() + 1);
        for ply in 0..=moves.len() {
            let (answer, mut afters) = self.expand(game, &position)?;
            let played = match moves.get(ply) {
                Some(text) => Some(answer.moves.iter().position(|m| m.mv == *text).ok_or_else(
                    || {
                        TablebaseError::NotAMove {
                            ply: ply as u32,
                            mv: (*text).to_string(),
                            position: answer.position.clone(),
                            legal: answer
                                .moves
                                .iter()
                                .map(|m| m.mv.as_str())
                                .collect::<Vec<_>>()
                                .join(" "),
                        }
                    },
                )?),
                None => None,
            };
            let id = ply as u64;
            let next = (0..answer.moves.len())
                .map(|i| (Some(i) == played).then_some(id + 1))
                .collect();
            entries.push(BookEntry {
                id,
                ply: ply as u32,
                line: line.clone(),
                class: class_of(game, &position),
                answer,
                next,
            });
            if let (Some(i), Some(text)) = (played, moves.get(ply)) {
                position = afters.swap_remove(i);
                line.push((*text).to_string());
            }
        }
        Ok(entries)
    }
}

fn class_of<F: Family>(game: &F, position: &F::Position) -> String {
    game.format_position(&game.canonical(position))
}
