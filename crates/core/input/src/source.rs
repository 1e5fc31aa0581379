//! Where the bytes of an input come from.

use std::ffi::OsStr;
use std::fmt;
use std::path::PathBuf;

/// Where the bytes come from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// The process's standard input.
    Stdin,
    /// A file (or anything that can be opened like one, e.g. a FIFO).
    Path(PathBuf),
}

impl Source {
    /// Interprets a command-line argument: no argument or `-` means standard
    /// input, anything else is a path.
    pub fn from_arg(arg: Option<&OsStr>) -> Source {
        match arg {
            None => Source::Stdin,
            Some(a) if a == "-" => Source::Stdin,
            Some(a) => Source::Path(PathBuf::from(a)),
        }
    }

    /// A name for messages: `<stdin>` or the path.
    pub fn display_name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_owned(),
            Source::Path(p) => p.display().to_string(),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display_name())
    }
}

impl From<PathBuf> for Source {
    fn from(path: PathBuf) -> Source {
        Source::Path(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_arg() {
        assert_eq!(Source::from_arg(None), Source::Stdin);
        assert_eq!(Source::from_arg(Some(OsStr::new("-"))), Source::Stdin);
        assert_eq!(
            Source::from_arg(Some(OsStr::new("a/b.paje"))),
            Source::Path(PathBuf::from("a/b.paje"))
        );
        assert_eq!(Source::Stdin.display_name(), "<stdin>");
        assert_eq!(
            Source::Path(PathBuf::from("x.gz")).to_string(),
            "x.gz".to_owned()
        );
    }
}
