//! The router and the checks every request goes through (see the crate's
//! documentation, "Security").

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::Shared;

/// The headers every reply carries (no other site may frame the page).
pub(crate) const HEADERS: [(header::HeaderName, &str); 4] = [
    (
        header::CONTENT_SECURITY_POLICY,
        "default-src 'self'; frame-ancestors 'none'",
    ),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::REFERRER_POLICY, "no-referrer"),
    (header::X_FRAME_OPTIONS, "DENY"),
];

/// A plain-text reply with `status`.
pub(crate) fn text(status: StatusCode, msg: impl Into<String>) -> Response {
    let mut r = (status, msg.into()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

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
/// the Host header), not exactly one Host header, or one that names
/// another machine.
fn refused(req: &Request, bound: SocketAddr) -> Option<Response> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(r);
    }
    if req.uri().scheme().is_some() || req.uri().authority().is_some() {
        return Some(text(
            StatusCode::BAD_REQUEST,
            "the request line must hold a path, not a URL\n",
        ));
    }
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (Some(h), None) => h.to_str().unwrap_or(""),
        (Some(_), Some(_)) => {
            return Some(text(StatusCode::BAD_REQUEST, "more than one Host header\n"))
        }
        (None, _) => "",
    };
    (!host_allowed(host, bound)).then(|| {
        text(
            StatusCode::FORBIDDEN,
            "the Host header must name the server's address or localhost\n",
        )
    })
}

/// The checks before any handler, and the headers after. A request that
/// announces a body (none is read) gets a reply that closes the
/// connection.
async fn guard(bound: SocketAddr, req: Request, next: Next) -> Response {
    let body = req.headers().contains_key(header::CONTENT_LENGTH)
        || req.headers().contains_key(header::TRANSFER_ENCODING);
    let mut reply = match refused(&req, bound) {
        Some(r) => r,
        None => next.run(req).await,
    };
    let headers = reply.headers_mut();
    for (name, value) in HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if body {
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    reply
}

/// Every route, under `/TOKEN/`; anything else is 404.
pub(crate) fn router(state: Arc<Shared>, token: &str, bound: SocketAddr) -> Router {
    let base = format!("/{token}/");
    let to_base = base.clone();
    Router::new()
        .route(&base, get(crate::assets::index))
        .route(
            &format!("/{token}"),
            get(move || async move { axum::response::Redirect::permanent(&to_base) }),
        )
        .route(&format!("{base}{{file}}"), get(crate::assets::asset))
        .nest(&format!("{base}api"), crate::api::routes())
        .with_state(state)
        .fallback(|| async { text(StatusCode::NOT_FOUND, "not found\n") })
        .layer(axum::middleware::from_fn(move |req, next| {
            guard(bound, req, next)
        }))
}

/// A reply of `bytes` of `kind` (a MIME type).
pub(crate) fn bytes(kind: &'static str, body: impl Into<Body>) -> Response {
    let mut r = Response::new(body.into());
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    r
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
