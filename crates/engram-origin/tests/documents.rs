//! Archival documents at the origin: `documents` and `chunks` views kept from ops (put,
//! replace, delete), listable per user, and emptied by forgetting.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use engram_core::DocumentInput;
use mongodb::bson::{doc, Document};
use serde_json::Value;

fn handbook(days: u32) -> String {
    let mut s = String::from("# Handbook\n\n");
    for i in 0..5 {
        s.push_str(&format!("## Part {i}\n\nRule {i} says employees follow guideline {i} at all times and report to desk {i}.\n\n"));
    }
    s + &format!("## Leave\n\nStaff get {days} days of paid leave.")
}

fn doc_input(id: &str, text: String) -> DocumentInput {
    DocumentInput { title: format!("The {id}"), chunk_tokens: Some(24), chunk_overlap: Some(4), ..DocumentInput::new(id, text) }
}

async fn live(o: &Origin, coll: &str, user: &engram_core::UserKey) -> Vec<Document> {
    use futures_util::TryStreamExt;
    o.db.collection::<Document>(coll)
        .find(doc! { "tenant": &user.tenant, "user_id": &user.user, "deleted": false })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test]
async fn documents_and_chunks_views_follow_put_replace_and_delete_and_forget_empties_them() {
    let o = Origin::start().await;
    let (alice, bob) = (user("alice"), user("bob"));
    let ta = o.token(&alice);
    let mut phone = device(1);
    let chunks = phone.put_document(&scope(&alice), doc_input("handbook", handbook(25)), now_ms()).unwrap();
    phone.put_document(&scope(&alice), doc_input("menu", "Lunch is at noon.".into()), now_ms()).unwrap();
    let (_, c1) = o.sync_ok(&ta, &[("1-1", phone.take_pending())], 0).await;
    let docs = live(&o, "documents", &alice).await;
    assert_eq!(docs.len(), 2);
    let hb = docs.iter().find(|d| d.get_str("document_id").ok() == Some("handbook")).unwrap();
    assert_eq!(hb.get_str("title").unwrap(), "The handbook");
    assert_eq!(hb.get_i64("chunk_count").unwrap() as usize, chunks.len());
    assert_eq!(live(&o, "chunks", &alice).await.len(), { let mut c = chunks.clone(); c.sort(); c.dedup(); c.len() } + 1);
    assert_eq!(o.count("memories", &alice).await, 0, "documents are not memories");

    // Listable per user, without chunk texts; another user sees nothing.
    let res = o.http.get(format!("{}/v1/documents", o.url)).bearer_auth(&ta).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    let ids: Vec<&str> = body["documents"].as_array().unwrap().iter().map(|d| d["document_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["handbook", "menu"]);
    let res = o.http.get(format!("{}/v1/documents", o.url)).bearer_auth(o.token(&bob)).send().await.unwrap();
    assert_eq!(res.json::<Value>().await.unwrap()["documents"], serde_json::json!([]));

    // Replace on a second device: only the changed chunks move; the views follow.
    let mut laptop = device(2);
    let (pulled, _) = o.sync_ok(&ta, &[], 0).await;
    laptop.apply_ops(pulled).unwrap();
    let after = laptop.put_document(&scope(&alice), doc_input("handbook", handbook(28)), now_ms() + 1).unwrap();
    let (_, c2) = o.sync_ok(&ta, &[("2-1", laptop.take_pending())], c1).await;
    let texts: Vec<String> = live(&o, "chunks", &alice).await.iter().map(|d| d.get_str("text").unwrap().to_owned()).collect();
    assert!(texts.iter().any(|t| t.contains("28 days")) && !texts.iter().any(|t| t.contains("25 days")), "{texts:?}");
    assert_eq!(live(&o, "chunks", &alice).await.len(), { let mut c = after.clone(); c.sort(); c.dedup(); c.len() } + 1);

    // Delete: the document and all its chunks go from the views.
    laptop.delete_document(&scope(&alice), "handbook", now_ms() + 2).unwrap();
    o.sync_ok(&ta, &[("2-2", laptop.take_pending())], c2).await;
    assert_eq!(live(&o, "documents", &alice).await.len(), 1);
    assert_eq!(live(&o, "chunks", &alice).await.len(), 1);
    assert!(live(&o, "chunks", &alice).await.iter().all(|d| d.get_str("document_id").ok() == Some("menu")));

    // Forget: nothing of alice's is left in either view.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let res = o.http.post(format!("{}/v1/forget", o.url)).bearer_auth(&ta).send().await.unwrap();
    assert_eq!(res.status(), 200);
    for coll in ["documents", "chunks"] {
        assert_eq!(o.count(coll, &alice).await, 0, "{coll} still holds alice");
    }
}
