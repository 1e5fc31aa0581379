//! Shared by the tests: simulates a Pajé text into a trace store.

use trama_paje::{read_paje, ReadOptions};
use trama_sim::{SimOptions, Simulator, Trace, TraceBuilder};

/// Simulates `text` (a valid trace), keeping user-defined fields if asked.
#[allow(clippy::result_large_err)]
pub fn simulate(text: &str, keep_extras: bool) -> Trace {
    let mut o = SimOptions::default();
    o.keep_extras = keep_extras;
    let mut sim = Simulator::new(TraceBuilder::default(), o);
    read_paje(text.as_bytes(), &ReadOptions::default(), |ev| {
        sim.event(&ev)
    })
    .expect("valid trace");
    let (model, sink, warnings) = sim.finish().expect("valid trace");
    sink.into_trace(model, warnings)
}

/// The `%EventDef` block of each event, numbered from 0 in order, with
/// the fields the tests use; words after an event's name are more fields
/// (strings), e.g. `"PajeStartLink Size"`.
pub fn defs(events: &[&str]) -> String {
    let mut s = String::new();
    for (code, spec) in events.iter().enumerate() {
        let mut words = spec.split(' ');
        let name = words.next().unwrap_or_default();
        let fields: &[&str] = match name {
            "PajeDefineContainerType" | "PajeDefineStateType" => &["Alias", "Type", "Name"],
            "PajeDefineLinkType" => &[
                "Alias",
                "Type",
                "StartContainerType",
                "EndContainerType",
                "Name",
            ],
            "PajeCreateContainer" => &["Time", "Alias", "Type", "Container", "Name"],
            "PajePushState" => &["Time", "Type", "Container", "Value"],
            "PajePopState" => &["Time", "Type", "Container"],
            "PajeStartLink" => &[
                "Time",
                "Type",
                "Container",
                "StartContainer",
                "Value",
                "Key",
            ],
            "PajeEndLink" => &["Time", "Type", "Container", "EndContainer", "Value", "Key"],
            _ => panic!("no fields known for {name}"),
        };
        s.push_str(&format!("%EventDef {name} {code}\n"));
        for f in fields.iter().copied().chain(words) {
            let ty = if f == "Time" { "date" } else { "string" };
            s.push_str(&format!("% {f} {ty}\n"));
        }
        s.push_str("%EndEventDef\n");
    }
    s
}

/// The definitions of containers, states pushed and popped, links.
#[allow(dead_code)]
pub fn states_and_links() -> String {
    defs(&[
        "PajeDefineContainerType",
        "PajeDefineStateType",
        "PajeDefineLinkType",
        "PajeCreateContainer",
        "PajePushState",
        "PajePopState",
        "PajeStartLink",
        "PajeEndLink",
    ])
}

/// Two kinds of containers (Host > Proc), a state type, hosts h1 with p1
/// and p2: append state events (`3` push, `4` pop, on type S).
#[allow(dead_code)]
pub fn state_header() -> String {
    defs(&[
        "PajeDefineContainerType",
        "PajeDefineStateType",
        "PajeCreateContainer",
        "PajePushState",
        "PajePopState",
    ]) + "\
0 H 0 Host
0 P H Proc
1 S P State
2 0 h1 H 0 host1
2 0 p1 P h1 proc1
2 0 p2 P h1 proc2
"
}

/// Two hosts (h1: p1, p2; h2: p3) and four messages with a Size field:
/// k1 p1→p3 [1,2] 100 B, k2 p1→p3 [2,5] 300 B, k3 p2→p1 [3,4], k4 p3→p1
/// [6,6] (its end given first, size "x").
#[allow(dead_code)]
pub fn links() -> String {
    defs(&[
        "PajeDefineContainerType",
        "PajeDefineLinkType",
        "PajeCreateContainer",
        "PajeStartLink Size",
        "PajeEndLink",
    ]) + "\
0 H 0 Host
0 P H Proc
1 L 0 P P Msg
2 0 h1 H 0 host1
2 0 h2 H 0 host2
2 0 p1 P h1 proc1
2 0 p2 P h1 proc2
2 0 p3 P h2 proc3
3 1 L 0 p1 m k1 100
4 2 L 0 p3 m k1
3 2 L 0 p1 m k2 300
3 3 L 0 p2 m k3 10
4 4 L 0 p1 m k3
4 5 L 0 p3 m k2
4 6 L 0 p1 m k4
3 6 L 0 p3 m k4 x
"
}
