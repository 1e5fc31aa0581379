//! The page's files, embedded in the binary: nothing is read from the
//! disk or fetched from the network.
//!
//! The script is ES modules (`app.js` imports the others), each with
//! one-line imports `import { a, b as c } from "./x.js";` and exports
//! declared where they are defined (`export function`, `export async
//! function`, `export class`, `export const` of one name). An offline page
//! (`crate::offline`) inlines them as one script, [`bundle`], in which each
//! module keeps its own scope:
//!
//! ```text
//! const __trama_modules = {};
//! // ---- x.js ----
//! __trama_modules["x.js"] = (() => {
//! const { a, b: c } = __trama_modules["y.js"];   // each import line
//! …the module, `export ` dropped…
//! return { f, g };                               // its exports
//! })();
//! ```
//!
//! The modules come in dependency order (each after those it imports), so
//! each import finds the exports it names.

use axum::extract::Path;
use axum::response::Response;

use crate::reply::{bytes, Error};

const JS: &str = "text/javascript; charset=utf-8";

/// An embedded module of the page's script.
macro_rules! js {
    ($name:literal) => {
        ($name, JS, include_str!(concat!("../assets/", $name)))
    };
}

/// The embedded files: name, MIME type, contents. The modules come in
/// dependency order (each after those it imports).
const FILES: [(&str, &str, &str); 40] = [
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    js!("util.js"),
    js!("decode.js"),
    js!("source.js"),
    js!("tile.js"),
    js!("offline.js"),
    js!("store.js"),
    js!("origin.js"),
    js!("arrange.js"),
    js!("rows.js"),
    js!("bars.js"),
    js!("timeline.js"),
    js!("overlay.js"),
    js!("why.js"),
    js!("cache.js"),
    js!("overview.js"),
    js!("arrows.js"),
    js!("help.js"),
    js!("legend.js"),
    js!("details.js"),
    js!("search.js"),
    js!("waits.js"),
    js!("stats.js"),
    js!("seltable.js"),
    js!("selection.js"),
    js!("controls.js"),
    js!("anim-fit.js"),
    js!("nodes.js"),
    js!("anim-strip.js"),
    js!("player-stream.js"),
    js!("anim-procs.js"),
    js!("anim-matrix.js"),
    js!("anim-kiviat.js"),
    js!("anim-activity.js"),
    js!("anim-mapping.js"),
    js!("anim-graph.js"),
    js!("anim-legend.js"),
    js!("player.js"),
    js!("app.js"),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../assets/app.css"),
    ),
];

/// The page of two runs compared (`trama view A B`): its markup, then its
/// modules in dependency order (`util.js` is the page's); each run is the
/// page above in a frame of its own.
const COMPARE: [(&str, &str, &str); 5] = [
    (
        "compare.html",
        "text/html; charset=utf-8",
        include_str!("../assets/compare.html"),
    ),
    (
        "compare.css",
        "text/css; charset=utf-8",
        include_str!("../assets/compare.css"),
    ),
    js!("lane.js"),
    js!("diffpanel.js"),
    js!("compare.js"),
];

/// `GET /TOKEN/`: the page.
pub(crate) async fn get_index() -> Response {
    bytes(FILES[0].1, FILES[0].2)
}

/// `GET /TOKEN/` of two runs compared: the comparison's page.
pub(crate) async fn get_compare() -> Response {
    bytes(COMPARE[0].1, COMPARE[0].2)
}

/// `GET /TOKEN/FILE`: one of the embedded files, else 404.
pub(crate) async fn get_asset(Path(file): Path<String>) -> Result<Response, Error> {
    match FILES.iter().chain(&COMPARE).find(|f| f.0 == file) {
        Some((_, kind, body)) => Ok(bytes(kind, *body)),
        None => Err(Error::not_found()),
    }
}

/// The embedded file called `name`.
fn file(name: &str) -> &'static str {
    FILES
        .iter()
        .find(|f| f.0 == name)
        .map(|f| f.2)
        .expect("an embedded file")
}

/// The page's style sheet.
pub(crate) fn style() -> &'static str {
    file("app.css")
}

/// The page's markup: what `index.html` has between `<!-- page -->` and
/// `<!-- /page -->` in its body.
pub(crate) fn markup() -> &'static str {
    between_marks(file("index.html"))
}

/// What `html` has between `<!-- page -->` and `<!-- /page -->`.
fn between_marks(html: &'static str) -> &'static str {
    let start = html.find("<!-- page -->").expect("the page is marked");
    let end = html.find("<!-- /page -->").expect("the page is marked");
    &html[start + "<!-- page -->".len()..end]
}

/// The comparison's page for an offline comparison: its markup (what
/// `compare.html` has between `<!-- page -->` and `<!-- /page -->`), its
/// style sheet and its modules as one script (`util.js` first).
pub(crate) fn compare_page() -> (&'static str, &'static str, String) {
    let mut modules = vec![("util.js", file("util.js"))];
    modules.extend(COMPARE.iter().filter(|f| f.1 == JS).map(|f| (f.0, f.2)));
    (
        between_marks(COMPARE[0].2),
        COMPARE[1].2,
        bundle_of(&modules),
    )
}

/// The table of modules in the bundle.
const TABLE: &str = "__trama_modules";

/// The modules as one script (see the module's documentation).
pub(crate) fn bundle() -> String {
    let modules: Vec<(&str, &str)> = FILES
        .iter()
        .filter(|f| f.1 == JS)
        .map(|f| (f.0, f.2))
        .collect();
    bundle_of(&modules)
}

/// `modules` (name, text), in dependency order, as one script in which
/// each keeps its own scope.
fn bundle_of(modules: &[(&str, &str)]) -> String {
    let mut out = format!("const {TABLE} = {{}};\n");
    for (name, body) in modules {
        out.push_str(&format!(
            "// ---- {name} ----\n{TABLE}[\"{name}\"] = (() => {{\n"
        ));
        let mut exports = Vec::new();
        for line in body.lines() {
            if let Some((names, from)) = import(line) {
                out.push_str(&format!("const {{ {names} }} = {TABLE}[\"{from}\"];\n"));
                continue;
            }
            match line.strip_prefix("export ") {
                Some(rest) => {
                    exports.extend(declared(rest));
                    out.push_str(rest);
                }
                None => out.push_str(line),
            }
            out.push('\n');
        }
        out.push_str(&format!("return {{ {} }};\n}})();\n", exports.join(", ")));
    }
    out
}

/// The names (as a destructuring pattern: `b as c` becomes `b: c`) and the
/// module of a line `import { a, b as c } from "./x.js";`.
fn import(line: &str) -> Option<(String, &str)> {
    let rest = line.strip_prefix("import {")?;
    let (names, from) = rest.split_once("} from \"./")?;
    let from = from.strip_suffix("\";")?;
    let names: Vec<String> = names
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| match n.split_once(" as ") {
            Some((a, b)) => format!("{}: {}", a.trim(), b.trim()),
            None => n.to_string(),
        })
        .collect();
    Some((names.join(", "), from))
}

/// The name a declaration (what follows `export `) declares.
fn declared(decl: &str) -> Option<String> {
    let rest = ["async function ", "function ", "class ", "const "]
        .iter()
        .find_map(|k| decl.strip_prefix(k))?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JS modules: name and text.
    fn modules() -> Vec<(&'static str, &'static str)> {
        FILES
            .iter()
            .filter(|f| f.1 == JS)
            .map(|f| (f.0, f.2))
            .collect()
    }

    #[test]
    fn the_bundle_has_every_module_and_no_import_or_export() {
        let b = bundle();
        for (name, kind, _) in &FILES {
            assert_eq!(b.contains(&format!("// ---- {name} ----")), *kind == JS);
        }
        assert!(!b
            .lines()
            .any(|l| l.starts_with("import ") || l.starts_with("export ")));
        // Each module comes after those it imports, which export what it
        // names; every export is of a form the bundle registers.
        let mut exported = std::collections::HashMap::new();
        for (name, body) in modules() {
            assert!(!body.contains(TABLE), "{name} uses the bundle's table");
            for line in body.lines() {
                if line.trim_start().starts_with("import ") {
                    let (names, dep) = import(line)
                        .unwrap_or_else(|| panic!("{name}: an import of another form: {line}"));
                    let theirs: &Vec<String> = exported
                        .get(dep)
                        .unwrap_or_else(|| panic!("{name} imports {dep}, not before it"));
                    for n in names.split(", ") {
                        let n = n.split(':').next().unwrap();
                        assert!(
                            theirs.iter().any(|e| e == n),
                            "{name}: {dep} exports no {n}"
                        );
                    }
                }
                if line.trim_start().starts_with("export ") {
                    assert!(
                        line.starts_with("export ") && declared(&line["export ".len()..]).is_some(),
                        "{name}: an export of another form: {line}"
                    );
                }
            }
            let names: Vec<String> = body
                .lines()
                .filter_map(|l| l.strip_prefix("export ").and_then(declared))
                .collect();
            exported.insert(name, names);
        }
        // The page inlined in a report ends no script early.
        assert!(!b.contains("</script") && !b.contains("<!--"));
        assert!(markup().contains("<canvas id=\"timeline\">"));
        assert!(!markup().contains("<script"));
    }

    /// Regression: the offline bundle joined the modules into one scope, so
    /// two modules could not declare the same top-level name; each module
    /// now has its own scope, and imports (renamed or not) find their
    /// module's exports.
    #[test]
    fn the_bundle_gives_each_module_its_own_scope() {
        let b = bundle_of(&[
            (
                "a.js",
                "const x = 1;\nexport function f() { return x; }\nexport const k = 2;\n",
            ),
            (
                "b.js",
                "import { f, k as kk } from \"./a.js\";\nconst x = 10;\n\
                 export async function g() { return x + f() + kk; }\nexport class C {}\n",
            ),
            (
                "c.js",
                "import { g, C } from \"./b.js\";\nconst x = 100;\n\
                 g().then((v) => console.log(v + x, typeof C));\n",
            ),
        ]);
        assert!(b.contains("__trama_modules[\"a.js\"] = (() => {"));
        assert!(b.contains("const { f, k: kk } = __trama_modules[\"a.js\"];"));
        assert!(b.contains("return { f, k };") && b.contains("return { g, C };"));
        // Run it where Node is installed (the page's own tests need it).
        match std::process::Command::new("node")
            .args(["--input-type=module", "-e", &b])
            .output()
        {
            Ok(out) => {
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(text.trim(), "113 function");
            }
            Err(_) => eprintln!("note: node is not installed: the bundle was not run"),
        }
    }
}
