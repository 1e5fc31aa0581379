//! Unification plans: the unified hierarchy and how each source maps into it.
//!
//! A plan is a TOML file, one per combination of sources:
//!
//! ```toml
//! # The unified container hierarchy, top first.
//! hierarchy = ["cluster", "host", "process", "thread"]
//! # The level whose names are hosts: clocks are corrected per host
//! # (default "host").
//! host_level = "host"
//!
//! # Levels beside the main chain, with their parent (optional).
//! [branches]
//! cpu = "host"
//!
//! # Names of upper levels no source gives.
//! [top]
//! cluster = "paple"
//!
//! # Identifier aliases for every source, per level (e.g. IP -> host name).
//! [aliases.host]
//! "192.168.0.3" = "paple03"
//!
//! [[source]]
//! name = "mpi"              # how the command line refers to it
//! kind = "clog2"            # its format (see `trama merge --help`)
//! files = ["cpilog.clog2"]  # relative to the plan's folder (optional)
//! levels = { rank = "process" }   # source container type -> level, or "drop"
//! machinefile = "mpd.hosts" # ranks are placed on hosts in file order
//! origin = "1094221332.9"   # seconds added to the source's (relative) times
//! synchronized = false      # true: already on the reference clock
//!
//! [source.map.process]      # identifiers of this source at a level
//! "0" = "4312"              # MPI rank 0 is the OS process 4312
//!
//! [source.origins]          # per rank, instead of `origin` (optional)
//! "0" = "1094221332.965"    # rank 0 started then, in its host's clock
//!
//! [source.options]          # options of the source's reader
//! mapping = "akypuera-mpi"
//! ```
//!
//! A source container type that has the name of a level maps to that level
//! unless `levels` says otherwise. A record's unified path runs from the
//! top down to the deepest level its source path reaches; levels between
//! take their names from the source, from the host rule (`host`, or the
//! rank's line of `machinefile`), or from `[top]`, and a level left
//! without a name is an error naming the source and the container.

use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};

use serde::Deserialize;
use trama_num::{SecondsError, SecondsSyntax};

use crate::MergeError;

/// A unification plan (see the module documentation).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The unified hierarchy, top first.
    pub hierarchy: Vec<String>,
    /// The level whose names are hosts.
    #[serde(default = "default_host_level")]
    pub host_level: String,
    /// Further levels beside the main chain, with their parent level
    /// (e.g. `cpu = "host"`, `metric = "host"`).
    #[serde(default)]
    pub branches: BTreeMap<String, String>,
    /// Names of upper levels when no source gives them.
    #[serde(default)]
    pub top: BTreeMap<String, String>,
    /// Identifier aliases for every source, per level.
    #[serde(default)]
    pub aliases: BTreeMap<String, BTreeMap<String, String>>,
    /// The sources.
    #[serde(default, rename = "source")]
    pub sources: Vec<SourcePlan>,
}

fn default_host_level() -> String {
    "host".to_string()
}

/// How one source maps into the unified hierarchy.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SourcePlan {
    /// Its name on the command line and in messages.
    pub name: String,
    /// Its format.
    pub kind: String,
    /// Its files (relative paths are taken from the plan's folder).
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// Source container type → unified level, or `"drop"`.
    #[serde(default)]
    pub levels: BTreeMap<String, String>,
    /// The host of every record whose path names none.
    pub host: Option<String>,
    /// An MPI machine file: rank `i` runs on the host of line `i`.
    pub machinefile: Option<PathBuf>,
    /// The source container type whose names are ranks (default `rank`).
    #[serde(default = "default_rank_type")]
    pub rank_type: String,
    /// Identifier maps of this source, per level: source name → unified name.
    #[serde(default)]
    pub map: BTreeMap<String, BTreeMap<String, String>>,
    /// Seconds (a decimal, read exactly) added to the source's times.
    pub origin: Option<String>,
    /// Origins per rank (the names of its `rank_type` containers), in
    /// seconds, for sources whose ranks each count from their own start
    /// (the seed's wrapper of MPI_Init recorded each rank's start time);
    /// they replace `origin` for those ranks' records.
    #[serde(default)]
    pub origins: BTreeMap<String, String>,
    /// Its times are already on the reference clock (e.g. a log the MPI
    /// library synchronized, or a collector stamping every host's samples
    /// with its own clock): the timesync corrections do not apply.
    #[serde(default)]
    pub synchronized: bool,
    /// Options of the source's reader.
    #[serde(default)]
    pub options: toml::Table,
}

fn default_rank_type() -> String {
    "rank".to_string()
}

impl Plan {
    /// Parses a plan; `file` names it in errors, and relative paths in it
    /// are taken from its folder.
    pub fn parse(text: &str, file: &FsPath) -> Result<Plan, MergeError> {
        let mut plan: Plan = toml::from_str(text).map_err(|e| MergeError::Plan {
            file: file.display().to_string(),
            message: e.to_string(),
        })?;
        let base = file.parent().unwrap_or(FsPath::new(""));
        for s in &mut plan.sources {
            for f in s.files.iter_mut().chain(s.machinefile.iter_mut()) {
                if f.is_relative() {
                    *f = base.join(&*f);
                }
            }
        }
        plan.validate(file)?;
        Ok(plan)
    }

    /// Reads and parses a plan file.
    pub fn read(file: &FsPath) -> Result<Plan, MergeError> {
        let plan_error = |message| MergeError::Plan {
            file: file.display().to_string(),
            message,
        };
        let bytes = std::fs::read(file).map_err(|e| plan_error(e.to_string()))?;
        let text = trama_input::utf8_text(bytes)
            .map_err(|e| plan_error(format!("line {}: {e}", e.line)))?;
        Plan::parse(&text, file)
    }

    /// A plan with one level per name of `hierarchy` and no source entry:
    /// what a merge uses when given none (every source type must then be a
    /// level's name).
    pub fn flat(hierarchy: &[&str]) -> Plan {
        Plan {
            hierarchy: hierarchy.iter().map(|s| s.to_string()).collect(),
            host_level: default_host_level(),
            branches: BTreeMap::new(),
            top: BTreeMap::new(),
            aliases: BTreeMap::new(),
            sources: Vec::new(),
        }
    }

    /// Every level with its parent, parents first: the main chain, then
    /// the branches.
    pub fn levels(&self) -> Vec<(String, Option<String>)> {
        let mut out: Vec<(String, Option<String>)> = self
            .hierarchy
            .iter()
            .enumerate()
            .map(|(i, l)| (l.clone(), (i > 0).then(|| self.hierarchy[i - 1].clone())))
            .collect();
        let mut left: Vec<(&String, &String)> = self.branches.iter().collect();
        while !left.is_empty() {
            let before = left.len();
            left.retain(|(l, p)| {
                if out.iter().any(|(o, _)| o == *p) {
                    out.push(((*l).clone(), Some((*p).clone())));
                    false
                } else {
                    true
                }
            });
            if left.len() == before {
                break; // cycles are rejected by `validate`
            }
        }
        out
    }

    /// The entry named `name`.
    pub fn source(&self, name: &str) -> Option<&SourcePlan> {
        self.sources.iter().find(|s| s.name == name)
    }

    fn validate(&self, file: &FsPath) -> Result<(), MergeError> {
        let err = |message: String| MergeError::Plan {
            file: file.display().to_string(),
            message,
        };
        if self.hierarchy.is_empty() {
            return Err(err("`hierarchy` is empty".into()));
        }
        for (i, l) in self.hierarchy.iter().enumerate() {
            if self.hierarchy[..i].contains(l) {
                return Err(err(format!("level '{l}' appears twice in `hierarchy`")));
            }
            if l == "drop" {
                return Err(err("'drop' cannot be a level".into()));
            }
        }
        for b in self.branches.keys() {
            if self.hierarchy.contains(b) {
                return Err(err(format!("branch level '{b}' is also in `hierarchy`")));
            }
            if b == "drop" {
                return Err(err("'drop' cannot be a level".into()));
            }
        }
        if self.levels().len() != self.hierarchy.len() + self.branches.len() {
            return Err(err(
                "`branches`: some levels hang from no level of `hierarchy` (or form a cycle)"
                    .into(),
            ));
        }
        let all: Vec<String> = self.levels().into_iter().map(|(l, _)| l).collect();
        let level = |l: &str, what: &str| {
            if all.iter().any(|h| h == l) {
                Ok(())
            } else {
                Err(err(format!(
                    "{what} names level '{l}', which is not in `hierarchy` or `branches` ({})",
                    all.join(", ")
                )))
            }
        };
        level(&self.host_level, "`host_level`")?;
        for l in self.top.keys() {
            level(l, "`top`")?;
        }
        for l in self.aliases.keys() {
            level(l, "`aliases`")?;
        }
        for (i, s) in self.sources.iter().enumerate() {
            if self.sources[..i].iter().any(|o| o.name == s.name) {
                return Err(err(format!("two sources are named '{}'", s.name)));
            }
            for (ty, l) in &s.levels {
                if l != "drop" {
                    level(l, &format!("source '{}', levels.{ty},", s.name))?;
                }
            }
            for l in s.map.keys() {
                level(l, &format!("source '{}', map,", s.name))?;
            }
            if let Some(o) = &s.origin {
                parse_seconds(o).map_err(|m| err(format!("source '{}', origin: {m}", s.name)))?;
            }
            for (r, o) in &s.origins {
                parse_seconds(o)
                    .map_err(|m| err(format!("source '{}', origins.\"{r}\": {m}", s.name)))?;
            }
        }
        Ok(())
    }
}

/// Parses a decimal number of seconds (`-12.5`, `1094221332.965040`)
/// exactly into nanoseconds.
pub fn parse_seconds(text: &str) -> Result<i64, String> {
    const SYNTAX: SecondsSyntax = SecondsSyntax::PLAIN.sign(true).bare_fraction(true);
    trama_num::parse_seconds(text.trim().as_bytes(), SYNTAX).map_err(|e| match e {
        SecondsError::Range => format!("'{text}' is out of range"),
        _ => format!("'{text}' is not a number of seconds with at most 9 decimals"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact() {
        assert_eq!(
            parse_seconds("1094221332.965040"),
            Ok(1_094_221_332_965_040_000)
        );
        assert_eq!(parse_seconds("-0.5"), Ok(-500_000_000));
        assert_eq!(parse_seconds("3"), Ok(3_000_000_000));
        assert_eq!(parse_seconds(".25"), Ok(250_000_000));
        assert!(parse_seconds("1.0000000001").is_err());
        assert!(parse_seconds("abc").is_err());
        assert!(parse_seconds("").is_err());
    }

    #[test]
    fn plan_errors_name_the_problem() {
        let f = FsPath::new("/x/plan.toml");
        let p = Plan::parse(
            "hierarchy = [\"host\", \"process\"]\n[[source]]\nname = \"mpi\"\nkind = \"clog2\"\nfiles = [\"a.clog2\"]\nlevels = { rank = \"process\" }\n",
            f,
        )
        .unwrap();
        assert_eq!(p.sources[0].files[0], PathBuf::from("/x/a.clog2"));
        let e = Plan::parse("hierarchy = [\"host\"]\n[[source]]\nname = \"a\"\nkind = \"k\"\nlevels = { rank = \"process\" }\n", f)
            .unwrap_err()
            .to_string();
        assert!(e.contains("plan.toml") && e.contains("'process'"), "{e}");
        let e = Plan::parse("hierarchy = [\"host\"]\nbogus = 1\n", f)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bogus"), "{e}");
        let e = Plan::parse(
            "hierarchy = [\"host\", \"process\"]\nhost_level = \"node\"\n",
            f,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("node"), "{e}");
    }
}
