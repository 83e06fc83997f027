//! Stage 5b, grounding: when the relaxed evaluation found few enough rule
//! instances ([`Domains::instances`]), every dynamic ground atom gets a bit
//! and every rule instance becomes a conjunction of bit tests. Static
//! literals and filters are decided here, at compile time, and vanish; what
//! is left reads only `true`, `does` and derived atoms. The generated
//! reasoner then evaluates these instances layer by layer over one bit
//! vector, with no tuples, hashing or joins at run time (see
//! [`crate::compile::emit::ground`]).
//!
//! The bit vector, in words:
//!
//! - the state: bit `f` is fluent `f` (runtime id);
//! - the per-state atoms: a constant-one bit, then the atoms of relations
//!   computed per state;
//! - from word [`Ground::move_word`] on, cleared for every joint move: the
//!   `next` block (bit `next_base + f` is `(next f)`, so the next state is a
//!   copy of these words), the `does` atoms, then the other relations
//!   computed per joint move.

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::error::NotGround;
use crate::compile::program::{lookup, Class, Lit, Program, RelId, Rule};
use crate::ir::terms::TermId;
use crate::ir::Phase;
use rustc_hash::{FxHashMap, FxHashSet};

/// Most bit-test slots (heads and literals) of all instances together;
/// past it the ground tables would make the generated source too large.
const MAX_SLOTS: usize = 400_000;

/// The instances of one rule, as rows of bits.
pub struct GroundRule {
    /// The rule (index into [`Program::rules`]).
    pub rule: usize,
    /// Positive dynamic literals per instance.
    pub pos: usize,
    /// Negative dynamic literals per instance.
    pub neg: usize,
    /// Per instance: the head's bit, then the positive literals' bits, then
    /// the negative literals' bits.
    pub rows: Vec<Vec<u32>>,
    /// Whether the rows are sorted by their first positive literal, the
    /// driver (the one with the most distinct bits, until
    /// [`crate::compile::ground::drivers::choose_drivers`] picks the one a simulation found set
    /// least often): the evaluation then visits only the rows whose first
    /// literal is set.
    pub driven: bool,
    /// The columns whose bit is the same in every row (`(control white)`
    /// in every instance of white's moves): the full evaluation tests them
    /// once, before the rows, and not in each row.
    pub guards: Vec<usize>,
    /// Whether the full evaluation tests its heads' words (a
    /// [`Projection`], when the simulation found that cheaper than
    /// walking the set bits of its driver; [`crate::compile::ground::drivers::choose_drivers`]).
    pub projected: bool,
}

/// A rule whose every instance (past the guards, and the driver if
/// `by_driver`) copies one positive literal's bit to its head, the same
/// number of bits further on (a frame rule: `(next f)` from `(true f)`;
/// or `(legal r (drop ?x))` from `(columnopen ?x)` under a guard): per
/// group of instances (those of one driver bit, or all of them), the words
/// of the copied bits with their masks, so that the full evaluation ORs
/// whole (shifted) words instead of visiting instances.
pub struct WordCopies {
    /// Bits from the start of a copied word to where its bits go, modulo
    /// 64 (the word of a head is `dst` below, and the next one).
    pub offset: u32,
    /// Whether the groups are the instances of each driver bit (else one
    /// group of all the instances).
    pub by_driver: bool,
    /// `(word, mask, dst)`: the copied bits of word `word`, shifted left
    /// by `offset`, go to word `dst` (and the bits shifted out to
    /// `dst + 1`), group after group.
    pub words: Vec<(u32, u64, u32)>,
    /// Per group and one past the last, its first entry in `words`.
    pub starts: Vec<u32>,
}

impl GroundRule {
    /// For a driven rule: per bit of the driver's range and one past it,
    /// the first row whose driver is at least that bit.
    pub fn driver_starts(&self) -> Vec<u32> {
        let lo = self.rows[0][1];
        let hi = self.rows[self.rows.len() - 1][1];
        (lo..=hi + 1)
            .map(|b| self.rows.partition_point(|r| r[1] < b) as u32)
            .collect()
    }

    /// For a driven rule: the words of the bit vector its driver's range
    /// spans, from the first, each with the bits that drive some row (the
    /// other bits of the range, a black piece among the drivers of a white
    /// move, need not be visited).
    pub fn driver_masks(&self) -> (usize, Vec<u64>) {
        let lo = self.rows[0][1] as usize / 64;
        let hi = self.rows[self.rows.len() - 1][1] as usize / 64;
        let mut masks = vec![0u64; hi - lo + 1];
        for r in &self.rows {
            masks[r[1] as usize / 64 - lo] |= 1 << (r[1] % 64);
        }
        (lo, masks)
    }

    /// The projection that evaluates this rule, if it is [`Self::projected`].
    pub fn projection(&self) -> Option<Projection> {
        self.projected.then(|| self.projection_shape()).flatten()
    }

    /// The projection that could evaluate this rule, if its instances each
    /// test one positive literal and share few heads.
    pub fn projection_shape(&self) -> Option<Projection> {
        let tested: Vec<usize> = (1..=self.pos + self.neg)
            .filter(|k| !self.guards.contains(k))
            .collect();
        let [k] = tested[..] else {
            return None;
        };
        if k > self.pos {
            return None;
        }
        let mut heads: std::collections::BTreeMap<u32, std::collections::BTreeMap<u32, u64>> =
            Default::default();
        for r in &self.rows {
            *heads.entry(r[0]).or_default().entry(r[k] / 64).or_default() |= 1u64 << (r[k] % 64);
        }
        // Each word is tested for at most two heads (else walking the set
        // bits, usually few, costs less: `affected` squares per move).
        let tested_words: usize = heads.values().map(|words| words.len()).sum();
        let words: std::collections::BTreeSet<u32> = heads
            .values()
            .flat_map(|words| words.keys().copied())
            .collect();
        let few_heads = self.rows.len() >= heads.len() * MIN_INSTANCES_PER_HEAD
            && tested_words <= words.len() * MAX_HEADS_PER_WORD;
        few_heads.then(|| Projection {
            heads: heads
                .into_iter()
                .map(|(h, words)| (h, words.into_iter().collect()))
                .collect(),
        })
    }

    /// The word copies that evaluate this rule, if its instances are copies.
    pub fn word_copies(&self) -> Option<WordCopies> {
        let tested: Vec<usize> = (1..=self.pos + self.neg)
            .filter(|k| !self.guards.contains(k))
            .collect();
        let (k, by_driver) = match tested[..] {
            [k] => (k, false),
            [1, k] if self.driven => (k, true),
            _ => return None,
        };
        if k > self.pos {
            return None;
        }
        let shift = |r: &Vec<u32>| i64::from(r[0]) - i64::from(r[k]);
        let s = shift(&self.rows[0]);
        if self.rows.iter().any(|r| shift(r) != s) {
            return None;
        }
        let groups: Vec<&[Vec<u32>]> = if by_driver {
            self.driver_starts()
                .windows(2)
                .map(|w| &self.rows[w[0] as usize..w[1] as usize])
                .collect()
        } else {
            vec![&self.rows[..]]
        };
        let mut words = Vec::new();
        let mut starts = vec![0u32];
        for rows in groups {
            let mut masks: std::collections::BTreeMap<u32, u64> = Default::default();
            for r in rows {
                *masks.entry(r[k] / 64).or_default() |= 1u64 << (r[k] % 64);
            }
            // The heads of a word's bits lie in words `dst` and `dst + 1`.
            for (w, m) in masks {
                let dst = u32::try_from(i64::from(w) + s.div_euclid(64)).ok()?;
                words.push((w, m, dst));
            }
            starts.push(words.len() as u32);
        }
        Some(WordCopies {
            offset: s.rem_euclid(64) as u32,
            by_driver,
            words,
            starts,
        })
    }
}

/// A rule whose instances (past the guards) each test one positive literal
/// and many of them share a head (`(anyLegalMove ?player) :- (legal2
/// ?player ?move)`): per head, the words of the bits that set it with
/// their masks, so that the full evaluation tests a few words per head
/// instead of visiting every instance.
pub struct Projection {
    /// `(head, [(word, mask)])`, by head.
    pub heads: Vec<(u32, Vec<(u32, u64)>)>,
}

impl Projection {
    /// The words it tests per evaluation (a word once per head).
    pub fn words(&self) -> usize {
        self.heads.iter().map(|(_, words)| words.len()).sum()
    }
}

/// Instances per head from which a rule is evaluated as a [`Projection`].
const MIN_INSTANCES_PER_HEAD: usize = 4;
/// Most heads per word of tested bits, on average, of a [`Projection`].
const MAX_HEADS_PER_WORD: usize = 2;

/// The ground program.
pub struct Ground {
    /// Words of the whole bit vector (a power of two).
    pub words: usize,
    /// The bit that is always one.
    pub one: u32,
    /// First word of the per-joint-move part.
    pub move_word: usize,
    /// Bit of `(next f)` for fluent 0.
    pub next_base: u32,
    /// Per role: `(bit, move id)` of each possible legal move.
    pub legal: Vec<Vec<(u32, u32)>>,
    /// Per role: `(move id, bit)` of each possible `does`, by move id.
    pub does: Vec<Vec<(u32, u32)>>,
    /// Bits whose truth makes the state terminal.
    pub terminal: Vec<u32>,
    /// Per role: `(bit, value id)` of each possible goal.
    pub goals: Vec<Vec<(u32, u32)>>,
    /// Per role: `(bit, percept id)` of each possible percept (`sees`);
    /// `None` in a game without `sees`.
    pub sees: Option<Vec<Vec<(u32, u32)>>>,
    /// Per rule with instances: its rows, by rule index.
    pub rules: Vec<Option<GroundRule>>,
    /// Atoms per relation (for `gdlc explain`).
    pub atoms: Vec<usize>,
    /// Per layer: whether it is evaluated again for every joint move (it
    /// reads `does`, or defines `next`).
    pub per_move: Vec<bool>,
    /// The initial state's words.
    pub initial: Vec<u64>,
}

impl Ground {
    /// Total instances.
    pub fn instances(&self) -> usize {
        self.rules.iter().flatten().map(|g| g.rows.len()).sum()
    }
}

/// Whether the bits of column `k` span few enough bits for a driver's
/// offset table (one offset per bit of the range).
pub fn spans(rows: &[Vec<u32>], k: usize) -> bool {
    let lo = rows.iter().map(|r| r[k]).min().unwrap_or(0);
    let hi = rows.iter().map(|r| r[k]).max().unwrap_or(0);
    ((hi - lo) as usize) < 16 * rows.len() + 64
}

/// Grounds `program`, or says why not.
pub fn ground(program: &Program, domains: &Domains, layers: &Layers) -> Result<Ground, NotGround> {
    let Some(instances) = &domains.instances else {
        return Err(NotGround::TooManyInstances {
            limit: crate::compile::analyse::domains::MAX_GROUND_INSTANCES,
        });
    };
    let state_words = domains.fluents.div_ceil(64).max(1);
    let mut b = Builder {
        bit: FxHashMap::default(),
        next_free: (state_words * 64) as u32,
        atoms: vec![0; program.relations.len()],
    };
    let one = b.fresh();
    let heads = instance_heads(program, domains, instances);
    // Per-state relations, in layer order, then the per-move part: `next`
    // (per state when no rule of it reads `does`) gets the next block.
    let next_rels: Vec<RelId> = program.answers[1].clone();
    b.layer_atoms(layers, Class::State, &heads, &next_rels);
    let move_word = (b.next_free as usize).div_ceil(64);
    let next_base = (move_word * 64) as u32;
    b.next_block(domains, &heads, &next_rels, next_base);
    b.next_free = next_base + (state_words * 64) as u32;
    let answers = Answers {
        program,
        domains,
        heads: &heads,
        one,
    };
    let (legal, does) = answers.moves(&mut b);
    b.layer_atoms(layers, Class::Move, &heads, &next_rels);
    // At least one bit past the last atom: it is never set. A power of two
    // of words, so that the generated code can mask word indexes instead
    // of checking bounds.
    let words = (b.next_free as usize + 1).div_ceil(64).next_power_of_two();
    let terminal = answers.terminal(&b);
    let goals = answers.per_role(&b, Phase::Goal);
    let sees = program
        .has_percepts()
        .then(|| answers.per_role(&b, Phase::Sees));
    if program.answers[1]
        .iter()
        .any(|&r| program.class[r] == Class::Static && !program.facts[r].is_empty())
    {
        return Err(NotGround::StaticNext);
    }
    let rules = Instantiation::new(program, domains, &b.bit).rules(instances, one, words)?;
    let per_move = layers
        .layers
        .iter()
        .map(|l| l.class == Class::Move || l.members.iter().all(|r| next_rels.contains(r)))
        .collect();
    Ok(Ground {
        per_move,
        initial: domains.state_words(&program.init),
        words,
        one,
        move_word,
        next_base,
        legal,
        does,
        terminal,
        goals,
        sees,
        rules,
        atoms: b.atoms,
    })
}

/// Per relation: the heads of its rules' instances, sorted by runtime ids
/// and without duplicates.
fn instance_heads(
    program: &Program,
    domains: &Domains,
    instances: &[Vec<Vec<TermId>>],
) -> Vec<Vec<Vec<TermId>>> {
    let mut heads: Vec<Vec<Vec<TermId>>> = vec![Vec::new(); program.relations.len()];
    for (rule, found) in program.rules.iter().zip(instances) {
        let r = rule.head.rel;
        for binding in found {
            let row: Vec<TermId> = rule
                .head
                .args
                .iter()
                .map(|a| {
                    lookup(&program.store, a, binding).expect("interned by the relaxed evaluation")
                })
                .collect();
            heads[r].push(row);
        }
    }
    for h in &mut heads {
        h.sort_unstable_by_key(|row| row.iter().map(|&t| domains.id(t)).collect::<Vec<_>>());
        h.dedup();
    }
    heads
}

/// Hands out bits.
struct Builder {
    bit: FxHashMap<(RelId, Vec<TermId>), u32>,
    next_free: u32,
    atoms: Vec<usize>,
}

impl Builder {
    /// The next free bit.
    fn fresh(&mut self) -> u32 {
        self.next_free += 1;
        self.next_free - 1
    }

    /// Gives atom `row` of `r` a bit, if it has none yet.
    fn atom(&mut self, r: RelId, row: &[TermId]) {
        let key = (r, row.to_vec());
        if !self.bit.contains_key(&key) {
            let bit = self.fresh();
            self.bit.insert(key, bit);
            self.atoms[r] += 1;
        }
    }

    /// Gives a bit to every instance head of the relations of the layers
    /// of `class`, in layer order, but those of `next` (`next_rels`).
    fn layer_atoms(
        &mut self,
        layers: &Layers,
        class: Class,
        heads: &[Vec<Vec<TermId>>],
        next_rels: &[RelId],
    ) {
        for layer in layers.layers.iter().filter(|l| l.class == class) {
            for r in layer.members.iter().filter(|r| !next_rels.contains(r)) {
                for row in &heads[*r] {
                    self.atom(*r, row);
                }
            }
        }
    }

    /// Gives every `(next f)` head bit `next_base + f`.
    fn next_block(
        &mut self,
        domains: &Domains,
        heads: &[Vec<Vec<TermId>>],
        next_rels: &[RelId],
        next_base: u32,
    ) {
        for &r in next_rels {
            for row in &heads[r] {
                let bit = next_base + domains.id(row[0]);
                self.bit.insert((r, row.clone()), bit);
                self.atoms[r] += 1;
            }
        }
    }
}

/// Per role: pairs of a bit and an id (of a move or a goal value).
type PerRole = Vec<Vec<(u32, u32)>>;

/// The bits of the answer relations (`legal`, `terminal`, `goal`, `sees`).
struct Answers<'a> {
    program: &'a Program,
    domains: &'a Domains,
    /// The instance heads per relation.
    heads: &'a [Vec<Vec<TermId>>],
    /// The bit that is always one.
    one: u32,
}

impl Answers<'_> {
    /// The facts answer relation `r` can have: its static facts, or the
    /// heads of its instances.
    fn rows(&self, r: RelId) -> &[Vec<TermId>] {
        if self.program.class[r] == Class::Static {
            &self.program.facts[r]
        } else {
            &self.heads[r]
        }
    }

    /// The bit of an answer fact: always set for a static one.
    fn bit(&self, b: &Builder, r: RelId, row: &[TermId]) -> u32 {
        if self.program.class[r] == Class::Static {
            self.one
        } else {
            b.bit[&(r, row.to_vec())]
        }
    }

    /// Per role: `(bit, move id)` of each possible legal move, by move id;
    /// and `(move id, bit)` of each possible `does`, given a bit here (what
    /// `legal` can produce).
    fn moves(&self, b: &mut Builder) -> (PerRole, PerRole) {
        let program = self.program;
        let mut does: PerRole = vec![Vec::new(); program.roles.len()];
        let mut legal: PerRole = vec![Vec::new(); program.roles.len()];
        for &r in &program.answers[0] {
            for row in self.rows(r) {
                let Some(role) = program.roles.iter().position(|&x| x == row[0]) else {
                    continue;
                };
                let key = (program.does_rel, row.clone());
                if !b.bit.contains_key(&key) {
                    let bit = b.fresh();
                    b.bit.insert(key, bit);
                    b.atoms[program.does_rel] += 1;
                    does[role].push((self.domains.id(row[1]), bit));
                }
                legal[role].push((self.bit(b, r, row), self.domains.id(row[1])));
            }
        }
        for d in &mut does {
            d.sort_unstable();
        }
        for l in &mut legal {
            l.sort_unstable_by_key(|&(_, m)| m);
            l.dedup_by_key(|&mut (_, m)| m);
        }
        (legal, does)
    }

    /// The bits whose truth makes the state terminal.
    fn terminal(&self, b: &Builder) -> Vec<u32> {
        let mut terminal = Vec::new();
        for &r in &self.program.answers[2] {
            for row in self.rows(r) {
                terminal.push(self.bit(b, r, row));
            }
        }
        terminal
    }

    /// Per role: `(bit, id of the second argument)` of each possible fact
    /// of `phase`'s role-keyed relations (`goal`'s values, `sees`'s
    /// percepts).
    fn per_role(&self, b: &Builder, phase: Phase) -> PerRole {
        let program = self.program;
        let mut facts: PerRole = vec![Vec::new(); program.roles.len()];
        for &r in &program.answers[phase as usize] {
            for row in self.rows(r) {
                if let Some(role) = program.roles.iter().position(|&x| x == row[0]) {
                    facts[role].push((self.bit(b, r, row), self.domains.id(row[1])));
                }
            }
        }
        facts
    }
}

/// Moves the driver, the positive column (of `pos`) with the most distinct
/// bits (the first of them on a tie), to column 1 of every row.
fn move_driver_first(rows: &mut [Vec<u32>], pos: usize) {
    let distinct = |c: usize| {
        let mut bits: Vec<u32> = rows.iter().map(|r| r[c]).collect();
        bits.sort_unstable();
        bits.dedup();
        bits.len()
    };
    let best = (1..=pos)
        .max_by_key(|&c| (distinct(c), std::cmp::Reverse(c)))
        .expect("a positive column");
    for r in rows {
        r.swap(1, best);
    }
}

/// One instance before padding: the head's bit, the bits of its positive
/// dynamic literals, those of its negative ones.
type Instance = (u32, Vec<u32>, Vec<u32>);

/// What turns the rule instances into rows of bits.
struct Instantiation<'a> {
    program: &'a Program,
    domains: &'a Domains,
    /// The bit of each atom.
    bit: &'a FxHashMap<(RelId, Vec<TermId>), u32>,
    /// Per static relation: its facts.
    static_facts: Vec<FxHashSet<Vec<TermId>>>,
}

impl<'a> Instantiation<'a> {
    /// The instantiation of `program` over the atoms' bits `bit`.
    fn new(
        program: &'a Program,
        domains: &'a Domains,
        bit: &'a FxHashMap<(RelId, Vec<TermId>), u32>,
    ) -> Self {
        let static_facts = program
            .facts
            .iter()
            .map(|rows| rows.iter().cloned().collect())
            .collect();
        Instantiation {
            program,
            domains,
            bit,
            static_facts,
        }
    }

    /// Per rule, the ground rule of its `instances` (none without any), in
    /// a vector of `words` words whose bit `one` is always set; or too many
    /// tests for the generated source.
    fn rules(
        &self,
        instances: &[Vec<Vec<TermId>>],
        one: u32,
        words: usize,
    ) -> Result<Vec<Option<GroundRule>>, NotGround> {
        let mut slots = 0usize;
        let mut rules = Vec::with_capacity(self.program.rules.len());
        for (index, (rule, found)) in self.program.rules.iter().zip(instances).enumerate() {
            if found.is_empty() {
                rules.push(None);
                continue;
            }
            let rule = self.rule(index, rule, found, one, words);
            slots += rule.rows.len() * (1 + rule.pos + rule.neg);
            if slots > MAX_SLOTS {
                return Err(NotGround::TooManyTests { limit: MAX_SLOTS });
            }
            rules.push(Some(rule));
        }
        Ok(rules)
    }

    /// The ground rule of `rule` (rule `index`) from its instances `found`:
    /// its rows padded to one width, the driver moved first and sorted by,
    /// the guards found.
    fn rule(
        &self,
        index: usize,
        rule: &Rule,
        found: &[Vec<TermId>],
        one: u32,
        words: usize,
    ) -> GroundRule {
        let instances: Vec<Instance> = found
            .iter()
            .filter_map(|binding| self.instance(rule, binding))
            .collect();
        let pos = instances.iter().map(|(_, p, _)| p.len()).max().unwrap_or(0);
        let neg = instances.iter().map(|(_, _, n)| n.len()).max().unwrap_or(0);
        // Rows of one width: pad with the one bit (positive) and with a bit
        // that is never set (negative): the head's own bit is not usable,
        // so the never-set bit is the last one of the vector.
        let never = (words * 64 - 1) as u32;
        let mut rows: Vec<Vec<u32>> = instances
            .into_iter()
            .map(|(head, mut p, mut n)| {
                p.resize(pos, one);
                n.resize(neg, never);
                std::iter::once(head).chain(p).chain(n).collect()
            })
            .collect();
        let mut driven = pos > 0;
        if driven {
            move_driver_first(&mut rows, pos);
        }
        rows.sort_unstable_by(|a, b| a[1..].cmp(&b[1..]).then(a[0].cmp(&b[0])));
        rows.dedup();
        let constant = |c: usize| rows.iter().all(|r| r[c] == rows[0][c]);
        // A driver with one bit means every positive column has one.
        driven = driven && !constant(1);
        let first = if driven { 2 } else { 1 };
        let guards: Vec<usize> = (first..1 + pos + neg).filter(|&c| constant(c)).collect();
        // The evaluation keeps one offset per bit of the driver's range.
        driven = driven && spans(&rows, 1);
        GroundRule {
            rule: index,
            pos,
            neg,
            rows,
            driven,
            guards,
            projected: false,
        }
    }

    /// The instance of `rule` for `binding`, its static literals decided;
    /// `None` when one of them (or a positive literal on an atom the relaxed
    /// evaluation never derives) fails.
    fn instance(&self, rule: &Rule, binding: &[TermId]) -> Option<Instance> {
        let program = self.program;
        let head_row: Vec<TermId> = rule
            .head
            .args
            .iter()
            .map(|a| lookup(&program.store, a, binding).expect("head instantiated above"))
            .collect();
        let mut p = Vec::new();
        let mut n = Vec::new();
        for lit in &rule.body {
            let (atom, positive) = match lit {
                Lit::Pos(a) => (a, true),
                Lit::Neg(a) => (a, false),
                Lit::Distinct(..) | Lit::Same(..) => continue,
            };
            let row: Option<Vec<TermId>> = atom
                .args
                .iter()
                .map(|a| lookup(&program.store, a, binding))
                .collect();
            let r = atom.rel;
            if program.class[r] == Class::Static {
                let holds = row.is_some_and(|row| self.static_facts[r].contains(&row));
                if holds != positive {
                    return None;
                }
                continue;
            }
            // No bit: an atom the relaxed evaluation never derives.
            let bit = match row {
                Some(row) if r == program.true_rel => {
                    let f = self.domains.id(row[0]);
                    ((f as usize) < self.domains.fluents).then_some(f)
                }
                Some(row) => self.bit.get(&(r, row)).copied(),
                None => None,
            };
            match (bit, positive) {
                (Some(bit), true) => p.push(bit),
                (Some(bit), false) => n.push(bit),
                (None, true) => return None,
                (None, false) => {}
            }
        }
        let head = self.bit[&(rule.head.rel, head_row)];
        Some((head, p, n))
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::analyse::domains::{compute, Domains};
    use crate::compile::analyse::layers::build;
    use crate::compile::analyze;
    use crate::compile::program::lower::lower;
    use crate::compile::program::Program;

    const GAME: &str = "(role a)\n(init (p 1))\n(n 1)\n(n 2)\n(m 2)\n\
        (<= (legal a (go ?x)) (n ?x) (not (true (p ?x))) (not (m ?x)))\n\
        (<= (legal a wait) (true (p 1)) (not (true (q 1))))\n\
        (<= (next (p ?x)) (does a (go ?x)))\n\
        (<= (next (p ?x)) (true (p ?x)) (distinct ?x 2))\n\
        (<= (goal a 100) (true (p 2)))\n(<= (goal a 0) (not (true (p 2))))\n\
        (<= terminal (true (p 2)))\n";

    /// `game` lowered, its domains computed, and grounded (by the grounding
    /// alone: no simulation has picked the drivers yet).
    fn grounded(game: &str) -> (Program, Domains, super::Ground) {
        let loaded = crate::load_bytes("t.kif".into(), game.as_bytes().to_vec()).expect("valid");
        let mut program = lower(&loaded.analysis.rules).expect("lowers");
        let domains = compute(&mut program).expect("small domains");
        let layers = build(&program);
        let g = super::ground(&program, &domains, &layers).expect("small enough to ground");
        (program, domains, g)
    }

    #[test]
    fn static_literals_and_filters_are_decided_at_compile_time() {
        let (program, domains, g) = grounded(GAME);
        let rules = &program.rules;
        let rows_of = |text: &str| {
            let i = rules
                .iter()
                .position(|r| r.text.contains(text))
                .expect(text);
            g.rules[i].as_ref().map(|r| (r.pos, r.neg, r.rows.len()))
        };
        // `(m 2)` excludes x = 2: one instance, whose only test is `not (true (p 1))`.
        assert_eq!(rows_of("(legal a (go ?x))"), Some((0, 1, 1)));
        // `(q 1)` is no possible fluent: its negation always holds and vanishes.
        assert_eq!(rows_of("(legal a wait)"), Some((1, 0, 1)));
        // `distinct ?x 2` leaves the instance for (p 1) only.
        assert_eq!(rows_of("(true (p ?x)) (distinct ?x 2)"), Some((1, 0, 1)));
        // `(next f)` is bit `next_base + f`; the fluent's bit is `f`.
        let id = |text: &str| domains.texts.iter().position(|t| t == text).unwrap() as u32;
        let i = rules
            .iter()
            .position(|r| r.text.contains("(distinct ?x 2)"))
            .unwrap();
        let row = &g.rules[i].as_ref().unwrap().rows[0];
        assert_eq!(row, &vec![g.next_base + id("(p 1)"), id("(p 1)")]);
        assert_eq!(g.next_base as usize, g.move_word * 64);
        assert!(g.move_word * 64 > g.one as usize);
    }

    #[test]
    fn a_literal_shared_by_every_instance_is_a_guard() {
        let game = "(role a)\n(init (control a))\n(n 1)\n(n 2)\n(n 3)\n\
            (<= (legal a (go ?x)) (true (control a)) (n ?x) (not (true (p ?x))))\n\
            (<= (next (p ?x)) (does a (go ?x)))\n(<= (next (control a)) (true (control a)))\n\
            (<= terminal (true (p 3)))\n(<= (goal a 100) (true (p 3)))\n";
        let (program, _, g) = grounded(game);
        let i = program
            .rules
            .iter()
            .position(|r| r.text.contains("(legal a (go ?x))"))
            .unwrap();
        let legal = g.rules[i].as_ref().expect("instances");
        // Three instances: `(control a)` in each (a guard, so no driver),
        // `(p ?x)` differs.
        assert_eq!((legal.rows.len(), legal.pos, legal.neg), (3, 1, 1));
        assert!(!legal.driven);
        assert_eq!(legal.guards, vec![1]);
    }

    /// The ground rule whose text is `text`, in a game small enough to
    /// ground.
    fn ground_rule<'a>(c: &'a crate::compile::Compiled, text: &str) -> &'a super::GroundRule {
        let i = c
            .program
            .rules
            .iter()
            .position(|r| r.text == text)
            .expect(text);
        let g = c.ground().expect("small enough to ground");
        g.rules[i].as_ref().expect("instances")
    }

    #[test]
    fn a_rule_of_few_heads_read_off_one_literal_is_a_projection() {
        // `any` has two heads of eight instances each; `near` one instance
        // per head; every head of `seen` reads all sixteen bits.
        let game = "(role a)\n(init (f r 1))\n(p r)\n(p s)\n\
            (n 1)\n(n 2)\n(n 3)\n(n 4)\n(n 5)\n(n 6)\n(n 7)\n(n 8)\n\
            (<= (legal a (put ?p ?x)) (p ?p) (n ?x))\n\
            (<= (next (f ?p ?x)) (does a (put ?p ?x)))\n\
            (<= (next (f ?p ?x)) (true (f ?p ?x)))\n\
            (<= (any ?p) (true (f ?p ?x)))\n\
            (<= (near ?x) (true (f r ?x)))\n\
            (<= (seen ?y) (true (f ?p ?x)) (n ?y))\n\
            (<= (legal a wait) (any s))\n(<= (legal a wait) (near 3))\n(<= (legal a wait) (seen 2))\n\
            (<= terminal (true (f r 8)) (true (f s 8)))\n(goal a 100)\n";
        let loaded = crate::load_bytes("t.kif".into(), game.as_bytes().to_vec()).expect("valid");
        let c = analyze(&loaded).expect("compiles");
        let id = |text: &str| c.domains.texts.iter().position(|t| t == text).unwrap() as u32;
        let bits = |heads: &[(u32, u64)]| -> Vec<u32> {
            heads
                .iter()
                .flat_map(|&(w, m)| {
                    (0..64)
                        .filter(move |b| m >> b & 1 == 1)
                        .map(move |b| w * 64 + b)
                })
                .collect()
        };
        let any = ground_rule(&c, "(<= (any ?p) (true (f ?p ?x)))")
            .projection_shape()
            .expect("two heads of eight instances");
        assert_eq!(any.heads.len(), 2);
        for (_, words) in &any.heads {
            assert_eq!(bits(words).len(), 8);
        }
        // The fluents' bits are their ids.
        let r_head = &any
            .heads
            .iter()
            .find(|(_, w)| bits(w).contains(&id("(f r 1)")))
            .unwrap()
            .1;
        assert!((1..=8).all(|x| bits(r_head).contains(&id(&format!("(f r {x})")))));
        // The fluents `(f ?p ?x)` only accumulate: the simulated walks of
        // `any`'s driver visit more set bits than its words.
        assert!(ground_rule(&c, "(<= (any ?p) (true (f ?p ?x)))").projected);
        let shape = |text: &str| ground_rule(&c, text).projection_shape();
        assert!(shape("(<= (near ?x) (true (f r ?x)))").is_none());
        assert!(shape("(<= (seen ?y) (true (f ?p ?x)) (n ?y))").is_none());
    }

    #[test]
    fn a_walk_visits_only_the_bits_that_drive_rows() {
        // White and black pieces' fluents interleave ((cell 1 b), (cell 1
        // w), (cell 2 b), ...): the range of a white piece's driver bits
        // holds black pieces' bits, which drive no row and are masked out.
        let game = "(role a)\n(init (cell 1 w))\n(init (cell 2 b))\n\
            (adj 1 2)\n(adj 2 3)\n(adj 3 4)\n(adj 4 5)\n\
            (<= (legal a (go ?x ?c)) (adj ?x ?y) (true (cell ?x ?c)))\n\
            (<= (next (cell ?y ?c)) (does a (go ?x ?c)) (adj ?x ?y))\n\
            (<= (attack ?x) (true (cell ?x w)) (true (cell ?y b)) (adj ?x ?y))\n\
            (<= terminal (attack 4))\n(<= (goal a 100) (attack 4))\n";
        let loaded = crate::load_bytes("t.kif".into(), game.as_bytes().to_vec()).expect("valid");
        let c = analyze(&loaded).expect("compiles");
        let rule = ground_rule(
            &c,
            "(<= (attack ?x) (true (cell ?x w)) (true (cell ?y b)) (adj ?x ?y))",
        );
        assert!(rule.driven, "two literals of their own: one drives");
        let drivers: std::collections::BTreeSet<u32> = rule.rows.iter().map(|r| r[1]).collect();
        let (first, masks) = rule.driver_masks();
        let masked: std::collections::BTreeSet<u32> = masks
            .iter()
            .enumerate()
            .flat_map(|(k, &m)| {
                (0..64u32)
                    .filter(move |b| m >> b & 1 == 1)
                    .map(move |b| (first + k) as u32 * 64 + b)
            })
            .collect();
        assert_eq!(masked, drivers);
        let (lo, hi) = (drivers.first().unwrap(), drivers.last().unwrap());
        assert!(
            (hi - lo + 1) as usize > drivers.len(),
            "the range {lo}..={hi} holds the other color's bits too"
        );
    }

    #[test]
    fn frame_rules_are_word_copies() {
        // Three frame rules: unconditional, under any move (the move is
        // the driver: set for one instance in three), and with a negated
        // condition of their own (no copy); and a per-state copy.
        let game = "(role a)\n(init (p 1))\n(init (p 2))\n(n 1)\n(n 2)\n(n 3)\n\
            (<= (legal a (go ?x)) (n ?x))\n\
            (<= (next (q ?x)) (does a (go ?x)))\n\
            (<= (next (p ?x)) (true (p ?x)))\n\
            (<= (next (q ?x)) (true (q ?x)) (does a (go ?y)))\n\
            (<= (next (r ?x)) (does a (go ?x)))\n\
            (<= (next (r ?x)) (true (r ?x)) (not (true (q ?x))))\n\
            (<= (seen ?x) (true (p ?x)))\n\
            (<= terminal (true (r 4)))\n(<= terminal (seen 3))\n(<= (goal a 100) (true (r 4)))\n";
        let loaded = crate::load_bytes("t.kif".into(), game.as_bytes().to_vec()).expect("valid");
        let c = analyze(&loaded).expect("compiles");
        let g = c.ground().expect("small enough to ground");
        let copies = |text: &str| ground_rule(&c, text).word_copies();
        let id = |text: &str| c.domains.texts.iter().position(|t| t == text).unwrap() as u32;
        let has = |w: &[(u32, u64, u32)], f: &str| {
            let b = id(f);
            w.iter()
                .any(|&(w, m, _)| w == b / 64 && m >> (b % 64) & 1 == 1)
        };
        let shift = g.next_base / 64;
        let p = copies("(<= (next (p ?x)) (true (p ?x)))").expect("a copy");
        assert_eq!((p.offset, p.by_driver), (0, false));
        assert!(p.words.iter().all(|&(w, _, d)| d == w + shift));
        assert_eq!(p.starts, [0, p.words.len() as u32]);
        assert!(has(&p.words, "(p 1)") && has(&p.words, "(p 2)"));
        let q = copies("(<= (next (q ?x)) (true (q ?x)) (does a (go ?y)))").expect("copies");
        assert_eq!((q.offset, q.by_driver), (0, true));
        // One group per move, each copying the three (q ?x).
        assert_eq!(q.starts.len(), 4);
        let first = &q.words[q.starts[0] as usize..q.starts[1] as usize];
        assert!(["(q 1)", "(q 2)", "(q 3)"].iter().all(|f| has(first, f)));
        assert!(copies("(<= (next (r ?x)) (true (r ?x)) (not (true (q ?x))))").is_none());
        // A per-state atom from a fluent: a copy whatever the distance
        // between their bits (here not a whole number of words).
        let seen = copies("(<= (seen ?x) (true (p ?x)))").expect("a copy");
        assert_ne!(seen.offset, 0);
    }
}
