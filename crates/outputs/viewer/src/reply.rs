//! What the server answers besides the thing asked for: [`Error`], the
//! one error type of every reply (a status and a message saying why, as
//! plain text), replies of bytes, and the headers every reply carries
//! ([`HEADERS`], put on every reply once, by the router's outermost layer
//! [`secured`], and on the replies a connection gives before a request is
//! read, `crate::conn`).

use axum::body::Body;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

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

/// A reply that is not what was asked for: its status and why, given as
/// a line of plain text, with a header when the status calls for one
/// (`Allow`, `Retry-After`).
#[derive(Debug)]
pub(crate) struct Error {
    status: StatusCode,
    message: String,
    header: Option<(HeaderName, &'static str)>,
}

impl Error {
    /// A reply of `status` saying `message`.
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
            header: None,
        }
    }

    /// 400: the request is wrong, and why.
    pub(crate) fn bad(why: impl Into<String>) -> Error {
        Error::new(StatusCode::BAD_REQUEST, why)
    }

    /// 500: what was asked could not be computed, and why.
    pub(crate) fn internal(why: impl Into<String>) -> Error {
        Error::new(StatusCode::INTERNAL_SERVER_ERROR, why)
    }

    /// 503 with `Retry-After: 1`: not now, ask again in a second.
    pub(crate) fn later(why: impl Into<String>) -> Error {
        Error::new(StatusCode::SERVICE_UNAVAILABLE, why).with(header::RETRY_AFTER, "1")
    }

    /// 404.
    pub(crate) fn not_found() -> Error {
        Error::new(StatusCode::NOT_FOUND, "not found")
    }

    /// This error with the header `name: value`.
    pub(crate) fn with(mut self, name: HeaderName, value: &'static str) -> Error {
        self.header = Some((name, value));
        self
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let mut r = (self.status, format!("{}\n", self.message)).into_response();
        let headers = r.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        if let Some((name, value)) = self.header {
            headers.insert(name, HeaderValue::from_static(value));
        }
        r
    }
}

/// A reply of `body`, of `kind` (a MIME type).
pub(crate) fn bytes(kind: &'static str, body: impl Into<Body>) -> Response {
    let mut r = Response::new(body.into());
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    r
}

/// `r` with [`HEADERS`]: the router's outermost layer.
pub(crate) async fn secured(mut r: Response) -> Response {
    let headers = r.headers_mut();
    for (name, value) in HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    r
}

/// `r` not stored by the browser: the API's layer (a window's data
/// changes with the trace viewed behind the same URL).
pub(crate) async fn no_store(mut r: Response) -> Response {
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}
