//! Singmaster move notation and conversion between the two metrics.
//!
//! A sequence is written as whitespace-separated tokens `X`, `X'` or `X2`
//! for X in `URFDLB` (`X2'` is read as `X2`, and a typographic `’` as `'`).
//! [`parse`] rejects anything else, quoting the token and its position;
//! [`parse_faces`] also rejects turns of faces a puzzle does not turn (the
//! 2×2×2 model turns U, R and F only).
//! [`to_htm`] merges each run of turns of one face into its net turn, so a
//! quarter-turn sequence `X X` becomes `X2` (and a run that cancels out
//! disappears); [`to_qtm`] expands every `X2` into `X X`.

use super::geometry::FACE_LETTERS;
use super::turn::Turn;
use thiserror::Error;

/// A move sequence that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NotationError {
    /// A token is not a move.
    #[error(
        "unknown move `{token}` at position {position} (token {index}); expected one of U R F D L B, each optionally followed by ' or 2"
    )]
    UnknownToken {
        /// The offending token, verbatim.
        token: String,
        /// 1-based token number in the sequence.
        index: usize,
        /// 1-based character column where the token starts.
        position: usize,
    },
    /// A move of a face the puzzle does not turn.
    #[error(
        "move `{token}` at position {position} (token {index}) turns a face this puzzle does not turn; expected one of {expected}, each optionally followed by ' or 2"
    )]
    FaceNotTurned {
        /// The offending token, verbatim.
        token: String,
        /// 1-based token number in the sequence.
        index: usize,
        /// 1-based character column where the token starts.
        position: usize,
        /// The faces the puzzle turns, e.g. `U R F`.
        expected: String,
    },
}

/// Parses a Singmaster sequence such as `R U R' U2`. An empty or blank
/// string is the empty sequence.
pub fn parse(text: &str) -> Result<Vec<Turn>, NotationError> {
    parse_faces(text, 6)
}

/// Parses a sequence like [`parse`] whose turns may only turn the first
/// `faces` faces in URFDLB order (6: any face; 3: `U`, `R` and `F`, the
/// 2×2×2 model). A well-formed turn of another face is
/// [`NotationError::FaceNotTurned`].
pub fn parse_faces(text: &str, faces: u8) -> Result<Vec<Turn>, NotationError> {
    let mut out = Vec::new();
    let mut index = 0;
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() || c == ',' {
            chars.next();
            continue;
        }
        let mut end = start;
        while let Some(&(i, c)) = chars.peek() {
            if c.is_whitespace() || c == ',' {
                break;
            }
            end = i + c.len_utf8();
            chars.next();
        }
        index += 1;
        let token = &text[start..end];
        let position = text[..start].chars().count() + 1;
        match parse_token(token) {
            Some(t) if t.face() < faces => out.push(t),
            Some(_) => {
                let expected: Vec<String> = FACE_LETTERS.iter().take(usize::from(faces)).map(char::to_string).collect();
                return Err(NotationError::FaceNotTurned {
                    token: token.to_string(),
                    index,
                    position,
                    expected: expected.join(" "),
                });
            }
            None => return Err(NotationError::UnknownToken { token: token.to_string(), index, position }),
        }
    }
    Ok(out)
}

fn parse_token(token: &str) -> Option<Turn> {
    let mut it = token.chars();
    let face = match it.next()? {
        'U' => 0,
        'R' => 1,
        'F' => 2,
        'D' => 3,
        'L' => 4,
        'B' => 5,
        _ => return None,
    };
    let suffix: String = it.collect();
    let quarters = match suffix.as_str() {
        "" => 1,
        "'" | "’" => 3,
        "2" | "2'" | "2’" => 2,
        _ => return None,
    };
    Some(Turn::new(face, quarters))
}

/// Formats a sequence as space-separated Singmaster tokens.
#[must_use]
pub fn format(turns: &[Turn]) -> String {
    let mut s = String::with_capacity(turns.len() * 3);
    for (i, t) in turns.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(t.name());
    }
    s
}

/// Length in the quarter-turn metric (each `X2` counts 2).
#[must_use]
pub fn qtm_len(turns: &[Turn]) -> usize {
    turns.iter().map(|t| t.qtm_len()).sum()
}

/// Length in the half-turn metric after merging runs of one face.
#[must_use]
pub fn htm_len(turns: &[Turn]) -> usize {
    to_htm(turns).len()
}

/// Merges every maximal run of turns of one face into its net turn
/// (`X X` → `X2`, `X X X` → `X'`, `X X'` → nothing). The result performs the
/// same permutation and never has two consecutive turns of one face.
#[must_use]
pub fn to_htm(turns: &[Turn]) -> Vec<Turn> {
    let mut out: Vec<Turn> = Vec::with_capacity(turns.len());
    // (face, net quarters) of the run being accumulated.
    let mut run: Option<(u8, u8)> = None;
    let flush = |out: &mut Vec<Turn>, run: Option<(u8, u8)>| {
        if let Some((face, q)) = run
            && q % 4 != 0
        {
            out.push(Turn::new(face, q % 4));
        }
    };
    for &t in turns {
        run = match run {
            Some((face, q)) if face == t.face() => Some((face, (q + t.quarters()) % 4)),
            other => {
                flush(&mut out, other);
                Some((t.face(), t.quarters()))
            }
        };
    }
    flush(&mut out, run);
    // A cancelled run can bring two runs of the same face together.
    if out.windows(2).any(|w| w[0].face() == w[1].face()) { to_htm(&out) } else { out }
}

/// Expands every half turn `X2` into `X X`; quarter turns are kept.
#[must_use]
pub fn to_qtm(turns: &[Turn]) -> Vec<Turn> {
    let mut out = Vec::with_capacity(turns.len() * 2);
    for &t in turns {
        if t.quarters() == 2 {
            let q = Turn::new(t.face(), 1);
            out.extend([q, q]);
        } else {
            out.push(t);
        }
    }
    out
}

/// The sequence that undoes `turns`: reversed, each turn inverted.
#[must_use]
pub fn invert(turns: &[Turn]) -> Vec<Turn> {
    turns.iter().rev().map(|t| t.inverse()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_format_round_trip() {
        let seq = parse("R U R' U'  F2 B2' D’").unwrap();
        assert_eq!(format(&seq), "R U R' U' F2 B2 D'");
        assert!(parse("   ").unwrap().is_empty());
    }

    #[test]
    fn unknown_token_is_quoted_with_position() {
        let err = parse("R U X2 F").unwrap_err();
        assert_eq!(err, NotationError::UnknownToken { token: "X2".into(), index: 3, position: 5 });
        assert!(err.to_string().contains("`X2`"));
        assert!(parse("R3").is_err());
        assert!(parse("r").is_err());
    }

    #[test]
    fn faces_outside_the_move_set_are_named() {
        assert_eq!(format(&parse_faces("R U2 F'", 3).unwrap()), "R U2 F'");
        let err = parse_faces("R U  D2 F", 3).unwrap_err();
        assert_eq!(
            err,
            NotationError::FaceNotTurned { token: "D2".into(), index: 3, position: 6, expected: "U R F".into() }
        );
        assert!(err.to_string().contains("`D2`") && err.to_string().contains("expected one of U R F"), "{err}");
        // A malformed token is still an unknown token, whatever its face.
        assert!(matches!(parse_faces("R L3", 3), Err(NotationError::UnknownToken { index: 2, .. })));
    }

    #[test]
    fn metric_conversion() {
        let q = parse("R R U U' F F F L").unwrap();
        assert_eq!(format(&to_htm(&q)), "R2 F' L");
        assert_eq!(qtm_len(&parse("R2 U").unwrap()), 3);
        assert_eq!(htm_len(&parse("R R U").unwrap()), 2);
        assert_eq!(format(&to_qtm(&parse("R2 U' F2").unwrap())), "R R U' F F");
        // Cancelling a run can merge its neighbours.
        assert_eq!(format(&to_htm(&parse("R U U' R").unwrap())), "R2");
    }
}
