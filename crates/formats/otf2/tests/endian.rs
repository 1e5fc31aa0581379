//! Both byte orders OTF2 allows: an archive written big endian reads as
//! the same archive written little endian, with large identifiers and
//! times, negative and floating-point metric values, records longer than
//! 255 bytes, records of unknown types and several chunks; and, with the
//! OTF2 tools installed, as the library reads it.

mod common;

use common::{same_as_otf2_print, sample, write, CHUNK};
use trama_otf2::{read_paje, Archive, Kind};

/// The Pajé events of an archive, as text.
fn paje(anchor: &std::path::Path) -> Vec<String> {
    let a = Archive::open(anchor).unwrap();
    let mut out = Vec::new();
    read_paje(&a, None, |ev| -> Result<(), ()> {
        out.push(ev.contents());
        Ok(())
    })
    .unwrap();
    out
}

#[test]
fn big_and_little_endian_archives_read_alike() {
    let dir = tempfile::tempdir().unwrap();
    let c = sample(20_000);
    let le = write(&dir.path().join("le"), &c, false, CHUNK);
    let be = write(&dir.path().join("be"), &c, true, CHUNK);
    let evt = std::fs::metadata(dir.path().join("le/traces/8589934592.evt"))
        .unwrap()
        .len();
    assert!(evt > 2 * CHUNK as u64, "{evt} bytes: not several chunks");
    let (a, b) = (paje(&le), paje(&be));
    assert_eq!(a.len(), b.len());
    assert_eq!(a, b);
    // What the events say, decoded.
    let arch = Archive::open(&be).unwrap();
    assert!(arch.anchor().big_endian);
    let mut r = arch.events(0).unwrap();
    let first = r.next_event().unwrap().unwrap();
    assert_eq!(first.time, 5_000_000_000 + (1 << 33));
    assert_eq!(first.kind, Kind::Enter { region: 300 });
    assert_eq!(
        r.next_event().unwrap().unwrap().kind,
        Kind::Enter { region: 70_000 }
    );
    r.next_event().unwrap();
    assert_eq!(
        r.next_event().unwrap().unwrap().kind,
        Kind::MpiSend {
            receiver: 1,
            comm: 3,
            tag: u32::MAX,
            length: 1 << 40
        }
    );
    r.next_event().unwrap();
    let m = r.next_event().unwrap().unwrap();
    assert_eq!(
        m.kind,
        Kind::Metric {
            metric: 9,
            count: 3
        }
    );
    let v = r.metric_values();
    assert_eq!((v[0].type_id, v[0].bits), (4, 0));
    assert_eq!(f64::from_bits(v[1].bits), 0.25);
    assert_eq!(v[2].bits as i64, -3);
    assert_eq!(
        r.next_event().unwrap().unwrap().kind,
        Kind::Other { id: 200 }
    );
    // Seconds from the clock's offset; messages between the two ranks;
    // the long metric record's 26 values.
    assert!(
        a.iter()
            .any(|l| l.starts_with("6 8.589934692 R0 l8589934592 work")),
        "{:?}",
        &a[..40]
    );
    assert!(a.iter().any(|l| l.starts_with("12 8.589934703 M0_0 0 world l8589934592 3_8589934592_5_4294967295_0 4294967295 1099511627776")));
    assert!(a
        .iter()
        .any(|l| l.starts_with("13 8.589934708 M0_0 0 world l5 3_8589934592_5_4294967295_0")));
    let m: Vec<_> = a
        .iter()
        .filter(|l| l.starts_with("10 8.589934712 "))
        .collect();
    assert!(
        m.iter().any(|l| *l == "10 8.589934712 V1 l8589934592 -3"),
        "{m:?}"
    );
    let long = a
        .iter()
        .filter(|l| l.starts_with("10 8.589934710 "))
        .count();
    assert_eq!(long, 26);
    if trama_gen::otf2::tools() {
        let n = same_as_otf2_print(&le);
        assert_eq!(n, same_as_otf2_print(&be));
        assert_eq!(n, 2 + 7 * 20_000 + 2 + 3 * 20_000 + 200);
    }
}
