//! Tables of ground tuples with the hash indexes the rule plans ask for.

use crate::ir::terms::{TermId, TermStore};
use indexmap::IndexSet;
use rustc_hash::{FxBuildHasher, FxHashMap};

/// One component of an index key: the value at a position, or only its
/// functor (top symbol and arity), for positions matched by a partly bound
/// compound pattern such as `(cell ?x ?y b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyPart {
    /// The whole value at this position.
    Value(usize),
    /// The functor of the value at this position.
    Functor(usize),
}

struct Index {
    spec: Box<[KeyPart]>,
    rows: FxHashMap<Box<[u32]>, Vec<u32>>,
}

/// The facts of one relation, in insertion order, with hash indexes.
pub struct Table {
    /// The relation, for messages.
    name: String,
    rows: IndexSet<Box<[TermId]>, FxBuildHasher>,
    indexes: Vec<Index>,
    key: Vec<u32>,
}

impl Table {
    /// An empty table for the relation shown as `name`.
    pub fn new(name: String) -> Self {
        Table {
            name,
            rows: IndexSet::default(),
            indexes: Vec::new(),
            key: Vec::new(),
        }
    }

    /// The id of an index on `spec`, creating it (and filling it) if needed.
    pub fn index_on(&mut self, spec: &[KeyPart], store: &TermStore) -> usize {
        if let Some(i) = self.indexes.iter().position(|ix| *ix.spec == *spec) {
            return i;
        }
        let mut index = Index {
            spec: spec.into(),
            rows: FxHashMap::default(),
        };
        for (i, row) in self.rows.iter().enumerate() {
            let key: Vec<u32> = spec.iter().map(|p| key_part(*p, row, store)).collect();
            index.rows.entry(key.into()).or_default().push(i as u32);
        }
        self.indexes.push(index);
        self.indexes.len() - 1
    }

    /// The relation's name as shown in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Adds a row; `false` if it was already there.
    pub fn insert(&mut self, row: Box<[TermId]>, store: &TermStore) -> bool {
        if self.rows.contains(&row) {
            return false;
        }
        if self.rows.len() >= crate::ir::limits::MAX_ROWS {
            crate::ir::limits::exceeded(format!(
                "more than {} facts of `{}`",
                crate::ir::limits::MAX_ROWS,
                self.name
            ));
        }
        let id = self.rows.len() as u32;
        for index in &mut self.indexes {
            self.key.clear();
            self.key
                .extend(index.spec.iter().map(|p| key_part(*p, &row, store)));
            match index.rows.get_mut(&self.key[..]) {
                Some(ids) => ids.push(id),
                None => {
                    index.rows.insert(self.key.as_slice().into(), vec![id]);
                }
            }
        }
        self.rows.insert(row)
    }

    /// The row number of a tuple, if present.
    pub fn position(&self, row: &[TermId]) -> Option<u32> {
        self.rows.get_index_of(row).map(|i| i as u32)
    }

    /// The rows whose key under index `index` is `key`, in insertion order.
    pub fn lookup(&self, index: usize, key: &[u32]) -> &[u32] {
        self.indexes[index]
            .rows
            .get(key)
            .map_or(&[][..], |v| v.as_slice())
    }

    /// Row number `i`.
    pub fn row(&self, i: u32) -> &[TermId] {
        &self.rows[i as usize]
    }

    /// The number of rows.
    pub fn len(&self) -> u32 {
        self.rows.len() as u32
    }

    /// All rows in insertion order.
    pub fn rows(&self) -> impl Iterator<Item = &[TermId]> {
        self.rows.iter().map(|r| &r[..])
    }

    /// Removes every row, keeping the indexes' shape.
    pub fn clear(&mut self) {
        self.rows.clear();
        for index in &mut self.indexes {
            index.rows.clear();
        }
    }
}

fn key_part(part: KeyPart, row: &[TermId], store: &TermStore) -> u32 {
    match part {
        KeyPart::Value(p) => row[p],
        KeyPart::Functor(p) => store.functor_of_term(row[p]),
    }
}
