//! The `user_profiles` view (seed 000): one document per user, rebuilt from their current
//! facts and preferences, their sessions and the settings they set (the `user` entity's
//! `profile.*` attributes, read by the core's [`ProfileSettings::from_attrs`]), and their
//! retention applied to the `memories` view as expiry dates the TTL index acts on.

use futures_util::TryStreamExt;
use mongodb::bson::{doc, Bson, DateTime, Document};

use super::statements::{date, field_key, Updates};
use super::{owner, parse_stamp_key, Store};
use crate::error::ApiResult;
use engram_core::extract::USER_ENTITY;
use engram_core::knowledge::graph::norm;
use engram_core::profile::settings::ATTR_PREFIX;
use engram_core::profile::{stated_name, ProfileSettings};
use engram_core::UserKey;

/// One day in milliseconds.
pub(super) const DAY_MS: i64 = 86_400_000;
/// The attribute of the retention setting.
pub(super) const RETENTION_ATTR: &str = "profile.retention_days";
/// The session value the SDK stores a session's metadata under when it ends.
pub(super) const SESSION_METADATA: &str = "engram.metadata";

/// The `metadata.*` fields of a session document from the core's metadata (JSON, as the
/// SDK stores it): `None` when it is not that.
pub(super) fn metadata_fields(json: &str) -> Option<Document> {
    let m: engram_core::profile::SessionMetadata = serde_json::from_str(json).ok()?;
    let entities: Vec<Document> = m.entities.iter().take(32).map(|t| doc! { "name": &t.name, "mentions": i64::from(t.mentions) }).collect();
    Some(doc! {
        "metadata.token_count": m.tokens as i64,
        "metadata.tokens_exact": m.exact,
        "metadata.user_turns": i64::from(m.user_turns),
        "metadata.facts": i64::from(m.facts),
        "metadata.importance_score": f64::from(m.importance),
        "metadata.important_entities": entities,
    })
}

/// Most facts and preferences a profile lists (the newest; all of them stay in `memories`).
const PROFILE_CAP: i64 = 500;

impl Store {
    /// The settings `user` set (empty when none).
    pub(super) async fn profile_settings(&self, user: &UserKey) -> ApiResult<ProfileSettings> {
        let mut q = owner(user);
        q.insert("entity", norm(USER_ENTITY));
        let attrs: Vec<Document> = self.coll("entities").find(q).projection(doc! { "attr": 1, "value": 1, "stamp": 1 }).await?.try_collect().await?;
        let rows: Vec<(String, String, engram_core::Stamp)> = attrs
            .iter()
            .filter_map(|d| {
                let attr = d.get_str("attr").ok()?;
                let stamp = parse_stamp_key(d.get_str("stamp").ok()?)?;
                attr.starts_with(ATTR_PREFIX).then(|| (attr.to_owned(), d.get_str("value").unwrap_or_default().to_owned(), stamp))
            })
            .collect();
        Ok(ProfileSettings::from_attrs(rows.iter().map(|(a, v, s)| (a.as_str(), v.as_str(), *s))))
    }

    /// Bound the expiry of every memory of `user` by their retention (none: nothing
    /// changes; a memory's own earlier expiry stays). Memories past it expire now.
    pub(super) async fn apply_retention(&self, user: &UserKey) -> ApiResult<()> {
        let Some(days) = self.profile_settings(user).await?.retention_days else { return Ok(()) };
        let mut q = owner(user);
        q.insert("deleted", false);
        let docs: Vec<Document> = self.coll("memories").find(q).projection(doc! { "_id": 1, "created_at": 1, "expires_at": 1 }).await?.try_collect().await?;
        let mut updates = Updates::default();
        for d in docs {
            let Ok(created) = d.get_datetime("created_at") else { continue };
            let retained = created.timestamp_millis().saturating_add(i64::from(days) * DAY_MS);
            let own = d.get_datetime("expires_at").ok().map(|d| d.timestamp_millis());
            let at = own.map_or(retained, |o| o.min(retained));
            if own != Some(at) {
                updates.update(doc! { "_id": d.get("_id").cloned().unwrap_or(Bson::Null) }, doc! { "$set": { "expires_at": date(at) } }, false);
            }
        }
        self.run_updates("memories", updates, false).await
    }

    /// Derive the `user_profiles` document of `user`: basic info, behaviour patterns,
    /// the knowledge base (the newest [`PROFILE_CAP`] facts and preferences, their custom
    /// rules) and privacy settings. Removed when the user has neither facts nor settings.
    pub(super) async fn rebuild_profile(&self, user: &UserKey) -> ApiResult<()> {
        let settings = self.profile_settings(user).await?;
        let mut q = owner(user);
        q.extend(doc! { "deleted": false, "kind": { "$in": ["fact", "preference"] }, "valid_to": Bson::Null, "superseded_by": Bson::Null, "pending_review": false });
        let docs: Vec<Document> = self
            .coll("memories")
            .find(q)
            .projection(doc! { "text": 1, "kind": 1, "key": 1 })
            .sort(doc! { "updated_at": -1, "id": 1 })
            .limit(PROFILE_CAP)
            .await?
            .try_collect()
            .await?;
        if docs.is_empty() && settings == ProfileSettings::default() {
            self.coll("user_profiles").delete_one(owner(user)).await?;
            return Ok(());
        }
        let (mut facts, mut preferences, mut keyed) = (Vec::new(), Vec::new(), Document::new());
        let mut name = settings.name.clone();
        for d in &docs {
            let text = d.get_str("text").unwrap_or_default().to_owned();
            if let Ok(k) = d.get_document("key") {
                if let (Ok(s), Ok(a)) = (k.get_str("subject"), k.get_str("attribute")) {
                    if s == "user" && a == "name" && name.is_none() {
                        name = stated_name(&text);
                    }
                    keyed.insert(field_key(&format!("{s}/{a}")), &text);
                }
            }
            if d.get_str("kind").ok() == Some("preference") {
                preferences.push(text);
            } else {
                facts.push(text);
            }
        }
        let sessions = self.coll("session_memories").count_documents(owner(user)).await? as i64;
        let last: Option<Document> = self.coll("session_memories").find_one(owner(user)).sort(doc! { "last_activity": -1 }).projection(doc! { "last_activity": 1 }).await?;
        let last_activity = last.and_then(|d| d.get_datetime("last_activity").ok().copied());
        let rules: Vec<Document> = settings.rules.iter().map(|r| doc! { "id": &r.id, "text": &r.text }).collect();
        let mut profile = owner(user);
        profile.extend(doc! {
            "updated_at": DateTime::now(),
            "basic_info": { "name": name, "language": settings.language.clone(), "timezone": settings.timezone.clone() },
            "behaviour_patterns": { "response_detail": settings.detail.clone(), "response_tone": settings.tone.clone(), "sessions": sessions, "last_activity": last_activity },
            "knowledge_base": { "learned_facts": facts, "preferences": preferences, "by_key": keyed, "custom_rules": rules },
            "privacy_settings": { "data_retention_days": settings.retention_days.map(i64::from), "share_usage": settings.share_usage },
        });
        self.coll("user_profiles").replace_one(owner(user), profile).upsert(true).await?;
        Ok(())
    }

    /// The `session_memories` document of one session of `user` as JSON, if any.
    pub async fn session(&self, user: &UserKey, session: &str) -> ApiResult<Option<serde_json::Value>> {
        let mut q = owner(user);
        q.insert("session_id", session);
        Ok(self.coll("session_memories").find_one(q).await?.map(super::query::to_json))
    }

    /// The `user_profiles` document of `user` as JSON (dates in epoch milliseconds), if any.
    pub async fn profile(&self, user: &UserKey) -> ApiResult<Option<serde_json::Value>> {
        Ok(self.coll("user_profiles").find_one(owner(user)).await?.map(super::query::to_json))
    }
}
