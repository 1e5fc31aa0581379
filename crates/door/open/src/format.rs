//! Formats, told from content.
//!
//! [`Format::sniff`] looks at the first bytes of an input (decompressed, when
//! it is gzip or zstd: [`HEAD`] bytes are enough) and names its format. It
//! knows the formats trama reads as traces, the sources `trama merge`
//! reads, and formats trama recognises without reading them (yet), so that
//! the error can name them instead of failing on a byte it does not expect.
//!
//! | format | recognised by |
//! |---|---|
//! | `.ptb` | its magic number (`docs/ptb-format.md`) |
//! | the seed's binary Pajé in libRastro files | a libRastro file whose first events include definitions (999) or strings (888) |
//! | libRastro traces (Akypuera, DECK) | a libRastro file of other events |
//! | MPE CLOG-2 | `CLOG-02` |
//! | OTF2 | an anchor file's header (`OTF2` after the chunk byte and the endianness byte, `0x42` or `0x23`); an archive's `.def`/`.evt` files by the same header (named, not read: the anchor is the door) |
//! | Paraver (`.prv`) | `#Paraver (` |
//! | Pajé text | `%EventDef` |
//! | Ganglia | `<GANGLIA_XML`, or the text log's `unixtime metric host value` lines |
//! | OpenTS | `<trace` and `<slice` |
//! | Linux scheduling | `sched_switch` / `sched_wakeup`, or the seed's kernel records |
//! | Performance Co-Pilot | `pmrep` CSV, `pmdumptext` or `pmdumplog` text |
//!
//! Text that none of these claims is [`Format::UnknownText`]: opened as a
//! trace, it is read as Pajé text, whose reader then says which line is
//! wrong; a merge asks for its kind instead.

/// How many bytes [`Format::sniff`] wants (it works on fewer).
pub const HEAD: usize = 16 << 10;

/// The format of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Pajé text (plain, gzip or zstd).
    PajeText,
    /// trama's binary Pajé format.
    Ptb,
    /// The original proposal's binary Pajé: Pajé events in a libRastro file.
    RastroPaje,
    /// libRastro traces of other events (Akypuera's MPI traces, DECK),
    /// mapped to Pajé by a mapping.
    Rastro,
    /// MPE CLOG-2 logs of MPI programs.
    Clog2,
    /// Ganglia gmond/gmetad XML dumps or text logs.
    Ganglia,
    /// Performance Co-Pilot `pmrep` CSV, `pmdumptext` or `pmdumplog` text.
    Pcp,
    /// Linux scheduling traces (ftrace, trace-cmd report, perf script).
    Sched,
    /// OpenTS (T-system) XML traces.
    Opents,
    /// An OTF2 archive's anchor file (its other files are found beside it).
    Otf2,
    /// A file of an OTF2 archive other than its anchor (read through the
    /// anchor).
    Otf2Part,
    /// A Paraver trace (`.prv`, with the `.pcf` and `.row` beside it).
    Paraver,
    /// A binary file of no format trama knows.
    UnknownBinary,
    /// Text of no format trama recognises (read as Pajé text, whose reader
    /// says which line is wrong).
    UnknownText,
}

impl Format {
    /// The format of an input whose first bytes are `head` (see the
    /// module docs for the rules). Text of no known format is Pajé text.
    pub fn sniff(head: &[u8]) -> Format {
        if trama_ptb::is_ptb(head) {
            return Format::Ptb;
        }
        if head.starts_with(b"CLOG-02") {
            return Format::Clog2;
        }
        // The endianness byte of OTF2 buffers: 0x42 little, 0x23 big endian.
        if head.len() >= 6 && head[0] == 3 && matches!(head[1], 0x42 | 0x23) {
            if &head[2..6] == b"OTF2" {
                return Format::Otf2;
            }
            if head[2] == 1 && head[3..6] == [0, 0, 0] {
                return Format::Otf2Part;
            }
        }
        if head.starts_with(b"#Paraver (") {
            return Format::Paraver;
        }
        if trama_rastro::is_rastro(head) {
            return if rastro_holds_paje(head) {
                Format::RastroPaje
            } else {
                Format::Rastro
            };
        }
        if head.contains(&0) {
            return Format::UnknownBinary;
        }
        let text = String::from_utf8_lossy(head);
        if text.contains("%EventDef") {
            return Format::PajeText;
        }
        if text.contains("<GANGLIA_XML") {
            return Format::Ganglia;
        }
        if text.contains("<trace") && text.contains("<slice") {
            return Format::Opents;
        }
        if text.contains("sched_switch") || text.contains("sched_wakeup") {
            return Format::Sched;
        }
        if trama_sources::pcp::detect_format(&text).is_some() {
            return Format::Pcp;
        }
        if matches!(
            trama_sources::sched::detect_format(&text),
            trama_sources::sched::SchedFormat::SeedKernel
        ) {
            return Format::Sched;
        }
        if ganglia_log(&text) {
            return Format::Ganglia;
        }
        Format::UnknownText
    }

    /// Its name in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Format::PajeText => "Pajé text",
            Format::Ptb => "a trama binary trace (.ptb)",
            Format::RastroPaje => "libRastro binary Pajé (.rst)",
            Format::Rastro => "a libRastro trace",
            Format::Clog2 => "an MPE CLOG-2 log",
            Format::Ganglia => "Ganglia monitoring data",
            Format::Pcp => "Performance Co-Pilot data",
            Format::Sched => "a Linux scheduling trace",
            Format::Opents => "an OpenTS trace",
            Format::Otf2 => "an OTF2 archive",
            Format::Otf2Part => "a file of an OTF2 archive",
            Format::Paraver => "a Paraver trace",
            Format::UnknownBinary => "a binary file of no format trama reads",
            Format::UnknownText => "text of no format trama recognises",
        }
    }

    /// The `kind` of a merge plan's source entry that reads this format.
    pub fn source_kind(self) -> Option<&'static str> {
        Some(match self {
            Format::PajeText
            | Format::Ptb
            | Format::RastroPaje
            | Format::Paraver
            | Format::Otf2 => "paje",
            Format::Rastro => "rst",
            Format::Clog2 => "clog2",
            Format::Ganglia => "ganglia",
            Format::Pcp => "pcp",
            Format::Sched => "sched",
            Format::Opents => "opents",
            Format::Otf2Part | Format::UnknownBinary | Format::UnknownText => return None,
        })
    }

    /// Whether trama reads it as a trace (text of no known format is read
    /// as Pajé text).
    pub fn readable(self) -> bool {
        self.source_kind().is_some() || self == Format::UnknownText
    }

    /// Whether it is one of the Pajé formats (text or binary), whose events
    /// are read as they are rather than converted from another model.
    pub fn is_paje(self) -> bool {
        matches!(self, Format::PajeText | Format::Ptb | Format::RastroPaje)
    }
}

/// Whether the first line of `text` that is neither blank nor a comment is
/// a sample of Ganglia's text log: Unix seconds, a metric, a host, a value.
fn ganglia_log(text: &str) -> bool {
    let Some(line) = text
        .lines()
        .map(|l| l.trim_matches([' ', '\t', '\r']))
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    else {
        return false;
    };
    let mut words = line.split([' ', '\t']).filter(|w| !w.is_empty());
    let time = words.next().unwrap_or_default();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let timed = match time.split_once('.') {
        Some((a, b)) => digits(a) && digits(b),
        None => digits(time),
    };
    timed && words.count() >= 3
}

/// Whether the libRastro file starting with `head` holds Pajé events (the
/// proposal's format defines its events with 999 and its strings with 888
/// before using them) rather than events of a tracer (Akypuera, DECK).
fn rastro_holds_paje(head: &[u8]) -> bool {
    let Ok(mut d) = trama_rastro::rst::Decoder::detect(head) else {
        // Too damaged to tell: the Pajé reader says what is wrong.
        return true;
    };
    for _ in 0..64 {
        match d.next_event() {
            Ok(Some(ev)) => {
                if matches!(
                    ev.type_id,
                    trama_rastro::paje::DEFINITION_EVENT | trama_rastro::paje::STRING_EVENT
                ) {
                    return true;
                }
            }
            // The head may end inside an event.
            Ok(None) | Err(_) => break,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_formats() {
        let cases: [(&[u8], Format); 9] = [
            (b"%EventDef PajeDefineContainerType 0\n", Format::PajeText),
            (b"# a comment\n", Format::UnknownText),
            (b"", Format::UnknownText),
            (
                b"<?xml version=\"1.0\"?>\n<GANGLIA_XML VERSION=\"3\">",
                Format::Ganglia,
            ),
            (
                b"#Paraver (11/11/2013 at 12:32):18_ns:1(1):1:1(1:1),0\n",
                Format::Paraver,
            ),
            (b"CLOG-02\0\0\0", Format::Clog2),
            (b"abc\0def", Format::UnknownBinary),
            (
                b"# log\n1094221334\tcpu_user\thost1\t0.1\n",
                Format::Ganglia,
            ),
            (b"0 0 0\n", Format::UnknownText),
        ];
        for (bytes, format) in cases {
            assert_eq!(
                Format::sniff(bytes),
                format,
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn otf2_headers() {
        let mut anchor = vec![3, b'B'];
        anchor.extend_from_slice(b"OTF2\0\x03\x02\x02");
        assert_eq!(Format::sniff(&anchor), Format::Otf2);
        anchor[1] = 0x23;
        assert_eq!(Format::sniff(&anchor), Format::Otf2);
        let part = [3, b'B', 1, 0, 0, 0, 0, 0];
        assert_eq!(Format::sniff(&part), Format::Otf2Part);
        assert!(Format::Otf2.readable());
        assert!(!Format::Otf2Part.readable());
        assert_eq!(Format::Otf2.source_kind(), Some("paje"));
        assert_eq!(Format::Ganglia.source_kind(), Some("ganglia"));
    }
}
