//! The records trama reads equal those the OTF2 library reads: per
//! location, the same records (by type) at the same timestamps, in the
//! same order, as `otf2-print` prints them; on archives written by the
//! library (`trama_gen::otf2`: MPI messages, collectives, metrics,
//! threads, mapping tables, clock offsets, several chunks) and on the
//! shared APEX sample.

use std::collections::BTreeMap;
use std::path::Path;

use trama_gen::otf2::{print_events, tools, write_archive, Printed};
use trama_otf2::records::event_name;
use trama_otf2::Archive;

/// Each location's events as trama reads them.
fn by_location(anchor: &Path) -> BTreeMap<u64, Vec<Printed>> {
    let a = Archive::open(anchor).unwrap();
    let mut out = BTreeMap::new();
    for (i, l) in a.definitions().locations.iter().enumerate() {
        let mut r = a.events(i).unwrap();
        let mut v = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            v.push(Printed {
                name: event_name(e.record).unwrap().to_string(),
                location: l.id,
                time: e.time,
            });
        }
        out.insert(l.id, v);
    }
    out
}

/// `otf2-print`'s events by location, in its order.
fn printed_by_location(anchor: &Path) -> BTreeMap<u64, Vec<Printed>> {
    let mut out: BTreeMap<u64, Vec<Printed>> = BTreeMap::new();
    for e in print_events(anchor) {
        out.entry(e.location).or_default().push(e);
    }
    out
}

fn same_as_otf2_print(anchor: &Path) -> usize {
    let mut ours = by_location(anchor);
    ours.retain(|_, v| !v.is_empty());
    let theirs = printed_by_location(anchor);
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "locations with events"
    );
    let mut n = 0;
    for (loc, want) in &theirs {
        let got = &ours[loc];
        assert_eq!(got.len(), want.len(), "location {loc}: events");
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert_eq!(g, w, "location {loc}, event {k}");
        }
        n += got.len();
    }
    // The archive's merged order agrees with otf2-print's on the time of
    // each event (ties may be ordered otherwise).
    let a = Archive::open(anchor).unwrap();
    let mut m = a.merged().unwrap();
    let mut times = Vec::new();
    while let Some((_, e)) = m.next_event().unwrap() {
        times.push(e.time);
    }
    let printed: Vec<u64> = print_events(anchor).iter().map(|e| e.time).collect();
    assert_eq!(times, printed, "merged times");
    n
}

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
        trama_gen::shared::find("samples/otf2/apex-phylanx/APEX.otf2", "OTF2 sample")
    else {
        return;
    };
    let n = same_as_otf2_print(&shared.join("samples/otf2/apex-phylanx/APEX.otf2"));
    assert_eq!(n, 16124);
}
