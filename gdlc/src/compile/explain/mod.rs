//! `gdlc explain`: what the compiler decided about a game, as text for a
//! person looking for why it is slow, and its relation graph for Graphviz.
//!
//! Both outputs are deterministic: everything is listed in the order of
//! the compiler's own ids (relations, layers, rules, tables).

mod analyses;

use crate::compile::analyse::layers::Layers;
use crate::compile::compiled::{Compiled, Evaluation};
use crate::compile::demand::rays::ray_table;
use crate::compile::error::NotIncremental;
use crate::compile::ground::grounding::Ground;
use crate::compile::ground::incremental::Incremental;
use crate::compile::program::{Atom, Class, Pat, Program, RelId};
use crate::compile::relational::board_reads::board_read;
use crate::compile::relational::containers::Container;
use crate::compile::relational::edits::frame_copy;
use crate::compile::relational::plan::{RulePlan, Step, Tables, TopDown, Walk};
use crate::compile::relational::Relational;
use crate::graph::Polarity;
use crate::ir::written_name;
use analyses::{boards, sorts};
use petgraph::visit::EdgeRef;
use std::fmt::Write as _;

/// The names of the phases, in the order of [`Layers::phases`] (`sees`
/// only in a game with percepts).
const PHASES: [&str; 5] = ["legal", "next", "terminal", "goal", "sees"];

/// The report of `gdlc explain` for the game named `game`: roles, state
/// size, term ids, relations (class, domains, relaxed facts, container),
/// sorts, layers and phases, the plan of every rule and the constant tables.
pub fn report(c: &Compiled, game: &str) -> String {
    let mut out = String::new();
    summary(&mut out, c, game);
    match &c.evaluation {
        Evaluation::Ground {
            ground,
            incremental,
        } => {
            ground_backend(&mut out, c, ground, incremental);
            relations(&mut out, c);
            sorts(&mut out, c);
            layers(&mut out, &c.program, &c.layers);
        }
        Evaluation::Relational {
            relational,
            not_ground,
        } => {
            let _ = writeln!(
                out,
                "backend: relational (not ground: {not_ground}); the relations, layers and plans below"
            );
            rewrites(&mut out, c, relational);
            top_down(&mut out, c, &relational.top_down);
            if let Some((demand, weighed)) = relational.declined {
                let _ = writeln!(
                    out,
                    "top-down: declined (searches and walks made {demand} body literals, against {weighed} all bottom-up: too much code), so every relation is derived bottom-up"
                );
            }
            relations(&mut out, c);
            sorts(&mut out, c);
            boards(&mut out, c, relational);
            layers(&mut out, &c.program, &c.layers);
            plans(&mut out, c, relational);
            tables(&mut out, &relational.tables);
        }
    }
    out
}

/// The game's size: roles, state, term ids, the relaxed evaluation's work.
fn summary(out: &mut String, c: &Compiled, game: &str) {
    let p = &c.program;
    let _ = writeln!(out, "game: {game}");
    let roles: Vec<String> = p.roles.iter().map(|&r| p.store.text(r)).collect();
    let _ = writeln!(out, "roles ({}): {}", roles.len(), roles.join(" "));
    let fluents = c.domains.fluents;
    let words = fluents.div_ceil(64).max(1);
    let _ = writeln!(
        out,
        "state: {fluents} possible fluents = {fluents} bits, stored as [u64; {words}] = {} bytes",
        words * 8
    );
    let terms = c.domains.texts.len();
    let _ = writeln!(
        out,
        "terms: {terms} runtime term ids ({fluents} fluents, {} other terms)",
        terms - fluents
    );
    let work = c.domains.work;
    let _ = writeln!(
        out,
        "domains: relaxed evaluation in {} rounds, {} rule joins ({} candidate facts tried, {} \
         facts indexed), {} rule evaluations argument by argument (a rule whose join is too \
         large, or that reads a relation with too many facts)",
        work.rounds, work.joins, work.tried, work.facts, work.by_argument
    );
}

/// The ground program: atoms, instances, and which layers are incremental.
fn ground_backend(
    out: &mut String,
    c: &Compiled,
    g: &Ground,
    incremental: &Result<Box<Incremental>, NotIncremental>,
) {
    let p = &c.program;
    let atoms: usize = g.atoms.iter().sum();
    let _ = writeln!(
        out,
        "backend: ground: {} rule instances over {atoms} atoms; one bit vector of \
         [u64; {}] = {} bytes (state, per-state atoms, then from word {} the \
         per-move atoms: next, does, the rest)",
        g.instances(),
        g.words,
        g.words * 8,
        g.move_word
    );
    match incremental {
        Ok(inc) => {
            let _ = writeln!(
                out,
                "evaluation: mixed, chosen per layer from {} simulated states (cost \
                 per state: incremental = literal updates of the atoms that change, \
                 full = instances visited, each worth 1.5 updates); incremental layers keep per instance a \
                 count of its literals that do not hold, per atom of its instances \
                 that fire ({} literal occurrences, {} levels); per-move layers {}",
                inc.costs.states,
                inc.occurrences.len(),
                inc.levels(),
                if inc.moves {
                    "incremental (the `does` atoms that change)"
                } else {
                    "in full for each joint move"
                }
            );
            let states = inc.costs.states.max(1) as f64;
            for (l, layer) in c.layers.layers.iter().enumerate() {
                let names: Vec<String> =
                    layer.members.iter().map(|&r| relation_name(p, r)).collect();
                let _ = writeln!(
                    out,
                    "  layer {l} ({}): {} (incremental {:.1}, full {:.1})",
                    names.join(" "),
                    if inc.layers[l] { "incremental" } else { "full" },
                    inc.costs.incremental[l] as f64 / states,
                    inc.costs.full[l] as f64 / states
                );
            }
        }
        Err(why) => {
            let _ = writeln!(
                out,
                "evaluation: every state in full, layer by layer (not incremental: {why})"
            );
        }
    }
    for (r, &n) in g.atoms.iter().enumerate() {
        if n > 0 {
            let _ = writeln!(out, "  {}: {n} atoms", relation_name(p, r));
        }
    }
    for rule in g.rules.iter().flatten() {
        let _ = writeln!(
            out,
            "  rule {}: {} instances, {} positive and {} negative tests each{}{}",
            rule.rule,
            rule.rows.len(),
            rule.pos,
            rule.neg,
            match (rule.projection(), rule.word_copies()) {
                (Some(p), _) => format!(
                    ", a projection: each of its {} heads tested on the words of its bits",
                    p.heads.len()
                ),
                (None, Some(c)) if c.by_driver => format!(
                    ", copied to the heads as {} words (their masks per set bit of the first)",
                    c.words.len()
                ),
                (None, Some(c)) => {
                    format!(", copied to the heads as {} words", c.words.len())
                }
                (None, None) if rule.driven => {
                    ", visited from the set bits of the first".into()
                }
                (None, None) => ", all visited".into(),
            },
            match rule.guards.len() {
                0 => String::new(),
                n => format!(" ({n} the same in every instance, tested once first)"),
            }
        );
    }
}

/// What the relational strategy rewrote: inlined relations, fluent
/// orders, magic sets.
fn rewrites(out: &mut String, c: &Compiled, relational: &Relational) {
    let p = &c.program;
    if !relational.inlined.is_empty() {
        let names: Vec<String> = relational
            .inlined
            .iter()
            .map(|&r| p.relations[r].to_string())
            .collect();
        let _ = writeln!(
            out,
            "inlined into their callers (evaluated on demand, never materialized): {}",
            names.join(" ")
        );
    }
    if !c.domains.fluent_orders.is_empty() {
        let mut orders: Vec<String> = c
            .domains
            .fluent_orders
            .iter()
            .map(|(&(symbol, arity), order)| {
                let positions: Vec<String> = order.iter().map(|p| (p + 1).to_string()).collect();
                format!(
                    "{}/{arity} by arguments {}",
                    p.store.symbol_name(symbol),
                    positions.join(",")
                )
            })
            .collect();
        orders.sort();
        let _ = writeln!(
            out,
            "fluents numbered by another argument order (so that loops over them walk the state): {}",
            orders.join(" ")
        );
    }
    if !relational.adorned.is_empty() {
        let _ = writeln!(
            out,
            "magic sets (evaluated only for the bound arguments their callers ask about):"
        );
        for a in &relational.adorned {
            let _ = write!(
                out,
                "  {} called `{}` -> {} (bindings in {})",
                relation_name(p, a.original),
                a.adornment,
                relation_name(p, a.adorned),
                relation_name(p, a.magic)
            );
            if let Some(reach) = a.reach {
                let _ = write!(
                    out,
                    ", right-linear: answered at the squares its walk reaches, {}",
                    relation_name(p, reach)
                );
            }
            out.push('\n');
        }
    }
}

/// The directions a walk steps in.
fn directions(walk: &Walk) -> &'static str {
    match (walk.forward, walk.backward) {
        (true, true) => "forward from a bound start or backward from a bound end",
        (true, false) => "forward from a bound start",
        _ => "backward from a bound end",
    }
}

/// A line `heading: ` and the relations `marked`, when there is one.
fn marked_relations(out: &mut String, p: &Program, marked: &[bool], heading: &str) {
    let names: Vec<String> = (0..p.relations.len())
        .filter(|&r| marked[r])
        .map(|r| relation_name(p, r))
        .collect();
    if !names.is_empty() {
        let _ = writeln!(out, "{heading}: {}", names.join(" "));
    }
}

/// The relations the demand strategy answers top-down, and why.
fn top_down(out: &mut String, c: &Compiled, top_down: &TopDown) {
    let p = &c.program;
    marked_relations(
        out,
        p,
        &top_down.asked,
        "searched top-down, first witness (every call binds every argument)",
    );
    marked_relations(
        out,
        p,
        &top_down.remembered,
        "  answers remembered per state (a call repeats inside a loop that binds what it does not read)",
    );
    let walks: Vec<(usize, &Walk)> = (top_down.walks.iter().enumerate())
        .filter_map(|(r, w)| Some((r, w.as_ref()?)))
        .collect();
    if walks.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "walked by loops (right-linear recursions, calls unfolded; one square determines the next, steps without cycles):"
    );
    for (r, walk) in walks {
        let _ = writeln!(
            out,
            "  {}: {}, one step {}",
            relation_name(p, r),
            directions(walk),
            relation_name(p, walk.step)
        );
        for forward in
            [true, false]
                .into_iter()
                .filter(|&f| if f { walk.forward } else { walk.backward })
        {
            let _ = writeln!(out, "    {}", ray_text(c, walk, forward));
        }
    }
}

/// How a walk steps in a direction: by its ray table (its squares, key,
/// and per rule the fluent tests and kept arguments compared), or by a
/// step function.
fn ray_text(c: &Compiled, walk: &Walk, forward: bool) -> String {
    let direction = if forward { "forward" } else { "backward" };
    let boards = &c.relational().expect("walks are relational").boards;
    let Some(ray) = ray_table(&c.program, &c.domains, boards, walk, forward) else {
        return format!("{direction}: a step function (its rules planned)");
    };
    let rules: Vec<String> = (ray.sections.iter())
        .map(|s| {
            let tests = match (s.tests, s.board) {
                (0, _) => "no test".to_string(),
                (_, Some(b)) => format!("a board test (board {b})"),
                (1, None) => "1 fluent test".to_string(),
                (n, None) => format!("{n} fluent tests"),
            };
            let equal = if s.equal.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} kept argument{} compared",
                    s.equal.len(),
                    if s.equal.len() == 1 { "" } else { "s" }
                )
            };
            format!("rule {}: {tests}{equal}", s.rule)
        })
        .collect();
    format!(
        "{direction}: ray table, {} squares keyed on {} inputs ({} kept); {}",
        ray.rows.len(),
        ray.key.len(),
        ray.key.len() - walk.changing,
        rules.join("; ")
    )
}

/// The constant tables' count and size.
fn tables(out: &mut String, tables: &Tables) {
    let rows: usize = tables.tables.iter().map(|t| t.rows.len()).sum();
    let cells: usize = tables.tables.iter().map(|t| t.rows.len() * t.columns).sum();
    let _ = writeln!(
        out,
        "\nconstant tables: {} in the plans, {rows} rows, {cells} cells \
         (code generation adds the tables that take compound terms apart)",
        tables.tables.len()
    );
}

/// The relation dependency graph in Graphviz's DOT language: an edge
/// `a -> b` when a rule for `b` reads `a`, dashed through `not`; nodes
/// filled by class (static grey, state blue, move orange).
pub fn dot(c: &Compiled, game: &str) -> String {
    let p = &c.program;
    let g = &p.graph.graph;
    let mut out = format!("digraph {} {{\n", quoted(game));
    out.push_str(
        "  // An edge a -> b: a rule for b reads a; dashed: through `not`.\n  \
         // Fill: static grey, state (reads `true`) blue, move (reads `does`) orange.\n  \
         rankdir=LR;\n  node [shape=box, style=filled];\n",
    );
    for n in g.node_indices() {
        let r = n.index();
        let color = match p.class[r] {
            Class::Static => "lightgrey",
            Class::State => "lightblue",
            Class::Move => "orange",
        };
        let _ = writeln!(
            out,
            "  r{r} [label={}, fillcolor={color}];",
            quoted(&relation_name(p, r))
        );
    }
    for e in g.edge_references() {
        let style = match e.weight() {
            Polarity::Positive => "",
            Polarity::Negative => " [style=dashed]",
        };
        let _ = writeln!(
            out,
            "  r{} -> r{}{style};",
            e.source().index(),
            e.target().index()
        );
    }
    out.push_str("}\n");
    out
}

/// A DOT string literal.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A relation as `name/arity`, with the constants of a refined relation
/// (see [`crate::normal::refine`]) in brackets: `goal/2[1=100]`.
fn relation_name(p: &Program, r: usize) -> String {
    let rel = &p.relations[r];
    let written = written_name(&rel.name);
    let refined = rel.name[written.len()..].trim_start();
    if refined.is_empty() {
        format!("{written}/{}", rel.arity)
    } else {
        format!("{written}/{}[{refined}]", rel.arity)
    }
}

fn class_name(class: Class) -> &'static str {
    match class {
        Class::Static => "static",
        Class::State => "state",
        Class::Move => "move",
    }
}

/// One line per relation, in columns: its class, the phases that need it,
/// its domain sizes, relaxed facts and container.
fn relations(out: &mut String, c: &Compiled) {
    let p = &c.program;
    // The phases whose cone holds each relation.
    let mut phases = vec![Vec::new(); p.relations.len()];
    for (name, roots) in PHASES.iter().zip(&p.answers) {
        let roots: Vec<_> = roots.iter().map(|&r| p.relations[r].clone()).collect();
        for n in p.graph.cone(&roots) {
            phases[n.index()].push(*name);
        }
    }
    let rows: Vec<[String; 6]> = (0..p.relations.len())
        .map(|r| {
            let sizes: Vec<String> = (c.domains.args[r].iter().zip(&c.domains.open[r]))
                .map(|(d, &open)| match open {
                    true => "built".to_string(),
                    false => d.len().to_string(),
                })
                .collect();
            [
                relation_name(p, r),
                class_name(p.class[r]).to_string(),
                if phases[r].is_empty() {
                    "-".to_string()
                } else {
                    phases[r].join(",")
                },
                format!("[{}]", sizes.join(" ")),
                c.domains.rows[r].map_or_else(|| "too many".to_string(), |n| n.to_string()),
                container(c, r),
            ]
        })
        .collect();
    let _ = writeln!(out, "\nrelations ({}):", rows.len());
    let header = [
        "relation",
        "class",
        "needed by",
        "domain sizes",
        "relaxed facts",
        "container",
    ]
    .map(String::from);
    let widths: Vec<usize> = (0..5)
        .map(|k| {
            rows.iter()
                .chain([&header])
                .map(|row| row[k].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (k, cell) in row.iter().enumerate() {
            let width = widths.get(k).copied().unwrap_or(0);
            let _ = write!(line, "  {cell:<width$}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// Where a relation's facts live: a container of the relational code, or
/// for a ground game its bits, the state's bits or compile-time facts.
fn container(c: &Compiled, r: RelId) -> String {
    let p = &c.program;
    match &c.evaluation {
        Evaluation::Relational { relational, .. } => {
            let top_down = &relational.top_down;
            if top_down.asked[r] {
                return "none (searched top-down: every call binds every argument)".to_string();
            }
            if let Some(walk) = top_down.walks[r] {
                return format!("none (walked by loops, {})", directions(&walk));
            }
            if top_down.walks.iter().flatten().any(|w| w.step == r) {
                return "none (one step of a walk, searched for the next square)".to_string();
            }
            let container = &relational.containers[r];
            format!("{container:?} ({})", container.reason())
        }
        Evaluation::Ground { .. } if r == p.true_rel => "the state's bits".to_string(),
        Evaluation::Ground { .. } if p.class[r] == Class::Static => {
            "none (decided when grounding)".to_string()
        }
        Evaluation::Ground { ground, .. } => {
            format!("{} bits of the ground bit vector", ground.atoms[r])
        }
    }
}

/// The layers in evaluation order, then the layers of each phase.
fn layers(out: &mut String, p: &Program, layers: &Layers) {
    let _ = writeln!(
        out,
        "\nlayers ({}), in evaluation order:",
        layers.layers.len()
    );
    for (i, layer) in layers.layers.iter().enumerate() {
        let members: Vec<String> = layer.members.iter().map(|&r| relation_name(p, r)).collect();
        let _ = writeln!(
            out,
            "  L{i}  {}{}  {} rule{}: {}",
            class_name(layer.class),
            if layer.recursive {
                ", recursive (iterated to a fixpoint)"
            } else {
                ""
            },
            layer.rules.len(),
            if layer.rules.len() == 1 { "" } else { "s" },
            members.join(" ")
        );
    }
    let _ = writeln!(out, "\nphases (the layers each one evaluates, in order):");
    for (name, order) in PHASES.iter().zip(&layers.phases).take(p.phases()) {
        let list: Vec<String> = order.iter().map(|l| format!("L{l}")).collect();
        let list = if list.is_empty() {
            "none".to_string()
        } else {
            list.join(" ")
        };
        let _ = writeln!(out, "  {:<9} {list}", format!("{name}:"));
    }
}

/// The plan of every rule, in rule order; rules that can never fire too.
fn plans(out: &mut String, c: &Compiled, relational: &Relational) {
    let p = &c.program;
    let mut plan_of: Vec<Option<&RulePlan>> = vec![None; p.rules.len()];
    for plan in &relational.plans {
        plan_of[plan.rule] = Some(plan);
    }
    let mut layer_of = vec![None; p.rules.len()];
    for (l, layer) in c.layers.layers.iter().enumerate() {
        for &r in &layer.rules {
            layer_of[r] = Some(l);
        }
    }
    let _ = writeln!(
        out,
        "\nrule plans ({} rules, {} planned; steps outermost first):",
        p.rules.len(),
        relational.plans.len()
    );
    for (i, rule) in p.rules.iter().enumerate() {
        let layer = layer_of[i].map_or_else(String::new, |l| format!(", layer L{l}"));
        let _ = writeln!(
            out,
            "  rule {i} -> {}{layer}\n    {}",
            relation_name(p, rule.head.rel),
            rule.text
        );
        let Some(plan) = plan_of[i] else {
            let _ = writeln!(
                out,
                "      never fires: a positive literal matches no fact or possible fluent"
            );
            continue;
        };
        for (k, step) in plan.steps.iter().enumerate() {
            if k == plan.head_bound_after && plan.steps[k..].iter().any(Step::is_loop) {
                let _ = writeln!(
                    out,
                    "      -- the head is bound: the steps below look for one witness"
                );
            }
            let kind = if step.is_loop() { "loop" } else { "test" };
            let _ = writeln!(
                out,
                "      {}. {kind}  {}",
                k + 1,
                step_text(c, relational, &rule.vars, step)
            );
        }
        if plan.steps.is_empty() {
            let _ = writeln!(out, "      (no steps: the head always holds)");
        }
        let next_bits = relational.containers[rule.head.rel] == Container::NextBits;
        if let Some(copy) = frame_copy(p, plan, &relational.tables, next_bits) {
            let widths: Vec<String> = copy.excluded.iter().map(|e| e.width.to_string()).collect();
            let less = if widths.is_empty() {
                String::new()
            } else {
                format!(
                    ", less those its tests exclude for the bound key (at most {})",
                    widths.join(", ")
                )
            };
            let _ = writeln!(
                out,
                "      as an edit instead: from step {}, its fluents copied into the next state word by word{less}",
                copy.step + 1
            );
        }
    }
}

/// One step of a plan, readable.
fn step_text(c: &Compiled, relational: &Relational, vars: &[String], step: &Step) -> String {
    let (p, tables) = (&c.program, &relational.tables);
    let names = |vs: &[usize]| -> String {
        let names: Vec<&str> = vs.iter().map(|&v| vars[v].as_str()).collect();
        format!("[{}]", names.join(" "))
    };
    let not = |negated: bool| if negated { "not " } else { "" };
    match step {
        Step::Table {
            table,
            key,
            bind,
            fluent,
            negated,
            fused,
            ..
        } => {
            let rows = tables.tables[*table].rows.len();
            let mut s = format!(
                "{}table T{table} key {} binds {} ({rows} row{}",
                not(*negated),
                names(key),
                names(bind),
                if rows == 1 { "" } else { "s" }
            );
            if *fused > 1 {
                s.push_str(&format!(", {fused} literals joined"));
            }
            let board = board_read(&relational.boards, step).map(|r| r.board);
            match tables.walk_stride(*table, key.len()).filter(|_| *fluent) {
                _ if let Some(b) = board => {
                    s.push_str(&format!(", one word of board {b}: the square's contents"));
                }
                Some(1) => s.push_str(", walks the state's set bits"),
                Some(n) => s.push_str(&format!(", walks the state's set bits with stride {n}")),
                None if *fluent => s.push_str(", fluent test"),
                None if bind.is_empty() && tables.membership(*table, key.len()).is_some() => {
                    s.push_str(", one bit of a membership bitset");
                }
                None => {}
            }
            s.push(')');
            s
        }
        Step::Fluent { id, negated } => format!(
            "{}fluent {} (id {id})",
            not(*negated),
            c.domains.texts[*id as usize]
        ),
        Step::Scan(atom) => format!(
            "scan {} {}",
            relation_name(p, atom.rel),
            atom_text(p, vars, atom)
        ),
        Step::Member { atom, negated } => format!(
            "member {}{} {}",
            not(*negated),
            relation_name(p, atom.rel),
            atom_text(p, vars, atom)
        ),
        Step::Ask { atom, negated } => format!(
            "ask {}{} {}",
            not(*negated),
            relation_name(p, atom.rel),
            atom_text(p, vars, atom)
        ),
        Step::Walk { atom, forward, .. } => format!(
            "walk {} {} {}",
            if *forward { "forward" } else { "backward" },
            relation_name(p, atom.rel),
            atom_text(p, vars, atom)
        ),
        Step::Distinct(x, y) => {
            format!("distinct {} {}", pat_text(p, vars, x), pat_text(p, vars, y))
        }
        Step::Same(x, y) => format!("same {} {}", pat_text(p, vars, x), pat_text(p, vars, y)),
    }
}

/// An atom as KIF, its variables by name.
fn atom_text(p: &Program, vars: &[String], atom: &Atom) -> String {
    let name = written_name(&p.relations[atom.rel].name);
    if atom.args.is_empty() {
        return name.to_string();
    }
    let args: Vec<String> = atom.args.iter().map(|a| pat_text(p, vars, a)).collect();
    format!("({name} {})", args.join(" "))
}

/// A pattern as KIF, its variables by name.
fn pat_text(p: &Program, vars: &[String], pat: &Pat) -> String {
    match pat {
        Pat::Var(v) => vars[*v].clone(),
        Pat::Ground(t) => p.store.text(*t),
        Pat::Func(f, args) => {
            let args: Vec<String> = args.iter().map(|a| pat_text(p, vars, a)).collect();
            format!("({} {})", p.store.symbol_name(*f), args.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{analyze_with, Strategy};

    fn compiled_with(text: &str, strategy: Strategy) -> Compiled {
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        analyze_with(&loaded, strategy).expect("compiles")
    }

    fn compiled(text: &str) -> Compiled {
        compiled_with(text, Strategy::Relational)
    }

    const GAME: &str = "(role a)\n(init (p 1))\n(n 1)\n(n 2)\n\
        (<= (legal a (go ?x)) (n ?x) (not (true (p ?x))))\n\
        (<= (next (p ?x)) (does a (go ?x)))\n\
        (<= (goal a 100) (true (p 2)))\n(<= (goal a 0) (not (goal a 100)))\n\
        (<= terminal (true (p 2)))\n";

    #[test]
    fn the_report_names_sizes_layers_and_steps() {
        let c = compiled(GAME);
        let text = report(&c, "t");
        assert_eq!(text, report(&c, "t"), "deterministic");
        for expected in [
            "roles (1): a",
            "state: 2 possible fluents = 2 bits, stored as [u64; 1] = 8 bytes",
            "n/1",
            "goal/2[0=a 1=100]",
            "phases (",
            "(<= (legal a (go ?x)) (n ?x) (not (true (p ?x))))",
            "binds [?x]",
            "not table T",
            "scan does/2 (does a (go ?x))",
            "sorts: ",
            "2 values (1 2)",
            "(go/1) arg 1",
            "(p/1) arg 1",
            "constant tables: ",
        ] {
            assert!(text.contains(expected), "{expected:?} missing in:\n{text}");
        }
    }

    #[test]
    fn a_ground_report_counts_atoms_and_instances() {
        let text = report(&compiled_with(GAME, Strategy::Auto), "t");
        for expected in [
            "backend: ground: ",
            "legal/2: 2 atoms",
            "does/2: 2 atoms",
            "next/1: 2 atoms",
        ] {
            assert!(text.contains(expected), "{expected:?} missing in:\n{text}");
        }
        assert!(!text.contains("constant tables: "), "{text}");
        assert!(
            text.contains("evaluation: mixed, chosen per layer from "),
            "{text}"
        );
        let full = report(&compiled_with(GAME, Strategy::Ground), "t");
        assert!(
            full.contains("evaluation: every state in full, layer by layer (not incremental: "),
            "{full}"
        );
        let relational = report(&compiled(GAME), "t");
        assert!(relational.contains("backend: relational (not ground: "));
    }

    #[test]
    fn a_fluent_at_a_bound_square_is_read_as_one_word_of_its_board() {
        // `cell` is a 2 × 2 board of marks (`put` takes an `index`).
        // `free` tests two constant contents at a bound square, `owns`
        // loops over the contents at the square of `control`, `same` tests
        // a bound content there; `count` binds no square, so it walks the
        // fluents instead. `free` asks of `coord`, which holds 3 as well:
        // the files' sort has three values, the board's files two.
        let text = "(role a) (init (cell 1 1 x)) (init (control 1)) (init (pick o))
            (index 1) (index 2) (coord 1) (coord 2) (coord 3) (mark x) (mark o)
            (<= (next (cell ?x ?y ?p)) (does a (put ?x ?y ?p)))
            (<= (next (control ?x)) (true (control ?x)))
            (<= (next (pick ?p)) (true (pick ?p)))
            (<= (free ?x ?y) (coord ?x) (coord ?y) (not (true (cell ?x ?y x)))
                (not (true (cell ?x ?y o))))
            (<= (owns ?p) (true (control ?x)) (true (cell ?x 1 ?p)))
            (<= (same ?x) (true (control ?x)) (true (pick ?p)) (true (cell ?x ?x ?p)))
            (<= (count ?x) (true (cell ?x ?y ?p)))
            (<= (legal a (put ?x ?y ?p)) (index ?x) (index ?y) (mark ?p) (free ?x ?y)
                (not (count ?x)) (not (owns ?p)) (not (same ?y)))
            (<= terminal (true (cell 2 2 o))) (goal a 100)";
        let report = report(&compiled(text), "t");
        assert!(
            report.contains("board 0: cell/3, content at arg 3 (o x), squares 2 × 2 = 4; read by 4 plan steps at a bound square"),
            "{report}"
        );
        assert!(report.contains("3 values (1 2 3)"), "{report}");
        let steps = |rule: &str| -> Vec<String> {
            let at = report
                .find(rule)
                .unwrap_or_else(|| panic!("{rule} in {report}"));
            let lines = report[at..].lines().skip(1);
            let steps = lines.take_while(|l| !l.trim_start().starts_with("(<="));
            steps.map(str::to_string).collect()
        };
        let reads = |rule: &str| {
            let all = steps(rule);
            all.iter()
                .filter(|s| s.contains("one word of board 0"))
                .count()
        };
        assert_eq!(reads("(<= (free ?x ?y)"), 2);
        assert_eq!(reads("(<= (owns ?p)"), 1);
        assert_eq!(reads("(<= (same ?x)"), 1);
        assert_eq!(reads("(<= (count ?x)"), 0);
    }

    #[test]
    fn a_scan_of_every_fluent_of_a_predicate_walks_the_state() {
        // (cell ?x ?y ?p) over all 2 x 2 x 2 fluents: consecutive ids, so
        // the scan walks the set bits; (cell ?x ?y x) takes every other id
        // (a walk skipping one bit in two: more loops know the first
        // argument than the last, so the fluents keep their order). The
        // callers use them under `not`, so that none is inlined.
        let text = "(role a) (init (cell 1 1 x)) (coord 1) (coord 2) (mark x) (mark o)
            (<= (next (cell ?x ?y ?p)) (coord ?x) (coord ?y) (mark ?p))
            (<= (count ?x) (true (cell ?x ?y ?p)))
            (<= (xs ?x ?y) (true (cell ?x ?y x)))
            (<= (ones ?y) (true (cell 1 ?y ?p)))
            (<= (twos ?y) (true (cell 2 ?y ?p)))
            (<= (legal a (go ?x)) (coord ?x) (not (count ?x)) (not (xs ?x ?x))
                (not (ones ?x)) (not (twos ?x)))
            (<= terminal (true (cell 2 2 o))) (goal a 100)";
        let report = report(&compiled(text), "t");
        let step = |rule: &str| {
            let at = report.find(rule).expect("the rule is reported");
            report[at..]
                .lines()
                .nth(1)
                .expect("its first step")
                .to_string()
        };
        let all = step("(<= (count ?x) (true (cell ?x ?y ?p)))");
        assert!(
            all.contains("(8 rows, walks the state's set bits)"),
            "{all}"
        );
        let some = step("(<= (xs ?x ?y) (true (cell ?x ?y x)))");
        assert!(
            some.contains("(4 rows, walks the state's set bits with stride 2)"),
            "{some}"
        );
    }

    #[test]
    fn fluents_are_numbered_so_that_loops_keyed_on_a_later_argument_walk() {
        // `(cell ?x ?y ?p)` with five marks: numbered by x, y, p the cells
        // of one mark are every fifth fluent (too far apart to walk); the
        // rule binds ?p first, so cells are numbered by p, x, y.
        let text = "(role a) (init (cell 1 1 m1)) (coord 1) (coord 2)
            (mark m1) (mark m2) (mark m3) (mark m4) (mark m5) (mine m2)
            (<= (next (cell ?x ?y ?p)) (coord ?x) (coord ?y) (mark ?p))
            (<= (at ?x ?y) (mine ?p) (true (cell ?x ?y ?p)))
            (<= (legal a (go ?x)) (at ?x ?x))
            (<= terminal (true (cell 2 2 m5))) (goal a 100)";
        let c = compiled(text);
        let report = report(&c, "t");
        assert!(
            report.contains("fluents numbered by another argument order (so that loops over them walk the state): cell/3 by arguments 3,1,2"),
            "{report}"
        );
        let at = report
            .find("(<= (at ?x ?y) (mine ?p) (true (cell ?x ?y ?p)))")
            .expect("the rule is reported");
        let walk = report[at..].lines().nth(2).expect("its second step");
        assert!(
            walk.contains("key [?p] binds [?x ?y] (20 rows, walks the state's set bits)"),
            "{walk}"
        );
        // The fluents are still ids 0..20, by symbol then by their
        // arguments in that order.
        let texts = &c.domains.texts[..c.domains.fluents];
        assert_eq!(texts[0], "(cell 1 1 m1)");
        assert_eq!(texts[1], "(cell 1 2 m1)");
        assert_eq!(texts[4], "(cell 1 1 m2)");
    }

    #[test]
    fn a_fully_bound_static_literal_is_one_bit_of_a_membership_bitset() {
        let text = "(role a) (init (cell 1 2)) (adj 1 2) (adj 2 1) (adj 2 3)
            (<= (next (cell ?x ?y)) (true (cell ?y ?x)))
            (<= (legal a (go ?x ?y)) (true (cell ?x ?y)) (adj ?x ?y))
            (<= terminal (true (cell 3 3))) (goal a 100)";
        let report = report(&compiled(text), "t");
        let rule = "(<= (legal a (go ?x ?y)) (true (cell ?x ?y)) (adj ?x ?y))";
        let at = report.find(rule).expect("the rule is reported");
        let test = report[at..].lines().nth(2).expect("its second step");
        assert!(
            test.contains("binds [] (3 rows, one bit of a membership bitset)"),
            "{test}"
        );
    }

    #[test]
    fn the_graph_dashes_negation_and_colors_classes() {
        let text = dot(&compiled(GAME), "t \"quoted\"");
        assert!(
            text.starts_with("digraph \"t \\\"quoted\\\"\" {\n"),
            "{text}"
        );
        assert!(text.contains("[style=dashed]"), "{text}");
        for color in ["lightgrey", "lightblue", "orange"] {
            assert!(text.contains(color), "{color} missing in:\n{text}");
        }
        assert!(text.ends_with("}\n"));
    }
}
