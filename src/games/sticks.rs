//! The lecture's sticks game: piles of sticks (two in the lecture, up to
//! [`MAX_PILES`] here); a move takes any number of sticks from one pile; the
//! player who cannot move (every pile empty) loses. MAX moves first.
//!
//! Utility: +1 when MAX wins, −1 when MIN wins (there is no draw). With two
//! piles the player to move loses exactly when the piles are equal (the
//! other player copies every move on the other pile); with any number it
//! loses exactly when the piles' XOR is 0 (Bouton's theorem for Nim,
//! [`mover_loses`]).
//!
//! Evaluation (deliberately naive, so that a cutoff can be seen to err):
//! ±0.5, predicting that the player to move wins when the total number of
//! sticks is odd — right if every move took one stick, wrong in general.
//! Moves are listed pile by pile, taking 1, 2, … sticks.

use super::error::GameError;
use super::{Game, MAX};
use std::fmt;
use std::str::FromStr;

/// The most piles a position has.
pub const MAX_PILES: usize = 8;

/// The most sticks in one pile.
pub const MAX_PILE: u32 = 1000;

/// The longest game any position allows, in plies: every move takes at
/// least one stick, so a game lasts at most as many plies as there are
/// sticks, and a position holds at most [`MAX_PILES`] × [`MAX_PILE`].
pub const LONGEST_GAME: u32 = MAX_PILES as u32 * MAX_PILE;

/// A move: take `count` sticks from pile `pile` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Take {
    /// The pile, 0-based.
    pub pile: u8,
    /// How many sticks (at least 1).
    pub count: u32,
}

impl fmt::Display for Take {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "take {} from pile {}", self.count, self.pile + 1)
    }
}

/// A sticks position: the piles and the player to move (0 = MAX, 1 = MIN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sticks {
    piles: [u32; MAX_PILES],
    len: u8,
    to_move: u8,
}

impl Sticks {
    /// The position with these piles, MAX to move.
    ///
    /// # Errors
    /// No pile or more than [`MAX_PILES`], or a pile over [`MAX_PILE`].
    pub fn new(piles: &[u32]) -> Result<Self, GameError> {
        let text = || piles.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        if piles.is_empty() || piles.len() > MAX_PILES {
            return Err(GameError::PileCount { text: text(), count: piles.len(), max: MAX_PILES });
        }
        if let Some(&p) = piles.iter().find(|&&p| p > MAX_PILE) {
            return Err(GameError::PileTooLarge { text: text(), value: p.to_string(), max: MAX_PILE });
        }
        let mut s = Self { piles: [0; MAX_PILES], len: piles.len() as u8, to_move: MAX as u8 };
        s.piles[..piles.len()].copy_from_slice(piles);
        Ok(s)
    }

    /// The piles.
    #[must_use]
    pub fn piles(&self) -> &[u32] {
        &self.piles[..self.len as usize]
    }

    /// The total number of sticks.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.piles().iter().map(|&p| u64::from(p)).sum()
    }

    /// The longest rest of the game from here, in plies: one stick per
    /// move (at most [`LONGEST_GAME`]).
    #[must_use]
    pub fn longest_rest(&self) -> u32 {
        u32::try_from(self.total()).unwrap_or(LONGEST_GAME)
    }
}

/// Whether the player to move loses with best play on both sides: the XOR
/// of the piles is 0 (for two piles: the piles are equal).
#[must_use]
pub fn mover_loses(piles: &[u32]) -> bool {
    piles.iter().fold(0, |x, &p| x ^ p) == 0
}

impl FromStr for Sticks {
    type Err = GameError;

    /// Pile sizes separated by commas, e.g. `3,5` (spaces allowed).
    fn from_str(text: &str) -> Result<Self, GameError> {
        let items: Vec<&str> = text.split(',').map(str::trim).collect();
        if items.len() > MAX_PILES || text.trim().is_empty() {
            let count = if text.trim().is_empty() { 0 } else { items.len() };
            return Err(GameError::PileCount { text: text.to_string(), count, max: MAX_PILES });
        }
        let mut piles = Vec::with_capacity(items.len());
        for item in items {
            if item.is_empty() || !item.bytes().all(|b| b.is_ascii_digit()) {
                return Err(GameError::PileNotNumber { text: text.to_string(), item: item.to_string() });
            }
            match item.parse::<u32>() {
                Ok(v) if v <= MAX_PILE => piles.push(v),
                // Only digits: too large (for u32 too).
                _ => {
                    return Err(GameError::PileTooLarge {
                        text: text.to_string(),
                        value: item.to_string(),
                        max: MAX_PILE,
                    });
                }
            }
        }
        Sticks::new(&piles)
    }
}

impl fmt::Display for Sticks {
    /// The piles as `play --piles` takes them, e.g. `3,5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let piles: Vec<String> = self.piles().iter().map(u32::to_string).collect();
        f.write_str(&piles.join(","))
    }
}

impl Game for Sticks {
    type Move = Take;
    type Undo = ();

    fn num_agents(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        usize::from(self.to_move)
    }

    fn moves(&self, out: &mut Vec<Take>) {
        out.clear();
        for (i, &p) in self.piles().iter().enumerate() {
            out.extend((1..=p).map(|count| Take { pile: i as u8, count }));
        }
    }

    fn apply(&mut self, m: Take) {
        self.piles[usize::from(m.pile)] -= m.count;
        self.to_move ^= 1;
    }

    fn undo(&mut self, m: Take, (): ()) {
        self.piles[usize::from(m.pile)] += m.count;
        self.to_move ^= 1;
    }

    fn utility(&self) -> Option<f64> {
        if self.piles().iter().any(|&p| p > 0) {
            return None;
        }
        // The player to move cannot move and loses.
        Some(if self.max_to_move() { -1.0 } else { 1.0 })
    }

    fn evaluate(&self) -> f64 {
        let mover_wins = self.total() % 2 == 1;
        let for_max = mover_wins == self.max_to_move();
        if for_max { 0.5 } else { -0.5 }
    }
}
