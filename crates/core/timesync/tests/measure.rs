//! The measurement on loopback: a real server (offset 0), servers with a
//! known fake clock shift, the file it writes, and protocol errors. Bounds
//! are the NTP guarantee (half the measured round trip) plus the file's
//! microsecond flooring, so they cannot flake.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use trama_timesync::{
    measure, now_ns, write_block, Exchange, Server, ServerOptions, SyncTable, TimeUnit,
};

const TIMEOUT: Duration = Duration::from_secs(10);

fn shifted(shift_ns: i64) -> Server {
    Server::spawn("127.0.0.1:0", ServerOptions { shift_ns }).unwrap()
}

#[test]
fn same_clock_offset_is_zero_within_the_round_trip() {
    let server = shifted(0);
    let e = measure(server.addr(), 20, TIMEOUT).unwrap();
    assert!(e.t0 <= e.t3 && e.t1 <= e.t2, "{e:?}");
    assert!(e.round_trip() >= 0, "{e:?}");
    assert!(
        e.offset().abs() <= e.round_trip() / 2 + 1,
        "offset {} round trip {}",
        e.offset(),
        e.round_trip()
    );
    server.stop();
}

/// One block from two shifted servers: the file corrects their times by
/// their shifts.
#[test]
fn the_written_block_corrects_a_known_shift() {
    let shifts = [("ahead", 7_654_321_987i64), ("behind", -3_600_000_000_123)];
    let servers: Vec<Server> = shifts.iter().map(|(_, s)| shifted(*s)).collect();
    let mut results = Vec::new();
    for ((name, shift), server) in shifts.iter().zip(&servers) {
        let e = measure(server.addr(), 10, TIMEOUT).unwrap();
        assert!(
            (e.offset() - shift).abs() <= e.round_trip() / 2 + 1,
            "{name}: {e:?}"
        );
        results.push((name.to_string(), e));
    }
    let mut file = Vec::new();
    write_block(&mut file, "client", &results, 10).unwrap();
    let text = String::from_utf8(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("# "));
    assert!(lines[1].starts_with("client ") && lines[1].contains(" ahead "));
    let table = SyncTable::parse(&text, "measured", TimeUnit::Microseconds).unwrap();
    assert_eq!(table.reference(), "client");
    assert_eq!(table.blocks(), 1);
    for ((name, shift), (_, e)) in shifts.iter().zip(&results) {
        let c = table.correction(name).unwrap();
        let true_time = now_ns();
        let host_time = true_time + shift;
        let err = (c.apply(host_time) - true_time).abs();
        assert!(
            err <= e.round_trip() / 2 + 2_000,
            "{name}: error {err} ns, round trip {} ns",
            e.round_trip()
        );
    }
}

/// Two blocks (before and after): the drift correction between them is
/// within the worse round trip.
#[test]
fn two_blocks_make_a_drift_correction() {
    let shift = 42_000_000_000i64;
    let server = shifted(shift);
    let mut file = Vec::new();
    let mut rtts = Vec::new();
    for _ in 0..2 {
        let e: Exchange = measure(server.addr(), 5, TIMEOUT).unwrap();
        rtts.push(e.round_trip());
        write_block(&mut file, "ref", &[("h".into(), e)], 5).unwrap();
        std::thread::sleep(Duration::from_millis(3));
    }
    let table = SyncTable::parse(
        std::str::from_utf8(&file).unwrap(),
        "two",
        TimeUnit::Microseconds,
    )
    .unwrap();
    assert_eq!(table.blocks(), 2);
    let (o, n) = table.pairs("h").unwrap();
    let n = n.unwrap();
    let c = table.correction("h").unwrap();
    assert!(c.corrects_drift());
    let bound = rtts.iter().max().unwrap() / 2 + 3_000;
    for host_time in [o.host_ns, (o.host_ns + n.host_ns) / 2, n.host_ns] {
        let err = (c.apply(host_time) - (host_time - shift)).abs();
        assert!(err <= bound, "error {err} ns > {bound} ns");
    }
}

/// A server on loopback that reads one request, writes `reply` and hangs
/// up; its thread gives the request.
fn one_reply(reply: &'static [u8]) -> (std::net::SocketAddr, std::thread::JoinHandle<[u8; 8]>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let t = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut req = [0u8; 8];
        s.read_exact(&mut req).unwrap();
        s.write_all(reply).unwrap();
        req
    });
    (addr, t)
}

#[test]
fn protocol_errors() {
    assert_eq!(
        measure(shifted(0).addr(), 0, TIMEOUT).unwrap_err().kind(),
        std::io::ErrorKind::InvalidInput
    );
    // A server that answers nonsense.
    let (addr, t) = one_reply(&[b'X'; 24]);
    let e = measure(addr, 3, TIMEOUT).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
    let req = t.join().unwrap();
    assert_eq!(&req, b"TSRQ\0\0\0\0");
    // A server that hangs up after half a reply.
    let (addr, t) = one_reply(b"TSRP\0\0\0\0\0\0");
    let e = measure(addr, 3, TIMEOUT).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{e}");
    t.join().unwrap();
    // The real server closes a connection that sends garbage, and keeps serving.
    let server = shifted(0);
    let mut s = TcpStream::connect(server.addr()).unwrap();
    s.write_all(b"HELLO!!\n").unwrap();
    let mut rest = Vec::new();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    assert_eq!(s.read_to_end(&mut rest).unwrap(), 0);
    assert!(measure(server.addr(), 2, TIMEOUT).is_ok());
    // Names that would break the file are refused.
    let e = measure(server.addr(), 1, TIMEOUT).unwrap();
    assert!(write_block(&mut Vec::new(), "ref", &[("two words".into(), e)], 1).is_err());
    assert!(write_block(&mut Vec::new(), "r#f", &[("h".into(), e)], 1).is_err());
}
