//! HTTP endpoints. Each request: token → user, rate limit for that user, then the
//! operation, always scoped to that user. One structured log line per request.
//!
//! | method | path | body | answer |
//! |---|---|---|---|
//! | POST | `/v1/sync?after=<cursor>&limit=<n>&procedures_after=<cursor>&library_after=<cursor>` | pushed batches ([`crate::frames`]) | batches after the cursor; headers `x-engram-cursor`, `x-engram-more`, `x-engram-stored`, `x-engram-duplicates`, `x-engram-refused`, `x-engram-procedures-cursor`, `x-engram-library-cursor` |
//! | GET | `/v1/memories?after=<id>&limit=<n>&kind=<k>&history=<bool>` | | `{memories, next}` |
//! | GET | `/v1/documents?after=<id>&limit=<n>` | | `{documents, next}` (archived documents, without chunk texts) |
//! | GET | `/v1/graph?from=<name>&rel=<rel>&depth=<1..4>` | | `{edges: [{depth, from, rel, to, record}]}` |
//! | GET | `/v1/session?id=<session>` | | `{session}` — the `session_memories` document: state, summary, history, `metadata` (token count, important entities, importance score) |
//! | GET | `/v1/profile` | | `{profile}` — the `user_profiles` document (null before the first fact or setting) |
//! | POST | `/v1/forget` | | `{stamp}` — forgets the token's user everywhere |
//! | GET | `/healthz`, `/metrics` | | liveness with a MongoDB ping; Prometheus text |

use std::future::Future;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::auth::Auth;
use crate::config::Config;
use crate::error::{ApiError, ApiResult};
use crate::frames;
use crate::limits::RateLimiter;
use crate::store::{query::MAX_DEPTH, Store};
use crate::telemetry::{Event, Telemetry};
use engram_core::{encode_ops, Op, OpBody, Stamp, UserKey};

/// Shared by every request.
pub struct AppState {
    pub store: Store,
    pub auth: Auth,
    pub limiter: RateLimiter,
    pub telemetry: Telemetry,
    pub config: Config,
}

/// The router with every endpoint.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/v1/sync", post(sync))
        .route("/v1/memories", get(list))
        .route("/v1/documents", get(list_documents))
        .route("/v1/graph", get(graph))
        .route("/v1/profile", get(profile))
        .route("/v1/session", get(session))
        .route("/v1/forget", post(forget))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        // After every route: it applies to the routes registered before it.
        .method_not_allowed_fallback(|method: Method, uri: Uri| async move { ApiError::MethodNotAllowed(format!("{method} {}", uri.path())) })
        .fallback(|uri: Uri| async move { ApiError::NotFound(uri.path().chars().take(200).collect()) })
        .with_state(state)
}

/// Query parameters: like axum's `Query`, but a malformed one (`limit=abc`, a missing
/// `from`, a repeated name) is the origin's JSON `BAD_REQUEST`, not a plain-text 400.
struct Params<T>(T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Query::try_from_uri(&parts.uri).map(|Query(p)| Params(p)).map_err(|e| ApiError::BadRequest(e.body_text()))
    }
}

type Counts = Vec<(&'static str, u64)>;

/// Authenticate, rate-limit, run `f` for the token's user, log and count.
async fn authed<F, Fut>(st: &AppState, op: &'static str, headers: &HeaderMap, f: F) -> Response
where
    F: FnOnce(UserKey) -> Fut,
    Fut: Future<Output = ApiResult<(Response, Counts)>>,
{
    let started = Instant::now();
    let mut ev = Event { op, ..Event::default() };
    let result = async {
        let user = st.auth.check(headers.get("authorization").and_then(|v| v.to_str().ok()))?;
        ev.user = Some(user.clone());
        st.limiter.take(&user, Instant::now()).map_err(ApiError::RateLimited)?;
        f(user).await
    }
    .await;
    let res = match result {
        Ok((res, counts)) => {
            ev.counts = counts;
            res
        }
        Err(e) => {
            ev.code = Some(e.code());
            e.into_response()
        }
    };
    ev.status = res.status().as_u16();
    st.telemetry.record(&ev, started.elapsed());
    res
}

/// Read a body up to the configured limit.
async fn read_body(body: Body, declared: Option<usize>, max: usize) -> ApiResult<Vec<u8>> {
    if declared.is_some_and(|n| n > max) {
        return Err(ApiError::TooLarge(max));
    }
    axum::body::to_bytes(body, max).await.map(|b| b.to_vec()).map_err(|_| ApiError::TooLarge(max))
}

#[derive(Deserialize)]
struct SyncParams {
    after: Option<i64>,
    limit: Option<i64>,
    /// A user's replica also reads its tenant's partitions (see [`TenantLog`]): the batches
    /// of each after its own cursor follow the user's own in the answer.
    procedures_after: Option<i64>,
    library_after: Option<i64>,
}

/// A partition of the whole tenant that users' tokens pull read-only beside their own log
/// (their pushes of its ops are refused, as ops of another partition): its name in the
/// `<name>_after` parameter, the `x-engram-<name>-cursor` header and pulled frame ids.
struct TenantLog {
    name: &'static str,
    header: &'static str,
    key: fn(String) -> UserKey,
    after: fn(&SyncParams) -> Option<i64>,
}

/// The tenant's procedures and its library (the operator's instructions and shared documents).
const TENANT_LOGS: [TenantLog; 2] = [
    TenantLog { name: "procedures", header: "x-engram-procedures-cursor", key: UserKey::procedures, after: |p| p.procedures_after },
    TenantLog { name: "library", header: "x-engram-library-cursor", key: UserKey::library, after: |p| p.library_after },
];

async fn sync(State(st): State<Arc<AppState>>, Params(p): Params<SyncParams>, headers: HeaderMap, body: Body) -> Response {
    let state = st.clone();
    let declared = headers.get("content-length").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok());
    authed(&st, "sync", &headers, |user| async move {
        let bytes = read_body(body, declared, state.config.max_body).await?;
        let pushed = frames::decode(&bytes)?;
        let report = state.store.push(&user, pushed).await?;
        let limit = p.limit.unwrap_or(state.config.pull_limit).clamp(1, state.config.pull_limit);
        let mut page = state.store.pull(&user, p.after.unwrap_or(0).max(0), limit).await?;
        // The tenant's partitions, read-only for a user's token (its pushes of them are
        // refused above, as ops of another partition). Each partition's log is numbered on
        // its own, gapless, so each has its own cursor; an operator's token pulls its
        // partition as its own and no other.
        let mut more = page.more;
        let mut extra = Vec::new();
        for log in &TENANT_LOGS {
            let Some(after) = (log.after)(&p).filter(|_| !user.is_tenant_partition()) else { continue };
            let tenant_page = state.store.pull(&(log.key)(user.tenant.clone()), after.max(0), limit).await?;
            more |= tenant_page.more;
            extra.push((log.header, tenant_page.cursor.to_string()));
            page.frames.extend(tenant_page.frames.into_iter().map(|f| frames::Frame { id: format!("{}-{}", log.name, f.id), ops: f.ops }));
        }
        let pulled = page.frames.len() as u64;
        let mut res = (StatusCode::OK, frames::encode(&page.frames)).into_response();
        let h = res.headers_mut();
        for (name, value) in [
            ("content-type", "application/x-engram-sync".to_owned()),
            ("x-engram-cursor", page.cursor.to_string()),
            ("x-engram-more", u8::from(more).to_string()),
            ("x-engram-stored", report.stored.to_string()),
            ("x-engram-duplicates", report.duplicates.to_string()),
            ("x-engram-refused", report.refused.to_string()),
        ]
        .into_iter()
        .chain(extra)
        {
            if let Ok(v) = value.parse() {
                h.insert(name, v);
            }
        }
        Ok((res, vec![("ops_pushed", report.ops), ("batches_pushed", report.stored), ("batches_duplicate", report.duplicates), ("ops_refused", report.refused), ("batches_pulled", pulled), ("bytes_in", bytes.len() as u64)]))
    })
    .await
}

#[derive(Deserialize)]
struct ListParams {
    after: Option<String>,
    limit: Option<i64>,
    kind: Option<String>,
    history: Option<bool>,
}

async fn list(State(st): State<Arc<AppState>>, Params(p): Params<ListParams>, headers: HeaderMap) -> Response {
    let state = st.clone();
    authed(&st, "list", &headers, |user| async move {
        let limit = p.limit.unwrap_or(50);
        if !(1..=500).contains(&limit) {
            return Err(ApiError::BadRequest("limit must be 1..=500".into()));
        }
        let page = state.store.list(&user, p.after.as_deref(), limit, p.kind.as_deref(), p.history.unwrap_or(false)).await?;
        let n = page.memories.len() as u64;
        Ok((Json(page).into_response(), vec![("records_listed", n)]))
    })
    .await
}

#[derive(Deserialize)]
struct DocumentParams {
    after: Option<String>,
    limit: Option<i64>,
}

async fn list_documents(State(st): State<Arc<AppState>>, Params(p): Params<DocumentParams>, headers: HeaderMap) -> Response {
    let state = st.clone();
    authed(&st, "documents", &headers, |user| async move {
        let limit = p.limit.unwrap_or(50);
        if !(1..=500).contains(&limit) {
            return Err(ApiError::BadRequest("limit must be 1..=500".into()));
        }
        let page = state.store.list_documents(&user, p.after.as_deref(), limit).await?;
        let n = page.documents.len() as u64;
        Ok((Json(page).into_response(), vec![("records_listed", n)]))
    })
    .await
}

#[derive(Deserialize)]
struct GraphParams {
    from: String,
    rel: Option<String>,
    depth: Option<u32>,
}

async fn graph(State(st): State<Arc<AppState>>, Params(p): Params<GraphParams>, headers: HeaderMap) -> Response {
    let state = st.clone();
    authed(&st, "graph", &headers, |user| async move {
        let depth = p.depth.unwrap_or(2);
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(ApiError::BadRequest(format!("depth must be 1..={MAX_DEPTH}")));
        }
        if p.from.trim().is_empty() {
            return Err(ApiError::BadRequest("from must name an entity".into()));
        }
        let edges = state.store.graph(&user, &p.from, p.rel.as_deref(), depth).await?;
        let n = edges.len() as u64;
        Ok((Json(serde_json::json!({ "edges": edges })).into_response(), vec![("edges", n)]))
    })
    .await
}

#[derive(Deserialize)]
struct SessionParams {
    id: String,
}

async fn session(State(st): State<Arc<AppState>>, Params(p): Params<SessionParams>, headers: HeaderMap) -> Response {
    let state = st.clone();
    authed(&st, "session", &headers, |user| async move {
        if p.id.is_empty() || p.id.len() > 256 {
            return Err(ApiError::BadRequest("id must name a session (1 to 256 bytes)".into()));
        }
        let session = state.store.session(&user, &p.id).await?;
        Ok((Json(serde_json::json!({ "session": session })).into_response(), vec![]))
    })
    .await
}

async fn profile(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let state = st.clone();
    authed(&st, "profile", &headers, |user| async move {
        let profile = state.store.profile(&user).await?;
        Ok((Json(serde_json::json!({ "profile": profile })).into_response(), vec![]))
    })
    .await
}

async fn forget(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let state = st.clone();
    authed(&st, "forget", &headers, |user| async move {
        // After every op of the user the origin has seen, and not before now.
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0);
        let newest = state.store.newest_stamp(&user).await?;
        let wall = newest.map_or(now, |s| now.max(s.wall_ms + 1));
        let stamp = Stamp { wall_ms: wall, counter: 0, replica: state.config.replica };
        let op = Op { user: user.clone(), stamp, body: OpBody::ForgetUser };
        let frame = frames::Frame { id: format!("origin-forget-{wall}-{}", state.config.replica), ops: encode_ops(&[op])? };
        state.store.push(&user, vec![frame]).await?;
        Ok((Json(serde_json::json!({ "forgotten": true, "stamp": stamp })).into_response(), vec![("users_forgotten", 1)]))
    })
    .await
}

async fn healthz(State(st): State<Arc<AppState>>) -> Response {
    match st.store.ping().await {
        Ok(()) => Json(serde_json::json!({ "ok": true })).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn metrics(State(st): State<Arc<AppState>>) -> Response {
    ([("content-type", "text/plain; version=0.0.4")], st.telemetry.prometheus()).into_response()
}
