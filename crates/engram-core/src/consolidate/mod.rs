//! Consolidation: what a conversation leaves behind once it has been said (seeds 001 and
//! 002). Four steps exist, all extractive — the core runs no LLM — and all written through
//! the ordinary ops, so they sync, converge and are undone by forgetting like any write:
//!
//! - **Compression** ([`Compression`], `compress.rs`): when the turns past a session's
//!   recent window exceed a token threshold (exact counts through the engine's tokenizer),
//!   the oldest fold into the session's rolling summary (a `SessionSummary` op), keeping key
//!   events (importance above 0.7, seed 002) in the window; the folded turns move to the
//!   episodic layer (an upsert) or are deleted, by [`Folded`].
//! - **Episodes** ([`Episodes`], `episode.rs`): when a session ends or idles past its TTL,
//!   an `Episode` memory summarises it — its important turns and the facts the rule
//!   extractor finds in them, within a token budget — tagged `turn:<id>` with the turns it
//!   cites and `upto:<id>` with the newest turn it covers (an upsert; its id is derived
//!   from the session, so replicas that consolidate the same session write the same
//!   record). The SDK may then rewrite it abstractively ([`Engram::rewrite_episode`]); a
//!   turn that joins a session idle past its TTL first writes its episode, named by
//!   [`crate::Committed::episode`], so the SDK rewrites that one too.
//! - **Learned patterns** ([`Patterns`], `patterns.rs`, `signals.rs`; seed 002's
//!   `batch_learn`): a signal in user turns — a known thing chosen or asked for ("write it
//!   in Go", "I prefer golang" → `programming language:go`), or another like or dislike —
//!   seen in at least [`Patterns::min_sessions`] sessions becomes one `Pattern` memory
//!   whose `times_seen` counts the sessions that verified it (seed 002's `times_verified`;
//!   the record format is unchanged), tagged `signal:<key>`, `session:<hash>` per verifying
//!   session and `turn:<id>` per cited turn. The batch buffer is derived, not stored: the
//!   user turns still held plus the evidence the patterns already carry, so replicas with
//!   the same records learn the same patterns; the id comes from the signal's key.
//! - **Compaction** ([`Compaction`], `compact.rs`): episodes not rewritten for
//!   [`Compaction::min_age_ms`] fold, per calendar month (UTC) of their session's start,
//!   into one compacted episode (id from the month) — their lines, facts first, within a
//!   token budget; the folded episodes are superseded by it (kept as history, out of recall)
//!   or deleted, by [`Folded`]. Only episodes fold: keyed facts are records of their own.
//!
//! Patterns and compaction run when a session ends ([`Engram::end_session`]) or idles (the
//! sweep [`Engram::consolidate_idle`], or the idle session's next turn), after its episode;
//! [`Engram::learn_patterns`] and [`Engram::compact_episodes`] run them on demand. Each is
//! a function of the stored records and `now`, and writes only what changed.
//!
//! All are off by default ([`Consolidation::default`]). The settings are held by the
//! engine beside the tokenizer, not in [`crate::Config`]: they change what the next write
//! does, not how stored data reads, and keeping them out of the snapshot leaves its format
//! (and `tests/vectors/`) as it is. Every replica that consolidates must be given them.
//!
//! ```
//! use engram_core::consolidate::{Compression, Consolidation};
//! use engram_core::{Config, Engram, Scope, Turn};
//! let mut e = Engram::new(Config { recent_turns: 2, ..Config::default() }, 1);
//! e.set_consolidation(Consolidation { compression: Some(Compression { threshold_tokens: 10, ..Compression::default() }), ..Consolidation::default() }).unwrap();
//! let s = Scope::user("acme", "ana").with_session("s1");
//! for (i, t) in ["I live in Lisbon and work at Globex.", "Noted.", "The weather is grey today, nothing much else.", "Sure.", "ok"].iter().enumerate() {
//!     e.append_turn(&s, Turn::user(*t), 1_000 + i as i64).unwrap();
//! }
//! // The small talk past the 2-turn window folded; where Ana lives is a key event and stays.
//! assert!(e.summary(&s).unwrap().is_some_and(|s| s.contains("weather") && !s.contains("Lisbon")));
//! assert_eq!(e.key_events(&s).unwrap().len(), 1);
//! ```

mod abstractive;
mod compact;
mod compress;
pub mod feedback;
mod episode;
mod lines;
mod patterns;
pub mod settings;
mod signals;

use crate::engram::Engram;
use crate::error::Result;
use crate::model::Scope;

pub use compress::Compressed;
pub use compact::{compacted_id, month_of, Compacted, COMPACTED_TAG, FROM_PREFIX, MONTH_PREFIX};
pub use episode::{episode_id, CITES_PREFIX, EPISODE_TAG, UPTO_PREFIX};
pub use patterns::{pattern_id, PATTERN_TAG, SESSION_PREFIX, SIGNAL_PREFIX};
pub use settings::{Compaction, Compression, Consolidation, Episodes, Folded, Patterns};
pub use signals::{signals, Signal};

impl Engram {
    /// Consolidate from now on as `settings` say (refused, unchanged, when invalid).
    pub fn set_consolidation(&mut self, settings: Consolidation) -> Result<()> {
        settings.validate()?;
        self.consolidation = settings;
        Ok(())
    }

    /// The consolidation settings.
    pub fn consolidation(&self) -> &Consolidation {
        &self.consolidation
    }
}

impl Engram {
    /// Before turns join a session: one idle past its TTL is summarised first, so its
    /// episode holds what was said before the pause. Returns the episode's id when one was
    /// written (the commit reports it, for the SDK's abstractive rewrite).
    pub(crate) fn before_turns(&mut self, at: &Scope, now: crate::hlc::Millis) -> Result<Option<String>> {
        if self.consolidation.episodes.is_none() && self.consolidation.patterns.is_none() && self.consolidation.compaction.is_none() {
            return Ok(None);
        }
        let ttl = self.config.session_ttl_ms;
        let idle = at.session.as_deref().is_some_and(|name| {
            self.partitions.get(&at.user_key()).and_then(|p| p.session(name)).is_some_and(|s| !s.turns().is_empty() && now.saturating_sub(s.touched_at()) >= ttl)
        });
        if !idle {
            return Ok(None);
        }
        let episode = self.write_episode(at, now)?;
        self.after_session(at, now)?;
        Ok(episode)
    }

    /// Once a session has ended or idled (its episode written): learn patterns, then
    /// compact old episodes. Returns the ids written.
    pub(crate) fn after_session(&mut self, at: &Scope, now: crate::hlc::Millis) -> Result<Vec<String>> {
        let mut out = self.learn_patterns(at, now)?;
        out.extend(self.compact_episodes(at, now)?.into_iter().map(|c| c.id));
        Ok(out)
    }
}
