//! The records trama reads equal those the OTF2 library reads: per
//! location, the same records (by type) at the same timestamps, in the
//! same order, as `otf2-print` prints them; on archives written by the
//! library (`trama_gen::otf2`: MPI messages, collectives, metrics,
//! threads, mapping tables, clock offsets, several chunks) and on the
//! shared APEX sample.

mod common;

use common::same_as_otf2_print;
use trama_gen::otf2::{tools, write_archive};

#[test]
fn written_archives_read_as_the_library_reads_them() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 3 iterations: one chunk per location; 3000: several chunks of
    // 256 KiB.
    for iterations in [3, 3000] {
        let sub = dir.path().join(iterations.to_string());
        let anchor = write_archive(&sub, iterations);
        let n = same_as_otf2_print(&anchor);
        assert_eq!(n, 52 * iterations as usize + 4, "{iterations} iterations");
        if iterations == 3000 {
            let evt = std::fs::metadata(sub.join("traces/0.evt")).unwrap().len();
            assert!(evt > 2 * 256 * 1024, "{evt} bytes: not several chunks");
        }
    }
}

#[test]
fn the_apex_sample_reads_as_the_library_reads_it() {
    if !tools() {
        return;
    }
    let Some(shared) =
        trama_testkit::shared::find("samples/otf2/apex-phylanx/APEX.otf2", "OTF2 sample")
    else {
        return;
    };
    let n = same_as_otf2_print(&shared.join("samples/otf2/apex-phylanx/APEX.otf2"));
    assert_eq!(n, 16124);
}
