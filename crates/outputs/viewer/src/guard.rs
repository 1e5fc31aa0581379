//! The checks every request goes through before any handler (see the
//! crate's documentation, "Security"): the method, the request line, the
//! Host header and the token that starts every path. It knows no handler:
//! a request it lets pass goes on to the router (`crate::routes`).

use std::net::SocketAddr;

use axum::extract::Request;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::reply::Error;

/// Whether `host` (a Host header) names `bound` or localhost, with the
/// bound port or none (bound to every address: any address as a number).
fn host_allowed(host: &str, bound: SocketAddr) -> bool {
    let (name, port) = match host.rsplit_once(':') {
        // An IPv6 literal without a port ends with `]`.
        Some((n, p)) if !p.ends_with(']') => (n, Some(p)),
        _ => (host, None),
    };
    if port.is_some_and(|p| p != bound.port().to_string()) {
        return false;
    }
    let name = name.trim_start_matches('[').trim_end_matches(']');
    let ip = name.parse::<std::net::IpAddr>().ok();
    // Bound to every address (0.0.0.0, ::): any address of this machine
    // may be named, as a number; a name could be an attacker's rebound to
    // it.
    name.eq_ignore_ascii_case("localhost")
        || ip == Some(bound.ip())
        || (bound.ip().is_unspecified() && ip.is_some())
}

/// Why `req` is refused, if it is: a method other than GET and HEAD, a
/// request line holding a URL (absolute form: its host would stand for
/// the Host header), not exactly one Host header, one that names another
/// machine, or a path that does not start with `token` (404).
fn refused(req: &Request, bound: SocketAddr, token: &str) -> Option<Error> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Some(
            Error::new(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD")
                .with(header::ALLOW, "GET, HEAD"),
        );
    }
    if req.uri().scheme().is_some() || req.uri().authority().is_some() {
        return Some(Error::bad("the request line must hold a path, not a URL"));
    }
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (Some(h), None) => h.to_str().unwrap_or(""),
        (Some(_), Some(_)) => return Some(Error::bad("more than one Host header")),
        (None, _) => "",
    };
    if !host_allowed(host, bound) {
        return Some(Error::new(
            StatusCode::FORBIDDEN,
            "the Host header must name the server's address or localhost",
        ));
    }
    let under = req
        .uri()
        .path()
        .strip_prefix('/')
        .and_then(|p| p.strip_prefix(token));
    (!under.is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))).then(Error::not_found)
}

/// The checks before any handler (`token` starts every path). A request
/// that announces a body (none is read) gets a reply that closes the
/// connection.
pub(crate) async fn guard(bound: SocketAddr, token: String, req: Request, next: Next) -> Response {
    let body = req.headers().contains_key(header::CONTENT_LENGTH)
        || req.headers().contains_key(header::TRANSFER_ENCODING);
    let mut reply = match refused(&req, bound, &token) {
        Some(e) => e.into_response(),
        None => next.run(req).await,
    };
    if body {
        reply
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    reply
}

#[cfg(test)]
mod tests {
    use super::host_allowed;

    #[test]
    fn host_names_the_bound_address_or_localhost() {
        let bound = "127.0.0.1:8060".parse().unwrap();
        for ok in ["127.0.0.1:8060", "localhost:8060", "LOCALHOST", "127.0.0.1"] {
            assert!(host_allowed(ok, bound), "{ok}");
        }
        for bad in [
            "evil.example:8060",
            "127.0.0.1:8061",
            "",
            "127.0.0.2:8060",
            "localhost.evil:8060",
        ] {
            assert!(!host_allowed(bad, bound), "{bad}");
        }
        let any = "0.0.0.0:8060".parse().unwrap();
        assert!(host_allowed("192.168.1.7:8060", any));
        assert!(!host_allowed("evil.example:8060", any));
        let v6 = "[::1]:9000".parse().unwrap();
        assert!(host_allowed("[::1]:9000", v6));
        assert!(host_allowed("[::1]", v6));
        assert!(!host_allowed("[::2]:9000", v6));
    }
}
