//! The tables, their schemas and the buffer of one row group.

use std::io::Write;
use std::sync::Arc;

use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::errors::Result;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::Type;

/// The tables of an export, each a folder of the output directory: the
/// trace's, then those of the wait-state analysis (`trama-why`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// One row per container (the root included).
    Containers,
    /// One row per state.
    States,
    /// One row per event.
    Events,
    /// One row per link.
    Links,
    /// One row per value of a variable (from one change to the next).
    Variables,
    /// One row per type of the trace's type hierarchy.
    Types,
    /// One row per wait state of the run (Scalasca's patterns).
    WaitStates,
    /// One row per segment of the run's critical path.
    CriticalPath,
}

/// Each table's Parquet schema (the message type), in the order of
/// [`Table::ALL`]. The partition column (`type`, `kind` for the table of
/// types, `pattern` for the wait states) is not in the files: it is the
/// name of their folder.
pub const SCHEMAS: [(Table, &str); 8] = [
    (
        Table::Containers,
        "message containers {
            required int64 id;
            required int64 type_id;
            optional int64 parent_id;
            required int32 depth;
            required binary path (STRING);
            required binary name (STRING);
            required int64 start_ns;
            optional int64 end_ns;
            optional int64 duration_ns;
        }",
    ),
    (
        Table::States,
        "message states {
            required int64 type_id;
            required int64 container_id;
            required binary container (STRING);
            required int64 seq;
            required int64 start_ns;
            optional int64 end_ns;
            optional int64 duration_ns;
            required int32 level;
            required int64 value_id;
            required binary value (STRING);
        }",
    ),
    (
        Table::Events,
        "message events {
            required int64 type_id;
            required int64 container_id;
            required binary container (STRING);
            required int64 seq;
            required int64 time_ns;
            required int64 value_id;
            required binary value (STRING);
        }",
    ),
    (
        Table::Links,
        "message links {
            required int64 type_id;
            required int64 container_id;
            required binary container (STRING);
            required int64 seq;
            required int64 start_ns;
            optional int64 end_ns;
            optional int64 duration_ns;
            required int64 value_id;
            required binary value (STRING);
            required binary key (STRING);
            optional int64 start_container_id;
            optional binary start_container (STRING);
            optional int64 end_container_id;
            optional binary end_container (STRING);
        }",
    ),
    (
        Table::Variables,
        "message variables {
            required int64 type_id;
            required int64 container_id;
            required binary container (STRING);
            required int64 seq;
            required int64 start_ns;
            optional int64 end_ns;
            optional int64 duration_ns;
            required double value;
        }",
    ),
    (
        Table::Types,
        "message types {
            required int64 id;
            required binary name (STRING);
            required binary alias (STRING);
            optional int64 parent_id;
            optional binary parent (STRING);
            required int32 depth;
            optional binary start_type (STRING);
            optional binary end_type (STRING);
            required binary color (STRING);
        }",
    ),
    (
        Table::WaitStates,
        "message wait_states {
            required int64 container_id;
            required binary container (STRING);
            optional int64 waited_for_id;
            optional binary waited_for (STRING);
            required binary region (STRING);
            required int64 call_start_ns;
            required int64 call_end_ns;
            required int64 start_ns;
            required int64 end_ns;
            required int64 duration_ns;
        }",
    ),
    (
        Table::CriticalPath,
        "message critical_path {
            required int64 container_id;
            required binary container (STRING);
            optional binary value (STRING);
            required int64 start_ns;
            required int64 end_ns;
            required int64 duration_ns;
        }",
    ),
];

impl Table {
    /// Every table, in the order of [`SCHEMAS`].
    pub const ALL: [Table; 8] = [
        Table::Containers,
        Table::States,
        Table::Events,
        Table::Links,
        Table::Variables,
        Table::Types,
        Table::WaitStates,
        Table::CriticalPath,
    ];

    /// The table of the entities (or containers) of a type of `kind`.
    pub fn of_kind(kind: trama_sim::TypeKind) -> Table {
        use trama_sim::TypeKind;
        match kind {
            TypeKind::State => Table::States,
            TypeKind::Event => Table::Events,
            TypeKind::Link => Table::Links,
            TypeKind::Variable => Table::Variables,
            TypeKind::Container => Table::Containers,
        }
    }

    /// Its folder's name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Containers => "containers",
            Table::States => "states",
            Table::Events => "events",
            Table::Links => "links",
            Table::Variables => "variables",
            Table::Types => "types",
            Table::WaitStates => "wait_states",
            Table::CriticalPath => "critical_path",
        }
    }

    /// The name of its partition column: `kind` for the types,
    /// `pattern` for the wait states, else `type` (of the entities, or of
    /// the containers the critical path is on).
    pub fn partition_key(self) -> &'static str {
        match self {
            Table::Types => "kind",
            Table::WaitStates => "pattern",
            _ => "type",
        }
    }

    /// Its schema's text.
    pub fn schema_text(self) -> &'static str {
        SCHEMAS[self as usize].1
    }

    pub(crate) fn schema(self) -> Arc<Type> {
        Arc::new(parse_message_type(self.schema_text()).expect("a valid schema"))
    }

    /// Its columns: (name, kind).
    pub(crate) fn columns(self) -> Vec<(&'static str, Kind)> {
        let text = self.schema_text();
        text.lines()
            .filter_map(|l| {
                let l = l.trim().trim_end_matches(';');
                let w: Vec<&str> = l.split_whitespace().collect();
                if w.len() < 3 || !(w[0] == "required" || w[0] == "optional") {
                    return None;
                }
                let opt = w[0] == "optional";
                let kind = match (w[1], opt) {
                    ("int64", false) => Kind::I64,
                    ("int64", true) => Kind::OptI64,
                    ("int32", _) => Kind::I32,
                    ("double", _) => Kind::F64,
                    ("binary", false) => Kind::Str,
                    ("binary", true) => Kind::OptStr,
                    _ => unreachable!("a column type of the schemas"),
                };
                let kind = match w[2] {
                    "key" => Kind::Bytes,
                    "container_id" | "type_id" | "value_id" | "seq" => Kind::Id,
                    _ => kind,
                };
                Some((w[2], kind))
            })
            .collect()
    }

    /// The names of its string columns (dictionary-encoded).
    pub(crate) fn string_columns(self) -> Vec<String> {
        self.columns()
            .into_iter()
            .filter(|(_, k)| matches!(k, Kind::Str | Kind::OptStr | Kind::Bytes))
            .map(|(n, _)| n.to_string())
            .collect()
    }
}

/// How a column's values are held (its Parquet type and whether it may
/// be null).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    I64,
    OptI64,
    I32,
    F64,
    Str,
    OptStr,
    /// A string of its own per row (a link's key): kept in an arena.
    Bytes,
    /// An `int64` column of the model's numbers (containers, types,
    /// values, entities in a list), buffered as `u32`.
    Id,
}

/// One value of a row, in the order of its table's columns. Strings are
/// numbers in the sink's table of names (a trace has few distinct names),
/// but for the bytes of a link's key.
pub(crate) enum Cell<'a> {
    I64(i64),
    Id(u32),
    OptI64(Option<i64>),
    I32(i32),
    F64(f64),
    Str(u32),
    OptStr(Option<u32>),
    Bytes(&'a [u8]),
}

/// The values of one column of a row group; optional columns keep their
/// definition levels (1 present, 0 null) beside the present values.
enum Column {
    I64(Vec<i64>),
    Id(Vec<u32>),
    OptI64(Vec<i64>, Vec<i16>),
    I32(Vec<i32>),
    F64(Vec<f64>),
    Str(Vec<u32>),
    OptStr(Vec<u32>, Vec<i16>),
    /// The bytes of every row one after the other, and where each ends.
    Bytes(Vec<u8>, Vec<usize>),
}

/// Pushes `x` on `v`; returns `bytes`, what it counts for in the buffer.
fn put<T>(v: &mut Vec<T>, x: T, bytes: usize) -> usize {
    v.push(x);
    bytes
}

/// Pushes a value that may be absent: its definition level on `d` (1
/// present, 0 null) and, when present, the value on `v`; returns `bytes`.
fn put_opt<T>(v: &mut Vec<T>, d: &mut Vec<i16>, x: Option<T>, bytes: usize) -> usize {
    d.push(i16::from(x.is_some()));
    if let Some(x) = x {
        v.push(x);
    }
    bytes
}

/// Rows handed to the column writer at once.
const CHUNK: usize = 64 * 1024;

/// The rows of one row group, column by column.
pub(crate) struct Buffer {
    columns: Vec<Column>,
    rows: usize,
    bytes: usize,
}

impl Buffer {
    pub(crate) fn new(table: Table) -> Buffer {
        Buffer {
            columns: table
                .columns()
                .into_iter()
                .map(|(_, k)| match k {
                    Kind::I64 => Column::I64(Vec::new()),
                    Kind::Id => Column::Id(Vec::new()),
                    Kind::OptI64 => Column::OptI64(Vec::new(), Vec::new()),
                    Kind::I32 => Column::I32(Vec::new()),
                    Kind::F64 => Column::F64(Vec::new()),
                    Kind::Str => Column::Str(Vec::new()),
                    Kind::OptStr => Column::OptStr(Vec::new(), Vec::new()),
                    Kind::Bytes => Column::Bytes(Vec::new(), Vec::new()),
                })
                .collect(),
            rows: 0,
            bytes: 0,
        }
    }

    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// About the bytes of the values buffered (strings by their length).
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Adds a row (one cell per column, in order).
    pub(crate) fn push<'c, 'a: 'c>(&mut self, row: impl Iterator<Item = &'c Cell<'a>>) {
        let mut n = 0;
        for (col, cell) in self.columns.iter_mut().zip(row) {
            n += 1;
            self.bytes += match (col, cell) {
                (Column::I64(v), Cell::I64(x)) => put(v, *x, 8),
                (Column::Id(v), Cell::Id(x)) => put(v, *x, 8),
                (Column::OptI64(v, d), Cell::OptI64(x)) => put_opt(v, d, *x, 10),
                (Column::I32(v), Cell::I32(x)) => put(v, *x, 4),
                (Column::F64(v), Cell::F64(x)) => put(v, *x, 8),
                (Column::Str(v), Cell::Str(x)) => put(v, *x, 4),
                (Column::OptStr(v, d), Cell::OptStr(x)) => put_opt(v, d, *x, 6),
                (Column::Bytes(b, ends), Cell::Bytes(x)) => {
                    b.extend_from_slice(x);
                    ends.push(b.len());
                    8 + x.len()
                }
                _ => unreachable!("a cell of the column's kind"),
            };
        }
        debug_assert_eq!(n, self.columns.len(), "one cell per column");
        self.rows += 1;
    }

    /// Writes the rows as one row group of `w` (strings numbered in
    /// `names`) and empties the buffer.
    pub(crate) fn write<W: Write + Send>(
        &mut self,
        w: &mut SerializedFileWriter<W>,
        names: &[ByteArray],
    ) -> Result<()> {
        let mut rg = w.next_row_group()?;
        let mut cols = self.columns.iter_mut();
        while let Some(mut cw) = rg.next_column()? {
            let col = cols.next().expect("a column per schema column");
            match col {
                Column::I64(v) => {
                    cw.typed::<Int64Type>().write_batch(v, None, None)?;
                    v.clear();
                }
                Column::Id(v) => {
                    let t = cw.typed::<Int64Type>();
                    for ids in v.chunks(CHUNK) {
                        let vals: Vec<i64> = ids.iter().map(|i| i64::from(*i)).collect();
                        t.write_batch(&vals, None, None)?;
                    }
                    v.clear();
                }
                Column::OptI64(v, d) => {
                    cw.typed::<Int64Type>().write_batch(v, Some(d), None)?;
                    v.clear();
                    d.clear();
                }
                Column::I32(v) => {
                    cw.typed::<Int32Type>().write_batch(v, None, None)?;
                    v.clear();
                }
                Column::F64(v) => {
                    cw.typed::<DoubleType>().write_batch(v, None, None)?;
                    v.clear();
                }
                Column::Str(v) => {
                    let t = cw.typed::<ByteArrayType>();
                    for ids in v.chunks(CHUNK) {
                        let vals: Vec<ByteArray> =
                            ids.iter().map(|i| names[*i as usize].clone()).collect();
                        t.write_batch(&vals, None, None)?;
                    }
                    v.clear();
                }
                Column::OptStr(v, d) => {
                    let t = cw.typed::<ByteArrayType>();
                    let mut next = 0;
                    for defs in d.chunks(CHUNK) {
                        let n = defs.iter().filter(|x| **x == 1).count();
                        let vals: Vec<ByteArray> = v[next..next + n]
                            .iter()
                            .map(|i| names[*i as usize].clone())
                            .collect();
                        next += n;
                        t.write_batch(&vals, Some(defs), None)?;
                    }
                    v.clear();
                    d.clear();
                }
                Column::Bytes(b, ends) => {
                    let t = cw.typed::<ByteArrayType>();
                    let mut start = 0;
                    for chunk in ends.chunks(CHUNK) {
                        let vals: Vec<ByteArray> = chunk
                            .iter()
                            .map(|&e| {
                                let v = ByteArray::from(b[start..e].to_vec());
                                start = e;
                                v
                            })
                            .collect();
                        t.write_batch(&vals, None, None)?;
                    }
                    b.clear();
                    ends.clear();
                }
            }
            cw.close()?;
        }
        rg.close()?;
        self.rows = 0;
        self.bytes = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_parse_and_list_their_columns() {
        for t in Table::ALL {
            let s = t.schema();
            assert_eq!(s.get_fields().len(), t.columns().len(), "{t:?}");
            assert_eq!(SCHEMAS[t as usize].0, t);
        }
        assert!(Table::Links.string_columns().contains(&"key".to_string()));
    }
}
