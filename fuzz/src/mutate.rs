//! Token-level mutations of real descriptions: dropped, doubled or swapped
//! tokens, unbalanced parentheses, renamed or unbound variables, changed
//! arities, swapped keywords, an added `not`, deeper function terms, a
//! repeated rule, truncation and odd bytes.

use rand::rngs::StdRng;
use rand::RngExt;

/// The words of GDL a keyword swap chooses from.
const KEYWORDS: &[&str] = &[
    "role", "init", "true", "does", "next", "legal", "goal", "terminal", "distinct", "not", "or",
    "<=", "base", "input",
];

/// Byte strings inserted as odd bytes.
const ODD: &[&[u8]] = &[
    b"\0",
    b"\xff",
    b"\xc3",
    "é".as_bytes(),
    "\u{202e}".as_bytes(),
    b"|",
    b"\"",
    b"#",
    b";",
    b"\r",
    b"99999999999999999999999",
    b"?",
    b"(?",
];

/// The tokens of a KIF text: `(`, `)` and words (comments dropped).
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split(';').next().unwrap_or("");
        let spaced = line.replace('(', " ( ").replace(')', " ) ");
        out.extend(spaced.split_whitespace().map(str::to_string));
    }
    out
}

/// Tokens back to text: one top-level form per line.
pub fn render(tokens: &[String]) -> String {
    let mut out = String::new();
    let mut depth = 0i64;
    for t in tokens {
        if !out.is_empty() && !out.ends_with('\n') && !out.ends_with('(') && t != ")" {
            out.push(' ');
        }
        out.push_str(t);
        match t.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth <= 0 {
                    out.push('\n');
                }
            }
            _ => {}
        }
    }
    out
}

/// A mutant of `text`: 1–3 mutations, and the names of those applied.
pub fn mutant(text: &str, rng: &mut StdRng) -> (Vec<u8>, Vec<&'static str>) {
    let mut toks = tokens(text);
    let mut names = Vec::new();
    let mut byte_level = Vec::new();
    for _ in 0..rng.random_range(1..=3) {
        let kind = rng.random_range(0..14);
        if kind >= 12 {
            byte_level.push(kind);
            continue;
        }
        if toks.is_empty() {
            break;
        }
        names.push(token_mutation(&mut toks, kind, rng));
    }
    let mut bytes = render(&toks).into_bytes();
    for kind in byte_level {
        if kind == 12 {
            bytes.truncate(rng.random_range(0..=bytes.len()));
            names.push("truncate");
        } else {
            let at = rng.random_range(0..=bytes.len());
            let odd = ODD[rng.random_range(0..ODD.len())];
            bytes.splice(at..at, odd.iter().copied());
            names.push("odd bytes");
        }
    }
    (bytes, names)
}

/// Applies token mutation `kind` (0..12); returns its name.
fn token_mutation(toks: &mut Vec<String>, kind: u32, rng: &mut StdRng) -> &'static str {
    let at = rng.random_range(0..toks.len());
    match kind {
        0 => {
            toks.remove(at);
            "drop token"
        }
        1 => {
            toks.insert(at, toks[at].clone());
            "double token"
        }
        2 => {
            let paren = if rng.random_bool(0.5) { "(" } else { ")" };
            toks.insert(at, paren.to_string());
            "unbalance"
        }
        3 => rename_variable(toks, rng),
        4 => change_arity(toks, rng),
        5 => {
            let keyword = KEYWORDS[rng.random_range(0..KEYWORDS.len())];
            let sites: Vec<usize> = positions(toks, |t| KEYWORDS.contains(&t));
            let site = sites.get(rng.random_range(0..sites.len().max(1))).copied();
            toks[site.unwrap_or(at)] = keyword.to_string();
            "swap keyword"
        }
        6 => wrap(toks, rng, "not", 1),
        7 => {
            let depth = rng.random_range(1..=40);
            wrap(toks, rng, "f", depth)
        }
        8 => {
            let other = rng.random_range(0..toks.len());
            toks.swap(at, other);
            "swap tokens"
        }
        9 => repeat_form(toks, rng),
        10 => {
            let words = positions(toks, |t| t != "(" && t != ")");
            if let Some(&w) = words.get(rng.random_range(0..words.len().max(1))) {
                toks[w] = ["?x", "0", "-1", "()", "?", "terminal"][rng.random_range(0..6)].into();
            }
            "replace word"
        }
        _ => {
            let form = rng.random_range(0..toks.len());
            toks.truncate(form);
            "truncate tokens"
        }
    }
}

fn positions(toks: &[String], keep: impl Fn(&str) -> bool) -> Vec<usize> {
    (0..toks.len()).filter(|&i| keep(&toks[i])).collect()
}

/// One occurrence of a variable renamed (now unbound), or all of a
/// variable's occurrences turned into another variable or a constant.
fn rename_variable(toks: &mut [String], rng: &mut StdRng) -> &'static str {
    let vars = positions(toks, |t| t.starts_with('?'));
    let Some(&at) = vars.get(rng.random_range(0..vars.len().max(1))) else {
        return "rename variable (none)";
    };
    if rng.random_bool(0.5) {
        toks[at] = "?unbound".to_string();
        "unbind variable"
    } else {
        let old = toks[at].clone();
        let new = if rng.random_bool(0.5) { "?x" } else { "c" };
        for t in toks.iter_mut().filter(|t| **t == old) {
            *t = new.to_string();
        }
        "rename variable"
    }
}

/// An argument added after, or removed from, some compound's name.
fn change_arity(toks: &mut Vec<String>, rng: &mut StdRng) -> &'static str {
    let heads = positions(toks, |t| t == "(");
    let Some(&open) = heads.get(rng.random_range(0..heads.len().max(1))) else {
        return "change arity (none)";
    };
    let arg = open + 2;
    if arg > toks.len() {
        return "change arity (none)";
    }
    if rng.random_bool(0.5) || arg == toks.len() || toks[arg] == ")" || toks[arg] == "(" {
        toks.insert(arg, "extra".to_string());
    } else {
        toks.remove(arg);
    }
    "change arity"
}

/// The compound starting at a random `(` wrapped `depth` times in
/// `(name …)`.
fn wrap(toks: &mut Vec<String>, rng: &mut StdRng, name: &str, depth: usize) -> &'static str {
    let opens = positions(toks, |t| t == "(");
    let Some(&open) = opens.get(rng.random_range(0..opens.len().max(1))) else {
        return "wrap (none)";
    };
    let close = matching(toks, open).unwrap_or(toks.len());
    toks.splice(close..close, std::iter::repeat_n(")".to_string(), depth));
    let prefix: Vec<String> = (0..depth)
        .flat_map(|_| ["(".to_string(), name.to_string()])
        .collect();
    toks.splice(open..open, prefix);
    if name == "not" {
        "add not"
    } else {
        "nest function"
    }
}

/// The index just past the `)` matching the `(` at `open`.
fn matching(toks: &[String], open: usize) -> Option<usize> {
    let mut depth = 0i64;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// A top-level form repeated at the end, its variables renamed.
fn repeat_form(toks: &mut Vec<String>, rng: &mut StdRng) -> &'static str {
    let starts: Vec<usize> = {
        let mut depth = 0i64;
        let mut starts = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            if t == "(" {
                if depth == 0 {
                    starts.push(i);
                }
                depth += 1;
            } else if t == ")" {
                depth -= 1;
            }
        }
        starts
    };
    let Some(&start) = starts.get(rng.random_range(0..starts.len().max(1))) else {
        return "repeat rule (none)";
    };
    let end = matching(toks, start).unwrap_or(toks.len());
    let copy: Vec<String> = toks[start..end]
        .iter()
        .map(|t| {
            if t.starts_with('?') {
                format!("{t}2")
            } else {
                t.clone()
            }
        })
        .collect();
    toks.extend(copy);
    "repeat rule"
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn tokens_round_trip_through_render() {
        let text = "(role x) ; comment\n(<= (legal x (m ?a)) (true (c ?a)))\n";
        let toks = tokens(text);
        assert_eq!(toks.len(), 22);
        assert_eq!(
            render(&toks),
            "(role x)\n(<= (legal x (m ?a)) (true (c ?a)))\n"
        );
    }

    #[test]
    fn mutants_differ_and_are_reproducible() {
        let text = "(role x) (init (c 1)) (<= (legal x (m ?a)) (true (c ?a)))";
        let mut changed = 0;
        for seed in 0..50 {
            let a = mutant(text, &mut StdRng::seed_from_u64(seed));
            let b = mutant(text, &mut StdRng::seed_from_u64(seed));
            assert_eq!(a, b);
            changed += usize::from(a.0 != render(&tokens(text)).into_bytes());
        }
        assert!(changed > 40, "{changed} of 50 mutants changed the text");
    }
}
