//! A trace as Parquet tables, streamed from the simulation.
//!
//! [`ParquetSink`] is a [`Sink`](trama_sim::Sink): the simulation hands it
//! every entity once it is final and every container when it is destroyed,
//! and it writes them as rows of six tables, each a folder of the output
//! directory, and, at the end, the two tables of the wait-state analysis
//! (module `why`: `wait_states`, `critical_path`):
//!
//! ```text
//! DIR/_trama_parquet                    marker: the tree was made by trama
//! DIR/containers/type=Process/part-0.parquet
//! DIR/states/type=MPI%20State/part-0.parquet
//! DIR/events/type=…/   DIR/links/type=…/   DIR/variables/type=…/
//! DIR/types/kind=state/part-0.parquet
//! DIR/wait_states/pattern=late_sender/part-0.parquet
//! DIR/critical_path/type=Process/part-0.parquet
//! ```
//!
//! Every table is partitioned the Hive way by a key of few values: the
//! entity type's name (`type=NAME`; `kind=KIND` for the table of types,
//! `pattern=NAME` for the wait states, the container type's name for the
//! critical path).
//! Names are percent-encoded in folder names ([`escape_partition_value`]),
//! as Hive, Spark and DuckDB decode them. The partition column is not
//! stored in the files: readers take it from the folder names
//! (`hive_partitioning`). A table with no row holds one empty file in the
//! partition [`EMPTY_PARTITION`] (`type=none`), so that reading it gives
//! zero rows rather than an error, in DuckDB, pyarrow and Polars alike.
//!
//! Times are `INT64` nanoseconds (the trace's seconds × 10⁹, rounded);
//! strings are `BYTE_ARRAY` (UTF-8) dictionary-encoded; every column is
//! compressed with zstd. Each partition buffers one row group at a time
//! (up to [`ParquetOptions::row_group_rows`] rows or
//! [`ParquetOptions::row_group_bytes`] bytes) and writes it to its file
//! when full, so memory is bounded by the number of partitions, not by the
//! trace. The schema of each table, column by column, is in
//! `docs/parquet.md` and in [`SCHEMAS`].
//!
//! The sink writes into a directory it is given. [`OutputDir`] makes a
//! directory output safe: the tree is written into a temporary folder
//! beside the target and renamed into place at the end; a target that
//! exists, is not empty and was not made by trama is refused; a previous
//! export is replaced whole.
//!
//! With the feature `arrow`, [`arrow_table`] gives the same tables, with
//! the same columns, as Apache Arrow record batches from a trace held in
//! memory (the Python package's tables).
#![deny(missing_docs)]

#[cfg(feature = "arrow")]
mod arrow;
mod dir;
mod table;
mod why;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::ByteArray;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;
use trama_sim::{ContainerId, Entity, ListId, Model, Sink, TypeId, TypeKind, ValueId};
use why::Kept;

#[cfg(feature = "arrow")]
pub use arrow::{arrow_schema, arrow_table};
pub use dir::{remove_temporaries, OutputDir, MARKER};
pub use table::{Table, SCHEMAS};

use table::{Buffer, Cell};

/// What can go wrong while exporting.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read, written or renamed.
    #[error("{path}")]
    Io {
        /// The file or folder.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The Parquet writer failed.
    #[error("{path}")]
    Parquet {
        /// The file being written.
        path: String,
        /// Why.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// The output directory cannot be made.
    #[error("cannot create {output}: no folder can be made in {dir} to write it before putting it in place")]
    Create {
        /// The output directory.
        output: String,
        /// The folder it is in.
        dir: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The output directory cannot be used.
    #[error("{0}")]
    Refused(String),
    /// A container's path (the `path` column) is longer than [`MAX_PATH`]
    /// bytes: the containers nest too deep for the table.
    #[error(
        "container '{container}' is nested {depth} levels deep: its path is longer than the \
         {MAX_PATH} bytes the containers table takes (the paths of all containers would grow \
         with the square of the depth)"
    )]
    PathTooLong {
        /// The container's name (cut if long).
        container: String,
        /// Its depth (1 below the root).
        depth: u32,
    },
}

/// The longest path of the `path` column of the containers table, in bytes.
pub const MAX_PATH: usize = 64 << 10;

impl Error {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// The Parquet writer's error writing `path`; a failure of the file
    /// itself (a full disk) as such, not wrapped in the writer's words.
    fn parquet(path: &Path, source: parquet::errors::ParquetError) -> Error {
        match source {
            parquet::errors::ParquetError::External(e) => match e.downcast::<std::io::Error>() {
                Ok(io) => Error::io(path, *io),
                Err(e) => Error::Parquet {
                    path: path.display().to_string(),
                    source: parquet::errors::ParquetError::External(e),
                },
            },
            source => Error::Parquet {
                path: path.display().to_string(),
                source,
            },
        }
    }
}

/// Options of the export.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ParquetOptions {
    /// A row group is written when it has this many rows (default 1 Mi).
    pub row_group_rows: usize,
    /// … or when its values take about this many bytes before encoding
    /// (default 128 MiB).
    pub row_group_bytes: usize,
    /// zstd level of the column chunks (1-22, default 1).
    pub zstd_level: i32,
    /// Write the tables of the wait-state analysis (default true). The
    /// sink then keeps the trace's states and links in memory until
    /// [`ParquetSink::finish`], and the simulation should keep
    /// user-defined fields (an OTF2 collective's root is one).
    pub why: bool,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            row_group_rows: 1 << 20,
            row_group_bytes: 128 << 20,
            zstd_level: 1,
            why: true,
        }
    }
}

impl ParquetOptions {
    /// The tables written: every one, but those of the wait-state
    /// analysis without [`ParquetOptions::why`].
    pub fn tables(&self) -> impl Iterator<Item = Table> + '_ {
        let why = |t: &Table| matches!(t, Table::WaitStates | Table::CriticalPath);
        Table::ALL.into_iter().filter(move |t| self.why || !why(t))
    }
}

/// Rows written per table, as [`ParquetSink::finish`] reports them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Summary {
    /// Rows per table, in the order of [`Table::ALL`].
    pub rows: [u64; 8],
    /// Parquet files written.
    pub files: u64,
    /// Row groups written.
    pub row_groups: u64,
}

impl Summary {
    /// Rows of `table`.
    pub fn rows(&self, table: Table) -> u64 {
        self.rows[table as usize]
    }
}

/// The partition of the empty file of a table without rows. A value, not
/// `__HIVE_DEFAULT_PARTITION__` (NULL): readers infer the partition
/// column's type from the values, and pyarrow fails on none but NULL. No
/// row ever reads it (the file has none), and no type's folder is beside it.
pub const EMPTY_PARTITION: &str = "none";

/// Percent-encodes a partition value for a folder name `key=VALUE`, as
/// Hive, Spark and DuckDB decode it: every byte but ASCII letters, digits,
/// `-`, `_` and `.` becomes `%XX` (a space too, and `/`, `=`, `%`, quotes).
/// An empty value is `__HIVE_DEFAULT_PARTITION__` (read back as NULL), and
/// a value of only dots is encoded whole, so that no folder is `.` or `..`.
pub fn escape_partition_value(v: &str) -> String {
    if v.is_empty() {
        return "__HIVE_DEFAULT_PARTITION__".into();
    }
    let only_dots = v.bytes().all(|b| b == b'.');
    let mut s = String::with_capacity(v.len());
    for b in v.bytes() {
        if (b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.') && !only_dots {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// One partition of one table: its buffered row group and its file.
struct Partition {
    table: Table,
    folder: PathBuf,
    buffer: Buffer,
    /// Whether a row group (or the file) was handed to the writing thread.
    sent: bool,
    file: PathBuf,
}

/// A row group for the writing thread: partition, table, file, rows and
/// the names they number.
struct Job {
    part: usize,
    table: Table,
    file: PathBuf,
    buffer: Buffer,
    names: Arc<Vec<ByteArray>>,
}

/// The writing thread: encodes and compresses each row group into its
/// partition's file while the simulation goes on; closes every file at
/// the end. Returns the files and row groups written, or the first error
/// (after which it only drains the jobs).
fn writing(
    jobs: std::sync::mpsc::Receiver<Job>,
    props: Arc<WriterProperties>,
    failed: Arc<OnceLock<String>>,
) -> Result<(u64, u64), Error> {
    let mut files: Vec<Option<(SerializedFileWriter<BufWriter<File>>, PathBuf)>> = Vec::new();
    let mut row_groups = 0;
    let mut error = None;
    for mut job in jobs {
        if error.is_some() {
            continue;
        }
        let pq = |source| Error::parquet(&job.file, source);
        let r = (|| {
            if files.len() <= job.part {
                files.resize_with(job.part + 1, || None);
            }
            if files[job.part].is_none() {
                let f = File::create(&job.file).map_err(|e| Error::io(&job.file, e))?;
                let w = SerializedFileWriter::new(
                    BufWriter::with_capacity(1 << 20, f),
                    job.table.schema(),
                    props.clone(),
                )
                .map_err(pq)?;
                files[job.part] = Some((w, job.file.clone()));
            }
            if job.buffer.rows() > 0 {
                let (w, _) = files[job.part].as_mut().expect("a writer");
                job.buffer.write(w, &job.names).map_err(pq)?;
                row_groups += 1;
            }
            Ok(())
        })();
        if let Err(e) = r {
            let _ = failed.set(error_text(&e));
            error = Some(e);
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    let mut n = 0;
    for (w, path) in files.into_iter().flatten() {
        let inner = w
            .into_inner()
            .map_err(|source| Error::parquet(&path, source))?;
        let f = inner
            .into_inner()
            .map_err(|e| Error::io(&path, e.into_error()))?;
        f.sync_all().map_err(|e| Error::io(&path, e))?;
        n += 1;
    }
    Ok((n, row_groups))
}

/// `e` and its causes, as one line.
fn error_text(e: &Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// The [`Sink`] that writes a trace's tables into a directory; see the
/// module documentation.
pub struct ParquetSink {
    root: PathBuf,
    opts: ParquetOptions,
    parts: Vec<Partition>,
    /// Partition of each (table, partition name).
    by_name: std::collections::HashMap<(Table, String), usize>,
    /// Partition of each entity list.
    of_list: Vec<Option<usize>>,
    /// Partition of the containers of each container type.
    of_container_type: Vec<Option<usize>>,
    /// Every name written (containers' names and paths, values, types),
    /// numbered, once each (paths once per container); the rows buffered
    /// hold their numbers.
    names: Vec<ByteArray>,
    name_ids: std::collections::HashMap<Vec<u8>, u32>,
    /// Numbers of each container's name and path, and of each value's name.
    container_names: Vec<Option<(u32, u32)>>,
    value_names: Vec<Option<u32>>,
    /// `names` as handed to the writing thread last.
    shared_names: Arc<Vec<ByteArray>>,
    /// Types already written to the table of types.
    types_seen: usize,
    error: Option<Error>,
    summary: Summary,
    jobs: Option<std::sync::mpsc::SyncSender<Job>>,
    thread: Option<std::thread::JoinHandle<Result<(u64, u64), Error>>>,
    /// The writing thread's error, as text, once it failed.
    failed: Arc<OnceLock<String>>,
    /// What the wait-state analysis reads, with [`ParquetOptions::why`].
    kept: Option<Kept>,
}

/// Seconds as the tables' integer nanoseconds.
pub(crate) fn ns(seconds: f64) -> i64 {
    (seconds * 1e9).round() as i64
}

/// An entity's end, `None` when never set.
pub(crate) fn end_of(start: f64, end: f64) -> Option<f64> {
    (end >= start).then_some(end)
}

impl ParquetSink {
    /// A sink writing into `dir`, which must exist (an empty folder, such
    /// as [`OutputDir::path`]). Call [`ParquetSink::finish`] when the
    /// simulation is over.
    pub fn new(dir: &Path, opts: &ParquetOptions) -> Result<ParquetSink, Error> {
        let level =
            ZstdLevel::try_new(opts.zstd_level.clamp(1, 22)).map_err(|e| Error::parquet(dir, e))?;
        let mut props = WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_1_0)
            .set_compression(Compression::ZSTD(level))
            .set_dictionary_enabled(false)
            .set_max_row_group_row_count(Some(opts.row_group_rows.max(1)))
            .set_created_by(format!("trama {}", env!("CARGO_PKG_VERSION")));
        for t in Table::ALL {
            for col in t.string_columns() {
                props = props.set_column_dictionary_enabled(ColumnPath::from(col), true);
            }
        }
        for t in opts.tables() {
            let d = dir.join(t.name());
            folder_in_place(&d)?;
        }
        let props = Arc::new(props.build());
        // One row group waits at most while one is written: memory stays
        // bounded when writing is slower than simulating.
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let failed = Arc::new(OnceLock::new());
        let thread = {
            let (props, failed) = (props.clone(), failed.clone());
            std::thread::Builder::new()
                .name("trama-parquet".into())
                .spawn(move || writing(rx, props, failed))
                .map_err(|e| Error::io(dir, e))?
        };
        Ok(ParquetSink {
            root: dir.to_path_buf(),
            opts: opts.clone(),
            parts: Vec::new(),
            by_name: Default::default(),
            of_list: Vec::new(),
            of_container_type: Vec::new(),
            names: Vec::new(),
            name_ids: Default::default(),
            container_names: Vec::new(),
            value_names: Vec::new(),
            shared_names: Arc::default(),
            types_seen: 0,
            error: None,
            summary: Summary::default(),
            jobs: Some(tx),
            thread: Some(thread),
            failed,
            kept: opts.why.then(Kept::default),
        })
    }

    fn partition(&mut self, table: Table, name: &str) -> Result<usize, Error> {
        if let Some(&p) = self.by_name.get(&(table, name.to_string())) {
            return Ok(p);
        }
        let folder = self.root.join(table.name()).join(format!(
            "{}={}",
            table.partition_key(),
            escape_partition_value(name)
        ));
        folder_in_place(&folder)?;
        let file = folder.join("part-0.parquet");
        self.parts.push(Partition {
            table,
            folder,
            buffer: Buffer::new(table),
            sent: false,
            file,
        });
        let p = self.parts.len() - 1;
        self.by_name.insert((table, name.to_string()), p);
        Ok(p)
    }

    fn type_partition(&mut self, m: &Model, table: Table, ty: TypeId) -> Result<usize, Error> {
        let name = m.label(m.ty(ty).name);
        self.partition(table, &name)
    }

    fn list_partition(&mut self, m: &Model, list: ListId) -> Result<usize, Error> {
        if let Some(Some(p)) = self.of_list.get(list.index()) {
            return Ok(*p);
        }
        let info = m.list(list);
        let p = self.type_partition(m, Table::of_kind(info.kind), info.ty)?;
        if self.of_list.len() <= list.index() {
            self.of_list.resize(list.index() + 1, None);
        }
        self.of_list[list.index()] = Some(p);
        Ok(p)
    }

    /// The number of the name `s`.
    fn name(&mut self, s: &[u8]) -> u32 {
        if let Some(&i) = self.name_ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(ByteArray::from(s.to_vec()));
        self.name_ids.insert(s.to_vec(), i);
        i
    }

    /// The number of a string of the model, as people read it.
    fn label(&mut self, m: &Model, id: trama_sim::StrId) -> u32 {
        self.name(m.label(id).as_bytes())
    }

    /// A container's name and path (names from below the root, joined by
    /// `/`), computed with its ancestors' when not yet (iterative, for
    /// trees of any depth). A path longer than [`MAX_PATH`] is refused:
    /// paths grow with the depth, and the paths of all containers with
    /// its square.
    fn container_strings(&mut self, m: &Model, c: ContainerId) -> Result<(u32, u32), Error> {
        let known =
            |names: &[Option<(u32, u32)>], c: ContainerId| names.get(c.index()).copied().flatten();
        // The containers not named yet, from `c` up to the first named.
        let mut missing = Vec::new();
        let mut at = Some(c);
        let mut parent_path = None;
        while let Some(x) = at {
            if let Some((_, path)) = known(&self.container_names, x) {
                parent_path = Some(path);
                break;
            }
            missing.push(x);
            at = m.container(x).parent;
        }
        for x in missing.into_iter().rev() {
            let label = m.label(m.container(x).name);
            let name = self.name(label.as_bytes());
            let path = match parent_path {
                None => self.name(b""),
                Some(p) => {
                    let parent = self.names[p as usize].data();
                    if parent.len() + 1 + label.len() > MAX_PATH {
                        return Err(Error::PathTooLong {
                            container: label.chars().take(80).collect(),
                            depth: m.container(x).depth,
                        });
                    }
                    let mut v = parent.to_vec();
                    if !v.is_empty() {
                        v.push(b'/');
                    }
                    v.extend_from_slice(label.as_bytes());
                    // Paths are not looked up: numbered without the index.
                    self.names.push(ByteArray::from(v));
                    self.names.len() as u32 - 1
                }
            };
            if self.container_names.len() <= x.index() {
                self.container_names.resize(x.index() + 1, None);
            }
            self.container_names[x.index()] = Some((name, path));
            parent_path = Some(path);
        }
        Ok(known(&self.container_names, c).expect("named above"))
    }

    fn value_name(&mut self, m: &Model, v: ValueId) -> u32 {
        if let Some(Some(s)) = self.value_names.get(v.index()) {
            return *s;
        }
        let s = self.label(m, m.value(v).name);
        if self.value_names.len() <= v.index() {
            self.value_names.resize(v.index() + 1, None);
        }
        self.value_names[v.index()] = Some(s);
        s
    }

    /// Adds the types defined since the last call to the table of types.
    fn new_types(&mut self, m: &Model) -> Result<(), Error> {
        while self.types_seen < m.types.len() {
            let id = TypeId(self.types_seen as u32);
            self.types_seen += 1;
            let t = m.ty(id);
            let p = self.partition(Table::Types, t.kind.name())?;
            let parent = t.parent.map(|p| self.label(m, m.ty(p).name));
            let start = t.start_type.map(|p| self.label(m, m.ty(p).name));
            let end = t.end_type.map(|p| self.label(m, m.ty(p).name));
            let row = [
                Cell::I64(i64::from(id.0)),
                Cell::Str(self.label(m, t.name)),
                Cell::Str(self.label(m, t.alias)),
                Cell::OptI64(t.parent.map(|p| i64::from(p.0))),
                Cell::OptStr(parent),
                Cell::I32(t.depth as i32),
                Cell::OptStr(start),
                Cell::OptStr(end),
                Cell::Str(self.label(m, t.color)),
            ];
            self.push(p, &row)?;
        }
        Ok(())
    }

    fn push(&mut self, p: usize, row: &[Cell<'_>]) -> Result<(), Error> {
        self.push_parts(p, &[row])
    }

    /// [`Self::push`] of a row given in consecutive parts.
    fn push_parts(&mut self, p: usize, parts: &[&[Cell<'_>]]) -> Result<(), Error> {
        let part = &mut self.parts[p];
        part.buffer.push(parts.iter().flat_map(|x| x.iter()));
        self.summary.rows[part.table as usize] += 1;
        if part.buffer.rows() >= self.opts.row_group_rows.max(1)
            || part.buffer.bytes() >= self.opts.row_group_bytes.max(1)
        {
            self.flush(p)?;
        }
        Ok(())
    }

    /// Hands the buffered rows of partition `p` to the writing thread as a
    /// row group (the file alone when it has none and none was sent).
    fn flush(&mut self, p: usize) -> Result<(), Error> {
        let part = &mut self.parts[p];
        if part.buffer.rows() == 0 && part.sent {
            return Ok(());
        }
        if self.shared_names.len() != self.names.len() {
            self.shared_names = Arc::new(self.names.clone());
        }
        let buffer = std::mem::replace(&mut part.buffer, Buffer::new(part.table));
        part.sent = true;
        let job = Job {
            part: p,
            table: part.table,
            file: part.file.clone(),
            buffer,
            names: self.shared_names.clone(),
        };
        let sent = self.jobs.as_ref().is_some_and(|tx| tx.send(job).is_ok());
        if !sent {
            // The thread stopped: its error is the one to report.
            return self.join().map(|_| ());
        }
        Ok(())
    }

    /// Waits for the writing thread; what it wrote or its error.
    fn join(&mut self) -> Result<(u64, u64), Error> {
        self.jobs = None;
        match self.thread.take() {
            Some(t) => t.join().unwrap_or_else(|_| {
                Err(Error::Refused("the Parquet writing thread panicked".into()))
            }),
            None => Err(Error::Refused("the Parquet writer stopped".into())),
        }
    }

    fn record(&mut self, r: Result<(), Error>) {
        if let Err(e) = r {
            if self.error.is_none() {
                self.error = Some(e);
            }
        }
    }

    fn entity_row(
        &mut self,
        m: &Model,
        list: ListId,
        idx: u32,
        e: &Entity<'_>,
    ) -> Result<(), Error> {
        let p = self.list_partition(m, list)?;
        let info = m.list(list);
        let (cname, _) = self.container_strings(m, info.container)?;
        let cid = info.container.0;
        let tid = info.ty.0;
        let vid = e.value.0;
        let seq = idx;
        let start = ns(e.start);
        let end = end_of(e.start, e.end).map(ns);
        let duration = end.map(|x| x - start);
        // The columns every entity table begins with.
        let head = [
            Cell::Id(tid),
            Cell::Id(cid),
            Cell::Str(cname),
            Cell::Id(seq),
            Cell::I64(start),
        ];
        let span = [Cell::OptI64(end), Cell::OptI64(duration)];
        match info.kind {
            TypeKind::State => {
                let v = self.value_name(m, e.value);
                let rest = [Cell::I32(e.level as i32), Cell::Id(vid), Cell::Str(v)];
                self.push_parts(p, &[&head, &span, &rest])
            }
            TypeKind::Event => {
                let v = self.value_name(m, e.value);
                self.push_parts(p, &[&head, &[Cell::Id(vid), Cell::Str(v)]])
            }
            TypeKind::Variable => self.push_parts(p, &[&head, &span, &[Cell::F64(e.number)]]),
            TypeKind::Link => {
                let v = self.value_name(m, e.value);
                let from = e.from.map(|c| self.container_strings(m, c));
                let from = from.transpose()?.map(|(name, _)| name);
                let to = e.to.map(|c| self.container_strings(m, c));
                let to = to.transpose()?.map(|(name, _)| name);
                let rest = [
                    Cell::Id(vid),
                    Cell::Str(v),
                    Cell::Bytes(e.key),
                    Cell::OptI64(e.from.map(|c| i64::from(c.0))),
                    Cell::OptStr(from),
                    Cell::OptI64(e.to.map(|c| i64::from(c.0))),
                    Cell::OptStr(to),
                ];
                self.push_parts(p, &[&head, &span, &rest])
            }
            TypeKind::Container => Ok(()),
        }
    }

    fn container_row(&mut self, m: &Model, c: ContainerId) -> Result<(), Error> {
        self.new_types(m)?;
        let info = m.container(c);
        let ty = info.ty;
        let p = match self.of_container_type.get(ty.index()) {
            Some(Some(p)) => *p,
            _ => {
                let p = self.type_partition(m, Table::Containers, ty)?;
                if self.of_container_type.len() <= ty.index() {
                    self.of_container_type.resize(ty.index() + 1, None);
                }
                self.of_container_type[ty.index()] = Some(p);
                p
            }
        };
        let (name, path) = self.container_strings(m, c)?;
        let info = m.container(c);
        let start = ns(info.start);
        let end = end_of(info.start, info.end).map(ns);
        self.push(
            p,
            &[
                Cell::I64(i64::from(c.0)),
                Cell::Id(ty.0),
                Cell::OptI64(info.parent.map(|p| i64::from(p.0))),
                Cell::I32(info.depth as i32),
                Cell::Str(path),
                Cell::Str(name),
                Cell::I64(start),
                Cell::OptI64(end),
                Cell::OptI64(end.map(|e| e - start)),
            ],
        )
    }

    /// Writes the tables of the wait-state analysis (when asked) of the
    /// trace simulated with `model`, then what is buffered, closes every
    /// file (an empty one for each table without rows) and returns what
    /// was written, or the first error met while writing.
    pub fn finish(mut self, model: Model) -> Result<Summary, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(kept) = self.kept.take() {
            self.why_tables(kept, model)?;
        }
        for t in self.opts.tables() {
            if !self.parts.iter().any(|p| p.table == t) {
                let folder = self
                    .root
                    .join(t.name())
                    .join(format!("{}={EMPTY_PARTITION}", t.partition_key()));
                folder_in_place(&folder)?;
                self.by_name.insert((t, String::new()), self.parts.len());
                self.parts.push(Partition {
                    table: t,
                    file: folder.join("part-0.parquet"),
                    folder,
                    buffer: Buffer::new(t),
                    sent: false,
                });
            }
        }
        for p in 0..self.parts.len() {
            self.flush(p)?;
            debug_assert!(self.parts[p].folder.is_dir());
        }
        let (files, row_groups) = self.join()?;
        self.summary.files = files;
        self.summary.row_groups = row_groups;
        Ok(self.summary.clone())
    }
}

impl Drop for ParquetSink {
    /// A sink dropped unfinished (the simulation failed) waits for its
    /// writing thread, so that nothing is written after it is gone.
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.join();
        }
    }
}

impl Sink for ParquetSink {
    fn entity(&mut self, m: &Model, list: ListId, idx: u32, e: &Entity<'_>) {
        if self.error.is_some() {
            return;
        }
        let r = self.entity_row(m, list, idx, e);
        self.record(r);
        if let Some(kept) = &mut self.kept {
            kept.entity(m, list, idx, e);
        }
    }

    fn container(&mut self, m: &Model, id: ContainerId) {
        if self.error.is_some() {
            return;
        }
        let r = self.container_row(m, id);
        self.record(r);
    }

    fn list(&mut self, m: &Model, list: ListId) {
        if self.error.is_some() {
            return;
        }
        let r = self.new_types(m);
        self.record(r);
        if let Some(kept) = &mut self.kept {
            kept.list(m, list);
        }
    }

    /// A path too long stops nothing: the simulation reads on to its end
    /// (its own errors come first), then [`ParquetSink::finish`] says.
    fn stopped(&self) -> bool {
        let refused = matches!(self.error, Some(Error::PathTooLong { .. }));
        (self.error.is_some() && !refused) || self.failed.get().is_some()
    }

    fn stop_error(&self) -> Option<std::io::Error> {
        let text = match &self.error {
            Some(e) if !matches!(e, Error::PathTooLong { .. }) => error_text(e),
            _ => self.failed.get()?.clone(),
        };
        Some(std::io::Error::other(text))
    }

    /// Rows are buffered with their strings copied: the handles of
    /// user-defined values need not be kept, but by the states kept for
    /// the wait-state analysis.
    fn keeps_strings(&self) -> bool {
        self.kept.is_some()
    }
}

/// Makes `folder` inside its parent, which must exist: never the parent
/// again, so that a temporary folder a signal removed is not made anew
/// by a table still being written.
fn folder_in_place(folder: &Path) -> Result<(), Error> {
    match std::fs::create_dir(folder) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(Error::io(folder, e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_values_are_percent_encoded() {
        assert_eq!(escape_partition_value("MPI_State-1.x"), "MPI_State-1.x");
        assert_eq!(escape_partition_value("MPI State"), "MPI%20State");
        assert_eq!(escape_partition_value("a/b=c"), "a%2Fb%3Dc");
        assert_eq!(escape_partition_value("it's \"x\""), "it%27s%20%22x%22");
        assert_eq!(escape_partition_value("100%"), "100%25");
        assert_eq!(escape_partition_value(""), "__HIVE_DEFAULT_PARTITION__");
        assert_eq!(escape_partition_value(".."), "%2E%2E");
        assert_eq!(escape_partition_value("é"), "%C3%A9");
    }
}
