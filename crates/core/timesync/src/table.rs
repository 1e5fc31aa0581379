//! The `timesync` file and the corrections it defines (format in the crate's docs).

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The unit of the times of a `timesync` file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Seconds (`s`).
    Seconds,
    /// Milliseconds (`ms`).
    Milliseconds,
    /// Microseconds (`us`), the unit of libRastro's files.
    #[default]
    Microseconds,
    /// Nanoseconds (`ns`).
    Nanoseconds,
}

impl TimeUnit {
    /// Nanoseconds in one unit.
    pub fn nanos(self) -> i64 {
        match self {
            TimeUnit::Seconds => 1_000_000_000,
            TimeUnit::Milliseconds => 1_000_000,
            TimeUnit::Microseconds => 1_000,
            TimeUnit::Nanoseconds => 1,
        }
    }

    /// Decimals of the unit that reach the nanosecond (9 for seconds, 0 for nanoseconds).
    pub fn decimals(self) -> usize {
        match self {
            TimeUnit::Seconds => 9,
            TimeUnit::Milliseconds => 6,
            TimeUnit::Microseconds => 3,
            TimeUnit::Nanoseconds => 0,
        }
    }

    /// The unit's short name: `s`, `ms`, `us` or `ns`.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "s",
            TimeUnit::Milliseconds => "ms",
            TimeUnit::Microseconds => "us",
            TimeUnit::Nanoseconds => "ns",
        }
    }

    /// Parses a time written in this unit (`[+-]digits[.digits]`, the
    /// fraction at most down to the nanosecond, trailing zeros aside) into
    /// nanoseconds. The error says what is wrong, without quoting.
    pub fn parse_ns(self, text: &str) -> Result<i64, String> {
        let (neg, body) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let (int, frac) = match body.split_once('.') {
            Some((i, f)) => (i, f),
            None => (body, ""),
        };
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
            return Err("not a number".into());
        }
        let frac = frac.trim_end_matches('0');
        if frac.len() > self.decimals() {
            return Err(format!("finer than a nanosecond in {}", self.name()));
        }
        let too_big = || "out of range (beyond ±292 years from the epoch in ns)".to_string();
        let mut ns: i128 = 0;
        for b in int.bytes() {
            ns = ns * 10 + i128::from(b - b'0');
            if ns > i128::from(i64::MAX) {
                return Err(too_big());
            }
        }
        ns *= i128::from(self.nanos());
        let mut f: i128 = 0;
        for b in frac.bytes() {
            f = f * 10 + i128::from(b - b'0');
        }
        ns += f * 10i128.pow((self.decimals() - frac.len()) as u32);
        if neg {
            ns = -ns;
        }
        i64::try_from(ns).map_err(|_| too_big())
    }

    /// Whole units in `t_ns` nanoseconds, rounded toward negative infinity.
    pub fn floor(self, t_ns: i64) -> i64 {
        t_ns.div_euclid(self.nanos())
    }

    /// `t_ns` written in this unit with `decimals` decimals (at most
    /// [`TimeUnit::decimals`]), rounded toward negative infinity:
    /// `format(1_500, 0)` in microseconds is `1`, `format(-1_500, 1)` is `-1.5`.
    pub fn format(self, t_ns: i64, decimals: usize) -> String {
        let decimals = decimals.min(self.decimals());
        let scale = self.nanos() / 10i64.pow(decimals as u32);
        let q = i128::from(t_ns.div_euclid(scale));
        let sign = if q < 0 { "-" } else { "" };
        let q = q.unsigned_abs();
        if decimals == 0 {
            return format!("{sign}{q}");
        }
        let p = 10u128.pow(decimals as u32);
        format!("{sign}{}.{:0w$}", q / p, q % p, w = decimals)
    }
}

impl FromStr for TimeUnit {
    type Err = String;

    /// `s`, `ms`, `us` (or `µs`) and `ns`.
    fn from_str(s: &str) -> Result<TimeUnit, String> {
        match s {
            "s" => Ok(TimeUnit::Seconds),
            "ms" => Ok(TimeUnit::Milliseconds),
            "us" | "µs" => Ok(TimeUnit::Microseconds),
            "ns" => Ok(TimeUnit::Nanoseconds),
            _ => Err(format!("unknown time unit `{s}` (us, ns, ms or s)")),
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error of a `timesync` file: the file, the line (none when the error
/// is about the file as a whole) and what is wrong, quoting the token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SyncError {
    /// The file's name (its path).
    pub file: String,
    /// The line (1-based), if the error is at one.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// One clock pair of a `timesync` file: both clocks at the same instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The reference's clock, in nanoseconds.
    pub reference_ns: i64,
    /// The host's clock, in nanoseconds.
    pub host_ns: i64,
    /// The line of the file it was read from (1-based; 0 if not from a file).
    pub line: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Identity,
    Offset {
        o_ref: i64,
        o: i64,
    },
    Drift {
        o_ref: i64,
        o: i64,
        n_ref: i64,
        n: i64,
    },
}

/// The correction of one host's times into the reference's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Correction(Kind);

impl Correction {
    /// Times that need no correction (the reference's own).
    pub fn identity() -> Correction {
        Correction(Kind::Identity)
    }

    /// Offset only, from one pair: `t + (before.reference_ns - before.host_ns)`.
    pub fn offset(before: Pair) -> Correction {
        Correction(Kind::Offset {
            o_ref: before.reference_ns,
            o: before.host_ns,
        })
    }

    /// Offset and linear drift from the pairs before and after the run;
    /// `None` when an interval (`after - before` on either clock) is not positive.
    pub fn drift(before: Pair, after: Pair) -> Option<Correction> {
        (after.host_ns > before.host_ns && after.reference_ns > before.reference_ns).then_some(
            Correction(Kind::Drift {
                o_ref: before.reference_ns,
                o: before.host_ns,
                n_ref: after.reference_ns,
                n: after.host_ns,
            }),
        )
    }

    /// Whether this is the identity.
    pub fn is_identity(&self) -> bool {
        self.0 == Kind::Identity
    }

    /// Whether this corrects the drift (two pairs) and not only the offset.
    pub fn corrects_drift(&self) -> bool {
        matches!(self.0, Kind::Drift { .. })
    }

    /// `t_ns` (nanoseconds of the host's clock) in the reference's clock:
    /// `t_o_ref + floor((t - t_o) * (t_n_ref - t_o_ref) / (t_n - t_o))`,
    /// exact in `i128`, floored; saturated to the range of `i64`.
    pub fn apply(&self, t_ns: i64) -> i64 {
        let t = i128::from(t_ns);
        let r = match self.0 {
            Kind::Identity => return t_ns,
            Kind::Offset { o_ref, o } => i128::from(o_ref) + (t - i128::from(o)),
            Kind::Drift { o_ref, o, n_ref, n } => {
                let num = (t - i128::from(o)) * (i128::from(n_ref) - i128::from(o_ref));
                let den = i128::from(n) - i128::from(o);
                i128::from(o_ref) + num.div_euclid(den)
            }
        };
        r.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }
}

/// A `timesync` file: the reference host and every host's pairs.
#[derive(Clone, Debug)]
pub struct SyncTable {
    file: String,
    unit: TimeUnit,
    reference: String,
    blocks: usize,
    hosts: BTreeMap<String, (Pair, Option<Pair>)>,
}

/// A pair line as read, with its tokens for messages.
struct Line<'a> {
    no: u64,
    host: &'a str,
    ref_tok: &'a str,
    host_tok: &'a str,
    pair: Pair,
    sep_before: bool,
}

/// An error at line `line` of the file `name`.
fn line_error(name: &str, line: u64, message: String) -> SyncError {
    SyncError {
        file: name.to_string(),
        line: Some(line),
        message,
    }
}

/// The pair lines of `text` (times in `unit`), and the reference host with
/// the line that first names it (`None`: no pair at all).
#[allow(clippy::type_complexity)]
fn read_lines<'a>(
    text: &'a str,
    name: &str,
    unit: TimeUnit,
) -> Result<(Vec<Line<'a>>, Option<(&'a str, u64)>), SyncError> {
    let err = |line: u64, message: String| line_error(name, line, message);
    let mut lines: Vec<Line> = Vec::new();
    let mut reference: Option<(&str, u64)> = None;
    let mut pending_sep = false;
    for (i, raw) in text.lines().enumerate() {
        let no = i as u64 + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            pending_sep |= !lines.is_empty();
            continue;
        }
        let content = raw.find('#').map_or(raw, |p| &raw[..p]).trim();
        let f: Vec<&str> = content.split_whitespace().collect();
        if f.len() != 4 {
            return Err(err(
                no,
                format!(
                    "expected 4 fields `refhost reftime host hosttime`, found {} in `{content}`",
                    f.len()
                ),
            ));
        }
        match reference {
            None => reference = Some((f[0], no)),
            Some((r, at)) if r != f[0] => {
                return Err(err(
                    no,
                    format!(
                    "reference host `{}` differs from `{r}` (line {at}): a file has one reference",
                    f[0]
                ),
                ))
            }
            Some(_) => {}
        }
        let time = |tok: &str, what: &str| {
            unit.parse_ns(tok)
                .map_err(|m| err(no, format!("{what} `{tok}`: {m}")))
        };
        let pair = Pair {
            reference_ns: time(f[1], "reference time")?,
            host_ns: time(f[3], "host time")?,
            line: no,
        };
        lines.push(Line {
            no,
            host: f[2],
            ref_tok: f[1],
            host_tok: f[3],
            pair,
            sep_before: pending_sep,
        });
        pending_sep = false;
    }
    Ok((lines, reference))
}

/// Per host, the line of its pair chosen in the block before the run (the
/// earliest) and in the block after it (the latest): blocks are split by
/// explicit separators, or where a host is seen again. The number of
/// blocks (1 or 2).
#[allow(clippy::type_complexity)]
fn choose_pairs<'a>(
    lines: &[Line<'a>],
    name: &str,
) -> Result<(BTreeMap<&'a str, [Option<usize>; 2]>, usize), SyncError> {
    let err = |line: u64, message: String| line_error(name, line, message);
    let explicit = lines.iter().any(|l| l.sep_before);
    let mut block = 0usize;
    let mut seen: HashSet<&str> = HashSet::new();
    // host -> (before line index, after line index)
    let mut chosen: BTreeMap<&str, [Option<usize>; 2]> = BTreeMap::new();
    for (i, l) in lines.iter().enumerate() {
        let next = if explicit {
            l.sep_before
        } else {
            seen.contains(l.host)
        };
        if next {
            block += 1;
            seen.clear();
            if block >= 2 {
                return Err(err(
                    l.no,
                    format!(
                        "a third block of pairs starts here (host `{}`): a timesync file has a block before the run and one after",
                        l.host
                    ),
                ));
            }
        }
        seen.insert(l.host);
        let slot = &mut chosen.entry(l.host).or_default()[block];
        let better = match *slot {
            None => true,
            Some(j) if block == 0 => l.pair.reference_ns < lines[j].pair.reference_ns,
            Some(j) => l.pair.reference_ns > lines[j].pair.reference_ns,
        };
        if better {
            *slot = Some(i);
        }
    }
    let blocks = block + 1;

    Ok((chosen, blocks))
}

/// Each host's pairs, before and after the run, checked: a host with a pair
/// after has one before; with two blocks, each has one after; both clocks
/// advance between them.
#[allow(clippy::type_complexity)]
fn pair_hosts(
    lines: &[Line<'_>],
    chosen: BTreeMap<&str, [Option<usize>; 2]>,
    blocks: usize,
    name: &str,
) -> Result<BTreeMap<String, (Pair, Option<Pair>)>, SyncError> {
    let err = |line: u64, message: String| line_error(name, line, message);
    let mut hosts = BTreeMap::new();
    for (host, [before, after]) in chosen {
        let before = match (before, after) {
            (Some(b), _) => &lines[b],
            (None, Some(a)) => {
                return Err(err(
                    lines[a].no,
                    format!("host `{host}` has a pair after the run but none before it"),
                ))
            }
            (None, None) => unreachable!("a host is chosen only with a pair"),
        };
        let after = match after {
            Some(a) => Some(&lines[a]),
            None if blocks == 2 => {
                return Err(err(
                    before.no,
                    format!("host `{host}` has a pair before the run but none after it"),
                ))
            }
            None => None,
        };
        if let Some(a) = after {
            type Clock = for<'l> fn(&Line<'l>) -> (i64, &'l str);
            let clocks: [(&str, Clock); 2] = [
                ("reference", |l| (l.pair.reference_ns, l.ref_tok)),
                ("host", |l| (l.pair.host_ns, l.host_tok)),
            ];
            for (clock, read) in clocks {
                let ((later, later_tok), (earlier, earlier_tok)) = (read(a), read(before));
                if later <= earlier {
                    return Err(err(
                        a.no,
                        format!(
                            "{clock} time `{later_tok}` is not after `{earlier_tok}` (line {}): the interval of `{host}` must be positive",
                            before.no
                        ),
                    ));
                }
            }
        }
        hosts.insert(host.to_string(), (before.pair, after.map(|a| a.pair)));
    }
    Ok(hosts)
}

impl SyncTable {
    /// Reads the `timesync` file at `path`, whose times are in `unit`.
    pub fn read(path: impl AsRef<Path>, unit: TimeUnit) -> Result<SyncTable, SyncError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| SyncError {
            file: name.clone(),
            line: None,
            message: format!("cannot read: {e}"),
        })?;
        let text = trama_input::utf8_text(bytes).map_err(|e| SyncError {
            file: name.clone(),
            line: Some(e.line),
            message: e.to_string(),
        })?;
        SyncTable::parse(&text, &name, unit)
    }

    /// Parses the text of a `timesync` file; `name` names it in errors.
    pub fn parse(text: &str, name: &str, unit: TimeUnit) -> Result<SyncTable, SyncError> {
        let (lines, reference) = read_lines(text, name, unit)?;
        let Some((reference, _)) = reference else {
            return Err(SyncError {
                file: name.to_string(),
                line: None,
                message: "no clock pairs (`refhost reftime host hosttime` lines)".into(),
            });
        };

        let (chosen, blocks) = choose_pairs(&lines, name)?;
        let hosts = pair_hosts(&lines, chosen, blocks, name)?;
        Ok(SyncTable {
            file: name.to_string(),
            unit,
            reference: reference.to_string(),
            blocks,
            hosts,
        })
    }

    /// The file's name, as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The unit of the file's times.
    pub fn unit(&self) -> TimeUnit {
        self.unit
    }

    /// The reference host.
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// Blocks of pairs in the file: 1 (offsets only) or 2 (before and after the run).
    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// The monitored hosts (every host of the file but the reference), sorted.
    pub fn hosts(&self) -> impl Iterator<Item = &str> + '_ {
        self.hosts
            .keys()
            .map(String::as_str)
            .filter(move |h| *h != self.reference)
    }

    /// The pairs kept for `host`: before the run, and after it (with two blocks).
    pub fn pairs(&self, host: &str) -> Option<(Pair, Option<Pair>)> {
        self.hosts.get(host).copied()
    }

    /// The correction of `host`'s times: the identity for the reference,
    /// `None` for a host the file does not name.
    pub fn correction(&self, host: &str) -> Option<Correction> {
        if host == self.reference {
            return Some(Correction::identity());
        }
        let (before, after) = self.hosts.get(host)?;
        Some(match after {
            None => Correction::offset(*before),
            // Checked positive when read.
            Some(a) => Correction::drift(*before, *a).unwrap_or(Correction::offset(*before)),
        })
    }
}
