//! Valid Pajé traces nested as deep as asked, for robustness tests of
//! whatever walks container trees, type hierarchies or state stacks:
//! written as a stream, so a million levels cost no more memory than a
//! few.
//!
//! - [`nested_containers`]: a chain of `depth` container types, each in
//!   the one before (`T0` in the root type, `T1` in `T0`, …), and a chain
//!   of `depth` containers (`c0` in the root, `c1` in `c0`, …); a state
//!   pushed and popped on the outermost and on the innermost container,
//!   an event and a variable on the innermost, a link from the innermost
//!   to the outermost; the outermost is destroyed at the end, and with it
//!   every container below.
//! - [`nested_states`]: a host `h` with two processes, `p` and `q`; `p`
//!   with `depth` states pushed one on the other (the values of
//!   [`STATE_VALUES`] in turn, two of them waits; state `k` pushed at time
//!   `k + 1`), then popped (state `k` popped at time `2 × depth - k`); a
//!   link from `q`, at time 1, to `p`, when its state `depth / 2` is
//!   pushed.
//!
//! ```
//! let mut text = Vec::new();
//! trama_gen::deep::nested_containers(3, &mut text).unwrap();
//! let text = String::from_utf8(text).unwrap();
//! assert!(text.contains("\n0 T2 T1 T2\n"));
//! assert!(text.contains("\n5 0 c2 T2 c1 c2\n"));
//! ```

use std::io::{self, Write};

/// The event definitions both generators use (identifiers 0 to 12).
pub(crate) fn defs() -> String {
    crate::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeDefineEventType 2; \
         PajeDefineVariableType 3; PajeDefineLinkType 4; PajeCreateContainer 5; \
         PajeDestroyContainer 6; PajePushState 7; PajePopState 8; PajeNewEvent 9; \
         PajeSetVariable 10; PajeStartLink 11; PajeEndLink 12",
    )
}

/// Writes a trace whose containers (and container types) nest `depth`
/// levels deep (at least 1); see the module documentation.
pub fn nested_containers(depth: usize, out: &mut impl Write) -> io::Result<()> {
    let depth = depth.max(1);
    let mut out = io::BufWriter::new(out);
    out.write_all(defs().as_bytes())?;
    let mut parent = "0".to_string();
    for i in 0..depth {
        writeln!(out, "0 T{i} {parent} T{i}")?;
        parent = format!("T{i}");
    }
    let last = depth - 1;
    writeln!(out, "1 S0 T0 Outer")?;
    writeln!(out, "1 S T{last} Inner")?;
    writeln!(out, "2 E T{last} Mark")?;
    writeln!(out, "3 V T{last} Load")?;
    writeln!(out, "4 L 0 T{last} T0 Message")?;
    let mut parent = "0".to_string();
    for i in 0..depth {
        writeln!(out, "5 0 c{i} T{i} {parent} c{i}")?;
        parent = format!("c{i}");
    }
    writeln!(out, "7 1 S0 c0 outer")?;
    writeln!(out, "7 1 S c{last} inner")?;
    writeln!(out, "9 1 E c{last} mark")?;
    writeln!(out, "10 1 V c{last} 42")?;
    writeln!(out, "11 1 L 0 c{last} message k1")?;
    writeln!(out, "12 2 L 0 c0 message k1")?;
    writeln!(out, "8 2 S c{last}")?;
    writeln!(out, "8 2 S0 c0")?;
    writeln!(out, "6 3 T0 c0")?;
    out.flush()
}

/// The values of [`nested_states`], in turn.
pub const STATE_VALUES: [&str; 7] = ["v0", "v1", "v2", "v3", "v4", "MPI_Recv", "MPI_Wait"];

/// Writes a trace of one container whose `depth` states nest one in the
/// other; see the module documentation.
pub fn nested_states(depth: usize, out: &mut impl Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    out.write_all(defs().as_bytes())?;
    writeln!(out, "0 H 0 Host")?;
    writeln!(out, "0 P H Process")?;
    writeln!(out, "1 S P State")?;
    writeln!(out, "4 L 0 P P Message")?;
    writeln!(out, "5 0 h H 0 h")?;
    writeln!(out, "5 0 p P h p")?;
    writeln!(out, "5 0 q P h q")?;
    writeln!(out, "11 1 L 0 q message k1")?;
    for k in 0..depth {
        if k == depth / 2 {
            writeln!(out, "12 {} L 0 p message k1", k + 1)?;
        }
        writeln!(out, "7 {} S p {}", k + 1, STATE_VALUES[k % 7])?;
    }
    for k in (0..depth).rev() {
        writeln!(out, "8 {} S p", 2 * depth - k)?;
    }
    out.flush()
}
