//! Garbling inputs for robustness tests.

use crate::rng::Rng;

/// Bytes that tend to matter to a Pajé reader.
const INTERESTING: &[u8] = b" \t\r\n\"#%0123456789.-+eE\x00\x0b\x0c\xff\xc3";

/// Words that tend to matter to a Pajé reader or simulator.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "-1e308",
    "1e-320",
    "nan",
    "inf",
    "0x10",
    "\"",
    "\"\"",
    "\"a b",
    "#",
    "%",
    "%EventDef",
    "%EndEventDef",
    "% EventDef PajeSetState 999",
    "99999999999999999999999",
    "x",
    "PajePushState",
    "string",
    "date",
];

/// Returns a garbled variant of `input`: 1 to 4 random byte flips,
/// inserted or deleted bytes, dropped, duplicated, swapped or truncated
/// lines, swapped or replaced fields, or a truncated input. The same seed
/// and input give the same output. The result is usually invalid Pajé.
pub fn mutate(seed: u64, input: &[u8]) -> Vec<u8> {
    let mut r = Rng::new(seed);
    let mut data = input.to_vec();
    for _ in 0..r.range(1, 4) {
        mutate_once(&mut r, &mut data);
    }
    data
}

fn split_lines(data: &[u8]) -> Vec<Vec<u8>> {
    data.split_inclusive(|&b| b == b'\n')
        .map(|l| l.to_vec())
        .collect()
}

fn fields(line: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        while i < line.len() && line[i].is_ascii_whitespace() {
            i += 1;
        }
        let s = i;
        while i < line.len() && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        if i > s {
            out.push((s, i));
        }
    }
    out
}

fn mutate_once(r: &mut Rng, data: &mut Vec<u8>) {
    let n = data.len();
    match r.below(14) {
        0 if n > 0 => {
            let i = r.below(n);
            data[i] ^= 1 << r.below(8);
        }
        1 if n > 0 => {
            let i = r.below(n);
            data[i] = *r.pick(INTERESTING);
        }
        2 => {
            let i = r.below(n + 1);
            data.insert(i, *r.pick(INTERESTING));
        }
        3 if n > 0 => {
            let i = r.below(n);
            let len = r.range(1, 16).min(n - i);
            data.drain(i..i + len);
        }
        4 => {
            data.truncate(r.below(n + 1));
        }
        _ => {
            let mut lines = split_lines(data);
            if lines.is_empty() {
                data.extend_from_slice(r.pick(TOKENS).as_bytes());
                return;
            }
            let k = lines.len();
            let i = r.below(k);
            match r.below(8) {
                0 => {
                    lines.remove(i);
                }
                1 => {
                    let l = lines[i].clone();
                    lines.insert(r.below(k + 1), l);
                }
                2 => lines.swap(i, r.below(k)),
                3 => {
                    // Truncate a line, keeping its end of line.
                    let l = &mut lines[i];
                    let nl = l.last() == Some(&b'\n');
                    let cut = r.below(l.len() + 1);
                    l.truncate(cut);
                    if nl && l.last() != Some(&b'\n') {
                        l.push(b'\n');
                    }
                }
                4 | 5 => {
                    // Swap two fields of a line, or replace one.
                    let f = fields(&lines[i]);
                    if f.is_empty() {
                        return;
                    }
                    let a = r.below(f.len());
                    let l = lines[i].clone();
                    let replacement: Vec<u8> = if r.chance(0.5) && f.len() > 1 {
                        let b = r.below(f.len());
                        l[f[b].0..f[b].1].to_vec()
                    } else if r.chance(0.5) {
                        r.pick(TOKENS).as_bytes().to_vec()
                    } else {
                        // A word from elsewhere in the input.
                        let other = &lines[r.below(k)];
                        let of = fields(other);
                        match of.get(r.below(of.len().max(1))) {
                            Some(&(s, e)) => other[s..e].to_vec(),
                            None => Vec::new(),
                        }
                    };
                    let mut nl = l[..f[a].0].to_vec();
                    nl.extend_from_slice(&replacement);
                    nl.extend_from_slice(&l[f[a].1..]);
                    lines[i] = nl;
                }
                6 => {
                    // Drop a field.
                    let f = fields(&lines[i]);
                    if let Some(&(s, e)) = f.get(r.below(f.len().max(1))) {
                        lines[i].drain(s..e);
                    }
                }
                _ => {
                    // Add a field.
                    let l = &mut lines[i];
                    let at = l.iter().position(|&b| b == b'\n').unwrap_or(l.len());
                    let mut w = b" ".to_vec();
                    w.extend_from_slice(r.pick(TOKENS).as_bytes());
                    l.splice(at..at, w);
                }
            }
            *data = lines.concat();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_changing() {
        let input = b"%EventDef PajeDefineContainerType 0\n% Name string\n% Type string\n%EndEventDef\n0 P 0\n";
        let mut changed = 0;
        for seed in 0..200 {
            let a = mutate(seed, input);
            assert_eq!(a, mutate(seed, input));
            if a != input {
                changed += 1;
            }
        }
        assert!(changed > 150, "{changed}");
        // Empty input is fine too.
        for seed in 0..50 {
            let _ = mutate(seed, b"");
        }
    }
}
