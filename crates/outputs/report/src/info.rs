//! What a `.ptb` file holds and where its bytes go (`trama info`), read
//! from its index and frame headers: nothing is simulated.

use std::io::Write;

use trama_ptb::{Codec, FrameInfo, FrameKind, PtbFile};

use crate::Error;

/// What to show besides the summary.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct InfoOptions {
    /// Every frame, in file order.
    pub frames: bool,
    /// The weight of each column of the events frames (decompresses every block).
    pub columns: bool,
}

/// Describes `file` (named `name`) to `out`.
pub fn ptb_info(
    file: &PtbFile,
    name: &str,
    opts: &InfoOptions,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let damaged = |e: trama_ptb::FormatError| Error::Damaged(format!("{name}: {e}"));
    let frames = file.frames().map_err(damaged)?;
    describe(file, &frames, name, out)?;
    if opts.frames {
        write_frames(&frames, out)?;
    }
    if opts.columns {
        write_columns(file, name, out)?;
    }
    Ok(())
}

fn kind_name(k: FrameKind) -> &'static str {
    match k {
        FrameKind::Strings => "strings",
        FrameKind::Model => "model",
        FrameKind::Events => "events",
        FrameKind::Keyframe => "keyframe",
        FrameKind::Summary => "summary",
        _ => "other",
    }
}

fn codec_name(c: Codec) -> &'static str {
    match c {
        Codec::None => "as is",
        Codec::Zstd => "zstd",
        Codec::ZstdRawTail => "zstd+raw times",
        _ => "other",
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn describe(
    file: &PtbFile,
    frames: &[FrameInfo],
    name: &str,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let of = |k: FrameKind| frames.iter().filter(move |f| f.kind == k);
    let total = file.len();
    writeln!(
        out,
        "{name}: trama binary trace (.ptb), format version {}",
        file.version()
    )?;
    writeln!(
        out,
        "  made from   {} lines (or libRastro records): {} events, {} event definitions; quotes {}; variable values {}",
        file.text_lines(),
        file.events(),
        file.definitions().len(),
        if file.quotes_stripped() {
            "stripped (as PajeNG 1.3.10 reads them)"
        } else {
            "kept as in the text"
        },
        match file.precision() {
            trama_num::Precision::Float32 => "read as strtof reads them (Pajé text)",
            trama_num::Precision::Double => "exact (as the source gives them)",
        }
    )?;
    if file.interned() {
        writeln!(
            out,
            "  strings     interned: {} distinct, each stored once; entity events refer to containers, types and values by handle",
            file.strings()
        )?;
    } else {
        writeln!(
            out,
            "  strings     plain: every event keeps the text of its fields"
        )?;
    }
    writeln!(
        out,
        "  containers  {} (root included)",
        file.container_ends().len()
    )?;
    let blocks: Vec<&FrameInfo> = of(FrameKind::Events).collect();
    let largest = blocks.iter().map(|f| f.count).max().unwrap_or(0);
    writeln!(
        out,
        "  blocks      {} events frames (the largest holds {largest} events), {} keyframes",
        blocks.len(),
        of(FrameKind::Keyframe).count()
    )?;
    let timed: Vec<&&FrameInfo> = blocks
        .iter()
        .filter(|f| f.t_min != 0.0 || f.t_max != 0.0)
        .collect();
    if let (Some(lo), Some(hi)) = (
        timed.iter().map(|f| f.t_min).reduce(f64::min),
        timed.iter().map(|f| f.t_max).reduce(f64::max),
    ) {
        writeln!(out, "  time span   {lo} .. {hi} (of the events)")?;
    }
    writeln!(out, "  size        {total} bytes")?;
    let mut framed = 0;
    for (k, what) in [
        (FrameKind::Events, "events frames"),
        (FrameKind::Keyframe, "keyframes"),
        (FrameKind::Model, "model frames"),
        (FrameKind::Strings, "strings frames"),
        (FrameKind::Summary, "summary frame (the viewer's)"),
    ] {
        let (bytes, raw) = of(k).fold((0, 0), |(b, r), f| (b + f.stored, r + f.raw));
        framed += bytes;
        if bytes > 0 {
            writeln!(
                out,
                "    {what:<30} {bytes:>14} {:>6.1} %   ({raw} decompressed)",
                percent(bytes, total)
            )?;
        }
    }
    let rest = total.saturating_sub(framed);
    writeln!(
        out,
        "    {:<30} {rest:>14} {:>6.1} %",
        "header, definitions, index",
        percent(rest, total)
    )?;
    let mut codecs = Vec::new();
    for c in [Codec::None, Codec::Zstd, Codec::ZstdRawTail] {
        let n = blocks.iter().filter(|f| f.codec == c).count();
        if n > 0 {
            codecs.push(format!("{n} {}", codec_name(c)));
        }
    }
    if !codecs.is_empty() {
        writeln!(out, "  codecs      events frames: {}", codecs.join(", "))?;
    }
    Ok(())
}

fn write_frames(frames: &[FrameInfo], out: &mut dyn Write) -> Result<(), Error> {
    writeln!(out)?;
    writeln!(
        out,
        "{:>6} {:<8} {:>12} {:>10} {:>10} {:<14} {:>7} {:>10} {:>14} {:>14}",
        "frame", "kind", "offset", "bytes", "raw", "codec", "count", "first", "t_min", "t_max"
    )?;
    for (i, f) in frames.iter().enumerate() {
        let (lo, hi) = if f.kind == FrameKind::Events {
            (f.t_min.to_string(), f.t_max.to_string())
        } else {
            ("-".to_string(), "-".to_string())
        };
        writeln!(
            out,
            "{i:>6} {:<8} {:>12} {:>10} {:>10} {:<14} {:>7} {:>10} {lo:>14} {hi:>14}",
            kind_name(f.kind),
            f.offset,
            f.stored,
            f.raw,
            codec_name(f.codec),
            f.count,
            f.first,
        )?;
    }
    Ok(())
}

fn write_columns(file: &PtbFile, name: &str, out: &mut dyn Write) -> Result<(), Error> {
    let damaged = |e: trama_ptb::FormatError| Error::Damaged(format!("{name}: {e}"));
    let sizes = file.column_sizes(1).map_err(damaged)?;
    let layouts = file.frame_layouts().map_err(damaged)?;
    writeln!(out)?;
    writeln!(
        out,
        "events frames: {} in trace order ({} events), {} grouped by list ({} events), {} grouped and merged by time ({} events)",
        layouts[0].frames,
        layouts[0].events,
        layouts[1].frames,
        layouts[1].events,
        layouts[2].frames,
        layouts[2].events
    )?;
    let raw_total: u64 = sizes.iter().map(|c| c.1).sum();
    writeln!(
        out,
        "{:<8} {:>14} {:>8} {:>14}",
        "column", "decompressed", "share", "alone, zstd 1"
    )?;
    for (col, raw, z) in &sizes {
        writeln!(
            out,
            "{col:<8} {raw:>14} {:>7.1}% {z:>14}",
            percent(*raw, raw_total)
        )?;
    }
    Ok(())
}

/// Writes what the `.ptb` `opened` holds to `out` (see [`ptb_info`]); a
/// trace of another format is an error that says what describes it.
pub fn info(
    opened: &trama_open::Opened,
    opts: &InfoOptions,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let name = opened.name();
    let Some(file) = opened.ptb() else {
        return Err(Error::NotPtb(match opened.format() {
            trama_open::Format::PajeText | trama_open::Format::UnknownText => format!(
                "{name} is Pajé text: `trama info` describes binary traces; `trama check {name}` \
                 summarizes it, `trama convert {name} OUT.ptb` makes a binary trace of it"
            ),
            f => format!(
                "{name} is {}: `trama info` describes .ptb files; `trama check {name}` summarizes it",
                f.describe()
            ),
        }));
    };
    ptb_info(file, name, opts, out)
}
