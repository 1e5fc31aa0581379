//! The same tables as Apache Arrow record batches, from a trace held in
//! memory (feature `arrow`).
//!
//! [`arrow_table`] gives one of the tables of the export with the
//! columns of [`SCHEMAS`](crate::SCHEMAS), in their order, followed by the
//! partition column (`type`, `kind` for the table of types, `pattern` for
//! the wait states) that the export keeps in folder names: the schema is
//! derived from the Parquet schema text, so the two cannot drift apart.
//! One batch per partition (entity type, or kind of type), in the order of
//! the types' numbers; inside a batch, rows in the order of their
//! container (or type) number, then `seq`. The wait states and the
//! critical path are the rows the export writes (module `why`), in one
//! batch per partition in the order of their first row: wait states in
//! the analysis's order, segments in time order. Values are those the export writes for the same trace
//! (times as nanoseconds, names as people read them, `NULL` where the
//! export writes `NULL`).
//!
//! Strings of few distinct values (names, values, types) are
//! dictionary-encoded (`Dictionary(Int32, Utf8)`, one dictionary per
//! column shared by every batch of the table), as a Parquet reader gives
//! a dictionary-encoded column when asked to keep it so; a link's `key` is
//! plain `Utf8`. Every number is copied once, from the trace's columns
//! into the batch's: nothing goes through rows.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use trama_sim::{Columns, ContainerId, ListId, Model, Trace, TypeId, TypeKind};

use crate::table::Kind;
use crate::why::{why_rows, WhyRows};
use crate::{end_of, ns, Table};

/// The Arrow type of a dictionary-encoded string column.
fn dictionary() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

/// The Arrow schema of `table`: the columns of its Parquet schema, then
/// its partition column.
pub fn arrow_schema(table: Table) -> SchemaRef {
    let mut fields: Vec<Field> = table
        .columns()
        .into_iter()
        .map(|(name, kind)| {
            let (ty, nullable) = match kind {
                Kind::I64 | Kind::Id => (DataType::Int64, false),
                Kind::OptI64 => (DataType::Int64, true),
                Kind::I32 => (DataType::Int32, false),
                Kind::F64 => (DataType::Float64, false),
                Kind::Str => (dictionary(), false),
                Kind::OptStr => (dictionary(), true),
                Kind::Bytes => (DataType::Utf8, false),
            };
            Field::new(name, ty, nullable)
        })
        .collect();
    fields.push(Field::new(table.partition_key(), dictionary(), false));
    Arc::new(Schema::new(fields))
}

/// The distinct strings of one column, numbered in order of first use.
#[derive(Default)]
struct Dict {
    index: HashMap<String, i32>,
    values: Vec<String>,
}

impl Dict {
    fn key(&mut self, s: String) -> i32 {
        if let Some(&k) = self.index.get(&s) {
            return k;
        }
        let k = self.values.len() as i32;
        self.index.insert(s.clone(), k);
        self.values.push(s);
        k
    }
}

/// One column of a batch before its dictionaries are complete.
enum Col {
    I64(Vec<i64>),
    OptI64(Vec<Option<i64>>),
    I32(Vec<i32>),
    F64(Vec<f64>),
    /// Keys into the column's dictionary.
    Keys(Vec<Option<i32>>),
    Utf8(Vec<String>),
}

/// The rows of one batch, column by column, in the schema's order.
struct Batch(Vec<Col>);

/// Builds the batches of a table: one column after the other, each
/// string column keeping its dictionary.
struct Builder<'a> {
    model: &'a Model,
    table: Table,
    dicts: Vec<Dict>,
    batches: Vec<Batch>,
    /// Each container's path (names from below the root, joined by `/`).
    paths: Vec<String>,
}

impl<'a> Builder<'a> {
    fn new(model: &'a Model, table: Table) -> Builder<'a> {
        let n = table.columns().len() + 1;
        let mut paths: Vec<String> = Vec::new();
        if table == Table::Containers {
            paths = vec![String::new(); model.containers.len()];
            for c in model.containers_depth_first() {
                let info = model.container(c);
                if let Some(p) = info.parent {
                    let parent = &paths[p.index()];
                    let name = model.label(info.name);
                    paths[c.index()] = if parent.is_empty() {
                        name
                    } else {
                        format!("{parent}/{name}")
                    };
                }
            }
        }
        Builder {
            model,
            table,
            dicts: (0..n).map(|_| Dict::default()).collect(),
            batches: Vec::new(),
            paths,
        }
    }

    /// Keys of `strings` in the dictionary of column `col`.
    fn keys(&mut self, col: usize, strings: impl Iterator<Item = Option<String>>) -> Col {
        let d = &mut self.dicts[col];
        Col::Keys(strings.map(|s| s.map(|s| d.key(s))).collect())
    }

    /// A batch of the containers `cs`, all of one type.
    fn containers(&mut self, cs: &[ContainerId], partition: &str) {
        let m = self.model;
        let mut cols = Vec::new();
        for (i, (name, _)) in self.table.columns().into_iter().enumerate() {
            let info = |c: &ContainerId| m.container(*c);
            let end = |c: &ContainerId| end_of(info(c).start, info(c).end).map(ns);
            cols.push(match name {
                "id" => Col::I64(cs.iter().map(|c| i64::from(c.0)).collect()),
                "type_id" => Col::I64(cs.iter().map(|c| i64::from(info(c).ty.0)).collect()),
                "parent_id" => Col::OptI64(
                    cs.iter()
                        .map(|c| info(c).parent.map(|p| i64::from(p.0)))
                        .collect(),
                ),
                "depth" => Col::I32(cs.iter().map(|c| info(c).depth as i32).collect()),
                "path" => {
                    let paths: Vec<String> =
                        cs.iter().map(|c| self.paths[c.index()].clone()).collect();
                    self.keys(i, paths.into_iter().map(Some))
                }
                "name" => self.keys(i, cs.iter().map(|c| Some(m.label(info(c).name)))),
                "start_ns" => Col::I64(cs.iter().map(|c| ns(info(c).start)).collect()),
                "end_ns" => Col::OptI64(cs.iter().map(end).collect()),
                "duration_ns" => Col::OptI64(
                    cs.iter()
                        .map(|c| end(c).map(|e| e - ns(info(c).start)))
                        .collect(),
                ),
                other => unreachable!("a column of the containers: {other}"),
            });
        }
        self.finish_batch(cols, cs.len(), partition);
    }

    /// A batch of the types `ts`, all of one kind.
    fn types(&mut self, ts: &[TypeId], partition: &str) {
        let m = self.model;
        let name_of = |t: Option<TypeId>| t.map(|t| m.label(m.ty(t).name));
        let mut cols = Vec::new();
        for (i, (name, _)) in self.table.columns().into_iter().enumerate() {
            let info = |t: &TypeId| m.ty(*t);
            cols.push(match name {
                "id" => Col::I64(ts.iter().map(|t| i64::from(t.0)).collect()),
                "name" => self.keys(i, ts.iter().map(|t| Some(m.label(info(t).name)))),
                "alias" => self.keys(i, ts.iter().map(|t| Some(m.label(info(t).alias)))),
                "parent_id" => Col::OptI64(
                    ts.iter()
                        .map(|t| info(t).parent.map(|p| i64::from(p.0)))
                        .collect(),
                ),
                "parent" => self.keys(i, ts.iter().map(|t| name_of(info(t).parent))),
                "depth" => Col::I32(ts.iter().map(|t| info(t).depth as i32).collect()),
                "start_type" => self.keys(i, ts.iter().map(|t| name_of(info(t).start_type))),
                "end_type" => self.keys(i, ts.iter().map(|t| name_of(info(t).end_type))),
                "color" => self.keys(i, ts.iter().map(|t| Some(m.label(info(t).color)))),
                other => unreachable!("a column of the types: {other}"),
            });
        }
        self.finish_batch(cols, ts.len(), partition);
    }

    /// Dictionary keys of column `col` for a row's container (or none),
    /// each container's name looked up once.
    fn container_key(
        &mut self,
        col: usize,
        memo: &mut Vec<Option<i32>>,
        c: Option<ContainerId>,
    ) -> Option<i32> {
        let c = c?;
        if memo.len() <= c.index() {
            memo.resize(c.index() + 1, None);
        }
        if memo[c.index()].is_none() {
            let name = self.model.label(self.model.container(c).name);
            memo[c.index()] = Some(self.dicts[col].key(name));
        }
        memo[c.index()]
    }

    /// A batch of the entities of `lists` (one type), list after list;
    /// each column is gathered list by list from the trace's columns.
    fn entities(&mut self, trace: &Trace, lists: &[ListId], partition: &str) {
        let m = self.model;
        let rows: usize = lists.iter().map(|l| trace.columns(*l).len()).sum();
        // One value per row, list after list: `f` gives a list's values.
        fn gather<'a, T, I: Iterator<Item = T>>(
            trace: &'a Trace,
            lists: &[ListId],
            rows: usize,
            mut f: impl FnMut(ListId, &'a Columns) -> I,
        ) -> Vec<T> {
            let mut v = Vec::with_capacity(rows);
            for &l in lists {
                v.extend(f(l, trace.columns(l)));
            }
            v
        }
        let container_of = |c: u32| (c != u32::MAX).then_some(ContainerId(c));
        let mut cols = Vec::new();
        for (k, (name, _)) in self.table.columns().into_iter().enumerate() {
            cols.push(match name {
                "type_id" => Col::I64(gather(trace, lists, rows, |l, c| {
                    std::iter::repeat_n(i64::from(m.list(l).ty.0), c.len())
                })),
                "container_id" => Col::I64(gather(trace, lists, rows, |l, c| {
                    std::iter::repeat_n(i64::from(m.list(l).container.0), c.len())
                })),
                "container" => {
                    let mut memo = Vec::new();
                    let mut keys = Vec::with_capacity(rows);
                    for &l in lists {
                        let key = self.container_key(k, &mut memo, Some(m.list(l).container));
                        keys.extend(std::iter::repeat_n(key, trace.columns(l).len()));
                    }
                    Col::Keys(keys)
                }
                "seq" => Col::I64(gather(trace, lists, rows, |_, c| 0..c.len() as i64)),
                "start_ns" | "time_ns" => Col::I64(gather(trace, lists, rows, |_, c| {
                    c.start.iter().map(|&s| ns(s))
                })),
                "end_ns" => Col::OptI64(gather(trace, lists, rows, |_, c| {
                    c.start
                        .iter()
                        .zip(&c.end)
                        .map(|(&s, &e)| end_of(s, e).map(ns))
                })),
                "duration_ns" => Col::OptI64(gather(trace, lists, rows, |_, c| {
                    c.start
                        .iter()
                        .zip(&c.end)
                        .map(|(&s, &e)| end_of(s, e).map(|e| ns(e) - ns(s)))
                })),
                "level" => Col::I32(gather(trace, lists, rows, |_, c| {
                    c.level.iter().map(|&x| x as i32)
                })),
                "value_id" => Col::I64(gather(trace, lists, rows, |_, c| {
                    c.value.iter().map(|v| i64::from(v.0))
                })),
                "value" if self.table == Table::Variables => {
                    Col::F64(gather(trace, lists, rows, |_, c| c.number.iter().copied()))
                }
                "value" => {
                    // Each value's name looked up once.
                    let mut memo: Vec<Option<i32>> = vec![None; m.values.len()];
                    let dict = &mut self.dicts[k];
                    let mut keys = Vec::with_capacity(rows);
                    for &l in lists {
                        for v in &trace.columns(l).value {
                            let key = *memo[v.index()]
                                .get_or_insert_with(|| dict.key(m.label(m.value(*v).name)));
                            keys.push(Some(key));
                        }
                    }
                    Col::Keys(keys)
                }
                "key" => Col::Utf8(gather(trace, lists, rows, |_, c| {
                    c.key.iter().map(|&(o, n)| {
                        let b = &trace.key_bytes[o as usize..o as usize + n as usize];
                        String::from_utf8_lossy(b).into_owned()
                    })
                })),
                "start_container_id" | "end_container_id" => {
                    let from = name == "start_container_id";
                    Col::OptI64(gather(trace, lists, rows, |_, c| {
                        let ends = if from { &c.from } else { &c.to };
                        ends.iter()
                            .map(move |&x| container_of(x).map(|c| i64::from(c.0)))
                    }))
                }
                "start_container" | "end_container" => {
                    let from = name == "start_container";
                    let mut memo = Vec::new();
                    let mut keys = Vec::with_capacity(rows);
                    for &l in lists {
                        let c = trace.columns(l);
                        for &x in if from { &c.from } else { &c.to } {
                            keys.push(self.container_key(k, &mut memo, container_of(x)));
                        }
                    }
                    Col::Keys(keys)
                }
                other => unreachable!("a column of {}: {other}", self.table.name()),
            });
        }
        self.finish_batch(cols, rows, partition);
    }

    /// The batches of the wait states or the critical path (`self.table`)
    /// of `rows`: one per partition, in the order of its first row.
    fn why(&mut self, rows: &WhyRows) {
        let m = self.model;
        let label = |c: ContainerId| m.label(m.container(c).name);
        let region = |r: usize| rows.regions[r].clone();
        let mut parts: Vec<(String, Vec<usize>)> = Vec::new();
        let n = if self.table == Table::WaitStates {
            rows.waits.len()
        } else {
            rows.path.len()
        };
        for i in 0..n {
            let key = if self.table == Table::WaitStates {
                rows.waits[i].pattern.name().to_string()
            } else {
                m.label(m.ty(m.container(rows.path[i].container).ty).name)
            };
            match parts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(i),
                None => parts.push((key, vec![i])),
            }
        }
        for (partition, idx) in parts {
            let mut cols = Vec::new();
            for (k, (name, _)) in self.table.columns().into_iter().enumerate() {
                let col = if self.table == Table::WaitStates {
                    let ws: Vec<_> = idx.iter().map(|&i| &rows.waits[i]).collect();
                    let times = |f: fn(&crate::why::WaitRow) -> i64| {
                        Col::I64(ws.iter().map(|w| f(w)).collect())
                    };
                    match name {
                        "container_id" => times(|w| i64::from(w.container.0)),
                        "container" => self.keys(k, ws.iter().map(|w| Some(label(w.container)))),
                        "waited_for_id" => Col::OptI64(
                            ws.iter()
                                .map(|w| w.waited_for.map(|c| i64::from(c.0)))
                                .collect(),
                        ),
                        "waited_for" => self.keys(k, ws.iter().map(|w| w.waited_for.map(label))),
                        "region" => self.keys(k, ws.iter().map(|w| Some(region(w.region)))),
                        "call_start_ns" => times(|w| w.call_start),
                        "call_end_ns" => times(|w| w.call_end),
                        "start_ns" => times(|w| w.start),
                        "end_ns" => times(|w| w.end),
                        "duration_ns" => times(|w| w.end - w.start),
                        other => unreachable!("a column of the wait states: {other}"),
                    }
                } else {
                    let ss: Vec<_> = idx.iter().map(|&i| &rows.path[i]).collect();
                    let times = |f: fn(&crate::why::PathRow) -> i64| {
                        Col::I64(ss.iter().map(|s| f(s)).collect())
                    };
                    match name {
                        "container_id" => times(|s| i64::from(s.container.0)),
                        "container" => self.keys(k, ss.iter().map(|s| Some(label(s.container)))),
                        "value" => self.keys(k, ss.iter().map(|s| s.value.map(region))),
                        "start_ns" => times(|s| s.start),
                        "end_ns" => times(|s| s.end),
                        "duration_ns" => times(|s| s.end - s.start),
                        other => unreachable!("a column of the critical path: {other}"),
                    }
                };
                cols.push(col);
            }
            self.finish_batch(cols, idx.len(), &partition);
        }
    }

    /// Adds the partition column and keeps the batch.
    fn finish_batch(&mut self, mut cols: Vec<Col>, rows: usize, partition: &str) {
        let last = cols.len();
        let k = self.dicts[last].key(partition.to_string());
        cols.push(Col::Keys(vec![Some(k); rows]));
        self.batches.push(Batch(cols));
    }

    /// The record batches, every string column with its whole dictionary.
    fn finish(self) -> Result<(SchemaRef, Vec<RecordBatch>), ArrowError> {
        let schema = arrow_schema(self.table);
        let dicts: Vec<ArrayRef> = self
            .dicts
            .into_iter()
            .map(|d| Arc::new(StringArray::from(d.values)) as ArrayRef)
            .collect();
        let mut out = Vec::with_capacity(self.batches.len());
        for Batch(cols) in self.batches {
            let arrays = cols
                .into_iter()
                .enumerate()
                .map(|(i, c)| -> Result<ArrayRef, ArrowError> {
                    Ok(match c {
                        Col::I64(v) => Arc::new(Int64Array::from(v)),
                        Col::OptI64(v) if v.iter().all(Option::is_some) => Arc::new(
                            Int64Array::from(v.into_iter().flatten().collect::<Vec<_>>()),
                        ),
                        Col::OptI64(v) => Arc::new(Int64Array::from(v)),
                        Col::I32(v) => Arc::new(Int32Array::from(v)),
                        Col::F64(v) => Arc::new(Float64Array::from(v)),
                        Col::Utf8(v) => Arc::new(StringArray::from(v)),
                        Col::Keys(k) => Arc::new(DictionaryArray::<Int32Type>::try_new(
                            if k.iter().all(Option::is_some) {
                                Int32Array::from(k.into_iter().flatten().collect::<Vec<_>>())
                            } else {
                                Int32Array::from(k)
                            },
                            dicts[i].clone(),
                        )?),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            out.push(RecordBatch::try_new(schema.clone(), arrays)?);
        }
        Ok((schema, out))
    }
}

/// `table` of `trace` as Arrow record batches with [`arrow_schema`]: see
/// the module documentation. A table without rows has no batch.
pub fn arrow_table(
    trace: &Trace,
    table: Table,
) -> Result<(SchemaRef, Vec<RecordBatch>), ArrowError> {
    let m = &trace.model;
    let mut b = Builder::new(m, table);
    match table {
        Table::Containers => {
            let mut by_type: Vec<Vec<ContainerId>> = vec![Vec::new(); m.types.len()];
            for c in 0..m.containers.len() {
                let c = ContainerId(c as u32);
                by_type[m.container(c).ty.index()].push(c);
            }
            for (t, cs) in by_type.iter().enumerate() {
                if !cs.is_empty() {
                    b.containers(cs, &m.label(m.ty(TypeId(t as u32)).name));
                }
            }
        }
        Table::Types => {
            let kinds = [
                TypeKind::Container,
                TypeKind::State,
                TypeKind::Event,
                TypeKind::Variable,
                TypeKind::Link,
            ];
            for kind in kinds {
                let ts: Vec<TypeId> = (0..m.types.len() as u32)
                    .map(TypeId)
                    .filter(|t| m.ty(*t).kind == kind)
                    .collect();
                if !ts.is_empty() {
                    b.types(&ts, kind.name());
                }
            }
        }
        Table::WaitStates | Table::CriticalPath => b.why(&why_rows(trace)),
        _ => {
            let mut by_type: Vec<Vec<ListId>> = vec![Vec::new(); m.types.len()];
            for (l, info) in m.lists.iter().enumerate() {
                if Table::of_kind(info.kind) == table && l < trace.lists.len() {
                    by_type[info.ty.index()].push(ListId(l as u32));
                }
            }
            for (t, lists) in by_type.iter_mut().enumerate() {
                lists.sort_by_key(|l| m.list(*l).container);
                if lists.iter().any(|l| !trace.columns(*l).is_empty()) {
                    b.entities(trace, lists, &m.label(m.ty(TypeId(t as u32)).name));
                }
            }
        }
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_schemas_follow_the_parquet_schemas() {
        for t in Table::ALL {
            let s = arrow_schema(t);
            let names: Vec<&str> = s.fields().iter().map(|f| f.name().as_str()).collect();
            let mut expected: Vec<&str> = t.columns().into_iter().map(|(n, _)| n).collect();
            expected.push(t.partition_key());
            assert_eq!(names, expected, "{t:?}");
        }
        let links = arrow_schema(Table::Links);
        assert!(links.field_with_name("end_ns").unwrap().is_nullable());
        assert_eq!(
            links.field_with_name("key").unwrap().data_type(),
            &DataType::Utf8
        );
    }
}
