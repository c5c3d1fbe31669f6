//! A real origin in-process on a free port, over the MongoDB-wire server at `MONGODB_URI`
//! (default `mongodb://127.0.0.1:27017/`; `scripts/mongo.sh` starts SecantusDB), with a
//! database of its own per test and its log lines captured.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use engram_core::{encode_ops, Config as CoreConfig, Engram, Kind, MemoryInput, Op, Scope, UserKey};
use engram_origin::auth::Auth;
use engram_origin::frames::{self, Frame};
use engram_origin::Config;

pub const SECRET: &str = "test-secret-test-secret-test-secret!";

/// Log lines written by the origin.
#[derive(Clone, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

pub struct Origin {
    pub url: String,
    pub log: Captured,
    pub db: mongodb::Database,
    pub db_name: String,
    pub http: reqwest::Client,
    /// The origin's shared state (its telemetry counts open connections).
    pub state: Arc<engram_origin::AppState>,
    auth: Auth,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

static N: AtomicU32 = AtomicU32::new(0);

pub fn uri() -> String {
    std::env::var("MONGODB_URI").unwrap_or_else(|_| "mongodb://127.0.0.1:27017/".into())
}

impl Origin {
    pub async fn start() -> Origin {
        Origin::start_with(&[]).await
    }

    /// Start with extra environment settings, e.g. `("ENGRAM_MAX_BODY", "1000")`.
    pub async fn start_with(extra: &[(&str, &str)]) -> Origin {
        let db_name = format!("engram_test_{}_{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst));
        let mut env: Vec<(String, String)> = vec![
            ("ENGRAM_SECRET".into(), SECRET.into()),
            ("MONGODB_URI".into(), uri()),
            ("ENGRAM_DB".into(), db_name.clone()),
            ("ENGRAM_BIND".into(), "127.0.0.1:0".into()),
        ];
        env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let config = Config::from_lookup(|k| env.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.clone())).unwrap();
        let log = Captured::default();
        let state = engram_origin::state(config, Arc::new(Mutex::new(log.clone())))
            .await
            .unwrap_or_else(|e| panic!("cannot reach MongoDB at {} ({e}); start it with scripts/mongo.sh", uri()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(engram_origin::serve(listener, state.clone(), async {
            let _ = rx.await;
        }));
        let client = mongodb::Client::with_uri_str(uri()).await.unwrap();
        Origin { url, log, db: client.database(&db_name), db_name, http: reqwest::Client::new(), state, auth: Auth::new(SECRET.as_bytes()).unwrap(), shutdown: Some(tx), served: Some(served) }
    }

    /// Ask the origin to shut down gracefully; resolves when `serve` returns.
    pub async fn shut_down(&mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match self.served.take() {
            Some(h) => h.await.unwrap(),
            None => Ok(()),
        }
    }

    pub fn token(&self, user: &UserKey) -> String {
        self.token_until(user, now_secs() + 3600)
    }

    pub fn token_until(&self, user: &UserKey, exp: u64) -> String {
        self.auth.mint(user, exp).unwrap()
    }

    /// POST /v1/sync with `batches` after `cursor`.
    pub async fn sync(&self, token: &str, batches: &[(&str, Vec<Op>)], after: i64) -> reqwest::Response {
        let frames: Vec<Frame> = batches.iter().map(|(id, ops)| Frame { id: id.to_string(), ops: encode_ops(ops).unwrap() }).collect();
        self.http
            .post(format!("{}/v1/sync?after={after}", self.url))
            .bearer_auth(token)
            .body(frames::encode(&frames))
            .send()
            .await
            .unwrap()
    }

    /// Sync and decode: (ops pulled, new cursor).
    pub async fn sync_ok(&self, token: &str, batches: &[(&str, Vec<Op>)], after: i64) -> (Vec<Op>, i64) {
        let res = self.sync(token, batches, after).await;
        assert_eq!(res.status(), 200, "{:?}", res.text().await);
        let cursor: i64 = res.headers()["x-engram-cursor"].to_str().unwrap().parse().unwrap();
        let body = res.bytes().await.unwrap();
        let ops = frames::decode(&body).unwrap().into_iter().flat_map(|f| engram_core::decode_ops(&f.ops).unwrap()).collect();
        (ops, cursor)
    }

    pub async fn count(&self, coll: &str, user: &UserKey) -> u64 {
        self.db
            .collection::<mongodb::bson::Document>(coll)
            .count_documents(mongodb::bson::doc! { "tenant": &user.tenant, "user_id": &user.user })
            .await
            .unwrap()
    }
}

pub fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

pub fn user(name: &str) -> UserKey {
    UserKey { tenant: "acme".into(), user: name.into() }
}

pub fn scope(u: &UserKey) -> Scope {
    Scope::user(u.tenant.clone(), u.user.clone())
}

/// A device: an engine of its own replica id.
pub fn device(replica: u64) -> Engram {
    Engram::new(CoreConfig::default(), replica)
}

/// Remember `texts` as facts of `u` on `dev`; returns the ops made.
pub fn write(dev: &mut Engram, u: &UserKey, texts: &[&str]) -> Vec<Op> {
    for t in texts {
        dev.remember(&scope(u), MemoryInput::new(Kind::Fact, *t), now_ms()).unwrap();
    }
    dev.take_pending()
}
