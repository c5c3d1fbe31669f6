//! The origin over a real MongoDB-wire server: sync, views, security, limits and logs.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use engram_core::knowledge::graph::{EntityRef, Relation};
use engram_core::{Kind, MemoryInput, Turn};
use mongodb::bson::{doc, Document};
use serde_json::Value;

#[tokio::test]
async fn two_devices_of_a_user_converge_through_the_origin_and_a_resent_batch_is_stored_once() {
    let o = Origin::start().await;
    let alice = user("alice");
    let t = o.token(&alice);
    let (mut phone, mut laptop) = (device(1), device(2));
    let ops = write(&mut phone, &alice, &["I live in Lisbon", "My sister is called Ana"]);
    let (pulled, cursor) = o.sync_ok(&t, &[("1-1", ops.clone())], 0).await;
    assert_eq!(pulled.len(), ops.len(), "the pusher gets its own batch back");
    assert_eq!(cursor, 1);

    // A resend of the same batch id (the answer was lost) is recognised.
    let res = o.sync(&t, &[("1-1", ops.clone())], cursor).await;
    assert_eq!(res.headers()["x-engram-duplicates"], "1");
    assert_eq!(res.headers()["x-engram-stored"], "0");
    assert_eq!(o.count("ops", &alice).await, 1);

    let mine = write(&mut laptop, &alice, &["I work at Globex"]);
    let (pulled, cursor2) = o.sync_ok(&t, &[("2-1", mine)], 0).await;
    laptop.apply_ops(pulled).unwrap();
    let (pulled, _) = o.sync_ok(&t, &[], cursor).await;
    assert_eq!(cursor2, 2);
    phone.apply_ops(pulled).unwrap();
    assert_eq!(phone.canonical_state().unwrap(), laptop.canonical_state().unwrap());
    assert_eq!(phone.count(&scope(&alice)).unwrap(), 3);
    assert_eq!(o.count("memories", &alice).await, 3);
}

#[tokio::test]
async fn a_pull_pages_through_batches_in_order() {
    let o = Origin::start_with(&[("ENGRAM_PULL_LIMIT", "2")]).await;
    let bob = user("bob");
    let t = o.token(&bob);
    let mut dev = device(3);
    let batches: Vec<(String, Vec<engram_core::Op>)> = (0..5).map(|i| (format!("3-{i}"), write(&mut dev, &bob, &[&format!("note number {i} about topic {i}")]))).collect();
    let refs: Vec<(&str, Vec<engram_core::Op>)> = batches.iter().map(|(id, ops)| (id.as_str(), ops.clone())).collect();
    let res = o.sync(&t, &refs, 0).await;
    assert_eq!(res.headers()["x-engram-more"], "1");
    let (mut cursor, mut seen) = (0, 0);
    loop {
        let res = o.sync(&t, &[], cursor).await;
        let more = res.headers()["x-engram-more"] == "1";
        cursor = res.headers()["x-engram-cursor"].to_str().unwrap().parse().unwrap();
        let frames = engram_origin::frames::decode(&res.bytes().await.unwrap()).unwrap();
        assert!(frames.len() <= 2);
        seen += frames.len();
        if !more {
            break;
        }
    }
    assert_eq!((seen, cursor), (5, 5));
}

#[tokio::test]
async fn every_endpoint_refuses_a_missing_forged_or_expired_token() {
    let o = Origin::start().await;
    let alice = user("alice");
    let forged = engram_origin::auth::Auth::new(b"another-secret-another-secret-xx").unwrap().mint(&alice, now_secs() + 3600).unwrap();
    let expired = o.token_until(&alice, now_secs() - 120);
    let cases: [(&str, &str); 4] = [("POST", "/v1/sync"), ("GET", "/v1/memories"), ("GET", "/v1/graph?from=alice"), ("POST", "/v1/forget")];
    for (method, path) in cases {
        for (what, auth) in [("none", None), ("forged", Some(forged.as_str())), ("expired", Some(expired.as_str())), ("garbage", Some("abc.def.ghi"))] {
            let mut req = o.http.request(method.parse().unwrap(), format!("{}{path}", o.url));
            if let Some(a) = auth {
                req = req.bearer_auth(a);
            }
            let res = req.send().await.unwrap();
            assert_eq!(res.status(), 401, "{method} {path} with {what} token");
            let body: Value = res.json().await.unwrap();
            assert_eq!(body["error"]["code"], "UNAUTHORIZED", "{method} {path} with {what} token");
        }
    }
    assert_eq!(o.count("ops", &alice).await, 0);
}

#[tokio::test]
async fn a_token_for_one_user_can_never_read_write_or_forget_another() {
    let o = Origin::start().await;
    let (alice, bob) = (user("alice"), user("bob"));
    let (ta, tb) = (o.token(&alice), o.token(&bob));
    let mut bdev = device(20);
    let mut bops = write(&mut bdev, &bob, &["Bob's secret is the blue door"]);
    bdev.relate(&scope(&bob), Relation::new(EntityRef::new("Bob", "person"), "knows", EntityRef::new("Carol", "person")), now_ms()).unwrap();
    bops.extend(bdev.take_pending());
    o.sync_ok(&tb, &[("20-1", bops.clone())], 0).await;

    // Write: ops of bob under alice's token are refused whole, nothing stored for anyone.
    let mut adev = device(10);
    let mut mixed = write(&mut adev, &alice, &["alice fact"]);
    mixed.extend(bops.clone());
    let res = o.sync(&ta, &[("10-1", mixed)], 0).await;
    assert_eq!(res.status(), 403);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "FORBIDDEN");
    assert_eq!(o.count("ops", &alice).await, 0);
    assert_eq!(o.count("ops", &bob).await, 1);

    // Read: alice's pull, list and graph see nothing of bob's.
    let (pulled, _) = o.sync_ok(&ta, &[], 0).await;
    assert!(pulled.is_empty());
    let list: Value = o.http.get(format!("{}/v1/memories", o.url)).bearer_auth(&ta).send().await.unwrap().json().await.unwrap();
    assert_eq!(list["memories"].as_array().unwrap().len(), 0);
    let graph: Value = o.http.get(format!("{}/v1/graph?from=Bob", o.url)).bearer_auth(&ta).send().await.unwrap().json().await.unwrap();
    assert_eq!(graph["edges"].as_array().unwrap().len(), 0);
    let bob_graph: Value = o.http.get(format!("{}/v1/graph?from=Bob", o.url)).bearer_auth(&tb).send().await.unwrap().json().await.unwrap();
    assert_eq!(bob_graph["edges"].as_array().unwrap().len(), 1, "{bob_graph}");

    // Forget: alice forgetting herself leaves bob whole.
    let res = o.http.post(format!("{}/v1/forget", o.url)).bearer_auth(&ta).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(o.count("memories", &bob).await, 1);
    assert_eq!(o.count("relations", &bob).await, 1);
    let (pulled, _) = o.sync_ok(&tb, &[], 0).await;
    assert_eq!(pulled.len(), bops.len());
}

#[tokio::test]
async fn forgetting_a_user_removes_them_from_the_origin_and_their_devices_and_refuses_late_ops() {
    let o = Origin::start().await;
    let (alice, bob) = (user("alice"), user("bob"));
    let (ta, tb) = (o.token(&alice), o.token(&bob));
    let (mut phone, mut laptop) = (device(1), device(2));
    let s = scope(&alice).with_session("chat-1");
    phone.append_turn(&s, Turn::user("my email is alice@example.com and I love sailing"), now_ms()).unwrap();
    phone.session_set(&s, "topic", "sailing", now_ms()).unwrap();
    let mut ops = write(&mut phone, &alice, &["I love sailing", "I prefer window seats"]);
    ops.extend(phone.take_pending());
    phone.relate(&scope(&alice), Relation::new(EntityRef::new("Alice", "person"), "owns", EntityRef::new("Boat", "thing")), now_ms()).unwrap();
    ops.extend(phone.take_pending());
    let (_, phone_cursor) = o.sync_ok(&ta, &[("1-1", ops)], 0).await;
    o.sync_ok(&tb, &[("9-1", write(&mut device(9), &bob, &["Bob plays chess"]))], 0).await;
    // The laptop wrote offline before the forget and has not pushed yet.
    let late = write(&mut laptop, &alice, &["I drive a red car"]);
    assert!(o.count("session_memories", &alice).await >= 1);
    assert!(o.count("relations", &alice).await >= 1);

    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let res = o.http.post(format!("{}/v1/forget", o.url)).bearer_auth(&ta).send().await.unwrap();
    assert_eq!(res.status(), 200);
    for coll in ["memories", "relations", "session_memories", "user_profiles", "entities"] {
        assert_eq!(o.count(coll, &alice).await, 0, "{coll} still holds alice");
    }
    let ops_left: Vec<Document> = {
        use futures_util::TryStreamExt;
        o.db.collection::<Document>("ops").find(doc! { "user_id": "alice" }).await.unwrap().try_collect().await.unwrap()
    };
    let ops_held: i64 = ops_left.iter().map(|d| d.get_i64("n").unwrap()).sum();
    assert_eq!(ops_held, 1, "only the forget itself stays in the log");
    assert!(ops_left.len() <= 2, "older batches are deleted (the newest one is kept empty)");
    assert_eq!(o.count("memories", &bob).await, 1);
    assert_eq!(o.count("user_profiles", &bob).await, 1);

    // The laptop's late push is refused; after pulling, both devices hold nothing of alice.
    let res = o.sync(&ta, &[("2-1", late)], phone_cursor).await;
    assert_eq!(res.headers()["x-engram-refused"], "1");
    let pulled = {
        let bytes = res.bytes().await.unwrap();
        engram_origin::frames::decode(&bytes).unwrap().into_iter().flat_map(|f| engram_core::decode_ops(&f.ops).unwrap()).collect::<Vec<_>>()
    };
    assert!(pulled.iter().any(|op| op.body == engram_core::OpBody::ForgetUser), "a device past the old batches still receives the forget");
    laptop.apply_ops(pulled.clone()).unwrap();
    phone.apply_ops(pulled).unwrap();
    assert_eq!(laptop.count(&scope(&alice)).unwrap(), 0);
    assert_eq!(phone.count(&scope(&alice)).unwrap(), 0);
    assert_eq!(o.count("memories", &alice).await, 0);
    let logs = o.log.text();
    for secret in ["sailing", "alice@example.com", "window seats", "red car", "chess"] {
        assert!(!logs.contains(secret), "memory text {secret:?} in the logs");
    }
}

#[tokio::test]
async fn views_follow_the_seed_schemas_supersession_and_the_graph_answers_multi_hop() {
    let o = Origin::start().await;
    let alice = user("alice");
    let t = o.token(&alice);
    let mut dev = device(5);
    let sc = scope(&alice);
    let keyed = |text: &str| {
        let mut m = MemoryInput::new(Kind::Preference, text);
        m.key = Some(engram_core::FactKey::new("user", "language"));
        m
    };
    dev.remember(&sc, keyed("I prefer Python"), now_ms()).unwrap();
    dev.remember(&sc, keyed("I prefer Go now"), now_ms() + 10).unwrap();
    let s = sc.clone().with_session("s.1");
    dev.append_turn(&s, Turn::user("hello there"), now_ms()).unwrap();
    dev.session_set(&s, "trip.budget", "medium", now_ms()).unwrap();
    for (a, b) in [("Alice", "Acme"), ("Acme", "Berlin"), ("Berlin", "Germany")] {
        dev.relate(&sc, Relation::new(EntityRef::new(a, "thing"), "linked", EntityRef::new(b, "thing")), now_ms()).unwrap();
    }
    o.sync_ok(&t, &[("5-1", dev.take_pending())], 0).await;

    let profile = o.db.collection::<Document>("user_profiles").find_one(doc! { "user_id": "alice" }).await.unwrap().unwrap();
    let prefs = profile.get_document("knowledge_base").unwrap().get_array("preferences").unwrap();
    assert_eq!(prefs.iter().map(|p| p.as_str().unwrap()).collect::<Vec<_>>(), vec!["I prefer Go now"]);
    let session = o.db.collection::<Document>("session_memories").find_one(doc! { "user_id": "alice", "session_id": "s.1" }).await.unwrap().unwrap();
    assert!(session.get_datetime("start_time").is_ok() && session.get_datetime("last_activity").is_ok());
    let ctx = session.get_document("context").unwrap();
    assert_eq!(ctx.get_document("state").unwrap().get_str("trip%2Ebudget").unwrap(), "medium");
    assert_eq!(ctx.get_array("conversation_history").unwrap().len(), 1);
    // The validator is enforced: a session document without start_time is rejected.
    let bad = o.db.collection::<Document>("session_memories").insert_one(doc! { "session_id": "x", "user_id": "y" }).await;
    assert!(bad.is_err(), "the $jsonSchema validator accepted a document without start_time");

    let current: Value = o.http.get(format!("{}/v1/memories?kind=preference", o.url)).bearer_auth(&t).send().await.unwrap().json().await.unwrap();
    assert_eq!(current["memories"].as_array().unwrap().len(), 1);
    assert_eq!(current["memories"][0]["text"], "I prefer Go now");
    let history: Value = o.http.get(format!("{}/v1/memories?kind=preference&history=true&limit=1", o.url)).bearer_auth(&t).send().await.unwrap().json().await.unwrap();
    assert_eq!(history["memories"].as_array().unwrap().len(), 1);
    let next = history["next"].as_str().unwrap();
    let page2: Value = o.http.get(format!("{}/v1/memories?kind=preference&history=true&limit=1&after={next}", o.url)).bearer_auth(&t).send().await.unwrap().json().await.unwrap();
    assert_eq!(page2["memories"].as_array().unwrap().len(), 1);
    assert!(page2.get("next").is_none());
    let texts: Vec<&str> = [&history, &page2].iter().map(|p| p["memories"][0]["text"].as_str().unwrap()).collect();
    assert!(texts.contains(&"I prefer Python"), "the superseded preference is in the history: {texts:?}");

    let hops = |depth: u32| {
        let (o, t) = (&o, &t);
        async move {
            let g: Value = o.http.get(format!("{}/v1/graph?from=alice&depth={depth}", o.url)).bearer_auth(t).send().await.unwrap().json().await.unwrap();
            g["edges"].as_array().unwrap().iter().map(|e| (e["depth"].as_u64().unwrap(), e["to"].as_str().unwrap().to_owned())).collect::<Vec<_>>()
        }
    };
    assert_eq!(hops(1).await, vec![(1, "Acme".to_owned())]);
    assert_eq!(hops(3).await, vec![(1, "Acme".to_owned()), (2, "Berlin".to_owned()), (3, "Germany".to_owned())]);
    let res = o.http.get(format!("{}/v1/graph?from=alice&depth=9", o.url)).bearer_auth(&t).send().await.unwrap();
    assert_eq!(res.status(), 400);
}

#[tokio::test]
async fn bodies_over_the_limit_malformed_bodies_and_bursts_get_json_errors() {
    let o = Origin::start_with(&[("ENGRAM_MAX_BODY", "2000"), ("ENGRAM_RATE_PER_SEC", "1"), ("ENGRAM_RATE_BURST", "4")]).await;
    let alice = user("alice");
    let t = o.token(&alice);
    let res = o.http.post(format!("{}/v1/sync", o.url)).bearer_auth(&t).body(vec![0u8; 5000]).send().await.unwrap();
    assert_eq!(res.status(), 413);
    assert_eq!(res.headers()["x-engram-max-body"], "2000", "the limit is named, so a client can cut its push to fit");
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "PAYLOAD_TOO_LARGE");
    let res = o.http.post(format!("{}/v1/sync", o.url)).bearer_auth(&t).body(b"EGS1\x03\x00ab".to_vec()).send().await.unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "BAD_REQUEST");
    let corrupt = engram_origin::frames::encode(&[engram_origin::frames::Frame { id: "1-1".into(), ops: vec![1, 2, 3, 4] }]);
    let res = o.http.post(format!("{}/v1/sync", o.url)).bearer_auth(&t).body(corrupt).send().await.unwrap();
    assert_eq!(res.status(), 400, "a corrupt op batch is a typed error");
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let res = o.http.get(format!("{}/v1/memories", o.url)).bearer_auth(&t).send().await.unwrap();
        statuses.push(res.status().as_u16());
        if res.status() == 429 {
            assert!(res.headers().contains_key("retry-after"));
            assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "RATE_LIMITED");
        }
    }
    assert!(statuses.contains(&429), "a burst past the limit is throttled: {statuses:?}");
    let other = o.token(&user("bob"));
    let res = o.http.get(format!("{}/v1/memories", o.url)).bearer_auth(&other).send().await.unwrap();
    assert_eq!(res.status(), 200, "another user is not throttled by alice's burst");
}

#[tokio::test]
async fn health_metrics_and_logs_report_operations_without_memory_text() {
    let o = Origin::start().await;
    let alice = user("alice");
    let t = o.token(&alice);
    let ops = write(&mut device(4), &alice, &["my favourite colour is turquoise"]);
    o.sync_ok(&t, &[("4-1", ops)], 0).await;
    let health = o.http.get(format!("{}/healthz", o.url)).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let metrics = o.http.get(format!("{}/metrics", o.url)).send().await.unwrap().text().await.unwrap();
    assert!(metrics.contains("engram_requests_count{op=\"sync\",status=\"200\"} 1"), "{metrics}");
    assert!(metrics.contains("engram_total{what=\"ops_pushed\"}"), "{metrics}");
    let logs = o.log.text();
    let sync_line: Value = logs.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|l| l["op"] == "sync").unwrap();
    assert_eq!(sync_line["status"], 200);
    assert!(sync_line["duration_ms"].as_f64().is_some());
    assert_eq!(sync_line["ops_pushed"], 1);
    assert!(sync_line["user"].as_str().is_some_and(|u| u.len() == 12 && !u.contains("alice")));
    assert!(!logs.contains("turquoise") && !logs.contains("alice"), "{logs}");
}

#[tokio::test]
async fn two_origin_processes_on_one_database_keep_last_writer_wins_and_gapless_order() {
    let a = Origin::start().await;
    let b = Origin::start_with(&[("ENGRAM_DB", a.db_name.as_str())]).await;
    let alice = user("alice");
    let t = a.token(&alice);
    let mut dev = device(7);
    let sc = scope(&alice);
    // 20 keyed facts, each written twice: the newer must win whatever arrives first.
    let (mut old, mut new) = (Vec::new(), Vec::new());
    for i in 0..20 {
        let key = engram_core::FactKey::new("alice", &format!("attribute {i}"));
        let mut m = MemoryInput::new(Kind::Fact, format!("old value {i}"));
        m.key = Some(key.clone());
        dev.remember(&sc, m, now_ms()).unwrap();
        old.push(dev.take_pending());
        let mut m = MemoryInput::new(Kind::Fact, format!("new value {i}"));
        m.key = Some(key);
        dev.remember(&sc, m, now_ms() + 1).unwrap();
        new.push(dev.take_pending());
    }
    let mut tasks = Vec::new();
    for (i, (o, n)) in old.into_iter().zip(new).enumerate() {
        let (ua, ub, t1, t2) = (a.url.clone(), b.url.clone(), t.clone(), t.clone());
        let push = |url: String, token: String, id: String, ops: Vec<engram_core::Op>| async move {
            let body = engram_origin::frames::encode(&[engram_origin::frames::Frame { id, ops: engram_core::encode_ops(&ops).unwrap() }]);
            let res = reqwest::Client::new().post(format!("{url}/v1/sync")).bearer_auth(token).body(body).send().await.unwrap();
            assert_eq!(res.status(), 200);
        };
        // Newer through one process, older through the other, at the same time.
        tasks.push(tokio::spawn(push(ua, t1, format!("7-new-{i}"), n)));
        tasks.push(tokio::spawn(push(ub, t2, format!("7-old-{i}"), o)));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let current: Value = a.http.get(format!("{}/v1/memories?limit=500", a.url)).bearer_auth(&t).send().await.unwrap().json().await.unwrap();
    let mut texts: Vec<&str> = current["memories"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
    texts.sort();
    let mut want: Vec<String> = (0..20).map(|i| format!("new value {i}")).collect();
    want.sort();
    assert_eq!(texts, want);
    // Every batch got its own sequence number and a pull sees all of them, in order.
    use futures_util::TryStreamExt;
    let seqs: Vec<i64> = a.db.collection::<Document>("ops").find(doc! {}).sort(doc! { "seq": 1 }).await.unwrap().try_collect::<Vec<_>>().await.unwrap().iter().map(|d| d.get_i64("seq").unwrap()).collect();
    assert_eq!(seqs, (1..=40).collect::<Vec<i64>>());
}

#[tokio::test]
async fn a_page_from_an_allowed_origin_may_call_the_api_and_any_other_page_may_not() {
    let o = Origin::start_with(&[("ENGRAM_CORS_ORIGINS", "http://127.0.0.1:4173, https://app.example/")]).await;
    let http = reqwest::Client::new();
    let preflight = |origin: &str| {
        http.request(reqwest::Method::OPTIONS, format!("{}/v1/sync?after=0", o.url))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "authorization")
            .send()
    };
    let ok = preflight("https://app.example").await.unwrap();
    assert_eq!(ok.status(), 204);
    assert_eq!(ok.headers()["access-control-allow-origin"], "https://app.example");
    assert!(ok.headers()["access-control-allow-headers"].to_str().unwrap().contains("authorization"));
    assert!(ok.headers()["access-control-allow-methods"].to_str().unwrap().contains("POST"));
    let refused = preflight("https://evil.example").await.unwrap();
    assert_eq!(refused.status(), 403);
    assert!(refused.headers().get("access-control-allow-origin").is_none());

    // The real request: answered with the origin named and the sync headers readable; the
    // token is still required.
    let alice = user("alice");
    let res = http
        .post(format!("{}/v1/sync?after=0", o.url))
        .header("origin", "http://127.0.0.1:4173")
        .bearer_auth(o.token(&alice))
        .body(engram_origin::frames::encode(&[]))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["access-control-allow-origin"], "http://127.0.0.1:4173");
    assert!(res.headers()["access-control-expose-headers"].to_str().unwrap().contains("x-engram-cursor"));
    assert!(res.headers()["access-control-expose-headers"].to_str().unwrap().contains("x-engram-procedures-cursor"), "a page reads the second cursor too");
    assert!(res.headers()["access-control-expose-headers"].to_str().unwrap().contains("x-engram-library-cursor"), "and the library's");
    let other = http.get(format!("{}/v1/memories", o.url)).header("origin", "https://evil.example").bearer_auth(o.token(&alice)).send().await.unwrap();
    assert_eq!(other.status(), 200, "a request without CORS rights still works for non-browser clients");
    assert!(other.headers().get("access-control-allow-origin").is_none());
    let anonymous = http.get(format!("{}/v1/memories", o.url)).header("origin", "https://app.example").send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
}

#[tokio::test]
async fn malformed_parameters_unknown_paths_and_wrong_methods_get_json_errors_with_codes() {
    let o = Origin::start().await;
    let t = o.token(&user("alice"));
    let cases: [(&str, &str, u16, &str); 9] = [
        ("GET", "/v1/memories?limit=abc", 400, "BAD_REQUEST"),
        ("GET", "/v1/memories?history=maybe", 400, "BAD_REQUEST"),
        ("GET", "/v1/memories?limit=1&limit=2", 400, "BAD_REQUEST"),
        ("GET", "/v1/graph", 400, "BAD_REQUEST"),
        ("GET", "/v1/graph?from=alice&depth=-1", 400, "BAD_REQUEST"),
        ("POST", "/v1/sync?after=later", 400, "BAD_REQUEST"),
        ("GET", "/v1/sync", 405, "METHOD_NOT_ALLOWED"),
        ("DELETE", "/v1/memories", 405, "METHOD_NOT_ALLOWED"),
        ("GET", "/v2/nothing", 404, "NOT_FOUND"),
    ];
    for (method, path, status, code) in cases {
        let res = o.http.request(method.parse().unwrap(), format!("{}{path}", o.url)).bearer_auth(&t).send().await.unwrap();
        assert_eq!(res.status(), status, "{method} {path}");
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("application/json"), "{method} {path}: {:?}", res.headers());
        if status == 405 {
            assert!(res.headers().contains_key("allow"), "{method} {path} names the allowed methods");
        }
        let text = res.text().await.unwrap();
        let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: {e}: {text:?}"));
        assert_eq!(body["error"]["code"], code, "{method} {path}: {body}");
        assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{method} {path}: {body}");
    }
    // The same parameters, well formed, are answered.
    let ok = o.http.get(format!("{}/v1/memories?limit=5&history=true", o.url)).bearer_auth(&t).send().await.unwrap();
    assert_eq!(ok.status(), 200);
}

#[tokio::test]
async fn a_batch_whose_record_belongs_to_another_scope_is_refused_whole_and_the_users_sync_keeps_working() {
    let o = Origin::start().await;
    let alice = user("alice");
    let t = o.token(&alice);
    let mut phone = device(31);
    let good = write(&mut phone, &alice, &["I like green tea"]);
    o.sync_ok(&t, &[("31-1", good)], 0).await;

    // A checksum-valid batch: the op is alice's, the record inside it is filed under bob.
    let mut forged = write(&mut phone, &alice, &["I moved to Porto", "this one is fine"]);
    let engram_core::OpBody::Upsert(rec) = &mut forged[0].body else { panic!("not an upsert: {:?}", forged[0].body) };
    rec.scope = scope(&user("bob"));
    let res = o.sync(&t, &[("31-2", forged)], 0).await;
    assert_eq!(res.status(), 422);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "INVALID_OP", "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("31-2"), "the message names the batch: {body}");

    // So is one whose key is not something another device would accept (NUL in a key field),
    // and a batch with it in a push refuses the whole push: nothing of it is stored.
    let mut nul = write(&mut phone, &alice, &["a fine fact"]);
    let engram_core::OpBody::Upsert(rec) = &mut nul[0].body else { panic!() };
    rec.key = Some(engram_core::FactKey { subject: "zhang\u{0}san".into(), attribute: "city".into() });
    let fine = write(&mut phone, &alice, &["pushed beside the bad batch"]);
    let res = o.sync(&t, &[("31-3", fine), ("31-4", nul)], 0).await;
    assert_eq!(res.status(), 422);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "INVALID_OP");
    assert_eq!(o.count("ops", &alice).await, 1, "only the first good batch is stored");
    assert_eq!(o.count("memories", &alice).await, 1);

    // Later syncs of the user work, and a fresh device applies everything it pulls.
    let later = write(&mut phone, &alice, &["I drink coffee now"]);
    let (pulled, cursor) = o.sync_ok(&t, &[("31-5", later)], 0).await;
    assert_eq!(cursor, 2);
    let mut fresh = device(32);
    fresh.apply_ops(pulled).unwrap();
    assert_eq!(fresh.count(&scope(&alice)).unwrap(), 2);
}
