//! Cross-origin requests from browser apps (`ENGRAM_CORS_ORIGINS`): a page served from an
//! allowed origin may call the API directly — preflight answered, the sync headers exposed.
//! Origins are matched exactly (scheme, host and port, as the browser sends them); any other
//! origin gets no CORS headers, so the browser refuses to hand it the answer. Tokens are
//! still checked on every request: CORS only decides which pages may read the answers.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::routes::AppState;

/// Response headers a page may read: the sync cursors and counts.
const EXPOSED: &str = "x-engram-cursor, x-engram-more, x-engram-stored, x-engram-duplicates, x-engram-refused, x-engram-procedures-cursor, x-engram-library-cursor, x-engram-max-body";

/// Answer preflights and mark answers for allowed origins.
pub async fn cors(State(st): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let origin = req.headers().get(header::ORIGIN).cloned();
    let allowed = origin.as_ref().and_then(|o| o.to_str().ok()).is_some_and(|o| st.config.cors_origins.iter().any(|a| a == o));
    let preflight = req.method() == Method::OPTIONS && req.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let mut res = if preflight {
        let status = if allowed { StatusCode::NO_CONTENT } else { StatusCode::FORBIDDEN };
        (status, Body::empty()).into_response()
    } else {
        next.run(req).await
    };
    let h = res.headers_mut();
    h.append(header::VARY, HeaderValue::from_static("origin"));
    if let (true, Some(origin)) = (allowed, origin) {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED));
        if preflight {
            h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST"));
            h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("authorization, content-type"));
            h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        }
    }
    res
}
