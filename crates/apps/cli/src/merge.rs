//! `trama merge`: many sources, one trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use clap::Args;
use trama_merge::{Job, JobError, Origin};
use trama_timesync::TimeUnit;

/// Arguments of `trama merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Sources: NAME=FILE (the plan's source entry NAME reads FILE) or FILE
    /// (the entry whose kind matches the file's detected format, when only
    /// one does). Files given for an entry replace those the plan lists for
    /// it; the plan's files of the other entries are read as well.
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
    #[arg(long, value_name = "UNIT", default_value = "us", value_parser = crate::timesync::parse_unit)]
    sync_unit: TimeUnit,
    /// Output: OUT.paje (Pajé text), OUT.ptb (trama's binary format) or - (standard output).
    #[arg(short = 'o', long, value_name = "OUT")]
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

pub fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    let mut job = Job::new(&args.plan)?;
    for s in &args.sources {
        job.add(s)?;
    }
    for (flag, kind, list) in [
        ("--deck", "rst", &args.deck),
        ("--mpi", "clog2", &args.mpi),
        ("--os", "sched", &args.os),
        ("--ganglia", "ganglia", &args.ganglia),
        ("--pcp", "pcp", &args.pcp),
    ] {
        job.add_to_kind(flag, kind, list)?;
    }
    if let Some(m) = &args.mpinodes {
        job.machine_file(m)?;
    }
    if let Some(sync) = &args.sync {
        job.sync(sync, args.sync_unit);
    }
    job.origin(Origin::parse(&args.origin).map_err(|e| anyhow!("--origin: {e}"))?);
    job.decimals(args.decimals);
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
    let shown = bar.clone();
    let progress = move |n| {
        if let Some(b) = &shown {
            b.set_position(n);
        }
    };
    let notes = |n: String| eprintln!("trama merge: note: {n}");
    let stats = job.write(&args.output, notes, progress);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let stats = stats.map_err(|e| match e {
        // Kept as it is: a closed standard output ends quietly.
        JobError::Output(e) => anyhow::Error::from(e),
        e => e.into(),
    })?;
    for w in stats.span_warnings() {
        eprintln!("trama merge: warning: {w}");
    }
    eprintln!("trama merge: {}", stats.summary());
    Ok(ExitCode::SUCCESS)
}
