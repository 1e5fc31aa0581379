//! Reading a trace as the flags say: options, progress bars, warnings.
//! The work itself is `trama-open`'s.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use std::path::Path;

use trama_open::{Opened, Progress, ProgressUnit};

use crate::ReadArgs;

/// Opens the input of `args`.
pub fn open(args: &ReadArgs) -> anyhow::Result<Opened> {
    Ok(trama_open::open(&args.source())?)
}

/// Prints the warnings of reading `name`.
pub fn warn(name: &str, warnings: &[String]) {
    for w in warnings {
        eprintln!("trama: warning: {name}: {w}");
    }
}

/// Reads and simulates the whole input into the columnar store (with a
/// window, a binary trace reads only what the window needs).
pub fn load_trace(
    args: &ReadArgs,
    keep_extras: bool,
    window: Option<(f64, f64)>,
) -> anyhow::Result<trama_sim::Trace> {
    let mut opened = open(args)?;
    let bar = Bar::start(&opened, !args.no_progress);
    let trace = opened.load(&args.load_options(keep_extras, window))?;
    drop(bar);
    warn(opened.name(), &trace.warnings);
    Ok(trace)
}

/// A progress bar on the terminal while an input is read: over its bytes
/// (inputs over 64 MB) or its events (over 4 million).
pub struct Bar {
    done: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Bar {
    /// Starts a bar over the reading of `opened`, when `enabled` and worth it.
    pub fn start(opened: &Opened, enabled: bool) -> Bar {
        Bar::over(opened.progress(), opened.name().to_string(), enabled)
    }

    /// A bar over `progress` of reading `name`, when `enabled` and worth it.
    pub fn over(progress: Option<Progress>, name: String, enabled: bool) -> Bar {
        let p = progress.filter(|_| enabled);
        let (total, template, done) = match p.map(|p| (p.unit, p.total, p.done)) {
            Some((ProgressUnit::Bytes, Some(t), d)) if t > 64 << 20 => (
                t,
                "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                d,
            ),
            Some((ProgressUnit::Events, Some(t), d)) if t > 4 << 20 => (
                t,
                "{msg} [{bar:30}] {human_pos}/{human_len} events, eta {eta}",
                d,
            ),
            Some((ProgressUnit::Blocks, Some(t), d)) => {
                (t, "{msg} [{bar:30}] {pos}/{len} blocks, eta {eta}", d)
            }
            _ => (0, "", Arc::default()),
        };
        Bar::show(name, total, done, template)
    }

    /// A bar over `count` of `total` frames drawn.
    pub fn frames(name: String, total: u64, count: Arc<AtomicU64>, enabled: bool) -> Bar {
        let t = "{msg} [{bar:30}] {pos}/{len} frames, eta {eta}";
        Bar::show(name, total, count, if enabled { t } else { "" })
    }

    /// A bar over `count` of `total`, drawn by `template` (none if empty).
    fn show(name: String, total: u64, count: Arc<AtomicU64>, template: &'static str) -> Bar {
        if template.is_empty() {
            return Bar {
                done: Arc::default(),
                handle: None,
            };
        }
        let done = Arc::new(AtomicBool::new(false));
        let stop = done.clone();
        let handle = std::thread::spawn(move || {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(total),
                indicatif::ProgressDrawTarget::stderr_with_hz(4),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_message(name);
            while !stop.load(Ordering::Relaxed) {
                bar.set_position(count.load(Ordering::Relaxed));
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
        });
        Bar {
            done,
            handle: Some(handle),
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Writes `path` through `write`, whole or not at all, never onto one of
/// `inputs` ([`trama_open::output::write_whole`]).
pub fn write_output<T>(
    path: &Path,
    inputs: &[&Path],
    write: impl FnOnce(&mut (dyn std::io::Write + Send)) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    trama_open::output::write_whole(path, inputs, write)
}
