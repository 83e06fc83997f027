//! Perft on several threads: the root's children are shared out among the
//! threads as they ask for work, and each thread counts the subtrees of
//! its children on a reasoner of its own, built on that thread. A child
//! travels to its thread as its fluents (a reasoner's states are its own:
//! the interpreter's are made of its own term numbers).

use crate::drivers::{levels, no_legal_moves, MAX_CHILDREN_AT_ONCE};
use crate::{perft_from, DriverError, PerftLevel, Reasoner};
use std::panic::resume_unwind;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Perft from `root` to `depth` (as [`crate::perft_from`]) on `threads`
/// threads, each with a reasoner that `build` makes on that thread (of the
/// same game as `first`, which expands the root). With one thread, a
/// depth under 2, or a root of over [`MAX_CHILDREN_AT_ONCE`] joint moves
/// (they are held at once), it is [`crate::perft_from`] on `first`. A
/// panic of a thread is resumed on the calling thread.
pub fn parallel_perft<R, F>(
    first: &mut R,
    root: &R::State,
    build: F,
    threads: usize,
    depth: u32,
) -> Result<Vec<PerftLevel>, DriverError>
where
    R: Reasoner,
    F: Fn() -> R + Sync,
{
    if threads <= 1 || depth < 2 || first.is_terminal(root) {
        return perft_from(first, root, depth);
    }
    let Some(children) = children_fluents(first, root)? else {
        return perft_from(first, root, depth);
    };
    let next = AtomicUsize::new(0);
    let parts: Vec<Result<Vec<u64>, DriverError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(children.len()))
            .map(|_| scope.spawn(|| count_subtrees(&build, &children, &next, depth - 1)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|panic| resume_unwind(panic)))
            .collect()
    });
    let mut leaves = vec![0u64; depth as usize + 1];
    leaves[0] = 1;
    for part in parts {
        for (d, count) in part?.into_iter().enumerate() {
            leaves[d + 1] += count;
        }
    }
    Ok(levels(&leaves))
}

/// The fluents of every child of `root`, one per joint move; `None` when
/// there are over [`MAX_CHILDREN_AT_ONCE`].
fn children_fluents<R: Reasoner>(
    r: &mut R,
    root: &R::State,
) -> Result<Option<Vec<Vec<String>>>, DriverError> {
    let roles = r.roles().len();
    let mut legal = vec![Vec::new(); roles];
    for (role, moves) in legal.iter_mut().enumerate() {
        r.legal_moves(root, role, moves);
    }
    if legal.iter().any(Vec::is_empty) {
        return Err(no_legal_moves(r, root, &legal));
    }
    let count = legal
        .iter()
        .try_fold(1usize, |n, moves| n.checked_mul(moves.len()));
    if count.is_none_or(|n| n > MAX_CHILDREN_AT_ONCE) {
        return Ok(None);
    }
    let mut joints: Vec<Vec<R::Move>> = vec![Vec::new()];
    for moves in &legal {
        joints = joints
            .iter()
            .flat_map(|j| moves.iter().map(move |&m| [j.as_slice(), &[m]].concat()))
            .collect();
    }
    Ok(Some(
        joints
            .iter()
            .map(|joint| {
                let child = r.next_state(root, joint);
                r.fluents(&child)
            })
            .collect(),
    ))
}

/// One thread's work: the leaves per depth, `0..=depth`, under the children
/// it takes from `children` (the next one being `next`), added up.
fn count_subtrees<R: Reasoner>(
    build: &(impl Fn() -> R + Sync),
    children: &[Vec<String>],
    next: &AtomicUsize,
    depth: u32,
) -> Result<Vec<u64>, DriverError> {
    let mut r = build();
    let mut leaves = vec![0u64; depth as usize + 1];
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(fluents) = children.get(i) else {
            return Ok(leaves);
        };
        let child = r
            .state_from_fluents(fluents)
            .expect("a reasoner built by `build` reads the states of `first`'s game");
        for level in perft_from(&mut r, &child, depth)? {
            leaves[level.depth as usize] += level.leaves;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft;

    /// Two roles; in round `k`, role 0 has `k + 2` moves and role 1 two;
    /// the state is the list of moves so far (so every node is its own
    /// state); the game ends after `depth` rounds.
    struct Tree {
        roles: Vec<String>,
        depth: usize,
    }

    impl Reasoner for Tree {
        type State = Vec<u32>;
        type Move = u32;
        fn roles(&self) -> &[String] {
            &self.roles
        }
        fn initial_state(&mut self) -> Vec<u32> {
            Vec::new()
        }
        fn is_terminal(&mut self, s: &Vec<u32>) -> bool {
            s.len() >= 2 * self.depth
        }
        fn legal_moves(&mut self, s: &Vec<u32>, role: usize, out: &mut Vec<u32>) {
            out.clear();
            out.extend(0..if role == 0 { s.len() as u32 / 2 + 2 } else { 2 });
        }
        fn next_state(&mut self, s: &Vec<u32>, joint: &[u32]) -> Vec<u32> {
            [s.as_slice(), joint].concat()
        }
        fn goal(&mut self, _: &Vec<u32>, _: usize) -> Option<u32> {
            Some(0)
        }
        fn move_text(&self, _: usize, m: u32) -> String {
            m.to_string()
        }
        fn parse_move(&mut self, _: usize, text: &str) -> Option<u32> {
            text.parse().ok()
        }
        fn fluents(&self, s: &Vec<u32>) -> Vec<String> {
            vec![format!("{s:?}")]
        }
        fn state_from_fluents(&mut self, fluents: &[String]) -> Option<Vec<u32>> {
            let [f] = fluents else { return None };
            let inner = f.strip_prefix('[')?.strip_suffix(']')?;
            inner
                .split(", ")
                .filter(|t| !t.is_empty())
                .map(|t| t.parse().ok())
                .collect()
        }
        fn state_hash(&self, s: &Vec<u32>) -> u64 {
            s.iter().fold(0, |h, &m| h * 31 + u64::from(m))
        }
    }

    fn tree() -> Tree {
        Tree {
            roles: vec!["a".into(), "b".into()],
            depth: 3,
        }
    }

    #[test]
    fn counts_what_one_thread_counts() {
        let one = perft(&mut tree(), 4).unwrap();
        // Rounds of 2x2, 3x2 and 4x2 joint moves, then the end.
        let leaves: Vec<u64> = one.iter().map(|l| l.leaves).collect();
        assert_eq!(leaves, [1, 4, 24, 192, 0]);
        for threads in [1, 2, 3, 8] {
            let root = Vec::new();
            let many = parallel_perft(&mut tree(), &root, tree, threads, 4).unwrap();
            assert_eq!(many, one, "{threads} threads");
        }
        let from = parallel_perft(&mut tree(), &vec![0, 1], tree, 2, 2).unwrap();
        assert_eq!(from, perft_from(&mut tree(), &vec![0, 1], 2).unwrap());
    }
}
