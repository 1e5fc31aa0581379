//! The source kinds of `trama merge`: their names, their options in a
//! plan, and their detection from content; and any source read as a trace.
//!
//! A plan entry names its `kind` and options (a TOML table); [`open_source`]
//! opens its files as [`Source`]s of records. The `paje` kind takes any
//! trace trama reads as a trace (text, `.ptb`, the proposal's `.rst`): its
//! text, made on a thread of its own when it is binary, is read by the Pajé
//! source. [`detect`] names the kind of a file from its content, for files
//! given without their entry's name.

use std::path::{Path, PathBuf};

use trama_input::Source as Input;
use trama_records::Source;
use trama_sources::{clog2, ganglia, opents, pcp, rst, sched, OpenSource};

use crate::input::Head;
use crate::{Error, Format};

/// The kinds a plan's `kind` may name, with their options (for `--help` and messages).
pub const KINDS: &[(&str, &str)] = &[
    (
        "paje",
        "Pajé traces: text, trama's binary .ptb, or the proposal's .rst, and Paraver traces (no option)",
    ),
    (
        "rst",
        "libRastro traces, one per process or thread; option mapping = \"akypuera-mpi\" | \"deck\" | FILE.toml",
    ),
    ("clog2", "MPE CLOG-2 logs of MPI programs (no option)"),
    (
        "ganglia",
        "Ganglia gmond/gmetad XML dumps or text logs; options hosts = [..], metrics = [..]",
    ),
    (
        "pcp",
        "Performance Co-Pilot pmrep CSV, pmdumptext or pmdumplog text; options utc_offset (s), year, unavailable, instances = \"name\" | \"container\"",
    ),
    (
        "sched",
        "Linux scheduling (ftrace, trace-cmd report, perf script, or the seed's kernel records), one host per entry (`host`); options cpus (bool), lenient (bool)",
    ),
    ("opents", "OpenTS (T-system) XML traces (no option)"),
];

/// What a plan entry gives its reader besides options.
#[derive(Clone, Copy, Debug)]
pub struct EntryContext<'a> {
    /// The entry's `host`.
    pub host: Option<&'a str>,
    /// The plan's folder, for relative paths in options.
    pub base: &'a Path,
}

/// The options of a plan entry, each taken once; those left are errors.
struct Opts<'a> {
    kind: &'a str,
    table: &'a toml::Table,
    used: Vec<&'static str>,
}

fn options_error(message: String) -> Error {
    Error::Options(message)
}

impl<'a> Opts<'a> {
    /// The option `key` as `what`, read by `read`.
    fn take<T>(
        &mut self,
        key: &'static str,
        what: &str,
        read: impl FnOnce(&'a toml::Value) -> Option<T>,
    ) -> Result<Option<T>, Error> {
        self.used.push(key);
        let kind = self.kind;
        self.table
            .get(key)
            .map(|v| {
                read(v).ok_or_else(|| {
                    options_error(format!("option '{key}' of kind '{kind}' must be {what}"))
                })
            })
            .transpose()
    }

    fn string(&mut self, key: &'static str) -> Result<Option<String>, Error> {
        self.take(key, "a string", |v| v.as_str().map(str::to_string))
    }

    fn bool(&mut self, key: &'static str) -> Result<Option<bool>, Error> {
        self.take(key, "true or false", toml::Value::as_bool)
    }

    fn int(&mut self, key: &'static str) -> Result<Option<i64>, Error> {
        self.take(key, "an integer", toml::Value::as_integer)
    }

    fn strings(&mut self, key: &'static str) -> Result<Vec<String>, Error> {
        let list = self.take(key, "a list of strings", |v| {
            v.as_array()
                .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect())
        })?;
        Ok(list.unwrap_or_default())
    }

    /// Fails on an option no reader asked for.
    fn finish(self) -> Result<(), Error> {
        if let Some(k) = self.table.keys().find(|k| !self.used.contains(&k.as_str())) {
            return Err(options_error(format!(
                "kind '{}' has no option '{k}'{}",
                self.kind,
                if self.used.is_empty() {
                    String::new()
                } else {
                    format!(" (it has: {})", self.used.join(", "))
                }
            )));
        }
        Ok(())
    }
}

fn int32(v: i64, key: &str) -> Result<i32, Error> {
    i32::try_from(v).map_err(|e| options_error(format!("option '{key}': {e}")))
}

/// Opens the files of one plan entry as sources (one per file).
pub fn open_source(
    kind: &str,
    files: &[PathBuf],
    options: &toml::Table,
    cx: &EntryContext<'_>,
) -> Result<Vec<Box<dyn Source>>, Error> {
    let mut o = Opts {
        kind,
        table: options,
        used: Vec::new(),
    };
    let mut out: Vec<Box<dyn Source>> = Vec::new();
    let need_host = |what: &str| -> Result<String, Error> {
        cx.host.map(str::to_string).ok_or_else(|| {
            options_error(format!(
                "a '{what}' source needs the host it was taken on: give `host` in its plan entry"
            ))
        })
    };
    match kind {
        "paje" => {
            o.finish()?;
            for f in files {
                out.push(crate::open(&Input::Path(f.clone()))?.into_source()?);
            }
        }
        "rst" => {
            let mapping = match o.string("mapping")?.as_deref() {
                None | Some("akypuera-mpi") | Some("akypuera") => rst::Mapping::akypuera(),
                Some("deck") => rst::Mapping::deck(),
                Some(file) => rst::Mapping::load(&cx.base.join(file))?,
            };
            o.finish()?;
            for s in rst::open_all(files, &rst::RstOptions::new(mapping))? {
                out.push(Box::new(s));
            }
        }
        "clog2" => {
            o.finish()?;
            let opts = clog2::Clog2Options::default();
            for f in files {
                out.push(Box::new(clog2::Clog2Source::open(f, &opts)?));
            }
        }
        "ganglia" => {
            let opts = ganglia::GangliaOptions::new(o.strings("hosts")?, o.strings("metrics")?);
            o.finish()?;
            for f in files {
                out.push(Box::new(ganglia::GangliaSource::open(f, &opts)?));
            }
        }
        "pcp" => {
            let mut opts = pcp::PcpOptions::default();
            opts.host = cx.host.map(str::to_string);
            if let Some(v) = o.int("utc_offset")? {
                opts.utc_offset = int32(v, "utc_offset")?;
            }
            if let Some(v) = o.int("year")? {
                opts.year = Some(int32(v, "year")?);
            }
            if let Some(v) = o.string("unavailable")? {
                opts.unavailable = v;
            }
            match o.string("instances")?.as_deref() {
                None | Some("name") => opts.instances = pcp::InstanceMapping::InName,
                Some("container") => opts.instances = pcp::InstanceMapping::Container,
                Some(v) => {
                    return Err(options_error(format!(
                        "option 'instances' of kind 'pcp': '{v}' is neither 'name' nor 'container'"
                    )))
                }
            }
            o.finish()?;
            for f in files {
                out.push(Box::new(pcp::PcpSource::open(f, &opts)?));
            }
        }
        "sched" => {
            let mut opts = sched::SchedOptions::new(need_host("sched")?);
            if let Some(v) = o.bool("cpus")? {
                opts.cpus = v;
            }
            if let Some(v) = o.bool("lenient")? {
                opts.lenient = v;
            }
            o.finish()?;
            for f in files {
                out.push(Box::new(sched::SchedSource::open(f, &opts)?));
            }
        }
        "opents" => {
            o.finish()?;
            let opts = opents::OpentsOptions::default();
            for f in files {
                out.push(Box::new(opents::OpentsSource::open(f, &opts)?));
            }
        }
        other => {
            return Err(options_error(format!(
                "unknown source kind '{other}' (known: {})",
                KINDS.iter().map(|k| k.0).collect::<Vec<_>>().join(", ")
            )))
        }
    }
    Ok(out)
}

/// The kind of a file, from its content.
pub fn detect(path: &Path) -> Result<&'static str, Error> {
    let head = crate::input::open(&Input::Path(path.to_path_buf()))?;
    match head.format.source_kind() {
        Some(kind) => Ok(kind),
        None if head.format == Format::UnknownText => Err(options_error(format!(
            "{}: cannot tell its format from its content; name its plan entry (NAME=FILE)",
            path.display()
        ))),
        None => Err(unsupported(&head)),
    }
}

/// The error for a format trama recognises but does not read, or a
/// binary file of no format it knows.
pub(crate) fn unsupported(head: &Head) -> Error {
    let what = match head.format {
        Format::Otf2Part => format!(
            "{}: a definitions or events file of an archive; give the archive's anchor, the .otf2 file beside its folder",
            head.format.describe()
        ),
        _ => {
            let shown: Vec<String> = head.bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
            let nul = head
                .bytes
                .iter()
                .position(|&b| b == 0)
                .map(|at| format!(", a NUL byte at byte {at}"))
                .unwrap_or_default();
            format!(
                "a binary file of no format trama reads (it starts with {}{nul}); trama reads Pajé text (plain, gzip, zstd), .ptb, libRastro (.rst), OTF2 (.otf2), Paraver (.prv), CLOG-2, Ganglia, PCP, Linux scheduling and OpenTS files",
                shown.join(" ")
            )
        }
    };
    Error::Unsupported {
        name: head.name.clone(),
        format: head.format,
        what,
    }
}

/// The records of a merge source's file, read with its kind's default
/// options (a libRastro trace by Akypuera's MPI mapping, a scheduling trace
/// on a host named after the file), for reading it as a trace.
pub(crate) fn source_of(head: Head, notes: &mut Vec<String>) -> Result<Box<dyn Source>, Error> {
    let name = head.name.clone();
    let format = head.format;
    if format == Format::Rastro {
        if let Some(ranks) = head.path.as_deref().and_then(akypuera_run) {
            notes.push(format!(
                "an Akypuera rank file: read as the run of its {} rank files ({} … {}), as `trama akypuera` converts them",
                ranks.len(),
                ranks[0].display(),
                ranks[ranks.len() - 1].display()
            ));
            return Ok(Box::new(rst::akypuera_source(&ranks)?));
        }
    }
    let (input, _) = head.into_reader()?;
    /// A kind read whole, with its default options.
    fn read<S>(name: String, input: impl std::io::Read) -> Result<Box<dyn Source>, Error>
    where
        S: OpenSource + Source + 'static,
        S::Options: Default,
    {
        Ok(Box::new(S::from_reader(
            name,
            input,
            &S::Options::default(),
        )?))
    }
    match format {
        Format::Rastro => read::<rst::RstSource>(name, input),
        Format::Ganglia => read::<ganglia::GangliaSource>(name, input),
        Format::Pcp => read::<pcp::PcpSource>(name, input),
        Format::Clog2 => read::<clog2::Clog2Source>(name, input),
        Format::Sched => {
            let opts = sched::SchedOptions::new(host_of(&name));
            Ok(Box::new(sched::SchedSource::from_reader(
                name, input, &opts,
            )?))
        }
        Format::Opents => Ok(Box::new(opents::OpentsSource::from_reader(
            name,
            input,
            &opents::OpentsOptions::default(),
        )?)),
        _ => unreachable!("not a merge source's format: {format:?}"),
    }
}

/// The rank files of the Akypuera run `path` belongs to: the files named
/// `rastro-R-T.rst` beside it, in the order a shell's glob gives them (as
/// `aky_converter` is run); `None` when `path` is not named so or alone.
fn akypuera_run(path: &Path) -> Option<Vec<PathBuf>> {
    let rank_file = |name: &str| {
        let Some(mid) = name
            .strip_prefix("rastro-")
            .and_then(|n| n.strip_suffix(".rst"))
        else {
            return false;
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        mid.split_once('-')
            .is_some_and(|(r, t)| digits(r) && digits(t))
    };
    if !rank_file(&path.file_name()?.to_string_lossy()) {
        return None;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut ranks: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| rank_file(&e.file_name().to_string_lossy()))
        .map(|e| dir.join(e.file_name()))
        .collect();
    ranks.sort();
    (ranks.len() > 1).then_some(ranks)
}

/// A host name for a scheduling trace read alone: its file's stem.
fn host_of(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty() && s != "<stdin>")
        .unwrap_or_else(|| "host".to_string())
}
