//! The server's modules as routes → handlers → replies, read from the
//! sources: which module names which through `crate::` paths (use lines
//! and paths in code; comments and unit tests left out). The crate root,
//! `lib.rs`, is a node too (`lib`): it names the modules it declares, and a
//! module naming one of the root's items (`crate::Item`, a re-export
//! included) names the root.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The handlers' modules.
const HANDLERS: [&str; 10] = [
    "timeline",
    "entity",
    "search",
    "stats",
    "frames",
    "meta",
    "assets",
    "why",
    "selection",
    "diff",
];

/// Per module of `src/`, the modules it names (`lib` for the root's items;
/// the root names the modules it declares).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("src/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = path
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            files.insert(name, std::fs::read_to_string(&path).expect("a source"));
        }
    }
    let modules: BTreeSet<String> = files.keys().filter(|m| *m != "lib").cloned().collect();
    let mut out = BTreeMap::new();
    for (name, text) in &files {
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut names = BTreeSet::new();
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or("");
            if name == "lib" {
                names.extend(declared(line));
            }
            for (i, _) in line.match_indices("crate::") {
                let rest = &line[i + "crate::".len()..];
                let words: Vec<&str> = match rest.strip_prefix('{') {
                    Some(list) => list.split('}').next().unwrap_or("").split(',').collect(),
                    None => vec![rest],
                };
                for w in words {
                    let w: String = w
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if w.is_empty() || w == *name {
                        continue;
                    }
                    names.insert(if modules.contains(&w) {
                        w
                    } else {
                        "lib".into()
                    });
                }
            }
        }
        out.insert(name.clone(), names);
    }
    out
}

/// The module a line of the root declares (`mod x;`, `pub mod x;`, …).
fn declared(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "mod")?;
    let name = words.get(at + 1)?.strip_suffix(';')?;
    Some(name.to_string())
}

/// The modules on a circle of `graph` (the root included), if any.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            return Some(path[i..].to_vec());
        }
        if !done.insert(m.to_string()) {
            return None;
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

/// Regression: the root held the shared state and the data types of the
/// modules it declares (meta, animation, stream, blocks, options), so every
/// handler imported the root back and they all formed one import circle.
#[test]
fn no_module_imports_the_crate_root_back() {
    let g = graph();
    assert!(!g["lib"].is_empty(), "the root declares no module: {g:#?}");
    let back: Vec<&String> = g
        .iter()
        .filter(|(m, names)| *m != "lib" && names.contains("lib"))
        .map(|(m, _)| m)
        .collect();
    assert!(
        back.is_empty(),
        "these modules import the root back: {back:?}"
    );
    assert_eq!(circle(&g), None, "an import circle among {g:#?}");
}

/// Regression: the router lived in the guard and handlers imported the
/// API module's 400 reply, so nine files formed an import circle.
#[test]
fn server_modules_form_no_import_circle() {
    let g = graph();
    assert_eq!(circle(&g), None, "an import circle among {g:#?}");
    for h in HANDLERS {
        let named: Vec<&String> = g[h]
            .iter()
            .filter(|m| !matches!(m.as_str(), "lib" | "reply" | "params"))
            .filter(|m| HANDLERS.contains(&m.as_str()) || *m == "routes" || *m == "guard")
            .collect();
        assert!(named.is_empty(), "the handler {h} names {named:?}");
    }
    // Only the server's start-up (and the root, which declares it) names
    // the router.
    for (m, names) in &g {
        if !matches!(m.as_str(), "routes" | "lib" | "server") {
            assert!(!names.contains("routes"), "{m} names the routes");
        }
    }
    let guard = &g["guard"];
    assert!(
        guard.iter().all(|m| m == "reply"),
        "the guard names {guard:?}"
    );
    let routed: BTreeSet<&str> = HANDLERS.into_iter().chain(["stream"]).collect();
    let named: BTreeSet<&str> = g["routes"].iter().map(String::as_str).collect();
    assert!(routed.is_subset(&named), "routes names {named:?}");
}
