//! The source kinds `trama merge` reads, by name, and their detection.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail};
use trama_sources::paje::PajeSource;
use trama_sources::Source;

/// The kinds a plan's `kind` may name.
pub const KINDS: &[&str] = &["paje"];

/// Opens the files of one plan entry as sources (one per file, or one for
/// all when the format spreads one run over several files).
pub fn open_source(
    kind: &str,
    files: &[PathBuf],
    options: &toml::Table,
) -> anyhow::Result<Vec<Box<dyn Source>>> {
    let no_options = |kind: &str| -> anyhow::Result<()> {
        if let Some(k) = options.keys().next() {
            bail!("kind '{kind}' takes no option, but the plan gives '{k}'");
        }
        Ok(())
    };
    let mut out: Vec<Box<dyn Source>> = Vec::new();
    match kind {
        "paje" => {
            no_options(kind)?;
            for f in files {
                out.push(Box::new(PajeSource::open(f)?));
            }
        }
        other => bail!(
            "unknown source kind '{other}' (known: {})",
            KINDS.join(", ")
        ),
    }
    Ok(out)
}

/// The kind of a file, from its first bytes.
pub fn detect(path: &Path) -> anyhow::Result<&'static str> {
    use std::io::Read;
    let mut head = vec![0u8; 4096];
    let mut f = std::fs::File::open(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let n = f.read(&mut head)?;
    head.truncate(n);
    let text = String::from_utf8_lossy(&head);
    if text.contains("%EventDef") {
        return Ok("paje");
    }
    bail!(
        "{}: cannot tell its format from its content; name its plan entry (NAME=FILE)",
        path.display()
    )
}
