//! The viewer's place in the layers: it takes a trace as `trama-open`
//! decided to read it, and draws like the pictures without them.

/// The names of the `[dependencies]` of the viewer's manifest.
fn dependencies() -> Vec<String> {
    let manifest = include_str!("../Cargo.toml");
    let start = manifest.find("[dependencies]").unwrap() + "[dependencies]".len();
    let section = &manifest[start..];
    let section = &section[..section.find("\n[").unwrap_or(section.len())];
    section
        .lines()
        .filter_map(|l| l.split(['=', '.']).next())
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// Regression: the viewer read `.ptb` files through `trama-ptb` itself
/// and pulled `trama-views` (and its rasterizer) for two functions; it
/// reads by blocks through `trama_open::Windowed` and colours rows with
/// `trama-style` now.
#[test]
fn the_viewer_depends_on_neither_the_ptb_reader_nor_the_pictures() {
    let deps = dependencies();
    assert!(deps.iter().any(|d| d == "trama-open"), "{deps:?}");
    assert!(deps.iter().any(|d| d == "trama-style"), "{deps:?}");
    for crate_ in ["trama-ptb", "trama-views"] {
        assert!(!deps.iter().any(|d| d == crate_), "{crate_} in {deps:?}");
    }
}
