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
//! use engram_core::engram::consolidate::{Compression, Consolidation};
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
mod episode;
mod lines;
mod patterns;
mod signals;

use serde::{Deserialize, Serialize};

use crate::engram::Engram;
use crate::error::{Error, Result};
use crate::model::Scope;

pub use compress::Compressed;
pub use compact::{compacted_id, month_of, Compacted, COMPACTED_TAG, FROM_PREFIX, MONTH_PREFIX};
pub use episode::{episode_id, CITES_PREFIX, EPISODE_TAG, UPTO_PREFIX};
pub use patterns::{pattern_id, PATTERN_TAG, SESSION_PREFIX, SIGNAL_PREFIX};
pub use signals::{signals, Signal};

/// What consolidation does; everything off by default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Consolidation {
    /// Fold old turns into the rolling summary (`None`: never).
    pub compression: Option<Compression>,
    /// Summarise sessions that end or idle into `Episode` memories (`None`: never).
    pub episodes: Option<Episodes>,
    /// Learn `Pattern` memories from signals repeated across sessions (`None`: never).
    pub patterns: Option<Patterns>,
    /// Fold old episodes into one per month (`None`: never).
    pub compaction: Option<Compaction>,
}

/// When a signal repeated across sessions becomes a `Pattern` memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Patterns {
    /// Distinct sessions a signal must be seen in (seed 002 learns from repetition; 3 by
    /// default: asked for Go in three sessions is a pattern, in two is not yet).
    pub min_sessions: usize,
}

impl Default for Patterns {
    fn default() -> Self {
        Patterns { min_sessions: 3 }
    }
}

/// When and how old episodes fold into one per calendar month.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Compaction {
    /// An episode not rewritten for this long (milliseconds) folds; 30 days by default.
    pub min_age_ms: i64,
    /// The compacted episode's budget, in tokens.
    pub budget_tokens: usize,
    /// What becomes of the folded episodes: kept as the compacted one's history
    /// (superseded, out of recall) or deleted.
    pub folded: Folded,
}

impl Default for Compaction {
    fn default() -> Self {
        Compaction { min_age_ms: 30 * 86_400_000, budget_tokens: 400, folded: Folded::Keep }
    }
}

/// When and how old turns fold into a session's rolling summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Compression {
    /// Tokens of the unfolded turns past the recent window (key events aside) above which
    /// they fold. Seed 002 folds past twice its window of messages; counted in tokens here,
    /// so one long paste folds as soon as many short lines would.
    pub threshold_tokens: usize,
    /// The rolling summary's budget, in tokens (seed 002: at most 300 characters).
    pub summary_tokens: usize,
    /// A turn above this importance is a key event: it stays in the window instead of
    /// folding (seed 002: 0.7). A user turn weighs what the facts it states weigh.
    pub key_importance: f32,
    /// Key events kept in the window at most; older ones fold too (seed 002 shows 10).
    pub key_events: usize,
    /// What becomes of the folded turns.
    pub folded: Folded,
}

impl Default for Compression {
    fn default() -> Self {
        Compression { threshold_tokens: 500, summary_tokens: 250, key_importance: 0.7, key_events: 10, folded: Folded::Keep }
    }
}

/// What becomes of turns once folded into the summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Folded {
    /// They move to the episodic layer and stay recallable (an upsert each).
    #[default]
    Keep,
    /// They are deleted (a delete each): the summary and the memories extracted from them
    /// are what remains.
    Remove,
}

/// How a finished session is summarised into an `Episode` memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Episodes {
    /// The episode's budget, in tokens.
    pub budget_tokens: usize,
    /// Lines weighing less than this are left out (a user statement weighs 0.4, what the
    /// assistant said 0.25, a fact the extractor finds its own importance).
    pub min_importance: f32,
}

impl Default for Episodes {
    fn default() -> Self {
        Episodes { budget_tokens: 200, min_importance: 0.4 }
    }
}

impl Consolidation {
    /// Check the numbers: budgets that cannot hold a line, importances outside [0, 1].
    pub fn validate(&self) -> Result<()> {
        if let Some(c) = &self.compression {
            if c.summary_tokens < 8 {
                return Err(Error::invalid("compression.summaryTokens", "must be at least 8"));
            }
            if !(0.0..=1.0).contains(&c.key_importance) {
                return Err(Error::invalid("compression.keyImportance", format!("{} is outside [0, 1]", c.key_importance)));
            }
            crate::model::limits::check_at_most("compression.keyEvents", c.key_events, crate::model::limits::MAX_K)?;
        }
        if let Some(ep) = &self.episodes {
            if ep.budget_tokens < 8 {
                return Err(Error::invalid("episodes.budgetTokens", "must be at least 8"));
            }
            if !(0.0..=1.0).contains(&ep.min_importance) {
                return Err(Error::invalid("episodes.minImportance", format!("{} is outside [0, 1]", ep.min_importance)));
            }
        }
        if let Some(p) = &self.patterns {
            if p.min_sessions < 2 {
                return Err(Error::invalid("patterns.minSessions", "must be at least 2: a pattern is repeated across sessions"));
            }
            crate::model::limits::check_at_most("patterns.minSessions", p.min_sessions, crate::model::limits::MAX_K)?;
        }
        if let Some(c) = &self.compaction {
            if c.min_age_ms < 0 {
                return Err(Error::invalid("compaction.minAgeMs", "must not be negative"));
            }
            if c.budget_tokens < 8 {
                return Err(Error::invalid("compaction.budgetTokens", "must be at least 8"));
            }
        }
        Ok(())
    }
}

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
