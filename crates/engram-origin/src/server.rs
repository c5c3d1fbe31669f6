//! The accept loop (in place of `axum::serve`), so that no client can hold the origin open:
//!
//! - at most `ENGRAM_MAX_CONNECTIONS` are served at once; the next one waits in the kernel's
//!   accept queue — costing the process neither memory nor a file descriptor — until one closes;
//! - a request's headers must be in within `ENGRAM_HEADER_TIMEOUT_MS` of its first byte (of
//!   connecting, for a connection's first request), however slowly they trickle in;
//! - a connection between requests, or one whose client does not read its answer, is closed
//!   after `ENGRAM_IDLE_TIMEOUT_MS` without a byte moving;
//! - a request, once its headers are in (its body, MongoDB, the handler), is answered
//!   `503 TIMEOUT` after `ENGRAM_REQUEST_TIMEOUT_MS`;
//! - while every slot is taken and a connection waits for one, connections that are between
//!   requests or still sending headers get `ENGRAM_PRESSURE_TIMEOUT_MS` (default 1 s) instead
//!   of the header and idle timeouts, so a flood of slow clients beyond the limit holds each
//!   slot about a second and a real request waits seconds, not minutes, behind it.
//!
//! Each connection has a watchdog beside hyper's HTTP/1 state machine: it sees bytes move
//! through [`Watched`] and requests start and end through the service, and drops the
//! connection when its deadline passes. hyper's own `header_read_timeout` is not used: its
//! clock starts whenever hyper waits for a head, between keep-alive requests too, so it
//! cannot tell a client stuck in its headers from a connection kept for the next sync.
//!
//! Graceful shutdown: stop accepting, let every connection finish the request in flight
//! (idle ones close at once), and return when all are closed.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{header, HeaderValue, Request};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::error::ApiError;
use crate::routes::AppState;
use crate::telemetry::Event;

/// The largest read buffer of one connection (hyper's default is ~400 KiB): bounds what a
/// client can make the origin hold before its headers are complete.
const MAX_BUF: usize = 64 * 1024;

/// The timeouts, from [`crate::Config`].
#[derive(Clone, Copy)]
struct Timeouts {
    header: Duration,
    request: Duration,
    idle: Duration,
    pressure: Duration,
}

impl Timeouts {
    /// The timeouts in force: shorter while connections wait for a slot.
    fn now(self, pressure: &Pressure) -> Timeouts {
        if pressure.on.load(Relaxed) {
            Timeouts { header: self.header.min(self.pressure), idle: self.idle.min(self.pressure), ..self }
        } else {
            self
        }
    }
}

/// Whether a connection is waiting for a slot; watchdogs are woken when it starts.
#[derive(Default)]
struct Pressure {
    on: AtomicBool,
    started: Notify,
}

/// Serve `app` on `listener` until `shutdown` resolves, then drain.
pub(crate) async fn run(listener: TcpListener, app: Router, state: Arc<AppState>, shutdown: impl Future<Output = ()> + Send + 'static) {
    let c = &state.config;
    let timeouts = Timeouts { header: c.header_timeout, request: c.request_timeout, idle: c.idle_timeout, pressure: c.pressure_timeout };
    let pressure = Arc::new(Pressure::default());
    let max = c.max_connections;
    state.telemetry.set_connection_limit(max);
    let (stop_tx, mut stop) = watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });
    let slots = Arc::new(Semaphore::new(max));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.max_buf_size(MAX_BUF).header_read_timeout(None);
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((stream, _)) => stream,
                Err(e) => {
                    if !matches!(e.kind(), io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::Interrupted) {
                        // Out of file descriptors or memory: back off instead of spinning.
                        state.telemetry.note("accept_error", serde_json::json!({ "error": e.to_string() }));
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    continue;
                }
            },
            _ = stopped(&mut stop) => break,
        };
        // Past the limit this connection waits here for a slot — and the ones behind it in
        // the kernel's queue, costing the origin nothing — while the timeouts are short.
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => {
                pressure.on.store(false, Relaxed);
                slot
            }
            Err(_) => {
                if !pressure.on.swap(true, Relaxed) {
                    pressure.started.notify_waiters();
                }
                tokio::select! {
                    s = slots.clone().acquire_owned() => match s { Ok(s) => s, Err(_) => break },
                    _ = stopped(&mut stop) => break,
                }
            }
        };
        let _ = stream.set_nodelay(true);
        state.telemetry.connection_opened();
        tokio::spawn(connection(stream, slot, http.clone(), app.clone(), state.clone(), (timeouts, pressure.clone()), stop.clone()));
    }
    drop(listener);
    // Every connection holds a slot until it is closed.
    let _ = slots.acquire_many(max.min(u32::MAX as usize) as u32).await;
}

/// One connection: hyper serves it while the watchdog waits for its deadline or shutdown.
async fn connection(stream: TcpStream, slot: OwnedSemaphorePermit, http: hyper::server::conn::http1::Builder, app: Router, state: Arc<AppState>, (t, pressure): (Timeouts, Arc<Pressure>), mut stop: watch::Receiver<bool>) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched { io: stream, activity: activity.clone() });
    let app = TowerToHyperService::new(app);
    let (svc_activity, svc_state) = (activity.clone(), state.clone());
    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
        let busy = Busy::start(svc_activity.clone());
        let answer = hyper::service::Service::call(&app, req);
        let state = svc_state.clone();
        async move {
            let _busy = busy;
            match tokio::time::timeout(t.request, answer).await {
                Ok(res) => res,
                Err(_) => Ok::<Response, Infallible>(timed_out(&state, t.request)),
            }
        }
    });
    let conn = http.serve_connection(io, service);
    tokio::pin!(conn);
    let mut draining = false;
    // While a request is handled (its own timeout applies), look again this often.
    let recheck = t.header.min(t.idle).max(Duration::from_millis(10));
    let cut_off = loop {
        let woken = pressure.started.notified();
        let wake = activity.deadline(t.now(&pressure)).map_or(Instant::now() + recheck, |d| activity.born + d);
        tokio::select! {
            _ = woken => {}
            _ = conn.as_mut() => break false,
            _ = stopped(&mut stop), if !draining => {
                conn.as_mut().graceful_shutdown();
                draining = true;
            }
            _ = tokio::time::sleep_until(wake) => {
                if activity.deadline(t.now(&pressure)).is_some_and(|d| activity.born.elapsed() >= d) {
                    break true; // dropping `conn` closes the socket
                }
            }
        }
    };
    state.telemetry.connection_closed(cut_off);
    drop(slot);
}

/// Resolves once shutdown is asked for (or its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    // The guard `wait_for` returns is not `Send`; drop it here, not in the caller's state.
    let _ = stop.wait_for(|s| *s).await.map(|_| ());
}

/// The answer to a request that ran out of time; the connection closes after it.
fn timed_out(state: &AppState, limit: Duration) -> Response {
    let err = ApiError::Timeout(limit.as_millis() as u64);
    state.telemetry.record(&Event { op: "request", status: err.status().as_u16(), code: Some(err.code()), ..Event::default() }, limit);
    let mut res = err.into_response();
    res.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    res
}

/// What one connection is doing, shared by its I/O, its service and its watchdog. Times are
/// milliseconds since `born`.
struct Activity {
    born: Instant,
    /// The last time a byte was read or written.
    last_io: AtomicU64,
    /// 1 + the time the pending request's first byte arrived; 0 while no request is pending
    /// (between keep-alive requests). A new connection starts with its first request pending.
    head_since: AtomicU64,
    /// Requests being handled.
    busy: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        Activity { born: Instant::now(), last_io: AtomicU64::new(0), head_since: AtomicU64::new(1), busy: AtomicUsize::new(0) }
    }

    fn now(&self) -> u64 {
        self.born.elapsed().as_millis() as u64
    }

    fn read(&self, n: usize) {
        let now = self.now();
        self.last_io.store(now, Relaxed);
        if n > 0 && self.busy.load(Relaxed) == 0 {
            let _ = self.head_since.compare_exchange(0, now + 1, Relaxed, Relaxed);
        }
    }

    fn wrote(&self) {
        self.last_io.store(self.now(), Relaxed);
    }

    /// When the watchdog closes the connection if nothing changes; `None` while a request
    /// is being handled.
    fn deadline(&self, t: Timeouts) -> Option<Duration> {
        if self.busy.load(Relaxed) > 0 {
            return None;
        }
        Some(match self.head_since.load(Relaxed) {
            0 => Duration::from_millis(self.last_io.load(Relaxed)) + t.idle,
            h => Duration::from_millis(h - 1) + t.header,
        })
    }
}

/// A request being handled (headers in); ends when its answer is ready or it is dropped.
struct Busy(Arc<Activity>);

impl Busy {
    fn start(a: Arc<Activity>) -> Busy {
        a.busy.fetch_add(1, Relaxed);
        a.head_since.store(0, Relaxed);
        Busy(a)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.wrote();
        self.0.busy.fetch_sub(1, Relaxed);
    }
}

/// A socket that tells its [`Activity`] when bytes move.
struct Watched {
    io: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let res = Pin::new(&mut this.io).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = res {
            this.activity.read(buf.filled().len() - before);
        }
        res
    }
}

impl AsyncWrite for Watched {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let res = Pin::new(&mut this.io).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = res {
            if n > 0 {
                this.activity.wrote();
            }
        }
        res
    }

    fn poll_write_vectored(self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let res = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = res {
            if n > 0 {
                this.activity.wrote();
            }
        }
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Timeouts = Timeouts { header: Duration::from_millis(100), request: Duration::from_millis(1000), idle: Duration::from_millis(500), pressure: Duration::from_millis(50) };

    #[test]
    fn a_new_connection_is_due_by_the_header_timeout_and_a_busy_one_not_at_all() {
        let a = Arc::new(Activity::new());
        assert_eq!(a.deadline(T), Some(T.header), "a new connection must send its first request in time");
        a.read(10);
        assert_eq!(a.deadline(T), Some(T.header), "bytes do not extend the header timeout");
        let busy = Busy::start(a.clone());
        a.read(100);
        assert_eq!(a.deadline(T), None, "no watchdog deadline while a request is handled");
        drop(busy);
        assert!(a.deadline(T).is_some_and(|d| d >= T.idle), "between requests the idle timeout applies");
    }

    #[test]
    fn after_an_answer_the_idle_timeout_applies_until_the_next_requests_first_byte() {
        let a = Arc::new(Activity::new());
        drop(Busy::start(a.clone()));
        let idle = a.deadline(T).unwrap();
        assert!(idle >= T.idle && idle < T.idle + Duration::from_millis(50), "{idle:?}");
        a.read(0);
        assert!(a.deadline(T).unwrap() >= T.idle, "an empty read does not start a request");
        a.read(3);
        let header = a.deadline(T).unwrap();
        assert!(header >= T.header && header < T.header + Duration::from_millis(50), "{header:?}");
    }
}
