//! The source kinds `trama merge` reads, by name, their options, and their
//! detection from content.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context};
use trama_sources::{clog2, ganglia, opents, paje, pcp, rst, sched, Source};

/// The kinds a plan's `kind` may name, with their options (for `--help` and messages).
pub const KINDS: &[(&str, &str)] = &[
    ("paje", "Pajé traces, text or trama's binary .ptb (no option)"),
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
pub struct EntryContext<'a> {
    /// The entry's `host`.
    pub host: Option<&'a str>,
    /// The plan's folder, for relative paths in options.
    pub base: &'a Path,
}

struct Opts<'a> {
    kind: &'a str,
    table: &'a toml::Table,
    used: Vec<&'static str>,
}

impl<'a> Opts<'a> {
    fn get(&mut self, key: &'static str) -> Option<&'a toml::Value> {
        self.used.push(key);
        self.table.get(key)
    }

    fn string(&mut self, key: &'static str) -> anyhow::Result<Option<String>> {
        let kind = self.kind;
        self.get(key)
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| anyhow!("option '{key}' of kind '{kind}' must be a string"))
            })
            .transpose()
    }

    fn bool(&mut self, key: &'static str) -> anyhow::Result<Option<bool>> {
        let kind = self.kind;
        self.get(key)
            .map(|v| {
                v.as_bool()
                    .ok_or_else(|| anyhow!("option '{key}' of kind '{kind}' must be true or false"))
            })
            .transpose()
    }

    fn int(&mut self, key: &'static str) -> anyhow::Result<Option<i64>> {
        let kind = self.kind;
        self.get(key)
            .map(|v| {
                v.as_integer()
                    .ok_or_else(|| anyhow!("option '{key}' of kind '{kind}' must be an integer"))
            })
            .transpose()
    }

    fn strings(&mut self, key: &'static str) -> anyhow::Result<Vec<String>> {
        let kind = self.kind;
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(v) => v
                .as_array()
                .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect())
                .ok_or_else(|| {
                    anyhow!("option '{key}' of kind '{kind}' must be a list of strings")
                }),
        }
    }

    /// Fails on an option no reader asked for.
    fn finish(self) -> anyhow::Result<()> {
        if let Some(k) = self.table.keys().find(|k| !self.used.contains(&k.as_str())) {
            bail!(
                "kind '{}' has no option '{k}'{}",
                self.kind,
                if self.used.is_empty() {
                    String::new()
                } else {
                    format!(" (it has: {})", self.used.join(", "))
                }
            );
        }
        Ok(())
    }
}

/// Opens the files of one plan entry as sources (one per file).
pub fn open_source(
    kind: &str,
    files: &[PathBuf],
    options: &toml::Table,
    cx: &EntryContext<'_>,
) -> anyhow::Result<Vec<Box<dyn Source>>> {
    let mut o = Opts {
        kind,
        table: options,
        used: Vec::new(),
    };
    let mut out: Vec<Box<dyn Source>> = Vec::new();
    let need_host = |what: &str| -> anyhow::Result<String> {
        cx.host.map(str::to_string).ok_or_else(|| {
            anyhow!(
                "a '{what}' source needs the host it was taken on: give `host` in its plan entry"
            )
        })
    };
    match kind {
        "paje" => {
            o.finish()?;
            for f in files {
                out.push(Box::new(open_paje(f)?));
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
                opts.utc_offset = i32::try_from(v).context("option 'utc_offset'")?;
            }
            if let Some(v) = o.int("year")? {
                opts.year = Some(i32::try_from(v).context("option 'year'")?);
            }
            if let Some(v) = o.string("unavailable")? {
                opts.unavailable = v;
            }
            match o.string("instances")?.as_deref() {
                None | Some("name") => opts.instances = pcp::InstanceMapping::InName,
                Some("container") => opts.instances = pcp::InstanceMapping::Container,
                Some(v) => bail!(
                    "option 'instances' of kind 'pcp': '{v}' is neither 'name' nor 'container'"
                ),
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
        other => bail!(
            "unknown source kind '{other}' (known: {})",
            KINDS.iter().map(|k| k.0).collect::<Vec<_>>().join(", ")
        ),
    }
    Ok(out)
}

/// A Pajé trace as a source: text (plain, gzip, zstd) or trama's binary
/// format, whose text is produced on a thread of its own and read through
/// a pipe (so memory stays bounded).
fn open_paje(path: &Path) -> anyhow::Result<paje::PajeSource> {
    use std::io::{Read, Write};
    let mut prefix = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut prefix))
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if !trama_ptb::is_ptb(&prefix[..n]) {
        return Ok(paje::PajeSource::open(path, &paje::PajeOptions::default())?);
    }
    let file = trama_ptb::PtbFile::open(path)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let (reader, mut writer) = std::io::pipe()?;
    let failure: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let slot = failure.clone();
    let name = path.display().to_string();
    let thread = std::thread::Builder::new()
        .name("trama-ptb-text".into())
        .spawn(move || {
            let mut opts = trama_ptb::ReadOptions::default();
            opts.threads = 0;
            let mut w = std::io::BufWriter::with_capacity(64 << 10, &mut writer);
            let r = trama_ptb::write_text(&file, &opts, &mut w)
                .map_err(|e| e.to_string())
                .and_then(|()| w.flush().map_err(|e| e.to_string()));
            if let Err(e) = r {
                // A reader that stopped early closed the pipe: not an error.
                if !e.contains("Broken pipe") {
                    *slot.lock().expect("not poisoned") = Some(e);
                }
            }
        })?;
    let checked = CheckedPipe {
        reader,
        failure,
        thread: Some(thread),
    };
    Ok(paje::PajeSource::from_reader(
        name,
        checked,
        &paje::PajeOptions::default(),
    )?)
}

/// The reading end of a pipe whose writer may fail: its failure is an
/// error at the end of the input, never a silently short trace.
struct CheckedPipe {
    reader: std::io::PipeReader,
    failure: Arc<std::sync::Mutex<Option<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::io::Read for CheckedPipe {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.reader.read(buf)?;
        if n == 0 {
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
            if let Some(e) = self.failure.lock().expect("not poisoned").take() {
                return Err(std::io::Error::other(e));
            }
        }
        Ok(n)
    }
}

/// The kind of a file, from its first bytes.
pub fn detect(path: &Path) -> anyhow::Result<&'static str> {
    use std::io::Read;
    let mut head = vec![0u8; 16 << 10];
    let mut f = std::fs::File::open(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let mut n = 0;
    while n < head.len() {
        let r = f.read(&mut head[n..])?;
        if r == 0 {
            break;
        }
        n += r;
    }
    head.truncate(n);
    if head.starts_with(b"CLOG-02") {
        return Ok("clog2");
    }
    if trama_rastro::rst::detect_layout(&head).is_ok() && !head.is_ascii() {
        return Ok("rst");
    }
    if trama_ptb::is_ptb(&head) {
        return Ok("paje");
    }
    if head.contains(&0) {
        bail!(
            "{}: a binary file of no format trama reads (CLOG-2 starts with 'CLOG-02', libRastro with its event header)",
            path.display()
        );
    }
    let text = String::from_utf8_lossy(&head);
    if text.contains("%EventDef") {
        return Ok("paje");
    }
    if text.contains("<GANGLIA_XML") {
        return Ok("ganglia");
    }
    if text.contains("<trace") && text.contains("<slice") {
        return Ok("opents");
    }
    if text.contains("sched_switch") || text.contains("sched_wakeup") {
        return Ok("sched");
    }
    if pcp::detect_format(&text).is_some() {
        return Ok("pcp");
    }
    if matches!(sched::detect_format(&text), sched::SchedFormat::SeedKernel) {
        return Ok("sched");
    }
    if matches!(ganglia::detect(&head), Some(ganglia::Format::TextLog)) {
        return Ok("ganglia");
    }
    bail!(
        "{}: cannot tell its format from its content; name its plan entry (NAME=FILE)",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `../shared/samples` beside the repository, when present.
    fn samples() -> Option<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples");
        if dir.is_dir() {
            return Some(dir);
        }
        assert!(
            std::env::var("TRAMA_REQUIRE_SHARED").as_deref() != Ok("1"),
            "shared samples missing at {}",
            dir.display()
        );
        eprintln!("NOTE: shared samples missing: detection cases SKIPPED");
        None
    }

    #[test]
    fn formats_are_told_from_content() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/integration");
        for (file, kind) in [
            ("pingpong.clog2", "clog2"),
            ("ftrace-paple01.txt", "sched"),
            ("ganglia.log", "ganglia"),
            ("pcp-paple01.csv", "pcp"),
        ] {
            assert_eq!(detect(&data.join(file)).unwrap(), kind, "{file}");
        }
        let Some(s) = samples() else { return };
        for (file, kind) in [
            ("librastro-rst/akypuera/ring/rastro-0-0.rst", "rst"),
            ("mpe-clog/clog2/cpilog.clog2", "clog2"),
            ("ganglia/gmond-3.3.8-cassandra.xml", "ganglia"),
            ("ganglia/gmetad-3.7.1-pretty-printed.xml", "ganglia"),
            ("pcp/expected/dyninsts.pmrep-csv.unit-info.csv", "pcp"),
            ("pcp/expected/ok-foo.pmdumplog-z-a.txt", "pcp"),
            ("ftrace/tracecompass-trace-android-sched.txt", "sched"),
            ("trace-cmd/trappy-raw_trace.txt", "sched"),
            ("paje-real/simgrid/smpi-replay.paje", "paje"),
        ] {
            assert_eq!(detect(&s.join(file)).unwrap(), kind, "{file}");
        }
        let e = detect(&s.join("mpe-clog/clog-v1/fpilog.clog")).unwrap_err();
        assert!(e.to_string().contains("fpilog.clog"), "{e}");
    }
}
