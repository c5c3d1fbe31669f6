//! engram-origin: the server replicas sync with, keeping the archival copy in MongoDB.
//!
//! Stateless: every request carries a token naming its user, every query is filtered by
//! that user, and all state lives in MongoDB, so instances scale out behind a load
//! balancer. See [`routes`] for the endpoints and [`store`] for the collections.

pub mod auth;
pub mod config;
pub mod cors;
pub mod error;
pub mod frames;
pub mod limits;
pub mod routes;
mod server;
pub mod store;
pub mod telemetry;

use std::sync::{Arc, Mutex};

use tokio::net::TcpListener;

pub use config::Config;
pub use routes::AppState;

/// Connect to MongoDB and build the shared state; logs go to `log`.
pub async fn state(config: Config, log: telemetry::LogSink) -> Result<Arc<AppState>, error::ApiError> {
    let store = store::Store::connect(&config.mongodb_uri, &config.database, config.server_selection).await?;
    Ok(Arc::new(AppState {
        store,
        auth: auth::Auth::new(&config.secret)?,
        limiter: limits::RateLimiter::new(config.rate_per_sec, config.rate_burst),
        telemetry: telemetry::Telemetry::new(log),
        config,
    }))
}

/// Serve on `listener` until `shutdown` resolves, then finish the requests in flight. The
/// connection limit and the header, request and idle timeouts come from the state's
/// [`Config`] (see `server.rs`).
pub async fn serve(listener: TcpListener, state: Arc<AppState>, shutdown: impl std::future::Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
    let app = routes::router(state.clone())
        .layer(axum::middleware::from_fn_with_state(state.clone(), cors::cors))
        .layer(axum::extract::DefaultBodyLimit::disable());
    state.telemetry.note("listening", serde_json::json!({ "addr": listener.local_addr()?.to_string() }));
    server::run(listener, app, state, shutdown).await;
    Ok(())
}

/// Log lines to standard error.
pub fn stderr_log() -> telemetry::LogSink {
    Arc::new(Mutex::new(std::io::stderr()))
}
