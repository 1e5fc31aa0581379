//! The page's files, embedded in the binary: nothing is read from the
//! disk or fetched from the network.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::Response;

use crate::guard::{bytes, text};

/// The embedded files: name, MIME type, contents.
const FILES: [(&str, &str, &str); 3] = [
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../assets/app.css"),
    ),
];

/// `GET /TOKEN/`: the page.
pub(crate) async fn index() -> Response {
    bytes(FILES[0].1, FILES[0].2)
}

/// `GET /TOKEN/FILE`: one of the embedded files, else 404.
pub(crate) async fn asset(Path(file): Path<String>) -> Response {
    match FILES.iter().find(|f| f.0 == file) {
        Some((_, kind, body)) => bytes(kind, *body),
        None => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}
