//! The cache: text traces converted to `.ptb` once, so that a viewer
//! reads them by blocks ([`crate::Reading::Convert`]), and the summaries
//! gathered from a trace read by blocks.
//!
//! The directory is `--cache DIR`, else `$XDG_CACHE_HOME/trama`, else
//! `~/.cache/trama` (inputs may live on read-only disks). An entry is
//! named after the input's file name and a hash of its canonical path,
//! size, modification time, device and inode: a changed input is
//! converted again, under a new name. Entries are written whole or not at
//! all (a temporary file renamed in place).

use std::path::{Path, PathBuf};

use crate::Error;

/// The cache directory: `dir`, else the user's.
pub fn directory(dir: Option<&Path>) -> Result<PathBuf, Error> {
    if let Some(d) = dir {
        return Ok(d.to_path_buf());
    }
    let home = |v: &str| {
        std::env::var_os(v)
            .filter(|x| !x.is_empty())
            .map(PathBuf::from)
    };
    if let Some(x) = home("XDG_CACHE_HOME") {
        return Ok(x.join("trama"));
    }
    match home("HOME") {
        Some(h) => Ok(h.join(".cache").join("trama")),
        None => Err(Error::Options(
            "no cache directory: neither XDG_CACHE_HOME nor HOME is set; name one with --cache DIR"
                .into(),
        )),
    }
}

/// FNV-1a, 64 bits: a hash that stays the same across builds.
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.iter().chain(&[0xff]) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Makes the cache directory `dir` (and its parents), `advice` saying
/// what to do when it cannot be made.
pub fn make(dir: &Path, advice: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::file(
            format!("cannot make the cache directory {}{advice}", dir.display()),
            e,
        )
    })
}

/// The entry of `input` in `dir`.
pub fn entry(dir: &Path, input: &Path) -> Result<PathBuf, Error> {
    let path = std::fs::canonicalize(input)
        .map_err(|e| Error::file(format!("cannot read {}", input.display()), e))?;
    let meta = std::fs::metadata(&path)
        .map_err(|e| Error::file(format!("cannot read {}", path.display()), e))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0u64, 0u64);
    let h = fnv(&[
        path.as_os_str().as_encoded_bytes(),
        &meta.len().to_le_bytes(),
        &mtime.to_le_bytes(),
        &dev.to_le_bytes(),
        &ino.to_le_bytes(),
    ]);
    let name = path
        .file_name()
        .map_or("trace".into(), |n| n.to_string_lossy().into_owned());
    Ok(dir.join(format!("{name}-{h:016x}.ptb")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_input_has_another_entry() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("t.paje");
        std::fs::write(&f, "a").unwrap();
        let a = entry(d.path(), &f).unwrap();
        assert_eq!(a, entry(d.path(), &f).unwrap());
        assert!(a
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("t.paje-"));
        std::fs::write(&f, "ab").unwrap();
        assert_ne!(a, entry(d.path(), &f).unwrap());
        assert_eq!(
            directory(Some(Path::new("/x"))).unwrap(),
            PathBuf::from("/x")
        );
    }
}
