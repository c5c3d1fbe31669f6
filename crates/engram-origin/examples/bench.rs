//! Origin benchmark (MongoDB-wire server at `MONGODB_URI`; `scripts/mongo.sh` starts one).
//!
//! 1. Push + pull of 10k ops for one user through the origin, against the peer "the same
//!    number of documents written straight to MongoDB with `insert_many`" (the floor any
//!    origin on this database pays).
//! 2. p50/p95/p99 of a sync round trip (push one op + pull) under 50 concurrent clients
//!    (50 users), against `/healthz` (HTTP + a MongoDB ping) under the same concurrency.
//!
//! `cargo run --release -p engram-origin --example bench [ops] [clients] [rounds]`
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use engram_core::{encode_ops, Config as CoreConfig, Engram, Kind, MemoryInput, Scope, UserKey};
use engram_origin::frames::{self, Frame};
use engram_origin::{auth::Auth, Config};
use mongodb::bson::{doc, Document};

const SECRET: &str = "bench-secret-bench-secret-bench-secret";

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let n_ops = args.first().copied().unwrap_or(10_000);
    let clients = args.get(1).copied().unwrap_or(50);
    let rounds = args.get(2).copied().unwrap_or(20);
    let uri = std::env::var("MONGODB_URI").unwrap_or_else(|_| "mongodb://127.0.0.1:27017/".into());
    let db_name = format!("engram_bench_{}", std::process::id());
    let env = [("ENGRAM_SECRET", SECRET), ("MONGODB_URI", uri.as_str()), ("ENGRAM_DB", db_name.as_str()), ("ENGRAM_RATE_PER_SEC", "100000"), ("ENGRAM_RATE_BURST", "100000"), ("ENGRAM_MAX_BODY", "67108864")];
    let config = Config::from_lookup(|k| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())).unwrap();
    let state = engram_origin::state(config, Arc::new(Mutex::new(std::io::sink()))).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(engram_origin::serve(listener, state, std::future::pending()));
    let auth = Auth::new(SECRET.as_bytes()).unwrap();
    let http = reqwest::Client::new();
    let exp = (now_ms() / 1000) as u64 + 3600;
    println!("origin benchmark over {uri} (SecantusDB unless MONGODB_URI says otherwise); 2 cores, shared");

    // 1. 10k ops for one user.
    let alice = UserKey { tenant: "bench".into(), user: "alice".into() };
    let scope = Scope::user("bench", "alice");
    let mut dev = Engram::new(CoreConfig::default(), 11);
    let t0 = now_ms();
    for i in 0..n_ops {
        dev.remember(&scope, MemoryInput::new(Kind::Fact, format!("benchmark fact {i}: the user visited place {} in year {}", i * 13 % 997, 1900 + i % 120)), t0 + i as i64).unwrap();
    }
    let ops = dev.take_pending();
    let batch_size = 500;
    let frames_all: Vec<Frame> = ops.chunks(batch_size).enumerate().map(|(i, c)| Frame { id: format!("11-{i}"), ops: encode_ops(c).unwrap() }).collect();
    let bytes: usize = frames_all.iter().map(|f| f.ops.len()).sum();
    let token = auth.mint(&alice, exp).unwrap();
    let started = Instant::now();
    for chunk in frames_all.chunks(4) {
        let res = http.post(format!("{url}/v1/sync?limit=1")).bearer_auth(&token).body(frames::encode(chunk)).send().await.unwrap();
        assert_eq!(res.status(), 200, "{:?}", res.text().await);
    }
    let push = started.elapsed();
    let started = Instant::now();
    let mut laptop = Engram::new(CoreConfig::default(), 12);
    let (mut cursor, mut pulled) = (0i64, 0usize);
    loop {
        let res = http.post(format!("{url}/v1/sync?after={cursor}")).bearer_auth(&token).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let more = res.headers()["x-engram-more"] == "1";
        cursor = res.headers()["x-engram-cursor"].to_str().unwrap().parse().unwrap();
        for f in frames::decode(&res.bytes().await.unwrap()).unwrap() {
            let ops = engram_core::decode_ops(&f.ops).unwrap();
            pulled += ops.len();
            laptop.apply_ops(ops).unwrap();
        }
        if !more {
            break;
        }
    }
    let pull = started.elapsed();
    assert_eq!(pulled, n_ops);
    assert_eq!(laptop.count(&scope).unwrap(), n_ops);

    // The peer: the same number of documents straight into MongoDB.
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let raw = client.database(&db_name).collection::<Document>("raw_peer");
    let docs: Vec<Document> = ops.iter().map(|op| doc! { "user_id": "alice", "stamp": op.stamp.wall_ms, "text": format!("{:?}", op.stamp) }).collect();
    let started = Instant::now();
    for chunk in docs.chunks(batch_size) {
        raw.insert_many(chunk.to_vec()).await.unwrap();
    }
    let raw_t = started.elapsed();
    let rate = |d: Duration| n_ops as f64 / d.as_secs_f64();
    println!("\n## push + pull of {n_ops} ops for one user ({} batches of {batch_size}, {:.1} MB encoded)", frames_all.len(), bytes as f64 / 1e6);
    println!("push (log + views: memories, profile)  {:>8.2} s  {:>9.0} ops/s", push.as_secs_f64(), rate(push));
    println!("pull (+ apply on a second device)      {:>8.2} s  {:>9.0} ops/s", pull.as_secs_f64(), rate(pull));
    println!("peer: insert_many of {n_ops} plain docs {:>8.2} s  {:>9.0} docs/s", raw_t.as_secs_f64(), rate(raw_t));
    println!("push / peer time: {:.2}x", push.as_secs_f64() / raw_t.as_secs_f64());

    // 2. Concurrency.
    let round_trips = |path: &'static str| {
        let (http, url, auth) = (http.clone(), url.clone(), auth.clone());
        async move {
            let mut tasks = Vec::new();
            for c in 0..clients {
                let (http, url, auth) = (http.clone(), url.clone(), auth.clone());
                tasks.push(tokio::spawn(async move {
                    let user = UserKey { tenant: "bench".into(), user: format!("client-{c}") };
                    let token = auth.mint(&user, exp).unwrap();
                    let mut dev = Engram::new(CoreConfig::default(), 1000 + c as u64);
                    let scope = Scope::user("bench", user.user.clone());
                    let (mut lat, mut cursor) = (Vec::with_capacity(rounds), 0i64);
                    for r in 0..rounds {
                        let started = Instant::now();
                        if path == "sync" {
                            dev.remember(&scope, MemoryInput::new(Kind::Fact, format!("client {c} round {r} fact")), now_ms()).unwrap();
                            let body = frames::encode(&[Frame { id: format!("{c}-{r}"), ops: encode_ops(&dev.take_pending()).unwrap() }]);
                            let res = http.post(format!("{url}/v1/sync?after={cursor}")).bearer_auth(&token).body(body).send().await.unwrap();
                            assert_eq!(res.status(), 200);
                            cursor = res.headers()["x-engram-cursor"].to_str().unwrap().parse().unwrap();
                            let _ = res.bytes().await.unwrap();
                        } else {
                            let res = http.get(format!("{url}/healthz")).send().await.unwrap();
                            assert_eq!(res.status(), 200);
                        }
                        lat.push(started.elapsed().as_secs_f64() * 1000.0);
                    }
                    lat
                }));
            }
            let started = Instant::now();
            let mut all = Vec::new();
            for t in tasks {
                all.extend(t.await.unwrap());
            }
            let wall = started.elapsed();
            all.sort_by(f64::total_cmp);
            (all, wall)
        }
    };
    let (health, hw) = round_trips("healthz").await;
    let (sync, sw) = round_trips("sync").await;
    println!("\n## {clients} concurrent clients × {rounds} round trips, loopback");
    println!("{:<34} {:>8} {:>8} {:>8} {:>10}", "", "p50 ms", "p95 ms", "p99 ms", "req/s");
    println!("{:<34} {:>8.1} {:>8.1} {:>8.1} {:>10.0}", "sync (push 1 op + pull)", pct(&sync, 0.5), pct(&sync, 0.95), pct(&sync, 0.99), sync.len() as f64 / sw.as_secs_f64());
    println!("{:<34} {:>8.1} {:>8.1} {:>8.1} {:>10.0}", "peer: /healthz (HTTP + ping)", pct(&health, 0.5), pct(&health, 0.95), pct(&health, 0.99), health.len() as f64 / hw.as_secs_f64());
    println!("sync p95 / healthz p95: {:.1}x", pct(&sync, 0.95) / pct(&health, 0.95));
    let _ = client.database(&db_name).drop().await;
}
