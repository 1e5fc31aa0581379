//! `trama`: post-mortem analysis of execution traces.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::TypedValueParser;
use clap::{ArgAction, Args, Parser, Subcommand};

mod collect;
mod convert;
mod diff;
mod dump;
mod export;
mod info;
mod merge;
mod render;
mod report;
mod run;
mod stats;
mod timesync;
mod view;

/// The reading flags every command that reads a trace takes.
pub use trama_open::ReadFlags as ReadArgs;

/// Post-mortem performance analysis of parallel and distributed programs.
///
/// trama reads Pajé traces (text, optionally gzip- or zstd-compressed) and
/// OTF2 archives, simulates them with PajeNG's semantics and writes what
/// they contain.
#[derive(Parser, Debug)]
#[command(name = "trama", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Dump a Pajé trace in pj_dump's CSV-like format (a drop-in for PajeNG's pj_dump).
    ///
    /// Output lines, in PajeNG's order (depth-first over containers):
    ///   Container, Parent, Type, Start, End, Duration, Name
    ///   State, Container, Type, Start, End, Duration, Imbrication, Value
    ///   Event, Container, Type, Time, Value
    ///   Variable, Container, Type, Start, End, Duration, Value
    ///   Link, Container, Type, Start, End, Duration, Value, StartContainer, EndContainer, Key
    ///
    /// Nothing is written to the output unless the whole trace is valid
    /// (except with --stream, where lines are written as they complete and
    /// the exit status tells whether the trace was valid).
    #[command(disable_help_flag = true, verbatim_doc_comment)]
    Dump(DumpArgs),
    /// Validate a Pajé trace and print a short summary; exit status 0 when valid, 1 otherwise.
    /// Memory does not grow with the links (used keys are kept as with dump --stream).
    Check(CheckArgs),
    /// Convert a trace between Pajé text, trama's binary format (.ptb) and the
    /// original binary proposal's libRastro format (.rst).
    ///
    /// The input format is detected from its content; the output format
    /// comes from the output's extension (.ptb, .rst, or .paje/.trace/.txt
    /// for text) or from --to. Text → binary checks every reference of the
    /// trace (types, containers, values) as it goes; entity semantics
    /// (time order, stacks, links) are checked when the binary file is read.
    /// Every command that reads a trace accepts a .ptb file as well.
    ///
    /// A .ptb file converts to another .ptb (to change --strings or --level)
    /// or to .rst directly: the result is the file its original text would
    /// give. An output of "-" is standard output (then name the format with
    /// --to; binary output is not written to a terminal).
    Convert(ConvertArgs),
    /// Describe a binary trace (.ptb): what it was made from, its blocks,
    /// keyframes and strings, its time span and where its bytes go.
    ///
    /// Only the file's index and frame headers are read (nothing is
    /// simulated: `trama check` does that), so it answers at once on any
    /// size. --frames lists every frame with its offset, size, codec, events
    /// and time range (the index a reader seeks with); --columns decompresses
    /// every block to weigh its columns.
    Info(InfoArgs),
    /// Statistics of a trace as a table, CSV or JSON (the CSV and JSON forms are stable: docs/stats-formats.md).
    ///
    /// states: for every container, state type and value, the number of
    /// states and the time spent (total, exclusive = on top of the stack,
    /// inclusive = anywhere on it), mean and longest duration, share of the
    /// window; then the load imbalance across containers. With --level the
    /// rows are rolled up to the containers of that type (e.g. hosts).
    ///
    /// comm: messages (links) per pair of containers, or of their ancestors
    /// of type --level; bytes and mean rate with --size-field.
    ///
    /// order: hosts (containers of type --level, by default the type above
    /// the processes, chosen from the trace) by the messages they put on
    /// the network, each with its processes by their off-host messages.
    ///
    /// wait: who waited for whom, from the wait states of an MPI run (as
    /// waits finds them), else each waiting state going to the sender of the
    /// last message received during it (--last-message, --waiting).
    ///
    /// slices: per time slice (--slices) and container, the time each state
    /// was on top of the stack and the messages sent and received.
    ///
    /// kiviat: each host's (--level) cumulative share of the messages put on
    /// the network, at --instants instants.
    ///
    /// graph: processes joined by the messages they exchange, with a
    /// deterministic force-directed layout (coordinates in [0, 1]).
    #[command(
        after_help = "Examples:\n  trama stats states trace.paje --level Host\n  trama stats comm trace.ptb --size-field Size --format csv"
    )]
    Stats(stats::StatsArgs),
    /// Draw a view of a trace as SVG or PNG (from the output's extension).
    ///
    /// Views: space-time, traffic-matrix, wait-matrix, graph, kiviat,
    /// mapping, process.
    ///
    /// space-time: one row per container (the container tree, or hosts and
    /// their processes by network traffic with --order), states as coloured
    /// bars, nested states inside them, events as ticks, variables as step
    /// plots, links as arrows (as a grey strip under their rows where too
    /// dense to follow), a time axis and a legend; rows with nothing in the
    /// window are hidden. However long the trace, each row gets per pixel
    /// column the state covering the most time there (a dark top edge where
    /// several share it).
    Render(render::RenderArgs),
    /// Explore a trace in the browser: a timeline that zooms, pans and
    /// hovers, served on this machine; with B, two runs compared.
    ///
    /// Starts a local web server (127.0.0.1, the first free port from 8060)
    /// whose URL carries a random token; nothing is fetched from the network.
    /// `trama view A B`: A above B, one window, where B spends more time.
    /// Opens the default browser when there is a display (else, or with
    /// --no-open, open the printed URL yourself). Serves until Ctrl-C. The
    /// page's HTTP API is documented in docs/view-api.md.
    View(view::ViewArgs),
    /// Write one self-contained HTML file (no network needed) with a summary
    /// of the trace, every view and the time per state; with B, two runs compared.
    Report(ReportArgs),
    /// Record a source while a program runs (a collector).
    ///
    /// ganglia: poll a gmond at each interval and append the samples of the
    /// chosen hosts and metrics to a text log (`unixtime metric host value`
    /// a line) until Ctrl-C or --count polls.
    Collect(collect::CollectArgs),
    /// Merge many sources into one Pajé trace, by synchronized time.
    ///
    /// A plan (TOML) names the unified hierarchy (e.g. cluster > host >
    /// process > thread), each source's format and how its containers and
    /// identifiers map into the hierarchy (MPI ranks placed on hosts by a
    /// machine file, ranks mapped to OS pids, IP addresses to host names).
    /// A timesync file corrects each host's clock. Sources are read as
    /// streams and merged by corrected time, so memory stays bounded by the
    /// number of sources. The output is plain Pajé (PajeNG's reference
    /// header) or trama's binary format.
    ///
    /// Kinds of sources (a plan entry's `kind`): paje, rst (libRastro:
    /// Akypuera's MPI traces, DECK), clog2 (MPE), ganglia, pcp, sched
    /// (ftrace, trace-cmd, perf script), opents. Example plans are in plans/.
    Merge(merge::MergeArgs),
    /// Convert Akypuera's libRastro traces of an MPI run (one rastro-R-0.rst
    /// per rank) to Pajé, exactly as Akypuera's aky_converter does: its
    /// header, its order (libRastro's merge of the files), times from the
    /// earliest rank's start with 9 decimals, message keys src_dst_n.
    /// To merge such a run with other sources, use `trama merge` (kind rst).
    Akypuera(AkypueraArgs),
    /// Synchronize clocks: measure clock pairs into a timesync file, serve
    /// time requests, or correct a time with a timesync file.
    ///
    /// On every host to measure: `trama timesync --serve`. On the reference
    /// host, just before the run: `trama timesync HOST... -o FILE`, and just
    /// after it: `trama timesync --append HOST... -o FILE`. Each writes one
    /// block of `refhost reftime host hosttime` lines in microseconds (the
    /// libRastro timesync format), from the NTP-style exchange with the
    /// lowest round trip. `trama timesync --correct FILE HOST TIME` prints a
    /// time of HOST in the reference's clock (offset and linear drift).
    Timesync(timesync::TimesyncArgs),
    /// Export a trace to another tool's format (one way: trama does not read it back).
    ///
    /// perfetto: Perfetto's TrackEvent protobuf (open it in ui.perfetto.dev
    /// or query it with its trace_processor): one track per container,
    /// nested as the containers are; under it, one track per state type
    /// whose states are nested slices (named by their value, their type as
    /// category), one per event type (instants), a counter track per
    /// variable, and links as flows between instants at their two ends.
    ///
    /// chrome-json: Chrome's trace-event JSON (chrome://tracing, Perfetto):
    /// the top containers as processes, each state type, event type and
    /// link end of a container as a thread (named by the container's path
    /// and the type); states as B/E, events as instants, variables as
    /// counters, links as flows.
    ///
    /// parquet: one table per kind (containers, states, events, links,
    /// variables, types) in the directory -o DIR, each a folder of
    /// Hive-style partitions by entity type (DIR/states/type=NAME/*.parquet;
    /// names percent-encoded), times as int64 nanoseconds, strings
    /// dictionary-encoded, zstd; memory holds one row group per partition.
    /// An existing DIR must be empty or an earlier export, which is
    /// replaced. The schema and SQL queries for DuckDB and Spark (the
    /// equivalents of `trama stats states`, `comm` and `wait`):
    /// docs/parquet.md.
    ///
    /// The output is written as the trace is simulated, entities as they
    /// complete, so memory does not grow with the trace (but for parquet's
    /// why tables: --no-why); it appears whole or not at all. The formats written are specified in the trama-export
    /// and trama-parquet crates. `convert` is for formats trama reads back
    /// (Pajé text, .ptb, .rst).
    #[command(
        after_help = "Examples:\n  trama export perfetto trace.paje -o trace.perfetto-trace\n  trama export chrome-json run.otf2 -o run.json\n  trama export perfetto trace.ptb -o - | gzip > t.perfetto-trace.gz\n  trama export parquet trace.paje -o trace.parquet\n  duckdb -c \"SELECT count(*) FROM read_parquet('trace.parquet/states/*/*.parquet', hive_partitioning=true)\""
    )]
    Export(export::ExportArgs),
    /// Compare two runs: per state value (or per container with --by), the
    /// time in A and in B and the difference, with the time on the critical
    /// path and in each wait-state pattern when the runs have MPI calls; a
    /// summary first (docs/stats-formats.md, diff). --fail-over guards a
    /// project's performance in its CI.
    #[command(
        after_help = "Examples:\n  trama diff before.otf2 after.otf2\n  trama diff run64.paje run128.paje --by container --group all\n  trama diff base.ptb new.ptb --fail-over 5 --value MPI_Allreduce"
    )]
    Diff(diff::DiffArgs),
}

#[derive(Args, Debug)]
struct AkypueraArgs {
    /// The rank files, in the order aky_converter is given them (shell-glob order).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Output Pajé file (standard output when absent).
    #[arg(short = 'o', long, value_name = "OUT")]
    output: Option<PathBuf>,
}

fn akypuera(a: &AkypueraArgs) -> anyhow::Result<ExitCode> {
    let inputs: Vec<&std::path::Path> = a.files.iter().map(PathBuf::as_path).collect();
    let output = a.output.as_deref().unwrap_or(std::path::Path::new("-"));
    run::write_output(output, &inputs, |w| {
        trama_open::akypuera_convert(&a.files, w)?;
        Ok(ExitCode::SUCCESS)
    })
}

#[derive(Args, Debug)]
struct ReportArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// A second run: the report compares the two (both timelines, coupled, and their difference).
    #[arg(value_name = "B")]
    other: Option<OsString>,
    /// Output HTML file.
    #[arg(short = 'o', long, value_name = "OUT")]
    output: PathBuf,
    /// Container type of the hosts (default: chosen from the trace, the
    /// type above the processes, preferring one named like a host).
    #[arg(long, value_name = "NAME")]
    level: Option<String>,
}

#[derive(Args, Debug)]
struct ConvertArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// Output file (`trama convert IN OUT` or `trama convert IN -o OUT`); "-" for standard output.
    #[arg(value_name = "OUT", required_unless_present = "output")]
    out: Option<PathBuf>,
    /// Output file.
    #[arg(short = 'o', long, value_name = "OUT", conflicts_with = "out")]
    output: Option<PathBuf>,
    /// Output format (default: from the output's extension).
    #[arg(long, value_enum)]
    to: Option<Target>,
    /// How strings are stored in a binary file: `interned` (each distinct
    /// string once, entity references as handles; for .rst, the proposal's
    /// reference mode with 888 events) or `plain` (every field as text, the
    /// proposal's standard mode).
    #[arg(long, value_enum, default_value_t = Strings::Interned)]
    strings: Strings,
    /// zstd compression level of each block (1-22; 0 stores blocks
    /// uncompressed). A block's times are stored as they are when zstd
    /// would hardly shrink them (nearly random steps), which reads faster.
    /// Higher levels make files barely smaller on traces and slower to
    /// write; level 1 is also the fastest to read.
    #[arg(long, value_name = "LEVEL", default_value_t = 1)]
    level: i32,
    /// Events per block (at most 65536): smaller blocks index time more finely. A block ends
    /// early after model records (containers, first uses of values), whose blocks read slower.
    #[arg(long, value_name = "N", default_value_t = 65536)]
    block_events: usize,
    /// Leave out of a large .ptb the summary `trama view` reads first (smaller, quicker to write).
    #[arg(long)]
    no_summary: bool,
}

/// Output formats of `trama convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Target {
    /// trama's binary format (.ptb).
    Ptb,
    /// Pajé text.
    Paje,
    /// The original binary proposal's format: Pajé events in a libRastro file (.rst).
    #[value(alias = "rst")]
    Rastro,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Strings {
    Plain,
    Interned,
}

#[derive(Args, Debug)]
struct DumpArgs {
    #[command(flatten)]
    read: ReadArgs,
    /// Dump only entities that end at or after START.
    #[arg(short = 's', long, value_name = "START", allow_negative_numbers = true)]
    start: Option<f64>,
    /// Dump only entities that start at or before END.
    #[arg(short = 'e', long, value_name = "END", allow_negative_numbers = true)]
    end: Option<f64>,
    /// Append the values of user-defined fields (extra fields of event definitions).
    #[arg(short = 'u', long)]
    user_defined: bool,
    /// Print a header line naming the columns of each kind of line.
    #[arg(short = 'h', long)]
    header: bool,
    /// Decimals of entity times and values.
    #[arg(short = 'l', long, value_name = "PRECISION", default_value_t = 6)]
    float_precision: usize,
    /// Check only: simulate without dumping (like pj_dump -q).
    #[arg(short = 'q', long)]
    quiet: bool,
    /// Write entities as soon as they are complete, in completion order, with
    /// memory bounded independently of the trace size (past 229,376 links, used
    /// link keys go into a 16 MiB filter: a key it has seen is confirmed by
    /// reading the file again; on a pipe it is a warning that the key was
    /// possibly reused).
    #[arg(long)]
    stream: bool,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print help.
    #[arg(long, action = ArgAction::Help)]
    help: Option<bool>,
}

#[derive(Args, Debug)]
struct InfoArgs {
    /// Binary trace (.ptb; detected from content). Standard input when absent or "-".
    #[arg(value_name = "FILE")]
    file: Option<OsString>,
    /// Also list every frame in file order: kind, byte offset, bytes stored and decompressed,
    /// codec, count (events, strings or records), first (line, string or record; for a
    /// keyframe, the block it precedes) and, for events frames, their time range.
    #[arg(long)]
    frames: bool,
    /// Also weigh each column of the events frames (decompressed, and compressed alone with
    /// zstd 1): decompresses every block.
    #[arg(long)]
    columns: bool,
}

#[derive(Args, Debug)]
struct CheckArgs {
    #[command(flatten)]
    read: ReadArgs,
}

/// A flag's values from a library's list of `(value, name, help)`.
pub(crate) fn choices<T: Copy + Send + Sync + 'static>(
    all: &'static [(T, &'static str, &'static str)],
) -> impl clap::builder::TypedValueParser<Value = T> {
    let values = all
        .iter()
        .map(|(_, name, help)| clap::builder::PossibleValue::new(*name).help(*help));
    clap::builder::PossibleValuesParser::new(values)
        .map(move |s| all.iter().find(|a| a.1 == s).expect("a possible value").0)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Outputs appear whole or not at all: an interruption removes the
    // temporary files of those being written (the collector handles
    // Ctrl-C itself, to end after its current poll).
    if !matches!(cli.command, Command::Collect(_)) {
        trama_open::output::remove_temporaries_on_signals(trama_parquet::remove_temporaries);
    }
    let result = match cli.command {
        Command::Dump(a) => dump(a),
        Command::Check(a) => dump::check(&a.read),
        Command::Convert(a) => convert(a),
        Command::Info(a) => info(a),
        Command::Stats(a) => stats::stats(a),
        Command::Report(a) => report::report(&a),
        Command::Collect(a) => collect::collect(a),
        Command::Merge(a) => merge::run(&a),
        Command::Akypuera(a) => akypuera(&a),
        Command::Timesync(a) => timesync::timesync(a),
        Command::Render(a) => render::render(&a),
        Command::View(a) => view::view(&a),
        Command::Export(a) => export::export(&a),
        Command::Diff(a) => diff::diff(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if is_closed_stdout(&e) {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(io::stderr(), "trama: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` is standard output closed by its reader (`| head`), the
/// only write error that ends quietly.
fn is_closed_stdout(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<trama_open::OutputError>()
            .is_some_and(trama_open::OutputError::is_closed_pipe)
    })
}

fn info(a: InfoArgs) -> anyhow::Result<ExitCode> {
    let source = trama_open::Source::from_arg(a.file.as_deref());
    let mut settings = trama_report::InfoOptions::default();
    settings.frames = a.frames;
    settings.columns = a.columns;
    run::write_output(std::path::Path::new("-"), &[], |w| {
        info::info(&source, &settings, w)
    })
}

fn convert(a: ConvertArgs) -> anyhow::Result<ExitCode> {
    if !(0..=22).contains(&a.level) {
        anyhow::bail!("--level must be between 0 and 22, not {}", a.level);
    }
    let Some(output) = a.out.or(a.output) else {
        anyhow::bail!("no output file given");
    };
    let mut opts = trama_convert::ConvertOptions::default();
    opts.strings = match a.strings {
        Strings::Plain => trama_convert::StringMode::Plain,
        Strings::Interned => trama_convert::StringMode::Interned,
    };
    opts.zstd_level = (a.level > 0).then_some(a.level);
    opts.block_events = a.block_events;
    opts.summary_from = opts.summary_from.filter(|_| !a.no_summary);
    let to = a.to.map(|t| match t {
        Target::Ptb => trama_convert::Target::Ptb,
        Target::Paje => trama_convert::Target::Paje,
        Target::Rastro => trama_convert::Target::Rastro,
    });
    convert::convert(&a.read, &output, to, opts)
}

fn dump(a: DumpArgs) -> anyhow::Result<ExitCode> {
    let mut o = trama_dump::DumpOptions::default();
    (o.start, o.end, o.precision) = (a.start, a.end, a.float_precision);
    (o.user_defined, o.header) = (a.user_defined, a.header);
    (o.threads, o.legacy_event_header) = (a.read.threads, a.read.strip_quotes);
    let mut settings = trama_report::DumpSettings::default();
    (settings.options, settings.quiet, settings.stream) = (o, a.quiet, a.stream);
    let output = a.output.as_deref().unwrap_or(std::path::Path::new("-"));
    let inputs: Vec<_> = a.read.path().into_iter().collect();
    run::write_output(output, &inputs, |w| dump::dump(&a.read, &settings, w))
}
