//! Plain HTTP/1.1 requests to a local server (the viewer's), one `GET` a
//! connection (`Connection: close`), the reply read whole as it comes:
//! status line, headers and body, unparsed.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};

/// Sends `GET path` (`path` from its `/`, query included) to `addr` with
/// `host` as the Host header; the reply's bytes, to the end.
pub fn get(addr: impl ToSocketAddrs, path: &str, host: &str) -> io::Result<Vec<u8>> {
    let mut s = TcpStream::connect(addr)?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )?;
    let mut reply = Vec::new();
    s.read_to_end(&mut reply)?;
    Ok(reply)
}

/// [`get`], the reply as text (not UTF-8: an error of kind
/// [`io::ErrorKind::InvalidData`]).
pub fn get_text(addr: impl ToSocketAddrs, path: &str, host: &str) -> io::Result<String> {
    String::from_utf8(get(addr, path, host)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The address (`host:port`) and the path (from its `/`) of a URL
/// `http://host:port/path`; `None` for another form.
pub fn url_parts(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("http://")?;
    Some(rest.split_at(rest.find('/')?))
}

/// The status (`HTTP/1.1 NNN …`) and the body (after the blank line) of a
/// reply [`get`] read.
pub fn status_and_body(reply: &[u8]) -> (u16, Vec<u8>) {
    let at = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a reply's head ends with a blank line");
    let status = String::from_utf8_lossy(&reply[9..12])
        .parse()
        .expect("a reply's status");
    (status, reply[at + 4..].to_vec())
}
