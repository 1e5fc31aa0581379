//! The server's connections: accepted up to [`Limits::connections`] at
//! once, served as HTTP/1.1 by hyper with a deadline for each request's
//! head ([`Limits::header_timeout`]), and read through [`Heads`], which
//! answers a request line or head too long itself, with the headers every
//! reply carries, before hyper would (hyper's own 414 and 431 replies
//! carry none).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{watch, Semaphore};

use crate::limit::Limits;

/// The longest request line (method, path and query, version).
const LINE_MAX: usize = 16 << 10;
/// The longest head (request line and headers).
const HEAD_MAX: usize = 64 << 10;
/// The most header lines in a head (hyper refuses more than
/// [`HYPER_HEADERS`]).
const HEADERS_MAX: usize = 100;
/// The header lines hyper accepts.
const HYPER_HEADERS: usize = 128;

/// Serves `app` on `listener` until `stop` completes; then closes the
/// connections as their replies end (waiting at most 2 s for them).
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
    stop: impl Future<Output = ()>,
) {
    let open = Arc::new(Semaphore::new(limits.connections.max(1)));
    let (closing, closed) = watch::channel(false);
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            _ = &mut stop => break,
            p = open.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        let tcp = tokio::select! {
            _ = &mut stop => break,
            a = listener.accept() => match a {
                Ok((tcp, _)) => tcp,
                // Out of file descriptors, a connection reset before it was
                // accepted: try again a little later.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let _ = tcp.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone().into_service());
        let mut closed = closed.clone();
        let timeout = limits.header_timeout;
        tokio::spawn(async move {
            let _permit = permit;
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(timeout)
                .max_headers(HYPER_HEADERS);
            let conn = http.serve_connection(TokioIo::new(Heads::new(tcp)), service);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = closed.wait_for(|c| *c) => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
    }
    let _ = closing.send(true);
    let all = u32::try_from(limits.connections.max(1)).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(Duration::from_secs(2), open.acquire_many(all)).await;
}

/// Where [`Heads`] is in the bytes the client sends.
#[derive(Debug)]
enum Phase {
    /// In a request line (or the empty lines before one).
    Line,
    /// In the header lines.
    Headers,
    /// After a head that announced a body: the rest goes to hyper as it
    /// is (the reply closes the connection, see `guard`).
    Through,
    /// A head too long: answering `.0` from byte `.1`, then the end.
    Refusing(Vec<u8>, usize),
    /// Answered: nothing more is read.
    Done,
}

/// A connection whose request heads are measured as they are read: a
/// request line longer than [`LINE_MAX`] gets 414, a head longer than
/// [`HEAD_MAX`] or with more than [`HEADERS_MAX`] header lines 431, each
/// answered here with the headers every reply carries and
/// `Connection: close`, then the connection ends.
pub(crate) struct Heads<S> {
    io: S,
    phase: Phase,
    /// Bytes of the current line, of the current head, header lines.
    line: usize,
    head: usize,
    lines: usize,
    /// The start of the current line, lowercased (enough to tell the
    /// headers that announce a body).
    start: [u8; 18],
    /// Whether the current head announced a body.
    body: bool,
}

impl<S> Heads<S> {
    /// `io`, measured.
    pub(crate) fn new(io: S) -> Heads<S> {
        Heads {
            io,
            phase: Phase::Line,
            line: 0,
            head: 0,
            lines: 0,
            start: [0; 18],
            body: false,
        }
    }

    /// Measures `bytes`, read next; the reply refusing the head, if it is
    /// too long.
    fn measure(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        for &b in bytes {
            if !matches!(self.phase, Phase::Line | Phase::Headers) {
                return None;
            }
            self.head += 1;
            if b == b'\n' {
                self.end_line();
                continue;
            }
            if b != b'\r' {
                if self.line < self.start.len() {
                    self.start[self.line] = b.to_ascii_lowercase();
                }
                self.line += 1;
            }
            if matches!(self.phase, Phase::Line) && self.line > LINE_MAX {
                return Some(refusal("414 URI Too Long", "the request line is too long"));
            }
            if self.head > HEAD_MAX || self.lines > HEADERS_MAX {
                return Some(refusal(
                    "431 Request Header Fields Too Large",
                    "the request's headers are too large",
                ));
            }
        }
        None
    }

    /// A line ended.
    fn end_line(&mut self) {
        let empty = self.line == 0;
        let start = &self.start[..self.line.min(self.start.len())];
        match self.phase {
            // Empty lines before a request line are allowed.
            Phase::Line if empty => self.head = 0,
            Phase::Line => self.phase = Phase::Headers,
            Phase::Headers if empty => {
                self.phase = if self.body {
                    Phase::Through
                } else {
                    Phase::Line
                };
                (self.head, self.lines) = (0, 0);
            }
            _ => {
                self.lines += 1;
                self.body |= start.starts_with(b"content-length:")
                    || start.starts_with(b"transfer-encoding:");
            }
        }
        self.line = 0;
    }
}

/// A reply of `status` saying `why`, with the headers of every reply.
fn refusal(status: &str, why: &str) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 {status}\r\n");
    for (name, value) in crate::reply::HEADERS {
        r.push_str(&format!("{name}: {value}\r\n"));
    }
    r.push_str(&format!(
        "content-type: text/plain; charset=utf-8\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{why}\n",
        why.len() + 1
    ));
    r.into_bytes()
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Heads<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = &mut *self;
        loop {
            match &mut me.phase {
                Phase::Done => return Poll::Ready(Ok(())),
                Phase::Refusing(reply, at) => {
                    while *at < reply.len() {
                        match ready!(Pin::new(&mut me.io).poll_write(cx, &reply[*at..])) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => *at += n,
                        }
                    }
                    let _ = ready!(Pin::new(&mut me.io).poll_shutdown(cx));
                    // The end of the input: hyper drops the head begun.
                    me.phase = Phase::Done;
                }
                _ => {
                    let before = buf.filled().len();
                    ready!(Pin::new(&mut me.io).poll_read(cx, buf))?;
                    let refused = me.measure(&buf.filled()[before..]);
                    match refused {
                        None => return Poll::Ready(Ok(())),
                        Some(reply) => {
                            buf.set_filled(before);
                            me.phase = Phase::Refusing(reply, 0);
                        }
                    }
                }
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Heads<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_measured_across_requests() {
        let mut h = Heads::new(());
        assert!(h
            .measure(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n")
            .is_none());
        assert!(matches!(h.phase, Phase::Headers));
        let long = vec![b'a'; HEAD_MAX];
        let r = h.measure(&long).expect("refused");
        assert!(String::from_utf8_lossy(&r).starts_with("HTTP/1.1 431"));
        let mut h = Heads::new(());
        let mut line = b"GET /".to_vec();
        line.extend(vec![b'a'; LINE_MAX]);
        let r = h.measure(&line).expect("refused");
        assert!(String::from_utf8_lossy(&r).starts_with("HTTP/1.1 414"));
        let mut h = Heads::new(());
        assert!(h
            .measure(b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
            .is_none());
        assert!(matches!(h.phase, Phase::Through));
    }
}
