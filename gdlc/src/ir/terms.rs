//! Hash-consed ground terms: every distinct ground term gets one small id, so
//! that equality is an integer comparison.

use gdl_runtime::kif;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;

/// The id of an interned ground term.
pub type TermId = u32;
/// The id of an interned symbol.
pub type SymId = u32;

/// The structure of an interned term.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TermData {
    /// A constant.
    Const(SymId),
    /// A function symbol applied to arguments.
    Func(SymId, Box<[TermId]>),
}

/// Interned symbols and ground terms.
#[derive(Clone, Default)]
pub struct TermStore {
    symbols: Vec<String>,
    symbol_ids: FxHashMap<String, SymId>,
    terms: Vec<TermData>,
    functors: Vec<u32>,
    /// The ids of the terms, by the hash of their symbol and arguments
    /// ([`term_hash`]): looked up without building a [`TermData`].
    term_ids: HashTable<TermId>,
    functor_ids: FxHashMap<(SymId, usize), u32>,
}

impl TermStore {
    /// The id of a symbol, interning it.
    pub fn symbol(&mut self, name: &str) -> SymId {
        if let Some(&id) = self.symbol_ids.get(name) {
            return id;
        }
        let id = self.symbols.len() as SymId;
        self.symbols.push(name.to_string());
        self.symbol_ids.insert(name.to_string(), id);
        id
    }

    /// The number of interned terms.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Whether no term is interned.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The name of a symbol.
    pub fn symbol_name(&self, id: SymId) -> &str {
        &self.symbols[id as usize]
    }

    /// The id of a term, interning it.
    pub fn intern(&mut self, data: TermData) -> TermId {
        let hash = data_hash(&data);
        if let Some(id) = self.find(hash, &data) {
            return id;
        }
        let id = self.terms.len() as TermId;
        if self.terms.len() >= crate::ir::limits::MAX_TERMS {
            crate::ir::limits::exceeded(format!(
                "more than {} distinct terms",
                crate::ir::limits::MAX_TERMS
            ));
        }
        let functor = self.functor_of(&data);
        self.functors.push(functor);
        self.terms.push(data);
        let terms = &self.terms;
        self.term_ids
            .insert_unique(hash, id, |&t| data_hash(&terms[t as usize]));
        id
    }

    /// The id of the term `data` (of hash `hash`), if it was interned.
    fn find(&self, hash: u64, data: &TermData) -> Option<TermId> {
        let terms = &self.terms;
        self.term_ids
            .find(hash, |&t| terms[t as usize] == *data)
            .copied()
    }

    fn functor_of(&mut self, data: &TermData) -> u32 {
        let key = match data {
            TermData::Const(s) => (*s, 0),
            TermData::Func(s, args) => (*s, args.len()),
        };
        let next = self.functor_ids.len() as u32;
        *self.functor_ids.entry(key).or_insert(next)
    }

    /// The functor id of a term: equal for terms with the same top symbol and arity.
    pub fn functor_of_term(&self, id: TermId) -> u32 {
        self.functors[id as usize]
    }

    /// The id of a term if it was interned.
    pub fn lookup(&self, data: &TermData) -> Option<TermId> {
        self.find(data_hash(data), data)
    }

    /// The id of the function term `symbol(args)` if it was interned.
    pub fn lookup_func(&self, symbol: SymId, args: &[TermId]) -> Option<TermId> {
        let terms = &self.terms;
        let same = |&t: &TermId| matches!(&terms[t as usize], TermData::Func(s, a) if *s == symbol && **a == *args);
        self.term_ids
            .find(term_hash(Some(symbol), args), same)
            .copied()
    }

    /// The constant term of a symbol, interning it.
    pub fn constant(&mut self, name: &str) -> TermId {
        let s = self.symbol(name);
        self.intern(TermData::Const(s))
    }

    /// The structure of a term.
    pub fn data(&self, id: TermId) -> &TermData {
        &self.terms[id as usize]
    }

    /// Canonical KIF text of a term.
    pub fn text(&self, id: TermId) -> String {
        let mut out = String::new();
        self.write_text(id, &mut out);
        out
    }

    fn write_text(&self, id: TermId, out: &mut String) {
        match self.data(id) {
            TermData::Const(s) => out.push_str(self.symbol_name(*s)),
            TermData::Func(s, args) => {
                out.push('(');
                out.push_str(self.symbol_name(*s));
                for &a in args.iter() {
                    out.push(' ');
                    self.write_text(a, out);
                }
                out.push(')');
            }
        }
    }

    /// The id of a parsed KIF term, interning it.
    pub fn term(&mut self, term: &kif::Term) -> TermId {
        match term {
            kif::Term::Const(name) => self.constant(name),
            kif::Term::Func(name, args) => {
                let s = self.symbol(name);
                let args: Box<[TermId]> = args.iter().map(|a| self.term(a)).collect();
                self.intern(TermData::Func(s, args))
            }
        }
    }

    /// An interned term as a KIF term.
    pub fn kif(&self, id: TermId) -> kif::Term {
        match self.data(id) {
            TermData::Const(s) => kif::Term::Const(self.symbol_name(*s).to_string()),
            TermData::Func(s, args) => kif::Term::Func(
                self.symbol_name(*s).to_string(),
                args.iter().map(|&a| self.kif(a)).collect(),
            ),
        }
    }

    /// The natural number a constant term spells, if it does.
    pub fn number(&self, id: TermId) -> Option<u32> {
        match self.data(id) {
            TermData::Const(s) => self.symbol_name(*s).parse().ok(),
            TermData::Func(..) => None,
        }
    }
}

impl TermStore {
    /// The functor id of (symbol, arity), interning it.
    pub fn functor_id(&mut self, symbol: SymId, arity: usize) -> u32 {
        let next = self.functor_ids.len() as u32;
        *self.functor_ids.entry((symbol, arity)).or_insert(next)
    }
}

/// The hash a term is stored under: [`term_hash`] of its symbol and
/// arguments (a constant has no symbol there, and its symbol as argument,
/// so that it never hashes as a function of no arguments).
fn data_hash(data: &TermData) -> u64 {
    match data {
        TermData::Const(s) => term_hash(None, std::slice::from_ref(s)),
        TermData::Func(s, args) => term_hash(Some(*s), args),
    }
}

/// The hash of a term of symbol `symbol` (none for a constant) and
/// arguments `args` in [`TermStore`].
fn term_hash(symbol: Option<SymId>, args: &[TermId]) -> u64 {
    FxBuildHasher.hash_one((symbol, args))
}

#[cfg(test)]
mod tests {
    use super::{TermData, TermStore};

    #[test]
    fn a_function_term_is_found_by_its_symbol_and_arguments_without_building_it() {
        let mut store = TermStore::default();
        let one = store.constant("1");
        let two = store.constant("2");
        let f = store.symbol("f");
        let f12 = store.intern(TermData::Func(f, Box::new([one, two])));
        assert_eq!(store.intern(TermData::Func(f, Box::new([one, two]))), f12);
        assert_eq!(store.lookup_func(f, &[one, two]), Some(f12));
        assert_eq!(
            store.lookup(&TermData::Func(f, Box::new([one, two]))),
            Some(f12)
        );
        // Other arguments, another arity, another symbol: not interned.
        assert_eq!(store.lookup_func(f, &[two, one]), None);
        assert_eq!(store.lookup_func(f, &[one]), None);
        let one_symbol = store.symbol("1");
        assert_eq!(store.lookup_func(one_symbol, &[two]), None);
        // The constant `f` and the function `f` of no arguments are two
        // terms, though their symbol is the same.
        let f_constant = store.constant("f");
        assert_eq!(store.lookup_func(f, &[]), None);
        let f_nullary = store.intern(TermData::Func(f, Box::new([])));
        assert_ne!(f_nullary, f_constant);
        assert_eq!(store.lookup_func(f, &[]), Some(f_nullary));
        assert_eq!(store.lookup(&TermData::Const(f)), Some(f_constant));
        assert_eq!(store.len(), 5);
    }
}
