//! How replicas converge: [`merge`] applies ops from other replicas (last writer wins per
//! record by HLC stamp, tombstones, forgetting a user).

pub mod merge;
