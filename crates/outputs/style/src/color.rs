//! Colours: the trace's own, else a stable palette.

use std::collections::{HashMap, HashSet};

use trama_sim::{Model, TypeId, TypeKind};

/// How many entries of [`PALETTE`] a name's hash chooses among; the
/// others are taken only when these are all taken by values of one kind.
const HASHED: usize = 64;

/// A palette of well separated colours, in the order of a farthest-point
/// walk in CIELAB: from `#4e79a7`, each entry is the sRGB colour (of a
/// grid of 25 levels per channel, lightness L* in [40, 85], chroma C* in
/// [20, 80]: neither near white, black nor grey) farthest from all the
/// entries before it. The first [`HASHED`] entries are at least 20 ΔE*ab
/// apart, all 128 at least 14.
const PALETTE: [&str; 128] = [
    "#4e79a7", "#f4ca20", "#f42a55", "#00ea9f", "#ff80ff", "#80552a", "#2075ff", "#ffb5ca",
    "#4a8000", "#40dfea", "#d4d495", "#ff802a", "#aa3575", "#206a55", "#95ea55", "#bfaaff",
    "#804aaa", "#ea806a", "#958000", "#aad4ff", "#8a6075", "#b52a0b", "#6abf95", "#009fff",
    "#ffbf6a", "#b50b9f", "#ff3595", "#9fb500", "#75804a", "#bf9580", "#00b540", "#aa3540",
    "#aa6000", "#008040", "#ff80ca", "#95ca6a", "#aa75ff", "#3560b5", "#559faa", "#f46a8a",
    "#df9500", "#b575b5", "#00b5ea", "#dfd460", "#20eaca", "#aa9fca", "#ffca9f", "#b59555",
    "#ff604a", "#bf0055", "#6a558a", "#bf6a75", "#ffb5f4", "#aadfca", "#60aa00", "#8080ea",
    "#604aca", "#006a80", "#ff55ca", "#15b575", "#959f40", "#75ea80", "#bf55b5", "#aa4a2a",
    "#00aa9f", "#606a0b", "#f49555", "#ca8af4", "#75aaea", "#6a9580", "#aa4aca", "#80aa6a",
    "#aadf9f", "#8a6055", "#ca158a", "#ffaa9f", "#df80aa", "#bfdf60", "#bfaa15", "#406a2a",
    "#eacaea", "#409f40", "#8080ca", "#b57540", "#aaaa80", "#d4602a", "#bf8a9f", "#80600b",
    "#bf0b2a", "#df5555", "#95d4df", "#ca9535", "#954a40", "#158aff", "#75eaaa", "#9f5580",
    "#408a60", "#ea9f75", "#ff9fff", "#df4a8a", "#008a00", "#80aaca", "#3580ca", "#95408a",
    "#aa4060", "#f44075", "#008080", "#00ea80", "#d4d42a", "#80aa35", "#dfbf75", "#bf7560",
    "#4a55bf", "#f48a95", "#8a9500", "#b5bfff", "#0b7515", "#556a4a", "#8a7555", "#ffbf40",
    "#75dfca", "#809fff", "#60d4f4", "#6a602a", "#95759f", "#6aca75", "#6abf4a", "#d47500",
];

/// The colour of a name: its Pajé colour (`"r g b"` in [0, 1]) when it
/// has one, else a palette entry chosen by a hash of the name (the same
/// name always gets the same colour). A trace's values take theirs from
/// [`value_colors`].
pub fn color(pajé: &[u8], name: &[u8]) -> String {
    match parse_paje(pajé) {
        Some(c) => c,
        None => palette(name),
    }
}

/// The FNV-1a hash of `name`: stable across runs and platforms.
fn hash(name: &[u8]) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in name {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h as usize
}

/// The palette's entry for `name`: one of the first [`HASHED`], chosen
/// by its hash.
fn palette(name: &[u8]) -> String {
    PALETTE[hash(name) % HASHED].to_string()
}

/// The palette slot of `name` among the slots `taken`: its hashed slot
/// when free, else the next free one of the first [`HASHED`], else the
/// first free one of the others from an offset its hash gives, else (all
/// taken) its hashed slot.
fn free_slot(name: &[u8], taken: &[bool; PALETTE.len()]) -> usize {
    let h = hash(name);
    let rest = PALETTE.len() - HASHED;
    (0..HASHED)
        .map(|k| (h + k) % HASHED)
        .chain((0..rest).map(|k| HASHED + (h + k) % rest))
        .find(|&s| !taken[s])
        .unwrap_or(h % HASHED)
}

/// The colour of every value of `m`, by [`ValueId`]: one per value, the
/// same in every picture, the viewer's page and a stream's player. A
/// value's Pajé colour when it has one, else a palette entry: that of its
/// name's hash, unless a value of the same kind (state, link, event…)
/// defined before it took that entry, then the next entry no such value
/// took — the values of a kind get distinct colours (up to the palette's
/// 128), the most separated first. A value whose name a value of another
/// type of its kind already has shares its colour (one legend entry); two
/// values of one type called `compute` get two colours (their legend
/// entries tell them apart by [`Model::value_labels`]). A value's colour
/// depends only on it and the values defined before it, so a stream's
/// values keep theirs as more come.
///
/// [`ValueId`]: trama_sim::ValueId
pub fn value_colors(m: &Model) -> Vec<String> {
    shared_value_colors(&[m]).pop().unwrap_or_default()
}

/// The colours of the values of several runs, by run and [`ValueId`], as
/// [`value_colors`] gives them to the values of all the runs one after
/// the other: a value of a later run named as one of an earlier run (of
/// the same kind) has its colour, so that two runs compared
/// (`trama view A B`) show one name in one colour; the first run's colours
/// are its own.
///
/// [`ValueId`]: trama_sim::ValueId
pub fn shared_value_colors(models: &[&Model]) -> Vec<Vec<String>> {
    let mut taken: HashMap<TypeKind, [bool; PALETTE.len()]> = HashMap::new();
    let mut slot_of: HashMap<(TypeKind, &[u8]), usize> = HashMap::new();
    let mut seen: HashSet<(usize, TypeId, &[u8])> = HashSet::new();
    let mut out = Vec::with_capacity(models.len());
    for (run, m) in models.iter().enumerate() {
        let colors = m
            .values
            .iter()
            .map(|v| {
                let name = m.str(v.name);
                let name = match name {
                    [b'"', inner @ .., b'"'] => inner,
                    _ => name,
                };
                let again = !seen.insert((run, v.ty, name));
                if let Some(c) = parse_paje(m.str(v.color)) {
                    return c;
                }
                let kind = m.ty(v.ty).kind;
                let taken = taken.entry(kind).or_insert([false; PALETTE.len()]);
                let slot = match slot_of.get(&(kind, name)) {
                    Some(&s) if !again => s,
                    _ => free_slot(name, taken),
                };
                taken[slot] = true;
                slot_of.entry((kind, name)).or_insert(slot);
                PALETTE[slot].to_string()
            })
            .collect();
        out.push(colors);
    }
    out
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

    /// CIELAB (D65) of `#rrggbb`.
    fn lab(c: &str) -> [f64; 3] {
        let lin = |i: usize| {
            let x = u8::from_str_radix(&c[i..i + 2], 16).unwrap() as f64 / 255.0;
            if x <= 0.04045 {
                x / 12.92
            } else {
                ((x + 0.055) / 1.055).powf(2.4)
            }
        };
        let (r, g, b) = (lin(1), lin(3), lin(5));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| {
            if t > 216.0 / 24389.0 {
                t.cbrt()
            } else {
                (24389.0 / 27.0 * t + 16.0) / 116.0
            }
        };
        [
            116.0 * f(y) - 16.0,
            500.0 * (f(x) - f(y)),
            200.0 * (f(y) - f(z)),
        ]
    }

    /// The smallest ΔE*ab between two of `colors`.
    fn closest(colors: &[&str]) -> f64 {
        let labs: Vec<[f64; 3]> = colors.iter().map(|c| lab(c)).collect();
        let mut min = f64::INFINITY;
        for (i, a) in labs.iter().enumerate() {
            for b in &labs[i + 1..] {
                let d = (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt();
                min = min.min(d);
            }
        }
        min
    }

    /// regression: the palette had 20 entries, some of them close (light
    /// and dark of one hue); its hashed entries are now far apart, and the
    /// rest still apart.
    #[test]
    fn palette_entries_are_well_separated() {
        assert!(
            closest(&PALETTE[..HASHED]) >= 20.0,
            "{}",
            closest(&PALETTE[..HASHED])
        );
        assert!(closest(&PALETTE) >= 14.0, "{}", closest(&PALETTE));
        let mut all = PALETTE.to_vec();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), PALETTE.len());
    }
}
