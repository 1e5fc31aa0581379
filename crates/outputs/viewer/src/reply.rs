//! What the server answers besides the thing asked for: [`Error`], the
//! one error type of every reply (a status and a message saying why, as
//! plain text), replies of bytes, and the headers every reply carries
//! ([`HEADERS`], put on every reply once, by the router's outermost layer
//! [`secured`], and on the replies a connection gives before a request is
//! read, `crate::conn`), and the API's replies compressed (zstd, else
//! gzip) for a client that accepts it ([`compressed`]).

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

/// [`secured`], but framed by pages of the same origin only (not by other
/// sites'): the two runs of `trama view A B` are pages of their own in
/// frames of the comparison's page.
pub(crate) async fn secured_framed(r: Response) -> Response {
    let mut r = secured(r).await;
    let headers = r.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; frame-ancestors 'self'"),
    );
    headers.insert(
        header::X_FRAME_OPTIONS,
        HeaderValue::from_static("SAMEORIGIN"),
    );
    r
}

/// `r` not stored by the browser: the API's layer (a window's data
/// changes with the trace viewed behind the same URL).
pub(crate) async fn no_store(mut r: Response) -> Response {
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Replies shorter than this are sent as they are.
const COMPRESS_FROM: usize = 1024;

/// The most an API reply holds (a window is bounded by its rows and
/// columns; this only guards the collection of the body).
const MAX_REPLY: usize = 1 << 30;

/// How a reply is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coding {
    /// zstd at level 1: several times quicker than gzip, and smaller.
    Zstd,
    /// gzip at the fast level, for clients without zstd.
    Gzip,
}

/// The API's layer: the reply compressed when the request accepts it
/// (`Accept-Encoding`: zstd, as Chromium and Firefox send it, else gzip;
/// not with `q=0`) and it is over [`COMPRESS_FROM`] bytes, so that a
/// window of a large trace crosses a remote link (an SSH tunnel to a
/// cluster's login node) in a fraction of its size; `Vary:
/// Accept-Encoding` either way.
pub(crate) async fn compressed(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let accepted: Vec<String> = req
        .headers()
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok().map(str::to_string))
        .collect();
    let coding = chosen_coding(&accepted.join(","));
    let mut r = next.run(req).await;
    r.headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    let Some(coding) = coding.filter(|_| !r.headers().contains_key(header::CONTENT_ENCODING))
    else {
        return r;
    };
    let (mut parts, body) = r.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_REPLY).await {
        Ok(b) => b,
        Err(e) => return Error::internal(format!("reading the reply: {e}")).into_response(),
    };
    if bytes.len() < COMPRESS_FROM {
        return Response::from_parts(parts, Body::from(bytes));
    }
    let packed = tokio::task::spawn_blocking(move || match coding {
        Coding::Zstd => zstd::bulk::compress(&bytes, 1),
        Coding::Gzip => gzip(&bytes),
    })
    .await;
    let Ok(Ok(packed)) = packed else {
        return Error::internal("compressing the reply failed").into_response();
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    let name = match coding {
        Coding::Zstd => "zstd",
        Coding::Gzip => "gzip",
    };
    parts
        .headers
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
    Response::from_parts(parts, Body::from(packed))
}

/// `bytes` compressed with gzip at the fast level.
fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 4),
        flate2::Compression::fast(),
    );
    z.write_all(bytes)?;
    z.finish()
}

/// The coding of a reply to a request accepting `value` (its
/// `Accept-Encoding` headers joined): zstd when named, else gzip when
/// named or `*`, neither with a quality of 0.
fn chosen_coding(value: &str) -> Option<Coding> {
    let mut star = false;
    let mut found = (false, false);
    for coding in value.split(',') {
        let mut parts = coding.split(';');
        let name = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            let p: String = p.chars().filter(|c| !c.is_whitespace()).collect();
            p.strip_prefix("q=")
                .and_then(|q| q.parse::<f64>().ok())
                .is_some_and(|q| q == 0.0)
        });
        match (name.as_str(), refused) {
            (_, true) => {}
            ("zstd", false) => found.0 = true,
            ("gzip", false) => found.1 = true,
            ("*", false) => star = true,
            _ => {}
        }
    }
    match found {
        (true, _) => Some(Coding::Zstd),
        (false, true) => Some(Coding::Gzip),
        _ if star => Some(Coding::Gzip),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{chosen_coding, Coding};

    #[test]
    fn accept_encoding_values() {
        assert_eq!(chosen_coding("gzip"), Some(Coding::Gzip));
        assert_eq!(chosen_coding("gzip, deflate, br, zstd"), Some(Coding::Zstd));
        assert_eq!(chosen_coding("br;q=1.0, GZIP;q=0.5"), Some(Coding::Gzip));
        assert_eq!(chosen_coding("*"), Some(Coding::Gzip));
        assert_eq!(chosen_coding("zstd;q=0, gzip"), Some(Coding::Gzip));
        assert_eq!(chosen_coding("gzip;q=0"), None);
        assert_eq!(chosen_coding("gzip; q=0.0, br"), None);
        assert_eq!(chosen_coding("deflate, br"), None);
        assert_eq!(chosen_coding(""), None);
    }
}
