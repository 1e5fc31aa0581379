//! SVG helpers and the PNG rasterizer.

/// Escapes text for SVG.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    o
}

/// Rasterizes an SVG document into a PNG image (pure Rust: resvg).
pub fn svg_to_png(svg: &[u8]) -> Result<Vec<u8>, String> {
    Rasterizer::new()
        .pixmap(svg)?
        .encode_png()
        .map_err(|e| e.to_string())
}

/// Rasterizes SVG documents with the system's fonts, loaded once.
pub(crate) struct Rasterizer {
    opt: resvg::usvg::Options<'static>,
}

impl Rasterizer {
    pub(crate) fn new() -> Rasterizer {
        let mut opt = resvg::usvg::Options::default();
        let db = opt.fontdb_mut();
        db.load_system_fonts();
        hold_fonts(db);
        Rasterizer { opt }
    }

    /// The picture on white.
    pub(crate) fn pixmap(&self, svg: &[u8]) -> Result<resvg::tiny_skia::Pixmap, String> {
        let tree = resvg::usvg::Tree::from_data(svg, &self.opt).map_err(|e| e.to_string())?;
        let size = tree.size().to_int_size();
        let mut pix = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
            .ok_or_else(|| "empty picture".to_string())?;
        pix.fill(resvg::tiny_skia::Color::WHITE);
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::default(),
            &mut pix.as_mut(),
        );
        Ok(pix)
    }

    /// The picture's RGBA bytes (opaque: drawn on white), `w` × `h`.
    pub(crate) fn rgba(&self, svg: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
        let pix = self.pixmap(svg)?;
        if (pix.width(), pix.height()) != (w, h) {
            return Err(format!(
                "a frame of {}×{} pixels, not {w}×{h}",
                pix.width(),
                pix.height()
            ));
        }
        Ok(pix.take())
    }
}

/// Reads into memory, once, the files of the faces the pictures' text is
/// drawn in (`font-family="DejaVu Sans, Arial, sans-serif"`, normal and
/// bold): a face known by its file alone is mapped and unmapped again for
/// every text drawn, which made a recording spend most of its time in
/// the kernel. Other faces (the fallbacks of characters these lack) stay
/// known by their files.
fn hold_fonts(db: &mut resvg::usvg::fontdb::Database) {
    use resvg::usvg::fontdb::{Family, Query, Source, Weight};
    let mut files = std::collections::BTreeSet::new();
    for family in [
        Family::Name("DejaVu Sans"),
        Family::Name("Arial"),
        Family::SansSerif,
    ] {
        for weight in [Weight::NORMAL, Weight::BOLD] {
            let q = Query {
                families: &[family],
                weight,
                ..Query::default()
            };
            if let Some((Source::File(path), _)) = db.query(&q).and_then(|id| db.face_source(id)) {
                files.insert(path);
            }
        }
    }
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let ids: Vec<_> = db
            .faces()
            .filter(|f| matches!(&f.source, Source::File(p) if *p == path))
            .map(|f| f.id)
            .collect();
        for id in ids {
            db.remove_face(id);
        }
        db.load_font_data(bytes);
    }
}

/// Horizontal runs drawn as one stroked path (the stroke's width is the
/// runs' height), each after the first on its line a relative move: a
/// few bytes per run.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    /// The path data.
    pub(crate) d: String,
    /// Line (in tenths of a pixel) and x where the pen is.
    pen: Option<(i64, i64)>,
}

impl Runs {
    /// A run of `w` pixels from `x` along the line `y`.
    pub(crate) fn run(&mut self, x: i64, y: f64, w: u32) {
        use std::fmt::Write as _;
        let y10 = (y * 10.0).round() as i64;
        let _ = match self.pen {
            Some((py, px)) if py == y10 => write!(self.d, "m{},0h{w}", x - px),
            _ => write!(self.d, "M{x},{:.1}h{w}", y10 as f64 / 10.0),
        };
        self.pen = Some((y10, x + w as i64));
    }

    /// A vertical tick of `len` pixels down from (`x`, `y`).
    pub(crate) fn tick(&mut self, x: f64, y: f64, len: f64) {
        use std::fmt::Write as _;
        let (x10, y10, l10) = (
            (x * 10.0).round() as i64,
            (y * 10.0).round() as i64,
            (len * 10.0).round() as i64,
        );
        let t = |v: i64| v as f64 / 10.0;
        let _ = match self.pen {
            Some((py, px)) => write!(self.d, "m{},{}v{}", t(x10 - px), t(y10 - py), t(l10)),
            None => write!(self.d, "M{},{}v{}", t(x10), t(y10), t(l10)),
        };
        self.pen = Some((y10 + l10, x10));
    }

    /// True when nothing is drawn.
    pub(crate) fn is_empty(&self) -> bool {
        self.d.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_on_one_line_are_relative_moves() {
        let mut r = Runs::default();
        r.run(10, 5.0, 3);
        r.run(20, 5.0, 1);
        r.run(4, 7.25, 2);
        assert_eq!(r.d, "M10,5.0h3m7,0h1M4,7.3h2");
        let mut t = Runs::default();
        t.tick(1.5, 2.0, 4.0);
        t.tick(3.5, 2.0, 4.0);
        assert_eq!(t.d, "M1.5,2v4m2,-4v4");
    }

    /// Regression: recording 40 frames of a node view took most of its
    /// time mapping and unmapping font files, once per text drawn; the
    /// faces the pictures use are held in memory.
    #[test]
    fn the_pictures_fonts_are_held_in_memory() {
        use resvg::usvg::fontdb::{Family, Query, Source};
        let r = Rasterizer::new();
        let q = Query {
            families: &[Family::Name("DejaVu Sans"), Family::SansSerif],
            ..Query::default()
        };
        // A machine without fonts draws no text at all.
        let Some(id) = r.opt.fontdb.query(&q) else {
            return;
        };
        assert!(
            matches!(r.opt.fontdb.face_source(id), Some((Source::Binary(_), _))),
            "{:?}",
            r.opt.fontdb.face_source(id).map(|s| s.1)
        );
    }
}
