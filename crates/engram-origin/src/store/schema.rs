//! Collections, `$jsonSchema` validators, indexes and TTLs.

use mongodb::bson::{doc, Document};
use mongodb::options::IndexOptions;
use mongodb::{Database, IndexModel};
use std::time::Duration;

use crate::error::ApiResult;

/// 30 days: sessions idle this long expire (seed 000).
const SESSION_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

fn session_validator() -> Document {
    doc! { "$jsonSchema": {
        "bsonType": "object",
        "required": ["session_id", "user_id", "start_time"],
        "properties": {
            "session_id": { "bsonType": "string" },
            "user_id": { "bsonType": "string" },
            "tenant": { "bsonType": "string" },
            "start_time": { "bsonType": "date" },
            "last_activity": { "bsonType": "date" },
            "context": { "bsonType": "object" },
        },
    } }
}

fn profile_validator() -> Document {
    doc! { "$jsonSchema": {
        "bsonType": "object",
        "required": ["user_id"],
        "properties": {
            "user_id": { "bsonType": "string" },
            "tenant": { "bsonType": "string" },
            "basic_info": { "bsonType": "object" },
            "behaviour_patterns": { "bsonType": "object" },
            "knowledge_base": { "bsonType": "object" },
            "privacy_settings": {
                "bsonType": "object",
                "properties": {
                    "data_retention_days": { "bsonType": ["int", "long", "null"], "minimum": 1, "maximum": 36500 },
                    "share_usage": { "bsonType": "bool" },
                },
            },
            "updated_at": { "bsonType": "date" },
        },
    } }
}

fn memory_validator() -> Document {
    doc! { "$jsonSchema": {
        "bsonType": "object",
        "required": ["tenant", "user_id", "id", "stamp", "deleted"],
        "properties": {
            "tenant": { "bsonType": "string" },
            "user_id": { "bsonType": "string" },
            "id": { "bsonType": "string" },
            "stamp": { "bsonType": "string" },
            "deleted": { "bsonType": "bool" },
            "text": { "bsonType": "string" },
            "expires_at": { "bsonType": ["date", "null"] },
        },
    } }
}

fn document_validator() -> Document {
    doc! { "$jsonSchema": {
        "bsonType": "object",
        "required": ["tenant", "user_id", "id", "stamp", "deleted"],
        "properties": {
            "tenant": { "bsonType": "string" },
            "user_id": { "bsonType": "string" },
            "id": { "bsonType": "string", "pattern": "^d/" },
            "document_id": { "bsonType": "string" },
            "stamp": { "bsonType": "string" },
            "deleted": { "bsonType": "bool" },
            "title": { "bsonType": "string" },
            "source": { "bsonType": "string" },
            "metadata": { "bsonType": "string" },
            "tags": { "bsonType": "array", "items": { "bsonType": "string" } },
            "chunks": { "bsonType": "array", "items": { "bsonType": "string" } },
            "chunk_count": { "bsonType": ["long", "int"] },
            "created_at": { "bsonType": "date" },
            "updated_at": { "bsonType": "date" },
        },
    } }
}

fn chunk_validator() -> Document {
    doc! { "$jsonSchema": {
        "bsonType": "object",
        "required": ["tenant", "user_id", "id", "stamp", "deleted"],
        "properties": {
            "tenant": { "bsonType": "string" },
            "user_id": { "bsonType": "string" },
            "id": { "bsonType": "string", "pattern": "^c/" },
            "document_id": { "bsonType": "string" },
            "stamp": { "bsonType": "string" },
            "deleted": { "bsonType": "bool" },
            "text": { "bsonType": "string" },
            "created_at": { "bsonType": "date" },
        },
    } }
}

fn index(keys: Document, unique: bool, ttl: Option<Duration>) -> IndexModel {
    let opts = IndexOptions::builder().unique(unique.then_some(true)).expire_after(ttl).build();
    IndexModel::builder().keys(keys).options(opts).build()
}

/// Create what is missing; update validators of existing collections.
pub async fn ensure(db: &Database) -> ApiResult<()> {
    let validated = [
        ("session_memories", session_validator()),
        ("user_profiles", profile_validator()),
        ("memories", memory_validator()),
        ("documents", document_validator()),
        ("chunks", chunk_validator()),
    ];
    let existing = db.list_collection_names().await?;
    for (name, validator) in validated {
        if existing.iter().any(|n| n == name) {
            db.run_command(doc! { "collMod": name, "validator": validator }).await?;
        } else {
            db.create_collection(name).validator(validator).await?;
        }
    }
    let indexes: [(&str, Vec<IndexModel>); 9] = [
        ("ops", vec![
            index(doc! { "tenant": 1, "user_id": 1, "seq": 1 }, true, None),
            index(doc! { "tenant": 1, "user_id": 1, "batch": 1 }, true, None),
        ]),
        ("memories", vec![
            index(doc! { "tenant": 1, "user_id": 1, "id": 1 }, true, None),
            index(doc! { "tenant": 1, "user_id": 1, "seq": 1 }, false, None),
            index(doc! { "tenant": 1, "user_id": 1, "key.subject": 1, "key.attribute": 1 }, false, None),
            index(doc! { "expires_at": 1 }, false, Some(Duration::ZERO)),
        ]),
        ("relations", vec![
            index(doc! { "tenant": 1, "user_id": 1, "from": 1, "rel": 1, "to": 1 }, true, None),
            index(doc! { "tenant": 1, "user_id": 1, "to": 1 }, false, None),
        ]),
        ("session_memories", vec![
            // Session ids are chosen by clients, so they are unique per user, not globally.
            index(doc! { "tenant": 1, "user_id": 1, "session_id": 1 }, true, None),
            index(doc! { "user_id": 1, "last_activity": -1 }, false, None),
            index(doc! { "last_activity": 1 }, false, Some(SESSION_TTL)),
        ]),
        ("user_profiles", vec![index(doc! { "tenant": 1, "user_id": 1 }, true, None)]),
        ("forgotten", vec![index(doc! { "tenant": 1, "user_id": 1 }, true, None)]),
        ("entities", vec![index(doc! { "tenant": 1, "user_id": 1, "entity": 1, "attr": 1 }, true, None)]),
        ("documents", vec![
            index(doc! { "tenant": 1, "user_id": 1, "id": 1 }, true, None),
            index(doc! { "tenant": 1, "user_id": 1, "deleted": 1, "created_at": 1 }, false, None),
        ]),
        ("chunks", vec![
            index(doc! { "tenant": 1, "user_id": 1, "id": 1 }, true, None),
            index(doc! { "tenant": 1, "user_id": 1, "document_id": 1 }, false, None),
        ]),
    ];
    for (name, models) in indexes {
        db.collection::<Document>(name).create_indexes(models).await?;
    }
    Ok(())
}
