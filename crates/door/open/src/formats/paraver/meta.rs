//! What a Paraver trace says besides its records: the header of the
//! `.prv` (time unit, applications, tasks, threads), and the names of the
//! `.pcf` (states, their colours, event types and values) and `.row`
//! (applications, tasks, threads) beside it.

use std::collections::HashMap;

use trama_records::Nanos;

/// The most threads a header may declare (each is a container).
const MAX_THREADS: u64 = 1 << 22;

/// The first line of a `.prv`, read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Header {
    /// The date as written between the parentheses.
    pub date: String,
    /// The trace's duration in nanoseconds.
    pub duration: Nanos,
    /// Nanoseconds per time unit of the records.
    pub unit: Nanos,
    /// The unit's name (`ns`, `us`, `ms`, `s`).
    pub unit_name: &'static str,
    /// Per application, per task, its number of threads.
    pub apps: Vec<Vec<u32>>,
    /// Communicators the header announces.
    pub communicators: u64,
}

/// Splits `s` at each `sep` outside parentheses.
fn split_top(s: &str, seps: &[char]) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 && seps.contains(&c) {
            out.push(String::new());
        } else {
            out.last_mut().expect("never empty").push(c);
        }
    }
    out
}

fn number<T: std::str::FromStr>(word: &str, what: &str) -> Result<T, String> {
    let w = word.trim();
    if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} is not a number: '{word}'"));
    }
    w.parse()
        .map_err(|_| format!("{what} is out of range: '{word}'"))
}

impl Header {
    /// Reads the header line `line` (without its newline).
    pub(crate) fn parse(line: &str) -> Result<Header, String> {
        let rest = line
            .strip_prefix("#Paraver (")
            .ok_or_else(|| format!("the header does not start with '#Paraver (': '{line}'"))?;
        let (date, rest) = rest
            .split_once(')')
            .ok_or_else(|| format!("the header's date has no ')': '{line}'"))?;
        let rest = rest
            .strip_prefix(':')
            .ok_or_else(|| format!("no ':' after the header's date: '{rest}'"))?;
        let parts = split_top(rest, &[':']);
        if parts.len() < 3 {
            return Err(format!(
                "the header has {} of its fields after the date, it needs at least 3 (duration:nodes:applications): '{rest}'",
                parts.len()
            ));
        }
        let (time, unit_name) = match parts[0].split_once('_') {
            Some((t, u)) => (t, u),
            None => (parts[0].as_str(), "ns"),
        };
        let (unit, unit_name) = match unit_name {
            "ns" => (1, "ns"),
            "us" => (1_000, "us"),
            "ms" => (1_000_000, "ms"),
            "s" => (1_000_000_000, "s"),
            other => {
                return Err(format!(
                    "unknown time unit '{other}' in the duration '{}' (known: ns, us, ms, s)",
                    parts[0]
                ))
            }
        };
        let duration: i64 = number(time, "the duration")?;
        let duration = duration
            .checked_mul(unit)
            .ok_or_else(|| format!("the duration is out of range: '{}'", parts[0]))?;
        let napps: usize = number(&parts[2], "the number of applications")?;
        let mut apps = Vec::new();
        let mut communicators = 0u64;
        for part in &parts[3..] {
            for token in split_top(part, &[',']) {
                let token = token.trim();
                if token.is_empty() {
                    continue;
                }
                let Some((ntasks, list)) = token.split_once('(') else {
                    communicators += number::<u64>(token, "a number of communicators")?;
                    continue;
                };
                let ntasks: usize = number(ntasks, "a number of tasks")?;
                let list = list
                    .strip_suffix(')')
                    .ok_or_else(|| format!("an application's task list has no ')': '{token}'"))?;
                let mut tasks = Vec::new();
                for t in list.split(',') {
                    let threads = t.split(':').next().unwrap_or_default();
                    tasks.push(number::<u32>(threads, "a number of threads")?);
                }
                if tasks.len() != ntasks {
                    return Err(format!(
                        "an application of {ntasks} tasks lists {} of them: '{token}'",
                        tasks.len()
                    ));
                }
                apps.push(tasks);
            }
        }
        if apps.len() != napps {
            return Err(format!(
                "the header announces {napps} applications and describes {}: '{rest}'",
                apps.len()
            ));
        }
        // Each thread is a container made before the first record: a
        // damaged header must not ask for billions of them.
        let threads: u64 = apps.iter().flatten().map(|t| *t as u64).sum();
        if threads > MAX_THREADS {
            return Err(format!(
                "the header declares {threads} threads, more than the {MAX_THREADS} trama takes: '{rest}'"
            ));
        }
        Ok(Header {
            date: date.to_string(),
            duration,
            unit,
            unit_name,
            apps,
            communicators,
        })
    }
}

/// The names of a `.pcf`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pcf {
    /// State value → name.
    pub states: HashMap<i64, String>,
    /// State value → colour (`"r g b"` in 0..1).
    pub state_colors: HashMap<i64, String>,
    /// Event type → its name.
    pub types: HashMap<u64, String>,
    /// Event type → value → name.
    pub values: HashMap<u64, HashMap<i64, String>>,
}

/// The first word of `line` and the rest, trimmed.
fn first_word(line: &str) -> Option<(&str, &str)> {
    let line = line.trim();
    let end = line.find(char::is_whitespace)?;
    Some((&line[..end], line[end..].trim()))
}

impl Pcf {
    /// Reads a `.pcf`'s text; lines it does not understand are skipped.
    pub(crate) fn parse(text: &str) -> Pcf {
        #[derive(PartialEq)]
        enum Section {
            Other,
            States,
            Colors,
            Types,
            Values,
        }
        let mut pcf = Pcf::default();
        let mut section = Section::Other;
        // The event types of the current EVENT_TYPE block.
        let mut block: Vec<u64> = Vec::new();
        for line in text.lines() {
            let t = line.trim();
            if t.is_empty() {
                if section == Section::Values {
                    block.clear();
                }
                if section != Section::Types {
                    section = Section::Other;
                }
                continue;
            }
            match t {
                "STATES" => {
                    section = Section::States;
                    continue;
                }
                "STATES_COLOR" => {
                    section = Section::Colors;
                    continue;
                }
                "EVENT_TYPE" => {
                    section = Section::Types;
                    block.clear();
                    continue;
                }
                "VALUES" => {
                    section = Section::Values;
                    continue;
                }
                _ => {}
            }
            if t.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
                section = Section::Other;
                continue;
            }
            match section {
                Section::Other => {}
                Section::States => {
                    if let Some((v, name)) = first_word(t) {
                        if let Ok(v) = v.parse() {
                            pcf.states.insert(v, name.to_string());
                        }
                    }
                }
                Section::Colors => {
                    if let Some((v, rgb)) = first_word(t) {
                        if let (Ok(v), Some(c)) = (v.parse(), color(rgb)) {
                            pcf.state_colors.insert(v, c);
                        }
                    }
                }
                Section::Types => {
                    // gradient, type, name
                    if let Some((_, rest)) = first_word(t) {
                        if let Some((ty, name)) = first_word(rest) {
                            if let Ok(ty) = ty.parse() {
                                pcf.types.insert(ty, name.to_string());
                                block.push(ty);
                            }
                        }
                    }
                }
                Section::Values => {
                    if let Some((v, name)) = first_word(t) {
                        if let Ok(v) = v.parse::<i64>() {
                            for ty in &block {
                                pcf.values
                                    .entry(*ty)
                                    .or_default()
                                    .insert(v, name.to_string());
                            }
                        }
                    }
                }
            }
        }
        pcf
    }
}

/// `{r,g,b}` (0..255) as Pajé's `"r g b"` in 0..1.
fn color(rgb: &str) -> Option<String> {
    let inner = rgb.trim().strip_prefix('{')?.strip_suffix('}')?;
    let parts: Vec<u8> = inner
        .split(',')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    if parts.len() != 3 {
        return None;
    }
    let f = |c: u8| {
        let s = format!("{:.3}", f64::from(c) / 255.0);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s.is_empty() {
            "0".to_string()
        } else {
            s.to_string()
        }
    };
    Some(format!("{} {} {}", f(parts[0]), f(parts[1]), f(parts[2])))
}

/// The names of a `.row`, per level (`APPL`, `TASK`, `THREAD`, `NODE`,
/// `CPU`), in the order of the level's objects.
#[derive(Clone, Debug, Default)]
pub(crate) struct Row {
    /// Level name → names.
    pub levels: HashMap<String, Vec<String>>,
}

impl Row {
    /// Reads a `.row`'s text: `LEVEL NAME SIZE n` and the names that follow.
    pub(crate) fn parse(text: &str) -> Row {
        let mut row = Row::default();
        let mut current: Option<(String, usize)> = None;
        for line in text.lines() {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("LEVEL ") {
                let words: Vec<&str> = rest.split_whitespace().collect();
                current = match words.as_slice() {
                    [level, "SIZE", n] => n.parse().ok().map(|n| (level.to_string(), n)),
                    _ => None,
                };
                if let Some((level, _)) = &current {
                    row.levels.entry(level.clone()).or_default();
                }
                continue;
            }
            if t.is_empty() {
                continue;
            }
            if let Some((level, size)) = &current {
                let names = row.levels.entry(level.clone()).or_default();
                if names.len() < *size {
                    names.push(t.to_string());
                }
            }
        }
        row
    }

    /// The name of the `index`th (0-based) object of `level`, if given.
    pub(crate) fn name(&self, level: &str, index: usize) -> Option<&str> {
        self.levels
            .get(level)
            .and_then(|n| n.get(index))
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let h = Header::parse("#Paraver (11/11/2013 at 12:32):185375938648_ns:1(1):1:1(1:1),0")
            .unwrap();
        assert_eq!(h.duration, 185_375_938_648);
        assert_eq!(h.apps, vec![vec![1]]);
        let h = Header::parse(
            "#Paraver (02/06/1997 at 00:00):4573_us:0:4:2(4:0,3:0):3(1:0,1:0,2:0):1(48:0):2(12:0,12:0)",
        )
        .unwrap();
        assert_eq!(h.duration, 4_573_000);
        assert_eq!(h.unit, 1_000);
        assert_eq!(
            h.apps,
            vec![vec![4, 3], vec![1, 1, 2], vec![48], vec![12, 12]]
        );
        // Applications separated by commas, the communicators last.
        let h = Header::parse("#Paraver (x):10:1(20):2:2(1:1,1:1),1(1:1),14").unwrap();
        assert_eq!(h.apps, vec![vec![1, 1], vec![1]]);
        assert_eq!(h.communicators, 14);
        for bad in [
            "#Paraver (x):10_parsec:1(1):1:1(1:1)",
            "#Paraver (x):1x:1(1):1:1(1:1)",
            "#Paraver (x):10:1(1):2:1(1:1)",
            "#Paraver (x):10:1(1):1:2(1:1)",
            "#Paraver (x)",
            "#Paraver x",
            // Billions of threads (each a container): refused, not made.
            "#Paraver (x):10:1(1):1:2(4000000000:1,1:1)",
        ] {
            assert!(Header::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pcf_and_row() {
        let pcf = Pcf::parse(
            "STATES\n0 Idle\n1    Running\n\nSTATES_COLOR\n0 {117,195,255}\n1 {0,0,255}\n\n\
             EVENT_TYPE\n9   50000001    MPI Point-to-point\n9 50000002 Other\nVALUES\n0   Outside MPI\n3 MPI_Isend\n\n\n\
             EVENT_TYPE\n7  42000050 PAPI_TOT_INS ([Instr completed])\n",
        );
        assert_eq!(pcf.states[&1], "Running");
        assert_eq!(pcf.state_colors[&1], "0 0 1");
        assert_eq!(pcf.state_colors[&0], "0.459 0.765 1");
        assert_eq!(pcf.types[&50000001], "MPI Point-to-point");
        assert_eq!(pcf.values[&50000002][&3], "MPI_Isend");
        assert_eq!(pcf.types[&42000050], "PAPI_TOT_INS ([Instr completed])");
        assert!(!pcf.values.contains_key(&42000050));
        let row = Row::parse("LEVEL CPU SIZE 1\n1.login5\n\nLEVEL THREAD SIZE 2\nT1\nT2\n");
        assert_eq!(row.name("THREAD", 1), Some("T2"));
        assert_eq!(row.name("TASK", 0), None);
    }
}
