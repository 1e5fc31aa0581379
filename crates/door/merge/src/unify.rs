//! Rewrites a source's container paths into the unified hierarchy.

use std::collections::{BTreeMap, HashMap};

use trama_records::{DisplayPath, Nanos, Path, PathMap, Step};

use crate::plan::{Plan, SourcePlan};
use crate::MergeError;

/// A source path once unified: the path and the host it runs on.
#[derive(Clone, Debug)]
pub(crate) struct Unified {
    pub path: Path,
    pub host: Option<String>,
    /// The origin of its rank's clock, when the plan gives one.
    pub origin: Option<Nanos>,
}

/// The unification of one source (see [`crate::plan`]).
pub struct Mapper {
    source: String,
    /// Every level with its parent.
    parents: HashMap<String, Option<String>>,
    /// Every level's name, for messages.
    all: Vec<String>,
    host_level: String,
    levels: BTreeMap<String, String>,
    map: BTreeMap<String, BTreeMap<String, String>>,
    aliases: BTreeMap<String, BTreeMap<String, String>>,
    top: BTreeMap<String, String>,
    host: Option<String>,
    rank_type: String,
    rank_hosts: Option<Vec<String>>,
    /// Origins per rank name (nanoseconds).
    rank_origins: BTreeMap<String, Nanos>,
    cache: PathMap<Unified>,
}

impl Mapper {
    /// The mapper of source `source_name` (its file, for messages) under
    /// `plan`, with the entry `entry` (none: the plan's levels only) and
    /// the hosts of its ranks from a machine file.
    pub fn new(
        plan: &Plan,
        entry: Option<&SourcePlan>,
        source_name: &str,
        rank_hosts: Option<Vec<String>>,
    ) -> Mapper {
        Mapper {
            source: source_name.to_string(),
            parents: plan.levels().into_iter().collect(),
            all: plan.levels().into_iter().map(|(l, _)| l).collect(),
            host_level: plan.host_level.clone(),
            levels: entry.map(|e| e.levels.clone()).unwrap_or_default(),
            map: entry.map(|e| e.map.clone()).unwrap_or_default(),
            aliases: plan.aliases.clone(),
            top: plan.top.clone(),
            host: entry.and_then(|e| e.host.clone()),
            rank_type: entry
                .map(|e| e.rank_type.clone())
                .unwrap_or_else(|| "rank".into()),
            rank_hosts,
            rank_origins: entry
                .map(|e| {
                    e.origins
                        .iter()
                        .filter_map(|(r, o)| Some((r.clone(), crate::parse_seconds(o).ok()?)))
                        .collect()
                })
                .unwrap_or_default(),
            cache: PathMap::default(),
        }
    }

    /// The lowest origin any record of the source can have, given the
    /// entry's own.
    pub fn lowest_origin(&self, entry_origin: Nanos) -> Nanos {
        self.rank_origins
            .values()
            .copied()
            .fold(entry_origin, Nanos::min)
    }

    /// The unified level of a source container type (`None`: dropped).
    pub fn level_of(&self, source_type: &str) -> Result<Option<&str>, MergeError> {
        match self.levels.get(source_type) {
            Some(l) if l == "drop" => Ok(None),
            Some(l) => Ok(Some(l)),
            None if self.parents.contains_key(source_type) => Ok(Some(
                self.all
                    .iter()
                    .find(|h| *h == source_type)
                    .expect("every level is listed"),
            )),
            None => Err(MergeError::Unify {
                input: self.source.clone(),
                message: format!(
                    "its container type '{source_type}' maps to no level of the plan ({}); \
                     add `levels = {{ {source_type} = \"LEVEL\" }}` (or \"drop\") to its entry",
                    self.all.join(", ")
                ),
            }),
        }
    }

    fn rename(&self, level: &str, name: &str) -> String {
        if let Some(n) = self.map.get(level).and_then(|m| m.get(name)) {
            return n.clone();
        }
        if let Some(n) = self.aliases.get(level).and_then(|m| m.get(name)) {
            return n.clone();
        }
        name.to_string()
    }

    /// The unified path of the container holding a link: `None` (the top
    /// of the trace) when none of its steps maps to a level.
    pub(crate) fn unify_holder(&mut self, path: &Path) -> Result<Option<Path>, MergeError> {
        let mut any = false;
        for s in path.iter() {
            any |= self.level_of(&s.ty)?.is_some();
        }
        if !any {
            return Ok(None);
        }
        Ok(Some(self.unify(path)?.path))
    }

    /// The unified path of a source path.
    pub(crate) fn unify(&mut self, path: &Path) -> Result<Unified, MergeError> {
        if let Some(u) = self.cache.get(path) {
            return Ok(u);
        }
        let err = |message: String| MergeError::Unify {
            input: self.source.clone(),
            message: format!("container {}: {message}", DisplayPath(path)),
        };
        let mut named: Vec<(String, String)> = Vec::new();
        let mut rank_host: Option<String> = None;
        let mut origin: Option<Nanos> = None;
        for step in path.iter() {
            if step.ty == self.rank_type {
                if let Some(o) = self.rank_origins.get(&step.name) {
                    origin = Some(*o);
                }
            }
            if step.ty == self.rank_type {
                if let Some(hosts) = &self.rank_hosts {
                    let rank = rank_number(&step.name).ok_or_else(|| {
                        err(format!(
                            "rank '{}' ends with no number, so the machine file cannot place it",
                            step.name
                        ))
                    })?;
                    // More ranks than lines: round robin, as mpirun does.
                    let h = hosts.get(rank % hosts.len().max(1)).ok_or_else(|| {
                        err(format!("the machine file places no rank (rank {rank})"))
                    })?;
                    rank_host = Some(h.clone());
                }
            }
            let Some(level) = self.level_of(&step.ty)? else {
                continue;
            };
            let level = level.to_string();
            if let Some((_, prev)) = named.iter().find(|(l, _)| *l == level) {
                return Err(err(format!(
                    "two of its steps map to level '{level}' ('{prev}' and '{}')",
                    step.name
                )));
            }
            let name = self.rename(&level, &step.name);
            named.push((level, name));
        }
        let Some((deepest, _)) = named.last() else {
            return Err(err("none of its steps maps to a level of the plan".into()));
        };
        // The levels from the top down to the deepest one.
        let mut chain = vec![deepest.clone()];
        while let Some(Some(p)) = self.parents.get(chain.last().expect("not empty")) {
            chain.push(p.clone());
        }
        chain.reverse();
        let mut at = 0;
        for (level, _) in &named {
            match chain[at..].iter().position(|c| c == level) {
                Some(i) => at += i + 1,
                None => {
                    return Err(err(format!(
                    "its levels are not in the plan's order: '{level}' is not above '{deepest}' \
                         in {}",
                    chain.join(" > ")
                )))
                }
            }
        }
        let mut steps = Vec::with_capacity(chain.len());
        let mut host = None;
        for level in &chain {
            let given = named
                .iter()
                .find(|(l, _)| l == level)
                .map(|(_, n)| n.clone());
            let name = match given {
                Some(n) => n,
                None if *level == self.host_level => {
                    let h = rank_host.clone().or_else(|| self.host.clone()).ok_or_else(|| {
                        err(format!(
                            "no host: the source names none, and its plan entry gives neither \
                             `host` nor a `machinefile` placing its '{}' containers",
                            self.rank_type
                        ))
                    })?;
                    self.rename(level, &h)
                }
                None => self.top.get(level).cloned().ok_or_else(|| {
                    err(format!(
                        "level '{level}' has no name: map a source type to it or give `top.{level}` in the plan"
                    ))
                })?,
            };
            if *level == self.host_level {
                host = Some(name.clone());
            }
            steps.push(Step {
                ty: level.clone(),
                name,
            });
        }
        let u = Unified {
            path: steps.into(),
            host,
            origin,
        };
        self.cache.insert(path, u.clone());
        Ok(u)
    }
}

/// The rank a container name stands for: its trailing digits (`3`,
/// `rank3`, `rank 3`).
fn rank_number(name: &str) -> Option<usize> {
    let t = name.trim_end();
    let digits = t.len() - t.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    t[t.len() - digits..].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use trama_records::path;

    fn plan() -> Plan {
        Plan::parse(
            r#"
hierarchy = ["cluster", "host", "process", "thread"]
[branches]
cpu = "host"
[top]
cluster = "paple"
[aliases.host]
"10.0.0.3" = "paple03"
[[source]]
name = "mpi"
kind = "clog2"
levels = { rank = "process" }
[source.map.process]
"0" = "4312"
[[source]]
name = "os"
kind = "sched"
host = "paple01"
[[source]]
name = "ganglia"
kind = "ganglia"
levels = { cluster = "drop" }
"#,
            std::path::Path::new("plan.toml"),
        )
        .unwrap()
    }

    fn names(u: &Unified) -> Vec<String> {
        u.path
            .iter()
            .map(|s| format!("{}:{}", s.ty, s.name))
            .collect()
    }

    #[test]
    fn ranks_go_to_their_machine_and_pid() {
        let p = plan();
        let hosts = vec!["paple01".to_string(), "10.0.0.3".to_string()];
        let mut m = Mapper::new(&p, p.source("mpi"), "cpi.clog2", Some(hosts));
        let u = m.unify(&path(&[("rank", "0")])).unwrap();
        assert_eq!(names(&u), ["cluster:paple", "host:paple01", "process:4312"]);
        assert_eq!(u.host.as_deref(), Some("paple01"));
        let u = m.unify(&path(&[("rank", "rank 1")])).unwrap();
        assert_eq!(
            names(&u),
            ["cluster:paple", "host:paple03", "process:rank 1"]
        );
        assert_eq!(rank_number("rank12"), Some(12));
        assert_eq!(rank_number("x"), None);
        let u = m.unify(&path(&[("rank", "7")])).unwrap();
        assert_eq!(names(&u), ["cluster:paple", "host:paple03", "process:7"]);
        let mut none = Mapper::new(&p, p.source("mpi"), "cpi.clog2", Some(vec![]));
        let e = none.unify(&path(&[("rank", "7")])).unwrap_err().to_string();
        assert!(e.contains("cpi.clog2") && e.contains("rank 7"), "{e}");
    }

    #[test]
    fn constant_host_and_dropped_levels() {
        let p = plan();
        let mut os = Mapper::new(&p, p.source("os"), "sched.txt", None);
        let u = os.unify(&path(&[("host", "x")])).unwrap();
        assert_eq!(names(&u), ["cluster:paple", "host:x"]);
        let e = os
            .unify(&path(&[("thread", "99")]))
            .map(|u| names(&u))
            .unwrap_err()
            .to_string();
        assert!(e.contains("level 'process' has no name"), "{e}");
        let mut g = Mapper::new(&p, p.source("ganglia"), "g.xml", None);
        let u = g
            .unify(&path(&[("cluster", "c"), ("host", "10.0.0.3")]))
            .unwrap();
        assert_eq!(names(&u), ["cluster:paple", "host:paple03"]);
    }

    #[test]
    fn branches_hang_from_their_parent() {
        let p = plan();
        let mut os = Mapper::new(&p, p.source("os"), "sched.txt", None);
        let u = os.unify(&path(&[("cpu", "3")])).unwrap();
        assert_eq!(names(&u), ["cluster:paple", "host:paple01", "cpu:3"]);
        let e = os
            .unify(&path(&[("process", "1"), ("cpu", "3")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not in the plan's order"), "{e}");
        assert_eq!(
            p.levels().last().unwrap(),
            &("cpu".to_string(), Some("host".to_string()))
        );
    }

    #[test]
    fn unknown_types_are_named() {
        let p = plan();
        let mut m = Mapper::new(&p, p.source("mpi"), "cpi.clog2", None);
        let e = m.unify(&path(&[("node", "a")])).unwrap_err().to_string();
        assert!(e.contains("cpi.clog2") && e.contains("'node'"), "{e}");
        let e = m.unify(&path(&[("rank", "3")])).unwrap_err().to_string();
        assert!(e.contains("no host"), "{e}");
    }
}
