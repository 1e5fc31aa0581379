//! Fuzz target: Paraver traces through the one door (`trama_open`): the
//! input, after a fixed header line, is the `.prv`'s records; with the
//! first byte's bit 0 set, the header comes from the input too. A small
//! `.pcf` and `.row` sit beside it. Checks: no panic; an error names the
//! file; a trace that reads counts its entities.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use trama_open::{LoadOptions, Source};
use trama_sim::CountingSink;

/// A folder of this process holding the `.pcf` and `.row`.
fn dir() -> &'static std::path::Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("trama-fuzz-paraver-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("t.pcf"),
            "STATES\n0 Idle\n1 Running\n\nEVENT_TYPE\n0 50000001 MPI\nVALUES\n0 End\n1 MPI_Send\n",
        )
        .unwrap();
        std::fs::write(d.join("t.row"), "LEVEL THREAD SIZE 2\nTHREAD 1.1.1\nTHREAD 1.2.1\n").unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut prv = Vec::new();
    if flags & 1 == 0 {
        prv.extend_from_slice(b"#Paraver (01/01/26 at 00:00):1000_ns:1(2):1:2(1:1,1:1)\n");
    }
    prv.extend_from_slice(rest);
    let path = dir().join("t.prv");
    std::fs::write(&path, &prv).unwrap();
    let name = path.display().to_string();
    let mut opts = LoadOptions::default();
    opts.threads = 1;
    match trama_open::simulate_into(&Source::Path(path), CountingSink::default(), &opts) {
        Ok(done) => {
            let c = done.sink;
            let _ = c.states + c.events + c.links + c.variables;
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains(&name) || msg.contains("t.prv"), "{msg}");
        }
    }
});
