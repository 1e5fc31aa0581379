//! The reading flags of the command line, as the command line and the
//! Python package take them, and the [`LoadOptions`] they make.

use crate::{LoadOptions, QuoteMode};

/// The reading flags of `trama dump` / `trama stats` and of the Python
/// package's `open`: `-j`, `--no-strict`, `--strip-quotes`, `-a`, `-z`,
/// `-i`, `--lenient`, `--sort-window`.
#[derive(Clone, Debug, Default)]
pub struct ReadFlags {
    /// `-j`: threads (0: one per core).
    pub threads: usize,
    /// `--no-strict`: accept Pajé 1.x's old field names.
    pub no_strict: bool,
    /// `--strip-quotes`: quotes are syntax, as in PajeNG 1.3.10.
    pub strip_quotes: bool,
    /// `-a`: stop the simulation at this time.
    pub stop_at: Option<f64>,
    /// `-z`: drop links that never got their other end.
    pub ignore_incomplete_links: bool,
    /// `-i`: no imbrication.
    pub no_imbrication: bool,
    /// `--lenient`: let real traces' problems pass with warnings.
    pub lenient: bool,
    /// `--sort-window`: reorder a nearly sorted text trace.
    pub sort_window: Option<f64>,
}

impl ReadFlags {
    /// The options of reading and simulating these flags make, the values
    /// of user-defined fields kept or not, only what overlaps `window`
    /// needed; the other options are the defaults.
    pub fn load_options(&self, keep_extras: bool, window: Option<(f64, f64)>) -> LoadOptions {
        LoadOptions {
            threads: self.threads,
            strict: !self.no_strict,
            quotes: if self.strip_quotes {
                QuoteMode::Strip
            } else {
                QuoteMode::Keep
            },
            stop_at: self.stop_at,
            ignore_incomplete_links: self.ignore_incomplete_links,
            no_imbrication: self.no_imbrication,
            keep_extras,
            window,
            lenient: self.lenient,
            sort_window: self.sort_window,
            ..LoadOptions::default()
        }
    }
}
