//! Proven values (MCTS-Solver): which role chooses at a node, which of
//! its children are proven, when the node is proven with them, and the
//! backup that lets the chooser's best proven child stand for the node
//! (see the parent module's documentation).

use super::node::Joint;
use super::Tree;
use gdl_runtime::Reasoner;

impl<R: Reasoner> Tree<R> {
    /// Adds `values` to the statistics of the last path, from its end up.
    /// Above a node whose chooser has a proven child better for it than
    /// the values from below, that child's values go up instead: the
    /// chooser would take it (with the proven children left out of the
    /// selection, [`Tree::select`], the values from below come from the
    /// unproven ones).
    pub(super) fn back_up(&mut self, mut values: Vec<f64>) {
        let path = std::mem::take(&mut self.path);
        for &(at, joint) in path.iter().rev() {
            let node = &mut self.nodes[at];
            node.credit(joint, &values);
            let proving = self.techniques.solver && self.nodes[at].proven_children > 0;
            let chooser = proving.then(|| self.chooser(at)).flatten();
            if let Some((chooser, best)) = chooser.and_then(|c| Some((c, self.best_proven(at, c)?)))
            {
                let proven = self.nodes[at].child(best).expect("a proven child");
                let proven = self.nodes[proven].proven.as_ref().expect("a proven child");
                if proven[chooser] > values[chooser] {
                    values.clone_from(proven);
                }
            }
        }
        self.path = path;
    }

    /// Proves the nodes of the last path that its end proved, from the end
    /// up, stopping at the first that stays unproven.
    pub(super) fn prove_path(&mut self) {
        for k in (0..self.path.len()).rev() {
            let at = self.path[k].0;
            if self.nodes[at].proven.is_some() {
                continue;
            }
            match self.proof(at) {
                Some(values) => self.prove(at, values),
                None => return,
            }
        }
    }

    /// Proves `at` with `values` and counts it in every parent, not only
    /// the path's: with transpositions a node has several.
    pub(super) fn prove(&mut self, at: usize, values: Vec<f64>) {
        self.nodes[at].proven = Some(values);
        let parents: Vec<usize> = self.nodes[at].parents().collect();
        for parent in parents {
            self.nodes[parent].proven_children += 1;
        }
    }

    /// The role that alone has a choice at `at` (the first role that is
    /// not `random` when none has), unless that is `random` or several
    /// roles choose: the nodes whose values can be proven.
    pub(super) fn chooser(&self, at: usize) -> Option<usize> {
        let node = &self.nodes[at];
        let roles = node.roles();
        let mut choosing = (0..roles).filter(|&role| node.moves(role).len() > 1);
        let chooser = match (choosing.next(), choosing.next()) {
            (Some(role), None) => role,
            (None, _) => (0..roles).find(|&role| Some(role) != self.random)?,
            (Some(_), Some(_)) => return None,
        };
        (Some(chooser) != self.random).then_some(chooser)
    }

    /// The values proven for the child of `at` where the chooser plays
    /// its move `i` (the other roles their only one).
    pub(super) fn proven_child(&self, at: usize, chooser: usize, i: usize) -> Option<&[f64]> {
        let node = &self.nodes[at];
        let child = node.child(node.joint_of(chooser, i))?;
        self.nodes[child].proven.as_deref()
    }

    /// The values `at` is proven with, if its children prove it: those of
    /// a child that gives the chooser 100, else, when every child is
    /// proven, those of the best child for the chooser.
    pub(super) fn proof(&self, at: usize) -> Option<Vec<f64>> {
        if self.nodes[at].proven_children == 0 {
            return None;
        }
        let chooser = self.chooser(at)?;
        let mut best: Option<&[f64]> = None;
        let mut every = true;
        for i in 0..self.nodes[at].moves(chooser).len() {
            let Some(values) = self.proven_child(at, chooser, i) else {
                every = false;
                continue;
            };
            if values[chooser] >= 1.0 {
                return Some(values.to_vec());
            }
            if best.is_none_or(|b| values[chooser] > b[chooser]) {
                best = Some(values);
            }
        }
        best.filter(|_| every).map(<[f64]>::to_vec)
    }

    /// The joint move of the chooser's best proven child at `at`, if any.
    pub(super) fn best_proven(&self, at: usize, chooser: usize) -> Option<Joint> {
        if self.nodes[at].proven_children == 0 {
            return None;
        }
        let n = self.nodes[at].moves(chooser).len();
        let mut best: Option<(f64, usize)> = None;
        for i in 0..n {
            let value = self.proven_child(at, chooser, i).map(|v| v[chooser]);
            if let Some(value) = value.filter(|&v| best.is_none_or(|(b, _)| v > b)) {
                best = Some((value, i));
            }
        }
        Some(self.nodes[at].joint_of(chooser, best?.1))
    }
}
