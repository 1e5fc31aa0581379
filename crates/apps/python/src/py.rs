//! The extension module `trama._trama` (PyO3): the functions of the crate
//! as Python sees them. Work on the trace runs with the interpreter
//! released (other Python threads go on); tables cross to pyarrow through
//! the Arrow C stream interface, without a copy.

use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_pyarrow::IntoPyArrow;
use arrow_schema::SchemaRef;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError};
use pyo3::prelude::*;

use crate::{Failure, Opened, Reading, StatsArgs};
use trama_open::ReadFlags;

create_exception!(
    _trama,
    TraceError,
    PyException,
    "A trace could not be read, or an analysis not computed. The message is the one `trama` prints; `file`, `line` and `offset` say where, when it does."
);

/// The Python exception of a failure: [`TraceError`] with `file`, `line`
/// and `offset` set (`None` when unknown), or `FileNotFoundError` (its
/// `filename` set) for an input that does not exist.
fn raise(py: Python<'_>, f: Failure) -> PyErr {
    if f.not_found {
        return PyFileNotFoundError::new_err((2, f.message, f.file));
    }
    let e = TraceError::new_err(f.message.clone());
    let v = e.value(py);
    let set = |k: &str, x: Option<Bound<'_, PyAny>>| {
        let _ = v.setattr(k, x);
    };
    set(
        "file",
        f.file.map(|x| x.into_pyobject(py).unwrap().into_any()),
    );
    set(
        "line",
        f.line.map(|x| x.into_pyobject(py).unwrap().into_any()),
    );
    set(
        "offset",
        f.offset.map(|x| x.into_pyobject(py).unwrap().into_any()),
    );
    e
}

/// A `pyarrow.RecordBatchReader` over `batches`.
fn reader<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyAny>> {
    let it = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    let boxed: Box<dyn RecordBatchReader + Send> = Box::new(it);
    boxed.into_pyarrow(py)
}

/// A trace held in memory (see `trama.open`).
#[pyclass(frozen, module = "trama._trama")]
struct Trace {
    inner: Opened,
}

#[pymethods]
impl Trace {
    /// The input's name (its path).
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// The start and end of the trace, in seconds.
    #[getter]
    fn span(&self) -> (f64, f64) {
        (self.inner.trace.start_time(), self.inner.trace.end_time())
    }

    /// The warnings of reading it.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.trace.warnings.clone()
    }

    /// Whether the user-defined fields (message sizes) were kept.
    #[getter]
    fn user_fields(&self) -> bool {
        self.inner.keep_extras
    }

    /// The table `name` as a `pyarrow.RecordBatchReader`.
    fn table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let (schema, batches) = py
            .detach(|| crate::table(&self.inner, name))
            .map_err(|f| raise(py, f))?;
        reader(py, schema, batches)
    }

    /// The messages as a `pyarrow.RecordBatchReader` (see `crate::messages`).
    #[pyo3(signature = (window=None, size_field=None, link_types=Vec::new()))]
    fn messages<'py>(
        &self,
        py: Python<'py>,
        window: Option<String>,
        size_field: Option<String>,
        link_types: Vec<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let batch = py
            .detach(|| {
                crate::messages(
                    &self.inner,
                    window.as_deref(),
                    size_field.as_deref(),
                    &link_types,
                )
            })
            .map_err(|f| raise(py, f))?;
        reader(py, batch.schema(), vec![batch])
    }

    /// The size field guessed from the links' user-defined fields.
    fn guess_size_field(&self) -> Option<String> {
        trama_analysis::guess_size_field(&self.inner.trace)
    }

    /// The JSON document of `trama stats ANALYSIS --format json`, and the
    /// notes it prints.
    #[pyo3(signature = (analysis, window=None, level=None, size_field=None, waiting=Vec::new(),
                        slices=None, slice_length=None, instants=None, at=None,
                        link_types=Vec::new(), instances=None, by=None))]
    #[allow(clippy::too_many_arguments)]
    fn stats(
        &self,
        py: Python<'_>,
        analysis: &str,
        window: Option<String>,
        level: Option<String>,
        size_field: Option<String>,
        waiting: Vec<String>,
        slices: Option<usize>,
        slice_length: Option<f64>,
        instants: Option<usize>,
        at: Option<Vec<f64>>,
        link_types: Vec<String>,
        instances: Option<usize>,
        by: Option<String>,
    ) -> PyResult<(String, Vec<String>)> {
        let args = StatsArgs {
            window,
            level,
            size_field,
            waiting,
            slices,
            slice_length,
            instants,
            at,
            link_types,
            instances,
            by,
        };
        py.detach(|| crate::stats(&self.inner, analysis, &args))
            .map_err(|f| raise(py, f))
    }

    /// Serves the trace with the viewer of `trama view`; its URL.
    #[pyo3(signature = (port=None))]
    fn view(&self, py: Python<'_>, port: Option<u16>) -> PyResult<Viewer> {
        let running = py
            .detach(|| crate::view(&self.inner, port))
            .map_err(|f| raise(py, f))?;
        Ok(Viewer {
            url: running.url.clone(),
            running: std::sync::Mutex::new(Some(running)),
        })
    }
}

/// A viewer serving a trace (see `trama.view`).
#[pyclass(frozen, module = "trama._trama")]
struct Viewer {
    url: String,
    running: std::sync::Mutex<Option<trama_viewer::Running>>,
}

#[pymethods]
impl Viewer {
    /// The page's URL.
    #[getter]
    fn url(&self) -> String {
        self.url.clone()
    }

    /// Stops serving.
    fn stop(&self, py: Python<'_>) {
        let running = self.running.lock().ok().and_then(|mut r| r.take());
        if let Some(r) = running {
            py.detach(|| r.stop());
        }
    }
}

/// Opens and loads a trace (see `trama.open`).
#[pyfunction]
#[pyo3(signature = (path, *, no_strict=false, strip_quotes=false, stop_at=None,
                    ignore_incomplete_links=false, no_imbrication=false, lenient=false,
                    sort_window=None, threads=0, window=None, user_fields=true))]
#[allow(clippy::too_many_arguments)]
fn open(
    py: Python<'_>,
    path: std::path::PathBuf,
    no_strict: bool,
    strip_quotes: bool,
    stop_at: Option<f64>,
    ignore_incomplete_links: bool,
    no_imbrication: bool,
    lenient: bool,
    sort_window: Option<f64>,
    threads: usize,
    window: Option<String>,
    user_fields: bool,
) -> PyResult<Trace> {
    let reading = Reading {
        flags: {
            let mut f = ReadFlags::default();
            (f.threads, f.no_strict, f.strip_quotes) = (threads, no_strict, strip_quotes);
            (f.stop_at, f.ignore_incomplete_links) = (stop_at, ignore_incomplete_links);
            (f.no_imbrication, f.lenient, f.sort_window) = (no_imbrication, lenient, sort_window);
            f
        },
        window,
        keep_extras: user_fields,
    };
    let path = path.to_string_lossy().into_owned();
    let inner = py
        .detach(|| crate::open(&path, &reading))
        .map_err(|f| raise(py, f))?;
    Ok(Trace { inner })
}

/// The extension module.
#[pymodule]
fn _trama(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_class::<Trace>()?;
    m.add_class::<Viewer>()?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    Ok(())
}
