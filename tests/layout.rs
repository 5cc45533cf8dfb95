//! The code's shape, checked: data flows one way. Reads every `src/**/*.rs` (up to its
//! `#[cfg(test)]` module), collects the `crate::` and `super::` paths it uses, and asserts that
//! - no module imports another that, directly or not, imports it back (no cycle, at any depth of
//!   the module tree), and
//! - no stage imports a front door (`cli`, `krm`): only `main.rs` and the front doors do;
//! - every module opens with a `//!` line that says what it takes and gives.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test that cannot go on fails with the message")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const FRONT_DOORS: [&str; 2] = ["cli", "krm"];

/// Module path (`resolve::entry`, `` for lib.rs) -> source text without its tests.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                let mut next = prefix.to_vec();
                next.push(p.file_name().unwrap().to_string_lossy().to_string());
                walk(&p, &next, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let mut path = prefix.to_vec();
                if name != "mod" && name != "lib" {
                    path.push(name.clone());
                }
                if prefix.is_empty() && name == "main" {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                let code = match text.find("#[cfg(test)]") {
                    Some(i) => text[..i].to_string(),
                    None => text,
                };
                out.insert(path.join("::"), code);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &[], &mut out);
    out
}

/// The modules a source text uses, resolved against the module it belongs to.
fn uses(module: &str, text: &str, all: &BTreeSet<String>) -> BTreeSet<String> {
    let here: Vec<&str> = if module.is_empty() { vec![] } else { module.split("::").collect() };
    let mut out = BTreeSet::new();
    // Every maximal path made of identifiers and `::`, with what starts it.
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        if is_ident(bytes[i]) && (i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            let start = i;
            while i < bytes.len() && (is_ident(bytes[i]) || (bytes[i] == b':' && bytes.get(i + 1) == Some(&b':'))) {
                i += if bytes[i] == b':' { 2 } else { 1 };
            }
            let path = &text[start..i];
            let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            let resolved: Option<Vec<String>> = match parts.first().copied() {
                Some("crate") => Some(parts[1..].iter().map(|s| s.to_string()).collect()),
                Some("super") => {
                    let mut base: Vec<String> = here.iter().map(|s| s.to_string()).collect();
                    let mut rest = &parts[..];
                    while rest.first() == Some(&"super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    base.extend(rest.iter().map(|s| s.to_string()));
                    Some(base)
                }
                // A path into a child module of this one (`entry::resolve_entry` in resolve/mod.rs).
                Some(first) if (parts.len() > 1 || path.ends_with("::")) && all.contains(&join(&here, first)) => {
                    let mut base: Vec<String> = here.iter().map(|s| s.to_string()).collect();
                    base.extend(parts.iter().map(|s| s.to_string()));
                    Some(base)
                }
                _ => None,
            };
            if let Some(mut p) = resolved {
                // The longest prefix that is a module.
                while !p.is_empty() && !all.contains(&p.join("::")) {
                    p.pop();
                }
                let target = p.join("::");
                if target != module {
                    out.insert(target);
                }
            }
        } else {
            i += 1;
        }
    }
    // `use super::{a, b}` and `use crate::x::{y, z}` groups: the names inside the braces.
    for (prefix, base) in [("use super::{", here.len().saturating_sub(1)), ("use crate::{", 0)] {
        for group in text.split(prefix).skip(1) {
            let inner = group.split('}').next().unwrap_or_default();
            for name in inner.split(',').map(|n| n.trim().split("::").next().unwrap_or_default().trim()).filter(|n| !n.is_empty()) {
                let parent: Vec<String> = here[..base].iter().map(|s| s.to_string()).collect();
                let mut p = parent.clone();
                p.push(name.to_string());
                // A child module, or an item of the parent module itself.
                let target = if all.contains(&p.join("::")) { p.join("::") } else { parent.join("::") };
                if target != module {
                    out.insert(target);
                }
            }
        }
    }
    out.remove("");
    out
}

fn join(here: &[&str], name: &str) -> String {
    let mut p: Vec<&str> = here.to_vec();
    p.push(name);
    p.join("::")
}

/// Code without comments (doc links are not imports) and visibility paths (`pub(super)`).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default().replace("pub(super)", "pub").replace("pub(crate)", "pub"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let names: BTreeSet<String> = mods.keys().cloned().collect();
    mods.iter().map(|(m, text)| (m.clone(), uses(m, &code_of(text), &names))).collect()
}

/// The graph of the top-level modules (`fit`, `queues`, `validate`, ...): a module's imports are
/// those of every file under it, to other top-level modules.
fn top_level_graph() -> BTreeMap<String, BTreeSet<String>> {
    let top = |m: &str| m.split("::").next().unwrap_or_default().to_string();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, deps) in graph() {
        let from = top(&m);
        let to = out.entry(from.clone()).or_default();
        to.extend(deps.iter().map(|d| top(d)).filter(|d| *d != from && !d.is_empty()));
    }
    out
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    for (what, g) in [("module", graph()), ("top-level module", top_level_graph())] {
        let cycles = cycles(&g);
        assert!(cycles.is_empty(), "{what} import cycles:\n{}", cycles.join("\n"));
    }
}

/// Every cycle of `g`, as the path that closes it.
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut cycles = Vec::new();
    for start in g.keys() {
        // Depth-first search for a path back to `start`.
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for next in g.get(&node).into_iter().flatten() {
                if next == start {
                    cycles.push(format!("{} -> {start}", path.join(" -> ")));
                } else if seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    cycles.sort();
    cycles.dedup();
    cycles
}

#[test]
fn stages_never_import_a_front_door() {
    let g = graph();
    let mut bad = Vec::new();
    for (m, deps) in &g {
        let top = m.split("::").next().unwrap_or_default();
        if FRONT_DOORS.contains(&top) || m.is_empty() {
            continue;
        }
        for d in deps {
            if FRONT_DOORS.contains(&d.split("::").next().unwrap_or_default()) {
                bad.push(format!("{m} imports {d}"));
            }
        }
    }
    assert!(bad.is_empty(), "stages importing a front door:\n{}", bad.join("\n"));
}

#[test]
fn the_graph_is_not_empty_and_finds_known_edges() {
    // The scan must see imports, or the tests above would pass on nothing.
    let g = graph();
    assert!(g["pipeline"].contains("resolve"), "{:?}", g["pipeline"]);
    assert!(g["cli::render"].contains("pipeline"), "{:?}", g["cli::render"]);
    assert!(g["resolve::entry"].iter().any(|d| d.starts_with("resolve::")), "{:?}", g["resolve::entry"]);
    let names: BTreeSet<String> = g.keys().cloned().collect();
    let known: BTreeSet<String> = ["a".into(), "a::b".into(), "a::c".into(), "e".into()].into_iter().chain(names).collect();
    let found = uses("a::b", "use super::{c, Item};\nuse crate::e::f;", &known);
    assert_eq!(found, ["a".to_string(), "a::c".to_string(), "e".to_string()].into_iter().collect::<BTreeSet<_>>());
}

#[test]
fn every_module_says_what_it_takes_and_gives() {
    let missing: Vec<String> = modules()
        .into_iter()
        .filter(|(_, text)| !text.trim_start().starts_with("//!"))
        .map(|(m, _)| if m.is_empty() { "lib".into() } else { m })
        .collect();
    assert!(missing.is_empty(), "modules without a `//!` line: {missing:?}");
}
