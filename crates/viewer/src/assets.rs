//! The page's files, embedded in the binary: nothing is read from the
//! disk or fetched from the network.
//!
//! The script is a few ES modules (`app.js` imports the others). An
//! offline page (`crate::offline`) inlines them as one module: [`bundle`]
//! joins them in dependency order, dropping their `import` lines and the
//! `export` keywords, so a module imports only with one-line
//! `import { … } from "./x.js";` and no two modules declare the same
//! top-level name.

use axum::extract::Path;
use axum::response::Response;

use crate::reply::{bytes, Error};

const JS: &str = "text/javascript; charset=utf-8";

/// The embedded files: name, MIME type, contents. The modules come in
/// dependency order (each after those it imports).
const FILES: [(&str, &str, &str); 10] = [
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    ("decode.js", JS, include_str!("../assets/decode.js")),
    ("source.js", JS, include_str!("../assets/source.js")),
    ("tile.js", JS, include_str!("../assets/tile.js")),
    ("offline.js", JS, include_str!("../assets/offline.js")),
    ("nodes.js", JS, include_str!("../assets/nodes.js")),
    ("player.js", JS, include_str!("../assets/player.js")),
    ("waits.js", JS, include_str!("../assets/waits.js")),
    ("app.js", JS, include_str!("../assets/app.js")),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../assets/app.css"),
    ),
];

/// `GET /TOKEN/`: the page.
pub(crate) async fn get_index() -> Response {
    bytes(FILES[0].1, FILES[0].2)
}

/// `GET /TOKEN/FILE`: one of the embedded files, else 404.
pub(crate) async fn get_asset(Path(file): Path<String>) -> Result<Response, Error> {
    match FILES.iter().find(|f| f.0 == file) {
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
    let html = file("index.html");
    let start = html
        .find("<!-- page -->")
        .expect("index.html marks its page");
    let end = html
        .find("<!-- /page -->")
        .expect("index.html marks its page");
    &html[start + "<!-- page -->".len()..end]
}

/// The modules as one script (see the module's documentation).
pub(crate) fn bundle() -> String {
    let mut out = String::new();
    for (name, kind, body) in &FILES {
        if *kind != JS {
            continue;
        }
        out.push_str(&format!("// ---- {name} ----\n"));
        for line in body.lines() {
            if line.starts_with("import ") {
                continue;
            }
            out.push_str(line.strip_prefix("export ").unwrap_or(line));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_has_every_module_and_no_import_or_export() {
        let b = bundle();
        for (name, kind, _) in &FILES {
            assert_eq!(b.contains(&format!("// ---- {name} ----")), *kind == JS);
        }
        assert!(!b
            .lines()
            .any(|l| l.starts_with("import ") || l.starts_with("export ")));
        // No two modules declare the same top-level name (one script).
        let mut names = std::collections::HashMap::new();
        for (name, kind, body) in &FILES {
            if *kind != JS {
                continue;
            }
            for line in body.lines() {
                let line = line.strip_prefix("export ").unwrap_or(line);
                let Some(rest) = ["const ", "let ", "function ", "class ", "async function "]
                    .iter()
                    .find_map(|k| line.strip_prefix(k))
                else {
                    continue;
                };
                let id: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                if let Some(other) = names.insert(id.clone(), *name) {
                    panic!("{id} is declared by {other} and by {name}");
                }
            }
        }
        // Each module comes after those it imports.
        for (i, (name, _, body)) in FILES.iter().enumerate() {
            for line in body.lines().filter(|l| l.starts_with("import ")) {
                let dep = line.rsplit("\"./").next().unwrap().trim_end_matches("\";");
                let at = FILES.iter().position(|f| f.0 == dep);
                assert!(
                    at.is_some_and(|j| j < i),
                    "{name} imports {dep}, not before it"
                );
            }
        }
        // The page inlined in a report ends no script early.
        assert!(!b.contains("</script") && !b.contains("<!--"));
        assert!(markup().contains("<canvas id=\"timeline\">"));
        assert!(!markup().contains("<script"));
    }
}
