//! The command line's place in the layers: it turns flags into the
//! libraries' options, and reaches the formats only through `trama-open`.

use std::path::Path;

fn cli() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Regression: the command line depended on the format crates (it opened
/// `.ptb` files itself, wrote merge sources' records, converted Akypuera's
/// traces); they are reached through `trama-open` now.
#[test]
fn the_command_line_depends_on_no_format_crate() {
    let text = std::fs::read_to_string(cli().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = text.parse().unwrap();
    let deps = manifest["dependencies"].as_table().unwrap();
    assert!(deps.contains_key("trama-open"));
    for format in [
        "trama-paje",
        "trama-ptb",
        "trama-otf2",
        "trama-rastro",
        "trama-sources",
    ] {
        assert!(!deps.contains_key(format), "{format}");
    }
}

/// Regression: the command line held work of the libraries (the viewer's
/// reading policy, the merge's output, the clock measurement's file) and
/// grew to 2,811 lines; it only translates flags now.
#[test]
fn the_command_line_stays_under_1800_lines() {
    let mut lines = 0;
    let mut dirs = vec![cli().join("src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                lines += std::fs::read_to_string(&p).unwrap().lines().count();
            }
        }
    }
    assert!(lines < 1800, "{lines} lines in crates/apps/cli/src");
}
