//! Rule families: rules whose generated code is the same up to the ids,
//! tables, relations and layers it names (the copies unfolding makes of a
//! rule, one per direction or piece) share one function taking what
//! differs as arguments, and each rule becomes a call of it. The big
//! boards' rules are mostly such copies, and their code is most of what a
//! generated crate's build spends its time optimizing.
//!
//! Each rule's code is anti-unified with the others': every place that
//! names something another copy may name differently (a hole) is marked,
//! rules with the same marked code form a family, and the holes whose
//! contents differ within a family become its parameters.

use crate::compile::program::RelId;
use proc_macro2::{Delimiter, Group, Ident, Literal, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// A function of rule code taken apart: a rule's (`rule_<r>`, with `lo`
/// in a semi-naive variant), or a search's or walk's (`ask_<r>_rule_<i>`,
/// `walk_<r>_forward`, .., taking the question `t`).
struct RuleFn {
    /// The item as generated.
    item: TokenStream,
    /// Its doc comment's attributes.
    docs: Vec<TokenStream>,
    /// Its name.
    name: Ident,
    /// Its parameters after `&mut self` (`lo: usize`, `t: [u32; 3]`).
    inputs: TokenStream,
    /// The names of those parameters.
    args: Vec<Ident>,
    /// Its return type, if any.
    output: TokenStream,
    /// Its body.
    body: TokenStream,
}

impl RuleFn {
    /// `item` taken apart, if it is a method `fn name(&mut self, ..)` with
    /// plain parameter names.
    fn parse(item: TokenStream) -> Option<Self> {
        let trees: Vec<TokenTree> = item.clone().into_iter().collect();
        let f = trees.iter().position(|t| is_ident(t, "fn"))?;
        let docs = trees[..f]
            .chunks(2)
            .filter(|a| matches!(&a[..], [_, TokenTree::Group(g)] if g.stream().to_string().starts_with("doc")))
            .map(|a| a.iter().cloned().collect())
            .collect();
        let (TokenTree::Ident(name), TokenTree::Group(params), TokenTree::Group(body)) =
            (trees.get(f + 1)?, trees.get(f + 2)?, trees.last()?)
        else {
            return None;
        };
        let params: Vec<TokenTree> = params.stream().into_iter().collect();
        let mut split = params.split(|t| is_punct(t, ','));
        let receiver: TokenStream = split.next()?.iter().cloned().collect();
        if receiver.to_string() != "& mut self" {
            return None;
        }
        let args = split
            .filter(|p| !p.is_empty())
            .map(|p| match p {
                [TokenTree::Ident(arg), colon, ..] if is_punct(colon, ':') => Some(arg.clone()),
                _ => None,
            })
            .collect::<Option<Vec<Ident>>>()?;
        let comma = params.iter().position(|t| is_punct(t, ','));
        let inputs = comma.map_or_else(TokenStream::new, |c| {
            params[c + 1..].iter().cloned().collect()
        });
        let arrow = (f + 3..trees.len() - 1).find(|&i| is_punct(&trees[i], '>'));
        let output = arrow.map_or_else(TokenStream::new, |a| {
            trees[a + 1..trees.len() - 1].iter().cloned().collect()
        });
        Some(RuleFn {
            item,
            docs,
            name: name.clone(),
            inputs,
            args,
            output,
            body: body.stream(),
        })
    }

    /// What a family's members share besides their code: the signature.
    fn signature(&self) -> String {
        format!("({}) -> {}", self.inputs, self.output)
    }
}

/// The types the holes of rule code have in the generated crate.
pub(super) struct HoleTypes<'a> {
    /// The container type of each relation with a field (`self.r<r>`).
    pub relations: &'a [Option<TokenStream>],
    /// The number of columns of each constant table (`T<i>`).
    pub table_columns: Vec<usize>,
}

/// What the holes of rule code may name.
struct Names<'a> {
    /// The types of relations and tables.
    types: &'a HoleTypes<'a>,
    /// The searches and walks the code may call, by name: their number
    /// among the functions given and their signature.
    callees: FxHashMap<String, (usize, String)>,
}

/// What a hole names.
#[derive(Clone, PartialEq, Eq)]
enum Hole {
    /// A term's or fluent's id, where the code uses it as a `u32`.
    Id(u32),
    /// A relation's field, `self.r<r>`.
    Relation(RelId),
    /// A constant table, `T<i>`.
    Table(usize),
    /// A direct index into a table, `O<i>_<k>`.
    Offsets(Ident),
    /// A layer evaluated first, `self.ensure_layer_<i>()`.
    Layer(usize),
    /// A search or walk called, `self.<name>`, by its number.
    Call(Ident, usize),
}

impl Hole {
    /// What two rules' holes at one place must share to be one parameter:
    /// the hole's kind and type.
    fn kind(&self, names: &Names<'_>) -> String {
        let types = names.types;
        match self {
            Hole::Id(_) => "id".into(),
            Hole::Relation(r) => format!("rel {}", relation_type(types, *r)),
            Hole::Table(t) => format!("table {}", types.table_columns[*t]),
            Hole::Offsets(_) => "offsets".into(),
            Hole::Layer(_) => "layer".into(),
            Hole::Call(name, _) => format!("call {}", names.callees[&name.to_string()].1),
        }
    }

    /// The hole's own code, where it does not differ within its family.
    fn tokens(&self) -> TokenStream {
        match self {
            Hole::Id(n) => Literal::u32_unsuffixed(*n).into_token_stream(),
            Hole::Relation(r) => {
                let f = format_ident!("r{r}");
                quote! { self.#f }
            }
            Hole::Table(t) => format_ident!("T{t}").into_token_stream(),
            Hole::Offsets(o) => o.into_token_stream(),
            Hole::Layer(l) => {
                let f = format_ident!("ensure_layer_{l}");
                quote! { self.#f() }
            }
            Hole::Call(name, _) => quote! { self.#name },
        }
    }
}

/// The type of relation `r`'s field.
fn relation_type(types: &HoleTypes<'_>, r: RelId) -> String {
    types.relations[r]
        .as_ref()
        .expect("only fields are holes")
        .to_string()
}

/// A rule's code with its holes marked (`__hole_<i>`, numbered in order),
/// and what each hole names.
struct Shaped {
    code: TokenStream,
    holes: Vec<Hole>,
}

/// Where marks go in a stream of rule code.
#[derive(Clone, Copy)]
struct Context {
    /// The literals directly in it are ids (an array's elements).
    ids: bool,
    /// It runs while an iterator borrows part of `self`, so a relation
    /// named through `self`'s accessor would conflict: relations are not
    /// holes here.
    borrowed: bool,
}

/// `stream` with its holes marked, appended to `holes`.
fn shape(
    stream: TokenStream,
    cx: Context,
    names: &Names<'_>,
    holes: &mut Vec<Hole>,
) -> TokenStream {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let ids = cx.ids && !trees.iter().any(|t| is_punct(t, ';'));
    let mut out = Vec::with_capacity(trees.len());
    let mut borrowing_body = None;
    let mut i = 0;
    while i < trees.len() {
        if is_ident(&trees[i], "for") {
            borrowing_body = borrowing_loop_body(&trees, i);
        }
        if let Some((hole, len)) = hole_at(&trees, i, ids, names)
            .filter(|(h, _)| !(cx.borrowed && matches!(h, Hole::Relation(_))))
        {
            out.push(TokenTree::Ident(marker(holes.len())));
            holes.push(hole);
            i += len;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let inner_ids = match g.delimiter() {
                    Delimiter::Bracket => i == 0 || !indexes(&trees[i - 1]),
                    Delimiter::Parenthesis => {
                        i > 0
                            && is_ident(&trees[i - 1], "holds")
                            && g.stream().into_iter().count() == 1
                    }
                    _ => false,
                };
                let inner = Context {
                    ids: inner_ids,
                    borrowed: cx.borrowed || borrowing_body == Some(i),
                };
                let mut group = Group::new(g.delimiter(), shape(g.stream(), inner, names, holes));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            t => out.push(t.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// The index of the body of the `for` loop at `trees[i]` if its iterator
/// borrows `self` (`for f in ones(&self.current.0, ..)`, not
/// `for i in 0..self.r2.len()`).
fn borrowing_loop_body(trees: &[TokenTree], i: usize) -> Option<usize> {
    let body = (i + 1..trees.len())
        .find(|&j| matches!(&trees[j], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))?;
    borrows_self(&trees[i + 1..body]).then_some(body)
}

/// Whether `trees` take a reference into `self` (`&self`, at any depth).
fn borrows_self(trees: &[TokenTree]) -> bool {
    trees.iter().enumerate().any(|(i, t)| match t {
        TokenTree::Group(g) => borrows_self(&g.stream().into_iter().collect::<Vec<_>>()),
        _ => is_punct(t, '&') && trees.get(i + 1).is_some_and(|n| is_ident(n, "self")),
    })
}

/// The hole starting at `trees[i]` and how many trees it spans, if any.
fn hole_at(trees: &[TokenTree], i: usize, ids: bool, names: &Names<'_>) -> Option<(Hole, usize)> {
    let types = names.types;
    if let [s, dot, TokenTree::Ident(f), TokenTree::Group(_), ..] = &trees[i..] {
        let callee = names.callees.get(&f.to_string());
        if let Some(&(n, _)) = callee.filter(|_| is_ident(s, "self") && is_punct(dot, '.')) {
            return Some((Hole::Call(f.clone(), n), 3));
        }
    }
    let field = |prefix: &str| match (trees.get(i), trees.get(i + 1), trees.get(i + 2)) {
        (Some(s), Some(dot), Some(TokenTree::Ident(f)))
            if is_ident(s, "self") && is_punct(dot, '.') =>
        {
            numbered(&f.to_string(), prefix)
        }
        _ => None,
    };
    if let Some(r) = field("r").filter(|&r| types.relations.get(r).is_some_and(Option::is_some)) {
        return Some((Hole::Relation(r), 3));
    }
    if let (Some(l), Some(TokenTree::Group(g))) = (field("ensure_layer_"), trees.get(i + 3)) {
        if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty() {
            return Some((Hole::Layer(l), 4));
        }
    }
    match &trees[i] {
        TokenTree::Ident(name) => {
            let text = name.to_string();
            if let Some(t) = text.strip_prefix('T').and_then(|n| n.parse().ok()) {
                return Some((Hole::Table(t), 1));
            }
            let offsets = text.strip_prefix('O').and_then(|n| n.split_once('_'));
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if offsets.is_some_and(|(t, k)| digits(t) && digits(k)) {
                return Some((Hole::Offsets(name.clone()), 1));
            }
            None
        }
        TokenTree::Literal(l) if ids || assigned_to_f(trees, i) => {
            l.to_string().parse().ok().map(|n| (Hole::Id(n), 1))
        }
        _ => None,
    }
}

/// The number `n` of a name `<prefix><n>` (`r<n>`, `ensure_layer_<n>`).
fn numbered(name: &str, prefix: &str) -> Option<usize> {
    let n = name.strip_prefix(prefix)?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().ok())?
}

/// Whether `trees[i]` is the value of `let f = <value>;`, a fluent's id.
fn assigned_to_f(trees: &[TokenTree], i: usize) -> bool {
    i >= 3
        && is_ident(&trees[i - 3], "let")
        && is_ident(&trees[i - 2], "f")
        && is_punct(&trees[i - 1], '=')
        && trees.get(i + 1).is_some_and(|t| is_punct(t, ';'))
}

/// Whether a bracket group after `previous` indexes it (`row[1]`,
/// `(..)[s]`, `x?[0]`) rather than being an array.
fn indexes(previous: &TokenTree) -> bool {
    match previous {
        TokenTree::Ident(i) => !matches!(
            i.to_string().as_str(),
            "in" | "return" | "break" | "match" | "if" | "while" | "else"
        ),
        TokenTree::Group(_) => true,
        TokenTree::Punct(p) => p.as_char() == '?',
        TokenTree::Literal(_) => true,
    }
}

fn is_ident(t: &TokenTree, name: &str) -> bool {
    matches!(t, TokenTree::Ident(i) if i == name)
}

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

/// Fewest tokens in a function's body for it to join a family.
const MIN_TOKENS: usize = 100;

/// The number of tokens in `code`, counting a group's delimiters as one.
fn tokens(code: &TokenStream) -> usize {
    code.clone()
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => 1 + tokens(&g.stream()),
            _ => 1,
        })
        .sum()
}

/// The mark of hole `i`.
fn marker(i: usize) -> Ident {
    format_ident!("__hole_{i}")
}

/// The functions `items` (of rules, searches and walks) with the copies
/// of one function made a family function (`family_<i>`, in the module
/// [`FAMILIES`]) that each copy calls with what differs; the others as
/// they are; and the accessors the families use to name a relation, a
/// layer or a callee by number.
pub(super) fn family_fns(items: Vec<TokenStream>, types: &HoleTypes<'_>) -> RuleItems {
    let mut others = Vec::new();
    let mut rules = Vec::with_capacity(items.len());
    for item in items {
        match RuleFn::parse(item.clone()) {
            Some(rule) => rules.push(rule),
            None => others.push(item),
        }
    }
    let names = Names {
        types,
        callees: (rules.iter().enumerate())
            .filter(|(_, r)| {
                ["ask_", "walk_"]
                    .iter()
                    .any(|p| r.name.to_string().starts_with(p))
            })
            .map(|(i, r)| (r.name.to_string(), (i, r.signature())))
            .collect(),
    };
    let mut shaped = Vec::with_capacity(rules.len());
    let mut families: Vec<Vec<usize>> = Vec::new();
    let mut by_key: FxHashMap<String, usize> = FxHashMap::default();
    for (i, rule) in rules.iter().enumerate() {
        let mut holes = Vec::new();
        let outermost = Context {
            ids: false,
            borrowed: false,
        };
        let code = shape(rule.body.clone(), outermost, &names, &mut holes);
        let kinds: Vec<String> = holes.iter().map(|h| h.kind(&names)).collect();
        // A walk's step runs once per square of a ray: shared, it lost a
        // tenth of amazons' speed to what its constants no longer fold.
        // A short function is left alone: sharing it would save little
        // of the build and cost its constants.
        let key = match rule.name.to_string() {
            name if name.starts_with("walk_") || tokens(&rule.body) < MIN_TOKENS => name,
            _ => format!("{} {} {:?}", rule.signature(), code, kinds),
        };
        let next = families.len();
        let f = *by_key.entry(key).or_insert(next);
        if f == next {
            families.push(Vec::new());
        }
        families[f].push(i);
        shaped.push(Shaped { code, holes });
    }
    let mut accessors = Accessors::default();
    let mut items = RuleItems::default();
    for (n, members) in families.iter().enumerate() {
        if let [only] = members[..] {
            items.methods.push(rules[only].item.clone());
            continue;
        }
        let first = &rules[members[0]];
        let family = Family::of(members, &shaped, &names, &mut accessors);
        items
            .families
            .push(family.function(n, &shaped[members[0]], first));
        for &m in members {
            items.methods.push(member_fn(
                &rules[m],
                family.call(n, &shaped[m].holes, &rules[m]),
            ));
        }
    }
    items.methods.extend(accessors.functions(&rules));
    items.methods.extend(others);
    items
}

/// The module of the family functions. A method is compiled in the
/// codegen unit of its type's module, so free functions in a module of
/// their own are what a second codegen unit can take, built beside the
/// rest on a second core.
pub const FAMILIES: &str = "families";

/// The generated functions of rules, searches and walks.
#[derive(Default)]
pub struct RuleItems {
    /// The methods of `Game`.
    pub methods: Vec<TokenStream>,
    /// The family functions, free functions of the module [`FAMILIES`]
    /// taking the reasoner as `this`.
    pub families: Vec<TokenStream>,
}

/// The function of `rule` calling its family: `call`, inlined.
fn member_fn(rule: &RuleFn, call: TokenStream) -> TokenStream {
    let RuleFn {
        docs,
        name,
        inputs,
        output,
        ..
    } = rule;
    let output = (!output.is_empty()).then(|| quote! { -> #output });
    let inputs = (!inputs.is_empty()).then(|| quote! { , #inputs });
    quote! {
        #(#docs)*
        #[inline]
        fn #name(&mut self #inputs) #output {
            #call
        }
    }
}

/// The parameter a hole that differs within its family becomes.
enum Parameter {
    /// `ids[i]`.
    Id(usize),
    /// `self.rel_at_<accessor>(rel<i>)`.
    Relation { i: usize, accessor: usize },
    /// `table<i>: &[[u32; columns]]`.
    Table { i: usize, columns: usize },
    /// `offsets<i>: &[u32]`.
    Offsets(usize),
    /// `self.ensure_layer_at(layer<i>)`.
    Layer(usize),
    /// `self.call_at_<dispatch>(callee<i>, ..)`.
    Call { i: usize, dispatch: usize },
}

/// The copies of one rule: the parameters the holes that differ among
/// them become (holes that differ alike share one), and per hole which.
struct Family {
    /// Per hole, the number of its parameter, if it has one.
    parameters: Vec<Option<usize>>,
    /// The parameters, each with the first hole it stands for.
    distinct: Vec<(Parameter, usize)>,
    /// How many of them are ids.
    ids: usize,
}

impl Family {
    /// The family of rules `members`, registering the relations, layers
    /// and callees it names by number with `accessors`.
    fn of(
        members: &[usize],
        shaped: &[Shaped],
        names: &Names<'_>,
        accessors: &mut Accessors,
    ) -> Self {
        let first = &shaped[members[0]].holes;
        let mut family = Family {
            parameters: Vec::with_capacity(first.len()),
            distinct: Vec::new(),
            ids: 0,
        };
        for (j, hole) in first.iter().enumerate() {
            let alike = |k: usize| {
                members
                    .iter()
                    .all(|&m| shaped[m].holes[j] == shaped[m].holes[k])
            };
            if members.iter().all(|&m| shaped[m].holes[j] == *hole) {
                family.parameters.push(None);
            } else if let Some(p) = family.distinct.iter().position(|&(_, k)| alike(k)) {
                family.parameters.push(Some(p));
            } else {
                let column: Vec<&Hole> = members.iter().map(|&m| &shaped[m].holes[j]).collect();
                let parameter = family.parameter(&column, names, accessors);
                family.parameters.push(Some(family.distinct.len()));
                family.distinct.push((parameter, j));
            }
        }
        family
    }

    /// The next parameter, for a hole whose contents in the members are
    /// `column`.
    fn parameter(
        &mut self,
        column: &[&Hole],
        names: &Names<'_>,
        accessors: &mut Accessors,
    ) -> Parameter {
        let types = names.types;
        let i = self.distinct.len();
        let numbers = || {
            column.iter().map(|h| match h {
                Hole::Relation(n) | Hole::Layer(n) | Hole::Call(_, n) => *n,
                _ => unreachable!("one family, one kind per hole"),
            })
        };
        match column[0] {
            Hole::Id(_) => {
                self.ids += 1;
                Parameter::Id(self.ids - 1)
            }
            Hole::Relation(r) => {
                let ty = types.relations[*r].clone().expect("a field");
                Parameter::Relation {
                    i,
                    accessor: accessors.relations(ty, numbers()),
                }
            }
            Hole::Table(t) => Parameter::Table {
                i,
                columns: types.table_columns[*t],
            },
            Hole::Offsets(_) => Parameter::Offsets(i),
            Hole::Layer(_) => {
                accessors.layers.extend(numbers());
                Parameter::Layer(i)
            }
            Hole::Call(name, _) => {
                let signature = &names.callees[&name.to_string()].1;
                Parameter::Call {
                    i,
                    dispatch: accessors.callees(signature, numbers()),
                }
            }
        }
    }

    /// The family's function `family_<n>`: the code of `first` (its first
    /// member, `rule`) with the holes that differ taken from parameters
    /// after the rule's own.
    fn function(&self, n: usize, first: &Shaped, rule: &RuleFn) -> TokenStream {
        let name = format_ident!("family_{n}");
        let mut params = vec![rule.inputs.clone()];
        if self.ids > 0 {
            let k = Literal::usize_unsuffixed(self.ids);
            params.push(quote! { ids: &[u32; #k] });
        }
        params.extend(self.distinct.iter().filter_map(|(p, _)| p.declaration()));
        let params = params.into_iter().filter(|p| !p.is_empty());
        let body = fill(first.code.clone(), &|j| match self.parameters[j] {
            None => Filled::Code(first.holes[j].tokens()),
            Some(p) => self.distinct[p].0.expression(),
        });
        let output = &rule.output;
        let output = (!output.is_empty()).then(|| quote! { -> #output });
        let body = self_as_this(body);
        quote! {
            /// The code of the functions calling it, copies differing only
            /// in its arguments.
            #[inline(never)]
            pub(super) fn #name(this: &mut Game, #(#params),*) #output {
                #body
            }
        }
    }

    /// The call of `family_<n>` by its member `rule`, whose holes are
    /// `holes`.
    fn call(&self, n: usize, holes: &[Hole], rule: &RuleFn) -> TokenStream {
        let name = format_ident!("family_{n}");
        let mut args: Vec<TokenStream> = rule.args.iter().map(|a| quote! { #a }).collect();
        let ids = self.distinct.iter().filter_map(|&(_, j)| match holes[j] {
            Hole::Id(n) => Some(Literal::u32_unsuffixed(n)),
            _ => None,
        });
        if self.ids > 0 {
            args.push(quote! { &[#(#ids),*] });
        }
        for &(_, j) in &self.distinct {
            args.push(match &holes[j] {
                Hole::Id(_) => continue,
                Hole::Relation(r) | Hole::Layer(r) | Hole::Call(_, r) => {
                    Literal::usize_unsuffixed(*r).into_token_stream()
                }
                Hole::Table(t) => {
                    let t = format_ident!("T{t}");
                    quote! { &#t[..] }
                }
                Hole::Offsets(o) => quote! { &#o[..] },
            });
        }
        let module = format_ident!("{FAMILIES}");
        quote! { #module::#name(self, #(#args),*) }
    }
}

/// `code` with every `self` renamed `this` (a method's body made a free
/// function's).
fn self_as_this(code: TokenStream) -> TokenStream {
    code.into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(i) if i == "self" => TokenTree::Ident(Ident::new("this", i.span())),
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), self_as_this(g.stream()));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            t => t,
        })
        .collect()
}

impl Parameter {
    /// The parameter's declaration in the family's function (none for an
    /// id: they come in one array).
    fn declaration(&self) -> Option<TokenStream> {
        Some(match *self {
            Parameter::Id(_) => return None,
            Parameter::Relation { i, .. } => {
                let v = format_ident!("rel{i}");
                quote! { #v: usize }
            }
            Parameter::Table { i, columns } => {
                let (v, c) = (
                    format_ident!("table{i}"),
                    Literal::usize_unsuffixed(columns),
                );
                quote! { #v: &'static [[u32; #c]] }
            }
            Parameter::Offsets(i) => {
                let v = format_ident!("offsets{i}");
                quote! { #v: &'static [u32] }
            }
            Parameter::Layer(i) => {
                let v = format_ident!("layer{i}");
                quote! { #v: usize }
            }
            Parameter::Call { i, .. } => {
                let v = format_ident!("callee{i}");
                quote! { #v: usize }
            }
        })
    }

    /// The code standing for the hole in the family's function.
    fn expression(&self) -> Filled {
        Filled::Code(match *self {
            Parameter::Id(k) => {
                let k = Literal::usize_unsuffixed(k);
                quote! { ids[#k] }
            }
            Parameter::Relation { i, accessor } => {
                let (f, v) = (format_ident!("rel_at_{accessor}"), format_ident!("rel{i}"));
                quote! { self.#f(#v) }
            }
            Parameter::Table { i, .. } => {
                let v = format_ident!("table{i}");
                quote! { (*#v) }
            }
            Parameter::Offsets(i) => {
                let v = format_ident!("offsets{i}");
                quote! { (*#v) }
            }
            Parameter::Layer(i) => {
                let v = format_ident!("layer{i}");
                quote! { self.ensure_layer_at(#v) }
            }
            Parameter::Call { i, dispatch } => {
                let (f, v) = (
                    format_ident!("call_at_{dispatch}"),
                    format_ident!("callee{i}"),
                );
                return Filled::Call(quote! { self.#f }, quote! { #v });
            }
        })
    }
}

/// What a hole's mark is replaced by.
enum Filled {
    /// This code.
    Code(TokenStream),
    /// This function, called with this first argument before the call's
    /// own (in the parentheses after the mark).
    Call(TokenStream, TokenStream),
}

/// `code` with each hole's mark replaced as `hole(i)` says.
fn fill(code: TokenStream, hole: &dyn Fn(usize) -> Filled) -> TokenStream {
    let mut out = TokenStream::new();
    let mut trees = code.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Ident(i) if i.to_string().starts_with("__hole_") => {
                let n = i.to_string()["__hole_".len()..]
                    .parse()
                    .expect("a hole's number");
                match hole(n) {
                    Filled::Code(code) => out.extend(code),
                    Filled::Call(f, first) => {
                        let Some(TokenTree::Group(args)) = trees.next() else {
                            unreachable!("a call's hole is followed by its arguments")
                        };
                        let args = fill(args.stream(), hole);
                        out.extend(quote! { #f(#first, #args) });
                    }
                }
            }
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), fill(g.stream(), hole));
                group.set_span(g.span());
                out.extend([TokenTree::Group(group)]);
            }
            t => out.extend([t]),
        }
    }
    out
}

/// The relations and layers families name by number, and the functions
/// turning the numbers into fields and evaluations.
#[derive(Default)]
struct Accessors {
    /// Per container type (as text, in order of first use): the type and
    /// the relations of it named by number.
    relations: Vec<(String, TokenStream, BTreeSet<RelId>)>,
    /// The layers named by number.
    layers: BTreeSet<usize>,
    /// Per signature (in order of first use): the callees of it named by
    /// number.
    calls: Vec<(String, BTreeSet<usize>)>,
}

impl Accessors {
    /// Registers `rels` of type `ty` as named by number; the number of
    /// their accessor, `rel_at_<n>`.
    fn relations(&mut self, ty: TokenStream, rels: impl Iterator<Item = RelId>) -> usize {
        let text = ty.to_string();
        let n = match self.relations.iter().position(|(t, ..)| *t == text) {
            Some(n) => n,
            None => {
                self.relations.push((text, ty, BTreeSet::new()));
                self.relations.len() - 1
            }
        };
        self.relations[n].2.extend(rels);
        n
    }

    /// Registers `callees` (numbers of functions, of signature `signature`)
    /// as named by number; the number of their dispatch, `call_at_<n>`.
    fn callees(&mut self, signature: &str, callees: impl Iterator<Item = usize>) -> usize {
        let n = match self.calls.iter().position(|(s, _)| s == signature) {
            Some(n) => n,
            None => {
                self.calls.push((signature.to_owned(), BTreeSet::new()));
                self.calls.len() - 1
            }
        };
        self.calls[n].1.extend(callees);
        n
    }

    /// `call_at_<n>(callee, ..)`, calling function number `callee` of
    /// `rules` (of the dispatch's signature) with the arguments after it.
    fn dispatch_fns(&self, rules: &[RuleFn]) -> Vec<TokenStream> {
        let fns = self.calls.iter().enumerate().map(|(n, (_, callees))| {
            let name = format_ident!("call_at_{n}");
            let callees: Vec<&RuleFn> = callees.iter().map(|&c| &rules[c]).collect();
            let (last, rest) = callees.split_last().expect("two or more");
            let numbers = callees.iter().map(|c| {
                let i = rules
                    .iter()
                    .position(|r| std::ptr::eq(r, *c))
                    .expect("a rule");
                Literal::usize_unsuffixed(i)
            });
            let (inputs, args, output) = (&last.inputs, &last.args, &last.output);
            let call = |c: &RuleFn| {
                let f = &c.name;
                quote! { self.#f(#(#args),*) }
            };
            let calls = rest.iter().map(|c| call(c));
            let last = call(last);
            quote! {
                /// Calls function number `callee`, for the families naming it by number.
                #[inline]
                fn #name(&mut self, callee: usize, #inputs) -> #output {
                    match callee {
                        #(#numbers => #calls,)*
                        _ => #last,
                    }
                }
            }
        });
        fns.collect()
    }

    /// `rel_at_<n>(rel)`, the field of relation `rel` of each type,
    /// `ensure_layer_at(layer)`, evaluating layer `layer` unless done, and
    /// the dispatches of calls (`dispatch_fns`).
    fn functions(&self, rules: &[RuleFn]) -> Vec<TokenStream> {
        let mut fns: Vec<TokenStream> = self
            .relations
            .iter()
            .enumerate()
            .map(|(n, (_, ty, rels))| {
                let name = format_ident!("rel_at_{n}");
                let (last, rest) = rels
                    .iter()
                    .collect::<Vec<_>>()
                    .split_last()
                    .map(|(l, r)| (**l, r.to_vec()))
                    .expect("two or more");
                let numbers = rest.iter().map(|&&r| Literal::usize_unsuffixed(r));
                let fields = rest.iter().map(|&&r| format_ident!("r{r}"));
                let last = format_ident!("r{last}");
                quote! {
                    /// The field of relation `rel`, for the families naming it by number.
                    #[inline]
                    fn #name(&mut self, rel: usize) -> &mut #ty {
                        match rel {
                            #(#numbers => &mut self.#fields,)*
                            _ => &mut self.#last,
                        }
                    }
                }
            })
            .collect();
        if let Some((&last, rest)) = self.layers.iter().collect::<Vec<_>>().split_last() {
            let numbers = rest.iter().map(|&&l| Literal::usize_unsuffixed(l));
            let ensure = rest.iter().map(|&&l| format_ident!("ensure_layer_{l}"));
            let last = format_ident!("ensure_layer_{last}");
            fns.push(quote! {
                /// Evaluates layer `layer` unless done, for the families naming it by number.
                #[inline]
                fn ensure_layer_at(&mut self, layer: usize) {
                    match layer {
                        #(#numbers => self.#ensure(),)*
                        _ => self.#last(),
                    }
                }
            });
        }
        fns.extend(self.dispatch_fns(rules));
        fns
    }
}

#[cfg(test)]
mod tests;
