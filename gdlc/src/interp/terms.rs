//! Hash-consed ground terms: every distinct ground term gets one small id, so
//! that equality is an integer comparison.

use gdl_runtime::kif;
use rustc_hash::FxHashMap;

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
#[derive(Default)]
pub struct TermStore {
    symbols: Vec<String>,
    symbol_ids: FxHashMap<String, SymId>,
    terms: Vec<TermData>,
    functors: Vec<u32>,
    term_ids: FxHashMap<TermData, TermId>,
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
        if let Some(&id) = self.term_ids.get(&data) {
            return id;
        }
        let id = self.terms.len() as TermId;
        if self.terms.len() >= super::MAX_TERMS {
            super::exceeded(format!("more than {} distinct terms", super::MAX_TERMS));
        }
        let functor = self.functor_of(&data);
        self.functors.push(functor);
        self.terms.push(data.clone());
        self.term_ids.insert(data, id);
        id
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
        self.term_ids.get(data).copied()
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
