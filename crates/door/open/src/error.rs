//! The error of opening and reading a trace.
//!
//! Every message starts with the input's name and says where the problem
//! is: a line (and its words) for text, a byte offset for binary files, the
//! line of the original text for an event of a `.ptb` file.

use std::io;

use trama_events::shorten;
use trama_sim::SimErrorKind;

use crate::Format;

/// Why a trace could not be opened, read or simulated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input could not be opened or read (its message names it).
    #[error(transparent)]
    Input(#[from] trama_input::InputError),
    /// Reading failed.
    #[error("reading {name}")]
    Io {
        /// The input.
        name: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A source read as a trace (a Paraver file, a merge source) is not
    /// valid; its message names the file and the line.
    #[error("{message}")]
    Located {
        /// The input.
        name: String,
        /// What is wrong, where.
        message: String,
    },
    /// A line of a text trace is not valid Pajé.
    #[error("{name}:{line}: {}\n  | {}", shorten(&error.to_string()), shorten(contents))]
    Syntax {
        /// The input.
        name: String,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        error: trama_paje::SyntaxError,
        /// The words of the line.
        contents: String,
    },
    /// A binary file is damaged or not what it claims (the message gives
    /// the byte offset).
    #[error("{name}: {message}")]
    Format {
        /// The input.
        name: String,
        /// What is wrong, and where.
        message: String,
    },
    /// The simulation rejects the trace.
    #[error("{}", sim_message(.name, *.line, *.binary, .kind, .contents))]
    Sim {
        /// The input.
        name: String,
        /// 1-based line of the event (in the original text for a binary
        /// file); 0 at the end of the trace.
        line: u64,
        /// The input is binary: its lines are those of the text it was made from.
        binary: bool,
        /// What went wrong.
        kind: SimErrorKind,
        /// The words of the event, when known.
        contents: String,
    },
    /// A format trama recognises but cannot read (yet), or a binary file
    /// of no format it knows.
    #[error("{name}: {what}")]
    Unsupported {
        /// The input.
        name: String,
        /// Its format.
        format: Format,
        /// What it is and what to do (e.g. which file of an archive to give).
        what: String,
    },
    /// A source of a merge could not be read.
    #[error(transparent)]
    Source(#[from] trama_records::SourceError),
    /// The consumer of the events stopped (a closed output): not a failure
    /// of the input.
    #[error("output closed")]
    Stopped(#[source] io::Error),
    /// Writing what was read failed.
    #[error("writing the output")]
    Output(#[source] io::Error),
    /// The options of a merge source are wrong, or its kind is unknown.
    #[error("{0}")]
    Options(String),
    /// A file of trama's own (the cache, a file followed) could not be
    /// made or read: what was tried, then the cause.
    #[error("{message}")]
    File {
        /// What was tried, naming the file.
        message: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A thread producing text from another format failed.
    #[error("{name}: {message}")]
    Producer {
        /// The input.
        name: String,
        /// What failed.
        message: String,
    },
}

/// `e` and its causes, joined by `: `.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

fn sim_message(name: &str, line: u64, binary: bool, kind: &SimErrorKind, contents: &str) -> String {
    let kind = shorten(&kind.to_string()).into_owned();
    let contents = shorten(contents);
    let words = if contents.is_empty() {
        String::new()
    } else {
        format!("\n  | {contents}")
    };
    if line == 0 {
        format!("{name}: at the end of the trace: {kind}")
    } else if binary {
        format!("{name}: event from line {line} of the original text: {kind}{words}")
    } else {
        format!("{name}:{line}: {kind}{words}")
    }
}

impl Error {
    /// [`Error::File`]: `message`, caused by `source`.
    pub fn file(message: String, source: io::Error) -> Error {
        Error::File { message, source }
    }

    /// The error of a consumer that stopped because its output was closed
    /// (a broken pipe): callers usually exit quietly.
    pub fn output_closed() -> Error {
        Error::Stopped(io::Error::from(io::ErrorKind::BrokenPipe))
    }

    /// Whether this is a closed output rather than a bad input.
    pub fn is_output_closed(&self) -> bool {
        matches!(self, Error::Stopped(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tokens_are_cut_in_messages() {
        let token = "x".repeat(1 << 20);
        let e = Error::Syntax {
            name: "t.paje".into(),
            line: 7,
            error: trama_paje::SyntaxError::BadEventDefStart,
            contents: format!("{token} 1 2"),
        };
        let m = e.to_string();
        assert!(m.len() < 300, "{} bytes", m.len());
        assert!(m.contains("(1048576 bytes) 1 2"), "{m}");
        assert_eq!(shorten("short words stay"), "short words stay");
    }
}
