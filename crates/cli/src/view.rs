//! `trama view`: the interactive viewer in the browser.

use std::io::Write;
use std::net::IpAddr;
use std::process::ExitCode;

use clap::Args;
use trama_open::ProgressUnit;
use trama_viewer::{start_loading, Loading, ViewerOptions};

use crate::run::{open, warn, Bar};
use crate::ReadArgs;

/// Arguments of `trama view`.
#[derive(Args, Debug)]
pub struct ViewArgs {
    #[command(flatten)]
    pub read: ReadArgs,
    /// Port to listen on (default: the first free one from 8060).
    #[arg(long)]
    pub port: Option<u16>,
    /// Address to listen on. Anything but a loopback address lets other
    /// machines reach the trace (anyone who learns the URL's token).
    #[arg(long, default_value = "127.0.0.1")]
    pub address: IpAddr,
    /// Do not open a browser; only print the URL.
    #[arg(long)]
    pub no_open: bool,
}

/// Opens the default browser on `url` when there is a display; whether it
/// was tried.
fn open_browser(url: &str) -> bool {
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if display {
        "xdg-open"
    } else {
        return false;
    };
    std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok()
}

pub fn view(a: &ViewArgs) -> anyhow::Result<ExitCode> {
    // Serve at once; the trace is read meanwhile (the page shows how far).
    let mut opened = open(&a.read)?;
    let loading = opened.progress().map(|p| Loading {
        done: p.done,
        total: p.total,
        unit: match p.unit {
            ProgressUnit::Bytes => "bytes",
            _ => "events",
        },
    });
    let load_opts = a.read.load_options(true, None);
    let bar = Bar::start(&opened, !a.read.no_progress);
    let load = move || {
        let trace = opened.load(&load_opts).map_err(|e| e.to_string());
        drop(bar);
        match &trace {
            Ok(t) => warn(opened.name(), &t.warnings),
            Err(e) => {
                // Nothing to view: end as every command ends on a bad trace.
                eprintln!("trama: error: {e}");
                std::process::exit(1);
            }
        }
        trace
    };
    let name = a
        .read
        .file
        .as_deref()
        .and_then(|p| std::path::Path::new(p).file_name())
        .map_or("standard input".into(), |n| {
            n.to_string_lossy().into_owned()
        });
    let mut opts = ViewerOptions::default();
    (opts.address, opts.port, opts.name) = (a.address, a.port, name);
    if !a.address.is_loopback() {
        eprintln!(
            "trama: warning: listening on {}: other machines can reach this trace (with the URL's token)",
            a.address
        );
    }
    let running = start_loading(load, loading, &opts)?;
    let mut out = std::io::stdout();
    writeln!(out, "trama: viewing at {}", running.url)?;
    writeln!(out, "trama: press Ctrl-C to stop")?;
    out.flush()?;
    if !a.no_open && !open_browser(&running.url) {
        eprintln!("trama: note: no display to open a browser on: open the URL above");
    }
    running.wait();
    Ok(ExitCode::SUCCESS)
}
