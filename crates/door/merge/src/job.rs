//! A merge as the command line asks for it: a plan, files given by entry
//! name or told from content, the seed's flags, a timesync file; the
//! sources opened through `trama-open`'s registry of kinds, then merged by
//! [`merge`](crate::merge) into one Pajé trace.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use trama_open::kinds::{detect, open_source, EntryContext};
use trama_records::{Dialect, PajeWriter, WriterOptions};
use trama_timesync::{SyncTable, TimeUnit};

use crate::{merge, Correct, Input, Mapper, MergeError, MergeOptions, MergeStats, Origin, Plan};

/// Why a merge job failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// The arguments do not fit the plan.
    #[error("{0}")]
    Arguments(String),
    /// A source could not be opened.
    #[error("source '{entry}' of the plan")]
    Open {
        /// The plan entry.
        entry: String,
        /// Why.
        #[source]
        source: trama_open::Error,
    },
    /// A file could not be told or opened.
    #[error(transparent)]
    Detect(#[from] trama_open::Error),
    /// The timesync file is wrong.
    #[error(transparent)]
    Sync(#[from] trama_timesync::SyncError),
    /// The merge itself failed.
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// The output could not be written.
    #[error(transparent)]
    Output(#[from] trama_open::OutputError),
    /// The merged trace is not valid (the check or the converter rejects
    /// it); `what` says what became of the output.
    #[error("the merged trace is not valid, {what}; a source holds records that contradict each other (a damaged file, or records the plan puts on one container)")]
    Rejected {
        /// What became of the output.
        what: String,
        /// Why it is not valid.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A source's machine file is wrong.
    #[error("source '{entry}'")]
    MachineFile {
        /// The plan entry.
        entry: String,
        /// Why.
        #[source]
        source: trama_records::SourceError,
    },
}

/// A merge to run: a plan and the files of its entries.
pub struct Job {
    pub(crate) plan: Plan,
    pub(crate) plan_path: PathBuf,
    pub(crate) files: Vec<Vec<PathBuf>>,
    /// Entries whose files came from the command line (they replace the
    /// plan's, so that two runs are never mixed).
    given: Vec<bool>,
    pub(crate) sync: Option<(PathBuf, TimeUnit)>,
    origin: Origin,
    decimals: u32,
}

impl Job {
    /// The plan at `path`, each entry with the files the plan lists.
    pub fn new(path: &Path) -> Result<Job, JobError> {
        let plan = Plan::read(path)?;
        let files: Vec<Vec<PathBuf>> = plan.sources.iter().map(|s| s.files.clone()).collect();
        Ok(Job {
            given: vec![false; files.len()],
            plan,
            plan_path: path.to_path_buf(),
            files,
            sync: None,
            origin: Origin::Earliest,
            decimals: 9,
        })
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.plan.sources.iter().position(|s| s.name == name)
    }

    /// The entry whose kind is `kind` (for the seed's flags and bare files).
    fn entry_of_kind(&self, kind: &str, what: &str) -> Result<usize, JobError> {
        let mut found = self
            .plan
            .sources
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == kind);
        match (found.next(), found.next()) {
            (Some((i, _)), None) => Ok(i),
            (None, _) => Err(JobError::Arguments(format!(
                "{what}: the plan has no source entry of kind '{kind}'"
            ))),
            (Some((_, a)), Some((_, b))) => Err(JobError::Arguments(format!(
                "{what}: the plan has several entries of kind '{kind}' ('{}', '{}'); give NAME=FILE",
                a.name, b.name
            ))),
        }
    }

    /// The files of entry `i` from the command line: the first replaces
    /// the files the plan lists for it, the others add to it.
    fn give(&mut self, i: usize, files: impl IntoIterator<Item = PathBuf>) {
        if !self.given[i] {
            self.given[i] = true;
            self.files[i].clear();
        }
        self.files[i].extend(files);
    }

    /// Adds a source given as `NAME=FILE` (the entry NAME reads FILE) or
    /// `FILE` (the entry whose kind matches the file's content, when only
    /// one does). Files given so for an entry replace those its plan
    /// lists.
    pub fn add(&mut self, arg: &str) -> Result<(), JobError> {
        let (entry, file) = match arg.split_once('=') {
            Some((name, file)) => {
                let i = self.index(name).ok_or_else(|| {
                    JobError::Arguments(format!(
                        "{arg}: the plan {} has no source entry named '{name}' (it has: {})",
                        self.plan_path.display(),
                        self.plan
                            .sources
                            .iter()
                            .map(|s| s.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
                (i, PathBuf::from(file))
            }
            None => {
                let kind = detect(Path::new(arg))?;
                (self.entry_of_kind(kind, arg)?, PathBuf::from(arg))
            }
        };
        self.give(entry, [file]);
        Ok(())
    }

    /// Gives `files` to the entry of kind `kind` (the seed's flags, named
    /// `flag` in messages), replacing those its plan lists.
    pub fn add_to_kind(
        &mut self,
        flag: &str,
        kind: &str,
        files: &[PathBuf],
    ) -> Result<(), JobError> {
        if !files.is_empty() {
            let i = self.entry_of_kind(kind, flag)?;
            self.give(i, files.iter().cloned());
        }
        Ok(())
    }

    /// The MPI machine file of the `clog2` entry.
    pub fn machine_file(&mut self, path: &Path) -> Result<(), JobError> {
        let i = self.entry_of_kind("clog2", "--mpinodes")?;
        self.plan.sources[i].machinefile = Some(path.to_path_buf());
        Ok(())
    }

    /// Corrects each host's clock by the timesync file at `path`.
    pub fn sync(&mut self, path: &Path, unit: TimeUnit) {
        self.sync = Some((path.to_path_buf(), unit));
    }

    /// Where time 0 is.
    pub fn origin(&mut self, origin: Origin) {
        self.origin = origin;
    }

    /// Decimals of the times written (at most 9).
    pub fn decimals(&mut self, decimals: u32) {
        self.decimals = decimals;
    }

    /// Opens every source, merges them by corrected time and writes the
    /// trace to `out`; `progress` is called now and then with the records
    /// written so far. Entries without files are skipped, each with a note
    /// in `notes`.
    pub fn run<W: Write>(
        self,
        out: W,
        notes: &mut dyn FnMut(String),
        progress: &mut dyn FnMut(u64),
    ) -> Result<MergeStats, JobError> {
        let base = self.plan_path.parent().unwrap_or(Path::new(""));
        let mut inputs = Vec::new();
        for (entry, files) in self.plan.sources.iter().zip(&self.files) {
            if files.is_empty() {
                notes(format!(
                    "source '{}' ({}) has no file; skipped",
                    entry.name, entry.kind
                ));
                continue;
            }
            let rank_hosts = match &entry.machinefile {
                Some(m) => Some(trama_sources::clog2::read_machine_file(m).map_err(|e| {
                    JobError::MachineFile {
                        entry: entry.name.clone(),
                        source: e,
                    }
                })?),
                None => None,
            };
            let origin = match &entry.origin {
                Some(o) => crate::parse_seconds(o).map_err(|e| {
                    JobError::Arguments(format!("source '{}', origin: {e}", entry.name))
                })?,
                None => 0,
            };
            let cx = EntryContext {
                host: entry.host.as_deref(),
                base,
            };
            let sources = open_source(&entry.kind, files, &entry.options, &cx).map_err(|e| {
                JobError::Open {
                    entry: entry.name.clone(),
                    source: e,
                }
            })?;
            for source in sources {
                let name = source.name().to_string();
                inputs.push(Input {
                    mapper: Mapper::new(&self.plan, Some(entry), &name, rank_hosts.clone()),
                    source,
                    group: entry.name.clone(),
                    synchronized: entry.synchronized,
                    origin,
                });
            }
        }
        if inputs.is_empty() {
            return Err(JobError::Arguments(
                "nothing to merge: no source has a file (give them on the command line or in the plan)"
                    .into(),
            ));
        }
        let mut opts = MergeOptions {
            separate_groups: true,
            origin: self.origin,
            ..MergeOptions::default()
        };
        if let Some((path, unit)) = &self.sync {
            let table = SyncTable::read(path, *unit)?;
            let mut corrections: HashMap<String, Correct> = HashMap::new();
            for host in table.hosts() {
                let c = table.correction(host).expect("a host of the table");
                corrections.insert(host.to_string(), Arc::new(move |t| c.apply(t)));
            }
            opts.corrections = corrections;
        }
        let mut wopts = WriterOptions::default();
        wopts.decimals = self.decimals;
        wopts.comment = Some(format!(
            "merged by trama {} from {} sources with plan {}",
            env!("CARGO_PKG_VERSION"),
            inputs.len(),
            self.plan_path.display()
        ));
        let mut dialect = Dialect::standard();
        for input in &inputs {
            for x in input.source.extra_fields() {
                let ty = trama_events::FieldType::from_name(x.field_type.as_bytes()).ok_or_else(
                    || {
                        JobError::Arguments(format!(
                            "{}: unknown field type '{}'",
                            input.source.name(),
                            x.field_type
                        ))
                    },
                )?;
                dialect = dialect.with_extras(x.kind, &[(x.name.as_str(), ty)]);
            }
        }
        let mut writer = PajeWriter::new(out, dialect, wopts).map_err(MergeError::from)?;
        let stats = merge(inputs, &self.plan.levels(), &opts, &mut writer, progress)?;
        writer
            .finish()
            .map_err(MergeError::from)?
            .flush()
            .map_err(|e| MergeError::from(trama_records::WriteError::from(e)))?;
        Ok(stats)
    }
}
