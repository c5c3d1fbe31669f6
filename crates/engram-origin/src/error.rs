//! The origin's errors: every failure is a JSON body `{"error": {"code", "message"}}` with an
//! HTTP status that says whose fault it is. Messages never contain memory text.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// A request that failed, with the code clients branch on.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No token, a malformed one, a bad signature or an expired one.
    #[error("unauthorized: {0}")]
    Unauthorized(String),
    /// The token is valid but names another user than the data in the request.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The body or a parameter is malformed.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// A pushed op is one another replica would refuse to apply (its record filed under
    /// another scope, a field over its limit, a control character in a name, …).
    #[error("invalid op: {0}")]
    InvalidOp(String),
    /// No endpoint at this path.
    #[error("no endpoint {0}")]
    NotFound(String),
    /// The endpoint exists but not with this method.
    #[error("{0} is not allowed here")]
    MethodNotAllowed(String),
    /// The request did not finish within the request timeout.
    #[error("the request did not finish within {0} ms; retry")]
    Timeout(u64),
    /// The body is larger than the configured limit.
    #[error("request body larger than {0} bytes")]
    TooLarge(usize),
    /// The user sent more requests than the rate limit allows.
    #[error("rate limited: retry after {0} ms")]
    RateLimited(u64),
    /// MongoDB failed or is unreachable.
    #[error("storage: {0}")]
    Storage(String),
}

impl ApiError {
    /// The stable code in the JSON body.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Unauthorized(_) => "UNAUTHORIZED",
            ApiError::Forbidden(_) => "FORBIDDEN",
            ApiError::BadRequest(_) => "BAD_REQUEST",
            ApiError::InvalidOp(_) => "INVALID_OP",
            ApiError::NotFound(_) => "NOT_FOUND",
            ApiError::MethodNotAllowed(_) => "METHOD_NOT_ALLOWED",
            ApiError::Timeout(_) => "TIMEOUT",
            ApiError::TooLarge(_) => "PAYLOAD_TOO_LARGE",
            ApiError::RateLimited(_) => "RATE_LIMITED",
            ApiError::Storage(_) => "STORAGE",
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::InvalidOp(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Timeout(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Storage(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

impl From<mongodb::error::Error> for ApiError {
    fn from(e: mongodb::error::Error) -> Self {
        // The driver's message names the operation and server, never document contents.
        ApiError::Storage(e.kind.to_string().chars().take(300).collect())
    }
}

impl From<engram_core::Error> for ApiError {
    fn from(e: engram_core::Error) -> Self {
        ApiError::BadRequest(format!("{}: {e}", e.code()))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": { "code": self.code(), "message": self.to_string() } });
        let mut res = (self.status(), Json(body)).into_response();
        if let ApiError::RateLimited(ms) = self {
            let secs = ms.div_ceil(1000).max(1);
            if let Ok(v) = secs.to_string().parse() {
                res.headers_mut().insert("retry-after", v);
            }
        }
        // The limit, so that a client can cut what it sends to fit.
        if let ApiError::TooLarge(max) = self {
            if let Ok(v) = max.to_string().parse() {
                res.headers_mut().insert("x-engram-max-body", v);
            }
        }
        res
    }
}

/// Shorthand for handler results.
pub type ApiResult<T> = Result<T, ApiError>;
