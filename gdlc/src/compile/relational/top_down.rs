//! What the demand strategy answers top-down instead of deriving into
//! containers: the relations searched for a first witness, and the walks
//! (`compile::demand`), as the planner and the emitters read them.

use crate::compile::program::RelId;

/// A reach relation of a right-linear recursion answered by a loop
/// (`compile::demand::walks`): its arguments are the start (`changing`
/// of them), the `kept` arguments each step reads, and a square reached
/// from the start in zero or more steps (`changing` again); one step
/// (relation `step`, its arguments laid out alike) from a square leads to
/// at most one square `forward`, or comes from at most one `backward`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The relation of one step.
    pub step: RelId,
    /// The arguments of a square.
    pub changing: usize,
    /// The arguments passed along unchanged that a step reads.
    pub kept: usize,
    /// Whether a square determines the next one.
    pub forward: bool,
    /// Whether a square determines the one before it.
    pub backward: bool,
}

impl Walk {
    /// The positions a step in this direction reads (the square it comes
    /// from and the kept ones) and those it binds (the square it reaches).
    pub fn positions(&self, forward: bool) -> (Vec<usize>, Vec<usize>) {
        let (c, k) = (self.changing, self.kept);
        let start = 0..c;
        let kept = c..c + k;
        let end = c + k..2 * c + k;
        if forward {
            (start.chain(kept).collect(), end.collect())
        } else {
            (end.chain(kept).collect(), start.collect())
        }
    }
}

/// The relations answered top-down instead of derived into containers
/// (the demand strategy); none for the other strategies.
#[derive(Clone, Debug, Default)]
pub struct TopDown {
    /// Per relation, whether it is answered by a search ([`Step::Ask`](super::plan::Step::Ask)).
    pub asked: Vec<bool>,
    /// Per relation, the walk of a reach relation answered by loops
    /// ([`Step::Walk`](super::plan::Step::Walk)).
    pub walks: Vec<Option<Walk>>,
    /// Per asked relation, whether its search remembers its answers for
    /// the current state and joint move (some call of it repeats:
    /// [`crate::compile::demand::repeated_asks`]).
    pub remembered: Vec<bool>,
}

impl TopDown {
    /// Per relation, whether it has no container nor layer (asked,
    /// walked, or a walk's step).
    pub fn excluded(&self) -> Vec<bool> {
        let mut out: Vec<bool> = (self.asked.iter().zip(&self.walks))
            .map(|(&a, w)| a || w.is_some())
            .collect();
        for walk in self.walks.iter().flatten() {
            out[walk.step] = true;
        }
        out
    }

    /// Per relation, the walk whose step it is, if any.
    pub fn steps(&self) -> Vec<Option<Walk>> {
        let mut out = vec![None; self.walks.len()];
        for walk in self.walks.iter().flatten() {
            out[walk.step] = Some(*walk);
        }
        out
    }

    /// Extends the vectors to `n` relations (the new ones bottom-up).
    pub fn resize(&mut self, n: usize) {
        self.asked.resize(n, false);
        self.walks.resize(n, None);
        self.remembered.resize(n, false);
    }
}
