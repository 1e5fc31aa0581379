//! What a lenient simulation lets pass: problems of real traces that a
//! strict reader rejects (an event on a container the trace never created,
//! or creates later; a pop of an empty state stack; a container destroyed
//! before its last event). Each is a warning naming its line instead of an
//! error; a class of problem seen millions of times names its first few
//! lines and counts the others.

/// Lines named per class of problem; the others are counted.
pub const SHOWN: u64 = 5;

/// How each warning of a problem let pass ends (its class's count too
/// starts so), so that a summary can tell the trace was read leniently.
pub const MARK: &str = "(--lenient";

/// The problems let pass, by class.
#[derive(Clone, Debug, Default)]
pub struct Tolerated {
    classes: Vec<Class>,
}

#[derive(Clone, Debug)]
struct Class {
    /// What was done, in the plural, e.g. "events on unknown containers ignored".
    what: &'static str,
    count: u64,
    first: Vec<String>,
}

impl Tolerated {
    /// Notes one problem of class `what` at `line`; `message` (called for
    /// the first [`SHOWN`] of the class only) says what it was and what
    /// was done.
    pub fn note(&mut self, what: &'static str, line: u64, message: impl FnOnce() -> String) {
        let class = match self.classes.iter().position(|c| c.what == what) {
            Some(i) => &mut self.classes[i],
            None => {
                self.classes.push(Class {
                    what,
                    count: 0,
                    first: Vec::new(),
                });
                self.classes.last_mut().expect("just pushed")
            }
        };
        class.count += 1;
        if class.count <= SHOWN {
            let at = if line == 0 {
                "at the end of the trace".to_string()
            } else {
                format!("line {line}")
            };
            class.first.push(format!("{at}: {} {MARK})", message()));
        }
    }

    /// How many problems were let pass.
    pub fn count(&self) -> u64 {
        self.classes.iter().map(|c| c.count).sum()
    }

    /// The warnings: the first lines of each class, then its count when
    /// some were not named.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for c in &self.classes {
            out.extend(c.first.iter().cloned());
            if c.count > SHOWN {
                out.push(format!(
                    "{} {} in all {MARK}; the first {SHOWN} are named above)",
                    c.count, c.what
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_lines_of_each_class_are_named_and_the_others_counted() {
        let mut t = Tolerated::default();
        for line in 1..=12 {
            t.note("pops ignored", line, || "pop".into());
        }
        t.note("events ignored", 40, || "event".into());
        assert_eq!(t.count(), 13);
        let w = t.warnings();
        assert_eq!(w.len(), SHOWN as usize + 2, "{w:?}");
        assert_eq!(w[0], "line 1: pop (--lenient)");
        assert_eq!(
            w[SHOWN as usize],
            "12 pops ignored in all (--lenient; the first 5 are named above)"
        );
        assert_eq!(w[SHOWN as usize + 1], "line 40: event (--lenient)");
    }
}
