//! Structured logs and metrics. A log line is one JSON object per request with the
//! operation, status, duration and counts — user ids are hashed and memory text never
//! appears (the handlers only ever hand numbers and codes to [`Telemetry::record`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use engram_core::UserKey;

/// Where log lines go (stderr in the server; a buffer in tests).
pub type LogSink = Arc<Mutex<dyn Write + Send>>;

/// Upper bounds of the latency histogram, in milliseconds.
const BUCKETS_MS: [f64; 12] = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0];

#[derive(Default)]
struct Series {
    count: u64,
    sum_ms: f64,
    buckets: [u64; BUCKETS_MS.len()],
}

/// What one request did, for the log and the metrics.
#[derive(Debug, Default)]
pub struct Event {
    /// The operation: `sync`, `list`, `graph`, `forget`, …
    pub op: &'static str,
    /// HTTP status sent.
    pub status: u16,
    /// Error code when it failed.
    pub code: Option<&'static str>,
    /// The authenticated user, if any (logged as a hash).
    pub user: Option<UserKey>,
    /// Named counts (ops pushed, batches pulled, records returned, …).
    pub counts: Vec<(&'static str, u64)>,
}

/// Request metrics and the log sink.
pub struct Telemetry {
    sink: LogSink,
    series: Mutex<BTreeMap<(&'static str, u16), Series>>,
    totals: Mutex<BTreeMap<&'static str, u64>>,
    connections: Connections,
}

/// Connection counts kept by the accept loop ([`crate::server`]).
#[derive(Default)]
struct Connections {
    open: AtomicU64,
    accepted: AtomicU64,
    timed_out: AtomicU64,
    max: AtomicU64,
}

impl Telemetry {
    /// Telemetry writing log lines to `sink`.
    pub fn new(sink: LogSink) -> Self {
        Telemetry { sink, series: Mutex::default(), totals: Mutex::default(), connections: Connections::default() }
    }

    /// Connections open now.
    pub fn connections_open(&self) -> u64 {
        self.connections.open.load(Ordering::Relaxed)
    }

    /// The configured connection limit, for the metrics.
    pub(crate) fn set_connection_limit(&self, max: usize) {
        self.connections.max.store(max as u64, Ordering::Relaxed);
    }

    /// A connection was accepted.
    pub(crate) fn connection_opened(&self) {
        self.connections.open.fetch_add(1, Ordering::Relaxed);
        self.connections.accepted.fetch_add(1, Ordering::Relaxed);
    }

    /// A connection ended; `timed_out` when the origin cut it off (header or idle timeout).
    pub(crate) fn connection_closed(&self, timed_out: bool) {
        self.connections.open.fetch_sub(1, Ordering::Relaxed);
        if timed_out {
            self.connections.timed_out.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Record a finished request: one log line and the metric updates.
    pub fn record(&self, ev: &Event, took: Duration) {
        let ms = took.as_secs_f64() * 1000.0;
        if let Ok(mut series) = self.series.lock() {
            let s = series.entry((ev.op, ev.status)).or_default();
            s.count += 1;
            s.sum_ms += ms;
            if let Some(i) = BUCKETS_MS.iter().position(|b| ms <= *b) {
                s.buckets[i] += 1;
            }
        }
        if let Ok(mut totals) = self.totals.lock() {
            for (name, n) in &ev.counts {
                *totals.entry(name).or_default() += n;
            }
        }
        let mut line = serde_json::json!({
            "ts": SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0),
            "level": if ev.status >= 500 { "error" } else if ev.status >= 400 { "warn" } else { "info" },
            "op": ev.op,
            "status": ev.status,
            "duration_ms": (ms * 1000.0).round() / 1000.0,
        });
        if let Some(code) = ev.code {
            line["code"] = code.into();
        }
        if let Some(u) = &ev.user {
            line["user"] = user_hash(u).into();
        }
        for (name, n) in &ev.counts {
            line[*name] = (*n).into();
        }
        if let Ok(mut w) = self.sink.lock() {
            let _ = writeln!(w, "{line}");
        }
    }

    /// A log line that is not about a request (startup, shutdown).
    pub fn note(&self, op: &'static str, fields: serde_json::Value) {
        let mut line = serde_json::json!({ "level": "info", "op": op });
        if let (Some(l), Some(f)) = (line.as_object_mut(), fields.as_object()) {
            l.extend(f.clone());
        }
        if let Ok(mut w) = self.sink.lock() {
            let _ = writeln!(w, "{line}");
        }
    }

    /// The metrics in the Prometheus text format.
    pub fn prometheus(&self) -> String {
        let mut out = String::new();
        out.push_str("# TYPE engram_requests histogram\n");
        if let Ok(series) = self.series.lock() {
            for ((op, status), s) in series.iter() {
                let mut cum = 0;
                for (b, n) in BUCKETS_MS.iter().zip(s.buckets) {
                    cum += n;
                    out.push_str(&format!("engram_requests_bucket{{op=\"{op}\",status=\"{status}\",le=\"{b}\"}} {cum}\n"));
                }
                out.push_str(&format!("engram_requests_bucket{{op=\"{op}\",status=\"{status}\",le=\"+Inf\"}} {}\n", s.count));
                out.push_str(&format!("engram_requests_sum{{op=\"{op}\",status=\"{status}\"}} {:.3}\n", s.sum_ms));
                out.push_str(&format!("engram_requests_count{{op=\"{op}\",status=\"{status}\"}} {}\n", s.count));
            }
        }
        out.push_str("# TYPE engram_total counter\n");
        if let Ok(totals) = self.totals.lock() {
            for (name, n) in totals.iter() {
                out.push_str(&format!("engram_total{{what=\"{name}\"}} {n}\n"));
            }
        }
        let c = &self.connections;
        for (name, kind, n) in [
            ("engram_connections_open", "gauge", &c.open),
            ("engram_connections_max", "gauge", &c.max),
            ("engram_connections_accepted_total", "counter", &c.accepted),
            ("engram_connections_timed_out_total", "counter", &c.timed_out),
        ] {
            out.push_str(&format!("# TYPE {name} {kind}\n{name} {}\n", n.load(Ordering::Relaxed)));
        }
        out
    }
}

/// A short stable hash of a user for logs (correlates lines without naming the user).
pub fn user_hash(u: &UserKey) -> String {
    let d = Sha256::digest(format!("{}\u{0}{}", u.tenant, u.user).as_bytes());
    d.iter().take(6).map(|b| format!("{b:02x}")).collect()
}
