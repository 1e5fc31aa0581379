//! A directory output that appears whole or not at all.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Error, Table};

/// The file that marks a tree as made by trama (at its top).
pub const MARKER: &str = "_trama_parquet";

/// A directory being written: a temporary folder beside the target,
/// renamed into place by [`OutputDir::commit`]; removed if dropped before.
///
/// The target may be absent, an empty folder, or a previous export (a
/// folder with [`MARKER`] at its top and nothing but what an export
/// writes). Anything else is refused before a byte is written, and nothing
/// trama did not create is ever removed: a previous export is renamed
/// aside, the new tree renamed in, and only then are the old tree's files
/// removed, one by one.
#[derive(Debug)]
pub struct OutputDir {
    target: PathBuf,
    temp: PathBuf,
    done: bool,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Temporary folders of outputs not yet committed.
static TEMPORARIES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn temporaries() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARIES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes the temporary folder of every output not yet committed, for a
/// signal handler about to exit the process: only what trama created. No
/// temporary folder is made after it (making one waits for ever), so none
/// is left.
pub fn remove_temporaries() {
    let list = temporaries();
    for p in list.iter() {
        // The writing thread may still add a file while the tree goes.
        for _ in 0..100 {
            match std::fs::remove_dir_all(p) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => continue,
                _ => break,
            }
        }
    }
    std::mem::forget(list);
}

/// A name beside `target`, hidden, with `what` and a unique suffix.
fn beside(target: &Path, what: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "parquet".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    parent.join(format!(".{name}.trama-{what}-{}-{n}", std::process::id()))
}

/// What the target is.
enum Existing {
    Absent,
    Empty,
    /// A previous export: its files and folders, deepest first.
    Export(Vec<PathBuf>),
}

fn entries(dir: &Path) -> Result<Vec<std::fs::DirEntry>, Error> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        v.push(e.map_err(|e| Error::io(dir, e))?);
    }
    Ok(v)
}

/// Lists the tree of a previous export, deepest first; refuses one that
/// holds anything an export does not write.
fn export_tree(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let foreign = |p: &Path| {
        Error::Refused(format!(
            "{} holds {}, which trama export parquet does not write: refusing to replace it \
             (remove it yourself or name another directory)",
            dir.display(),
            p.display()
        ))
    };
    let mut out = Vec::new();
    for e in entries(dir)? {
        let p = e.path();
        let ft = e.file_type().map_err(|x| Error::io(&p, x))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name == MARKER && ft.is_file() {
            out.push(p);
            continue;
        }
        let Some(table) = Table::ALL.into_iter().find(|t| t.name() == name) else {
            return Err(foreign(&p));
        };
        if !ft.is_dir() {
            return Err(foreign(&p));
        }
        let prefix = format!("{}=", table.partition_key());
        for part in entries(&p)? {
            let pp = part.path();
            let pft = part.file_type().map_err(|x| Error::io(&pp, x))?;
            if !pft.is_dir() || !part.file_name().to_string_lossy().starts_with(&prefix) {
                return Err(foreign(&pp));
            }
            for f in entries(&pp)? {
                let fp = f.path();
                let fft = f.file_type().map_err(|x| Error::io(&fp, x))?;
                let fname = f.file_name().to_string_lossy().into_owned();
                if !(fft.is_file() && fname.starts_with("part-") && fname.ends_with(".parquet")) {
                    return Err(foreign(&fp));
                }
                out.push(fp);
            }
            out.push(pp);
        }
        out.push(p);
    }
    Ok(out)
}

fn existing(target: &Path) -> Result<Existing, Error> {
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Existing::Absent),
        Err(e) => return Err(Error::io(target, e)),
    };
    if !meta.is_dir() {
        return Err(Error::Refused(format!(
            "{} exists and is not a directory: name a new or empty directory",
            target.display()
        )));
    }
    let list = entries(target)?;
    if list.is_empty() {
        return Ok(Existing::Empty);
    }
    if !target.join(MARKER).is_file() {
        return Err(Error::Refused(format!(
            "{} exists, is not empty and was not made by trama export parquet (no {MARKER} \
             in it): name a new or empty directory",
            target.display()
        )));
    }
    Ok(Existing::Export(export_tree(target)?))
}

impl OutputDir {
    /// Prepares to write the directory `target`: checks that it may be
    /// written (see the type's documentation) and creates the temporary
    /// folder beside it, with the marker file in it.
    pub fn create(target: &Path) -> Result<OutputDir, Error> {
        existing(target)?;
        let temp = beside(target, "tmp");
        if let Some(parent) = temp.parent().filter(|p| !p.is_dir()) {
            return Err(Error::Refused(format!(
                "cannot create {}: the folder {} does not exist",
                target.display(),
                parent.display()
            )));
        }
        // Listed as it is made, under the list's lock: a signal removes
        // it, or finds it not yet made.
        let mut list = temporaries();
        std::fs::create_dir(&temp).map_err(|source| Error::Create {
            output: target.display().to_string(),
            dir: temp
                .parent()
                .unwrap_or(Path::new("."))
                .display()
                .to_string(),
            source,
        })?;
        list.push(temp.clone());
        drop(list);
        let out = OutputDir {
            target: target.to_path_buf(),
            temp,
            done: false,
        };
        let marker = out.temp.join(MARKER);
        std::fs::write(
            &marker,
            format!(
                "Parquet tables written by trama {} (trama export parquet); docs/parquet.md \
                 describes them.\n",
                env!("CARGO_PKG_VERSION")
            ),
        )
        .map_err(|e| Error::io(&marker, e))?;
        Ok(out)
    }

    /// The folder to write into.
    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// The target.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Puts the written tree in place of the target.
    pub fn commit(mut self) -> Result<(), Error> {
        let rename = |a: &Path, b: &Path| std::fs::rename(a, b).map_err(|e| Error::io(b, e));
        match existing(&self.target)? {
            Existing::Absent => rename(&self.temp, &self.target)?,
            Existing::Empty => {
                std::fs::remove_dir(&self.target).map_err(|e| Error::io(&self.target, e))?;
                rename(&self.temp, &self.target)?;
            }
            Existing::Export(files) => {
                let old = beside(&self.target, "old");
                rename(&self.target, &old)?;
                if let Err(e) = rename(&self.temp, &self.target) {
                    let _ = std::fs::rename(&old, &self.target);
                    return Err(e);
                }
                // The old tree's files, as listed (deepest first), then itself.
                for f in files {
                    let moved = old.join(f.strip_prefix(&self.target).unwrap_or(&f));
                    let _ = if moved.is_dir() {
                        std::fs::remove_dir(&moved)
                    } else {
                        std::fs::remove_file(&moved)
                    };
                }
                let _ = std::fs::remove_dir(&old);
            }
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        temporaries().retain(|p| *p != self.temp);
        if !self.done {
            // Only the temporary tree, which this output created.
            let _ = std::fs::remove_dir_all(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foreign_directory_is_refused_and_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("out");
        std::fs::create_dir(&t).unwrap();
        std::fs::write(t.join("notes.txt"), "mine").unwrap();
        let e = OutputDir::create(&t).unwrap_err();
        assert!(e.to_string().contains("not made by trama"), "{e}");
        assert_eq!(
            std::fs::read_to_string(t.join("notes.txt")).unwrap(),
            "mine"
        );
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_file_added_to_an_export_is_never_removed() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("out");
        let o = OutputDir::create(&t).unwrap();
        std::fs::create_dir_all(o.path().join("states/type=S")).unwrap();
        std::fs::write(o.path().join("states/type=S/part-0.parquet"), "x").unwrap();
        o.commit().unwrap();
        assert!(t.join(MARKER).is_file());
        std::fs::write(t.join("states/mine.csv"), "mine").unwrap();
        let e = OutputDir::create(&t).unwrap_err();
        assert!(e.to_string().contains("mine.csv"), "{e}");
        assert!(t.join("states/mine.csv").is_file());
        // Without it, a new export replaces the old one whole.
        std::fs::remove_file(t.join("states/mine.csv")).unwrap();
        let o = OutputDir::create(&t).unwrap();
        std::fs::create_dir_all(o.path().join("events/type=E")).unwrap();
        std::fs::write(o.path().join("events/type=E/part-0.parquet"), "y").unwrap();
        o.commit().unwrap();
        assert!(!t.join("states").exists());
        assert!(t.join("events/type=E/part-0.parquet").is_file());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_folder_is_named() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("no/such/out");
        let e = OutputDir::create(&t).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert!(!d.path().join("no").exists());
    }

    #[test]
    fn an_uncommitted_output_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("out");
        let o = OutputDir::create(&t).unwrap();
        std::fs::write(o.path().join("x"), "y").unwrap();
        drop(o);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn an_empty_directory_and_a_file() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("out");
        std::fs::create_dir(&t).unwrap();
        OutputDir::create(&t).unwrap().commit().unwrap();
        assert!(t.join(MARKER).is_file());
        let f = d.path().join("file");
        std::fs::write(&f, "z").unwrap();
        assert!(OutputDir::create(&f).is_err());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "z");
    }
}
