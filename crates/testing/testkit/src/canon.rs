//! A trace as text lines, for comparisons (shared by the replay tests of
//! `trama-sim` and `trama-ptb`).

use trama_sim::{ListId, StrId, Trace};

/// Everything a trace holds but its warnings, as text lines.
pub fn canon(t: &Trace) -> Vec<String> {
    let m = &t.model;
    let s = |id: StrId| String::from_utf8_lossy(m.str(id)).into_owned();
    let mut out = Vec::new();
    for (i, c) in m.containers.iter().enumerate() {
        out.push(format!(
            "container {i} {} {:?} {} {} {:?} {:?} {:?}",
            s(c.name),
            c.parent,
            c.start,
            c.end,
            c.children,
            c.lists,
            c.extras.iter().map(|&x| s(x)).collect::<Vec<_>>()
        ));
    }
    for (i, l) in m.lists.iter().enumerate() {
        out.push(format!("list {i} {l:?}"));
        for k in 0..t.lists[i].len() {
            let e = t.entity(ListId(i as u32), k);
            out.push(format!(
                "  {} {} {:?} {} {} {:?} {:?} {:?} {:?}",
                e.start,
                e.end,
                e.value,
                e.number,
                e.level,
                String::from_utf8_lossy(e.key),
                e.from,
                e.to,
                e.extras.iter().map(|&x| s(x)).collect::<Vec<_>>()
            ));
        }
    }
    out
}
