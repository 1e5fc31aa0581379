//! The generators' output files: written beside their place under a
//! temporary name, then renamed, so that a file appears whole or not at
//! all and a file the generator did not make is never truncated.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// Creates `OUT.tmp` beside `out` for writing, refusing a file already of
/// that name (it is left as it is); the file and its path. Rename it to
/// `out` once written, remove it on failure.
pub fn create_beside(out: &Path) -> io::Result<(File, PathBuf)> {
    let mut tmp = out.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    Ok((file, tmp))
}
