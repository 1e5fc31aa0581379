//! Colours: the trace's own, else a stable palette.

use std::collections::HashMap;

use trama_sim::{Model, TypeId};

/// A palette of distinct, readable colours (Tableau 20 order).
const PALETTE: [&str; 20] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#a0cbe8", "#ffbe7d", "#ff9d9a", "#86bcb6", "#8cd17d", "#f1ce63",
    "#d4a6c8", "#fabfd2", "#d7b5a6", "#79706e",
];

/// The colour of a name: its Pajé colour (`"r g b"` in [0, 1]) when it
/// has one, else a palette entry chosen by a hash of the name (the same
/// name always gets the same colour). A trace's values take theirs from
/// [`value_colors`].
pub fn color(pajé: &[u8], name: &[u8]) -> String {
    match parse_paje(pajé) {
        Some(c) => c,
        None => palette(name, 0),
    }
}

/// The palette's entry for `name` (FNV-1a: stable across runs and
/// platforms), `step` entries further.
fn palette(name: &[u8], step: u32) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for &b in name {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    let n = PALETTE.len() as u32;
    PALETTE[((h % n + step % n) % n) as usize].to_string()
}

/// The colour of every value of `m`, by [`ValueId`]: one per value, the
/// same in every picture, the viewer's page and a stream's player. A
/// value's Pajé colour when it has one, else the palette's entry for its
/// name, moved one entry further for each value of its type defined
/// before it with the same name (two values called `compute` get two
/// colours; their legend entries tell them apart by
/// [`Model::value_labels`]). A value's colour depends only on it and the
/// values defined before it, so a stream's values keep theirs as more come.
pub fn value_colors(m: &Model) -> Vec<String> {
    let mut seen: HashMap<(TypeId, &[u8]), u32> = HashMap::new();
    m.values
        .iter()
        .map(|v| {
            let name = m.str(v.name);
            let name = match name {
                [b'"', inner @ .., b'"'] => inner,
                _ => name,
            };
            let step = seen.entry((v.ty, name)).or_default();
            let c = match parse_paje(m.str(v.color)) {
                Some(c) => c,
                None => palette(name, *step),
            };
            *step += 1;
            c
        })
        .collect()
}

/// The colour of a line on white: the Pajé colour unless it is too light
/// to be seen (SimGrid gives its variables `"1 1 1"`), else the palette's
/// for the name.
pub fn line_color(pajé: &[u8], name: &[u8]) -> String {
    match parse_paje(pajé) {
        Some(c) if !too_light(&c) => c,
        _ => color(b"", name),
    }
}

fn too_light(c: &str) -> bool {
    let v = |i: usize| u8::from_str_radix(&c[i..i + 2], 16).unwrap_or(0) as f64 / 255.0;
    c.len() == 7 && 0.2126 * v(1) + 0.7152 * v(3) + 0.0722 * v(5) > 0.85
}

fn parse_paje(c: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(c).ok()?.trim().trim_matches('"');
    let v: Vec<f64> = s
        .split_whitespace()
        .map(|x| x.parse::<f64>().ok())
        .collect::<Option<_>>()?;
    if v.len() != 3 || v.iter().any(|x| !(0.0..=1.0).contains(x)) {
        return None;
    }
    let b = |x: f64| (x * 255.0).round() as u8;
    Some(format!("#{:02x}{:02x}{:02x}", b(v[0]), b(v[1]), b(v[2])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paje_colours_and_stable_palette() {
        assert_eq!(color(b"1.0 0.0 0.5", b"x"), "#ff0080");
        assert_eq!(color(b"\"0 0 0\"", b"x"), "#000000");
        assert_eq!(color(b"", b"Compute"), color(b"", b"Compute"));
        assert_eq!(color(b"red", b"Compute"), color(b"", b"Compute"));
        assert!(color(b"", b"A").starts_with('#'));
        assert_eq!(line_color(b"1 1 1", b"speed"), color(b"", b"speed"));
        assert_eq!(line_color(b"1 0 0", b"speed"), "#ff0000");
    }
}
