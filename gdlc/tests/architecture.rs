//! The layout rules of `docs/ARCHITECTURE.md`, checked on the sources of
//! `gdlc/src`: no file over 1 000 lines, no function over 120 lines, and
//! no module that depends on one that depends back on it (that last also
//! in `player/src`). The parser
//! lalrpop generated is not checked: it is checked against its grammar.
//!
//! Dependencies are read from the text of each module's non-test code: a
//! path through `crate::`, `super::` or `self::`, or through a child module
//! the file declares. A path through the crate root to an item `lib.rs`
//! re-exports counts as a dependency on the module that defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 1000;
const MAX_FN_LINES: usize = 120;

/// Every `.rs` file of the library (the binary's `main.rs` is a crate of
/// its own), with its module path (`crate::compile::emit`).
fn library_modules() -> BTreeMap<String, PathBuf> {
    modules_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// Every `.rs` file of the library whose sources are `src`, with its
/// module path.
fn modules_under(src: &Path) -> BTreeMap<String, PathBuf> {
    let src = src.to_path_buf();
    let mut files = Vec::new();
    collect(&src, &mut files);
    files
        .into_iter()
        .filter(|f| f != &src.join("main.rs") && !is_generated(f))
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            parts.insert(0, "crate".into());
            (parts.join("::"), f)
        })
        .collect()
}

/// A file another tool wrote (the parser lalrpop generated, checked
/// against its grammar instead): its first line says so.
fn is_generated(file: &Path) -> bool {
    let text = std::fs::read_to_string(file).unwrap();
    text.starts_with("// auto-generated: \"lalrpop ")
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code before the first `#[cfg(test)]`, without `//` comments.
fn non_test_code(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap();
    code.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths `crate::a::b`, `super::a`, `self::a` and `child::a` in `code`,
/// as lists of segments (the first being the path's start).
fn paths(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let bytes: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let mut segments = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < bytes.len() && is_ident(bytes[j]) {
                j += 1;
            }
            segments.push(bytes[start..j].iter().collect::<String>());
            if bytes.get(j) == Some(&':') && bytes.get(j + 1) == Some(&':') {
                j += 2;
                if bytes.get(j).is_some_and(|&c| is_ident(c)) {
                    continue;
                }
            }
            break;
        }
        let first = segments[0].as_str();
        if segments.len() > 1
            && (matches!(first, "crate" | "super" | "self") || children.contains(first))
        {
            out.push(segments);
        }
        i = j.max(i + 1);
    }
    out
}

/// The child modules `code` declares (`mod name;`, `pub mod name;`).
fn declared_children(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// The items `lib.rs` re-exports (`pub use module::{A, B};`), by name.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let (module, items) = rest.split_once("::").unwrap();
        let items = items
            .trim_end_matches(';')
            .trim_matches(|c| c == '{' || c == '}');
        for item in items.split(',') {
            out.insert(item.trim().to_string(), format!("crate::{module}"));
        }
    }
    out
}

/// The module a path starting in `module` (a folder module when `is_dir`)
/// refers to: the longest prefix that is a module.
fn resolve(
    module: &str,
    path: &[String],
    modules: &BTreeMap<String, PathBuf>,
    lib_items: &BTreeMap<String, String>,
) -> Option<String> {
    let mut full: Vec<String> = match path[0].as_str() {
        "crate" => vec!["crate".into()],
        "super" => {
            let mut m: Vec<String> = module.split("::").map(String::from).collect();
            m.pop();
            m
        }
        "self" => module.split("::").map(String::from).collect(),
        child => vec![module.to_string(), child.to_string()],
    };
    full.extend(path[1..].iter().cloned());
    let mut full = full
        .join("::")
        .split("::")
        .map(String::from)
        .collect::<Vec<_>>();
    while full.len() > 1 {
        let candidate = full.join("::");
        if modules.contains_key(&candidate) {
            return Some(candidate);
        }
        full.pop();
    }
    (path[0] == "crate")
        .then(|| lib_items.get(path.get(1)?).cloned())
        .flatten()
}

/// The dependency edges between the library's modules.
fn dependencies(modules: &BTreeMap<String, PathBuf>) -> BTreeMap<String, BTreeSet<String>> {
    let lib_items = reexports(&std::fs::read_to_string(&modules["crate"]).unwrap());
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in modules {
        if module == "crate" {
            continue;
        }
        let code = non_test_code(&std::fs::read_to_string(file).unwrap());
        let children = declared_children(&code);
        for path in paths(&code, &children) {
            if let Some(target) = resolve(module, &path, modules, &lib_items) {
                if &target != module && target != "crate" {
                    edges.entry(module.clone()).or_default().insert(target);
                }
            }
        }
    }
    edges
}

/// The modules reachable from `from` along `edges`.
fn reachable(edges: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(m) = stack.pop() {
        for next in edges.get(&m).into_iter().flatten() {
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    seen
}

#[test]
fn no_module_depends_on_one_that_depends_back_on_it() {
    assert_no_cycle(&library_modules(), 50);
}

#[test]
fn no_module_of_the_player_depends_on_one_that_depends_back_on_it() {
    let player = Path::new(env!("CARGO_MANIFEST_DIR")).join("../player/src");
    assert_no_cycle(&modules_under(&player), 10);
}

/// That no module of `modules` depends on one that depends back on it;
/// more than `least` dependencies must be found.
fn assert_no_cycle(modules: &BTreeMap<String, PathBuf>, least: usize) {
    let edges = dependencies(modules);
    assert!(
        edges.values().map(BTreeSet::len).sum::<usize>() > least,
        "the dependencies were not found: {edges:?}"
    );
    let cycles: Vec<String> = edges
        .iter()
        .flat_map(|(m, targets)| targets.iter().map(move |t| (m, t)))
        .filter(|(m, t)| reachable(&edges, t).contains(*m))
        .map(|(m, t)| format!("{m} -> {t} -> ... -> {m}"))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn no_file_is_over_a_thousand_lines() {
    let long: Vec<String> = library_modules()
        .values()
        .map(|f| (f, std::fs::read_to_string(f).unwrap().lines().count()))
        .filter(|&(_, n)| n > MAX_FILE_LINES)
        .map(|(f, n)| format!("{}: {n} lines", f.display()))
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The functions of `text` longer than `max` lines, as `name: lines`: from
/// a line declaring `fn` to the closing brace at its indentation.
fn long_functions(text: &str, max: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let declaration = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "const fn ",
        ]
        .iter()
        .find_map(|p| trimmed.strip_prefix(p));
        let Some(rest) = declaration else { continue };
        if line.ends_with('\\') || !rest.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            continue;
        }
        let close = format!("{indent}}}");
        let end = lines[i..].iter().position(|l| {
            l.starts_with(&close) && !l[close.len()..].starts_with(|c: char| c.is_alphanumeric())
        });
        let bodyless = lines[i..]
            .iter()
            .position(|l| l.contains('{') || l.trim_end().ends_with(';'))
            .is_some_and(|k| !lines[i + k].contains('{'));
        if let (Some(end), false) = (end, bodyless) {
            if end + 1 > max {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.push(format!("{name}: {} lines", end + 1));
            }
        }
    }
    out
}

#[test]
fn no_function_is_over_120_lines() {
    let mut long = Vec::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    for f in files {
        for l in long_functions(&std::fs::read_to_string(&f).unwrap(), MAX_FN_LINES) {
            long.push(format!("{}: {l}", f.display()));
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

#[test]
fn the_measures_see_what_they_measure() {
    let text = "fn short() {\n    1\n}\n\nfn long() {\n".to_string()
        + &"    x();\n".repeat(130)
        + "}\n    fn inner_decl(&self);\n";
    assert_eq!(long_functions(&text, MAX_FN_LINES), ["long: 132 lines"]);
    let children = BTreeSet::from(["emit".to_string()]);
    let found = paths(
        "use crate::compile::program::{Atom}; emit::module(x); super::f(); a::b();",
        &children,
    );
    assert_eq!(found.len(), 3, "{found:?}");
}
