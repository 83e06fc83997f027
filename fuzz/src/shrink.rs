//! Delta debugging over a game's rules: a failing game is cut down to one
//! that still fails the same way and from which no chunk of rules and no
//! single body literal can be removed without the failure going away.
//!
//! Each step tries many candidates at once, since a candidate of the
//! compiled side costs a cargo build: the test is given a slice of
//! candidates and says which still fail.

use crate::game::{Game, Literal, Rule};
use std::time::Instant;

/// Most candidates tested in one call of the test.
const BATCH: usize = 40;

/// The smallest game found from `game` on which `fails` holds, within
/// `deadline`. `fails` gets candidates and returns one flag per candidate.
pub fn shrink(game: &Game, deadline: Instant, mut fails: impl FnMut(&[Game]) -> Vec<bool>) -> Game {
    let mut current = game.clone();
    let mut chunk = current.rules.len().div_ceil(2).max(1);
    while Instant::now() < deadline {
        let candidates = if chunk > 0 {
            without_chunks(&current, chunk)
        } else {
            without_literals(&current)
        };
        match first_failing(&candidates, &mut fails, deadline) {
            Some(smaller) => {
                current = smaller;
                chunk = chunk.min(current.rules.len().div_ceil(2)).max(1);
            }
            None if chunk > 1 => chunk /= 2,
            None if chunk == 1 => chunk = 0,
            None => break,
        }
    }
    current
}

/// The first candidate that fails, testing them `BATCH` at a time.
fn first_failing(
    candidates: &[Game],
    fails: &mut impl FnMut(&[Game]) -> Vec<bool>,
    deadline: Instant,
) -> Option<Game> {
    for batch in candidates.chunks(BATCH) {
        if Instant::now() >= deadline {
            return None;
        }
        let flags = fails(batch);
        if let Some(i) = flags.iter().position(|&f| f) {
            return Some(batch[i].clone());
        }
    }
    None
}

/// The game without each run of `chunk` consecutive rules.
fn without_chunks(game: &Game, chunk: usize) -> Vec<Game> {
    (0..game.rules.len())
        .step_by(chunk)
        .map(|start| {
            let mut rules = game.rules.clone();
            rules.drain(start..(start + chunk).min(rules.len()));
            Game { rules }
        })
        .collect()
}

/// The game without one body literal, or with an `or` replaced by one of
/// its disjuncts, for every literal of every rule.
fn without_literals(game: &Game) -> Vec<Game> {
    let mut out = Vec::new();
    for (i, rule) in game.rules.iter().enumerate() {
        for (j, literal) in rule.body.iter().enumerate() {
            let mut replacements = vec![None];
            if let Literal::Or(parts) = literal {
                replacements.extend(parts.iter().cloned().map(Some));
            }
            for replacement in replacements {
                let mut body = rule.body.clone();
                match replacement {
                    Some(l) => body[j] = l,
                    None => {
                        body.remove(j);
                    }
                }
                let mut rules = game.rules.clone();
                rules[i] = Rule {
                    head: rule.head.clone(),
                    body,
                };
                out.push(Game { rules });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Atom, Term};

    fn fact(name: &str) -> Rule {
        Rule::fact(Atom::new(name, vec![Term::c("1")]))
    }

    #[test]
    fn keeps_only_what_the_failure_needs() {
        let mut rules: Vec<Rule> = (0..20).map(|i| fact(&format!("r{i}"))).collect();
        rules[7].body = vec![
            Literal::Pos(Atom::new("x", vec![])),
            Literal::Or(vec![
                Literal::Pos(Atom::new("y", vec![])),
                Literal::Pos(Atom::new("z", vec![])),
            ]),
        ];
        let game = Game { rules };
        let far = Instant::now() + std::time::Duration::from_secs(60);
        // Fails while r3 and r7 are there and r7's body mentions z.
        let mut calls = 0;
        let small = shrink(&game, far, |games| {
            calls += 1;
            games
                .iter()
                .map(|g| {
                    let text = g.kif();
                    text.contains("(r3 1)") && text.contains("(r7 1)") && text.contains(" z")
                })
                .collect()
        });
        assert_eq!(small.kif(), "(r3 1)\n(<= (r7 1)\n    z)\n");
        assert!(calls < 40, "{calls} calls");
    }
}
