//! `trama merge`: many sources, one trace.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context};
use clap::Args;
use trama_merge::{merge, Correct, Input, Mapper, MergeOptions, Origin, Plan, SourcePlan};
use trama_sources::{Dialect, PajeWriter, WriterOptions};
use trama_timesync::{SyncTable, TimeUnit};

use crate::sources::open_source;

/// Arguments of `trama merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Sources: NAME=FILE (the plan's source entry NAME reads FILE) or FILE
    /// (the entry whose kind matches the file's detected format, when only
    /// one does). Files listed in the plan are read as well.
    #[arg(value_name = "SOURCE")]
    sources: Vec<String>,
    /// The unification plan (TOML): the unified hierarchy and how each source maps into it.
    #[arg(long, visible_alias = "hierarchy", value_name = "PLAN")]
    plan: PathBuf,
    /// The timesync file of clock pairs (`refhost reftime host hosttime`, a
    /// block before and one after the run): each host's times are corrected
    /// to the reference clock (drift when both blocks are given, offset otherwise).
    #[arg(long, value_name = "FILE")]
    sync: Option<PathBuf>,
    /// Unit of the timesync file's times.
    #[arg(long, value_name = "UNIT", default_value = "us", value_parser = parse_unit)]
    sync_unit: TimeUnit,
    /// Output: OUT.paje (Pajé text), OUT.ptb (trama's binary format) or - (standard output).
    #[arg(short = 'o', long, visible_alias = "output", value_name = "OUT")]
    output: PathBuf,
    /// Where time 0 is: `earliest` (the first record, the default) or
    /// `absolute` (the reference clock's own zero, e.g. the Unix epoch).
    #[arg(long, value_name = "ORIGIN", default_value = "earliest")]
    origin: String,
    /// Decimals of the times written (at most 9).
    #[arg(long, value_name = "N", default_value_t = 9)]
    decimals: u32,
    /// The seed's flags: DECK libRastro traces (the plan's `rst` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    deck: Vec<PathBuf>,
    /// The seed's flags: the MPI trace (the plan's `clog2` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    mpi: Vec<PathBuf>,
    /// The seed's flags: the MPI machine file (ranks placed on hosts in file order).
    #[arg(long, value_name = "FILE")]
    mpinodes: Option<PathBuf>,
    /// The seed's flags: OS scheduling traces (the plan's `sched` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    os: Vec<PathBuf>,
    /// The seed's flags: Ganglia logs or XML dumps (the plan's `ganglia` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    ganglia: Vec<PathBuf>,
    /// The seed's flags: Performance Co-Pilot outputs (the plan's `pcp` entry).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pcp: Vec<PathBuf>,
    /// Never show a progress bar.
    #[arg(long)]
    no_progress: bool,
}

fn parse_unit(s: &str) -> Result<TimeUnit, String> {
    s.parse::<TimeUnit>().map_err(|e| e.to_string())
}

/// The entry of `plan` whose kind is `kind` (for the seed's flags and bare files).
fn entry_of_kind<'p>(plan: &'p Plan, kind: &str, what: &str) -> anyhow::Result<&'p SourcePlan> {
    let mut found = plan.sources.iter().filter(|s| s.kind == kind);
    match (found.next(), found.next()) {
        (Some(e), None) => Ok(e),
        (None, _) => bail!("{what}: the plan has no source entry of kind '{kind}'"),
        (Some(a), Some(b)) => bail!(
            "{what}: the plan has several entries of kind '{kind}' ('{}', '{}'); give NAME=FILE",
            a.name,
            b.name
        ),
    }
}

pub fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    let mut plan = Plan::read(&args.plan)?;
    // Files per entry: the plan's own, then the command line's.
    let mut files: Vec<Vec<PathBuf>> = plan.sources.iter().map(|s| s.files.clone()).collect();
    let index = |plan: &Plan, name: &str| plan.sources.iter().position(|s| s.name == name);
    for s in &args.sources {
        let (entry, file) = match s.split_once('=') {
            Some((name, file)) => {
                let i = index(&plan, name).ok_or_else(|| {
                    anyhow!(
                        "{s}: the plan {} has no source entry named '{name}' (it has: {})",
                        args.plan.display(),
                        plan.sources
                            .iter()
                            .map(|s| s.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?;
                (i, PathBuf::from(file))
            }
            None => {
                let kind = crate::sources::detect(Path::new(s))?;
                let e = entry_of_kind(&plan, kind, s)?;
                (
                    index(&plan, &e.name.clone()).expect("found"),
                    PathBuf::from(s),
                )
            }
        };
        files[entry].push(file);
    }
    for (flag, kind, list) in [
        ("--deck", "rst", &args.deck),
        ("--mpi", "clog2", &args.mpi),
        ("--os", "sched", &args.os),
        ("--ganglia", "ganglia", &args.ganglia),
        ("--pcp", "pcp", &args.pcp),
    ] {
        if !list.is_empty() {
            let e = entry_of_kind(&plan, kind, flag)?.name.clone();
            files[index(&plan, &e).expect("found")].extend(list.iter().cloned());
        }
    }
    if let Some(m) = &args.mpinodes {
        let e = entry_of_kind(&plan, "clog2", "--mpinodes")?.name.clone();
        let i = index(&plan, &e).expect("found");
        plan.sources[i].machinefile = Some(m.clone());
    }

    let mut inputs = Vec::new();
    for (entry, files) in plan.sources.iter().zip(&files) {
        if files.is_empty() {
            eprintln!(
                "trama merge: note: source '{}' ({}) has no file; skipped",
                entry.name, entry.kind
            );
            continue;
        }
        let rank_hosts = match &entry.machinefile {
            Some(m) => Some(
                trama_sources::clog2::read_machine_file(m)
                    .with_context(|| format!("source '{}'", entry.name))?,
            ),
            None => None,
        };
        let origin = match &entry.origin {
            Some(o) => trama_merge::parse_seconds(o)
                .map_err(|e| anyhow!("source '{}', origin: {e}", entry.name))?,
            None => 0,
        };
        let cx = crate::sources::EntryContext {
            host: entry.host.as_deref(),
            base: args.plan.parent().unwrap_or(Path::new("")),
        };
        for source in open_source(&entry.kind, files, &entry.options, &cx)
            .with_context(|| format!("source '{}' of the plan", entry.name))?
        {
            let name = source.name().to_string();
            inputs.push(Input {
                mapper: Mapper::new(&plan, Some(entry), &name, rank_hosts.clone()),
                source,
                group: entry.name.clone(),
                synchronized: entry.synchronized,
                origin,
            });
        }
    }
    if inputs.is_empty() {
        bail!(
            "nothing to merge: no source has a file (give them on the command line or in the plan)"
        );
    }

    let mut opts = MergeOptions::default();
    opts.separate_groups = true;
    opts.origin = match args.origin.as_str() {
        "earliest" => Origin::Earliest,
        "absolute" => Origin::At(0),
        o => bail!("--origin: '{o}' is neither 'earliest' nor 'absolute'"),
    };
    if let Some(sync) = &args.sync {
        let table = SyncTable::read(sync, args.sync_unit)?;
        let mut corrections: HashMap<String, Correct> = HashMap::new();
        for host in table.hosts() {
            let c = table.correction(host).expect("a host of the table");
            corrections.insert(host.to_string(), Arc::new(move |t| c.apply(t)));
        }
        opts.corrections = corrections;
    }

    let mut wopts = WriterOptions::default();
    wopts.decimals = args.decimals;
    wopts.comment = Some(format!(
        "merged by trama {} from {} sources with plan {}",
        env!("CARGO_PKG_VERSION"),
        inputs.len(),
        args.plan.display()
    ));
    let mut dialect = Dialect::standard();
    for input in &inputs {
        for x in input.source.extra_fields() {
            let ty =
                trama_events::FieldType::from_name(x.field_type.as_bytes()).ok_or_else(|| {
                    anyhow!(
                        "{}: unknown field type '{}'",
                        input.source.name(),
                        x.field_type
                    )
                })?;
            dialect = dialect.with_extras(x.kind, &[(x.name.as_str(), ty)]);
        }
    }

    let to_ptb = args.output.extension().is_some_and(|e| e == "ptb");
    let text_path = if to_ptb {
        let mut p = args.output.clone().into_os_string();
        p.push(".partial.paje");
        Some(PathBuf::from(p))
    } else {
        None
    };
    let out: Box<dyn Write> = if args.output.as_os_str() == "-" {
        Box::new(BufWriter::with_capacity(1 << 16, std::io::stdout().lock()))
    } else {
        let p = text_path.as_ref().unwrap_or(&args.output);
        Box::new(BufWriter::with_capacity(
            1 << 16,
            File::create(p).map_err(|e| anyhow!("cannot create {}: {e}", p.display()))?,
        ))
    };
    let mut writer = PajeWriter::new(out, dialect, wopts)?;
    let bar =
        (!args.no_progress && std::io::IsTerminal::is_terminal(&std::io::stderr())).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} merged {pos} records ({per_sec}) {elapsed}",
                )
                .expect("valid template"),
            );
            b
        });
    let stats = merge(inputs, &plan.levels(), &opts, &mut writer, &mut |n| {
        if let Some(b) = &bar {
            b.set_position(n);
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let stats = match stats {
        Ok(s) => s,
        Err(e) => {
            drop(writer);
            if let Some(p) = text_path
                .as_ref()
                .or((args.output.as_os_str() != "-").then_some(&args.output))
            {
                let _ = std::fs::remove_file(p);
            }
            return Err(e.into());
        }
    };
    writer.finish()?.flush()?;
    if let Some(text) = &text_path {
        let read = crate::ReadArgs::for_file(text);
        let settings = crate::convert::ConvertSettings {
            output: args.output.clone(),
            to: Some(crate::convert::Target::Ptb),
            strings: trama_events::StringMode::Interned,
            zstd_level: None,
            block_events: trama_ptb::WriteOptions::default().block_events,
        };
        let r = crate::convert::convert(&read, &settings);
        let _ = std::fs::remove_file(text);
        r?;
    }
    eprintln!(
        "trama merge: {} records from {} sources written{}",
        stats.written,
        stats.records.len(),
        match stats.span {
            Some((a, b)) => format!(", spanning {} s", trama_sources::TimeText(b - a, 6)),
            None => String::new(),
        }
    );
    Ok(ExitCode::SUCCESS)
}
