//! What consolidation does: the settings of each step, all off by default, and their checks.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

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
                return Err(Error::invalid("compression.keyImportance", format!("{} is outside [0, 1]", crate::error::shown(c.key_importance))));
            }
            crate::model::limits::check_at_most("compression.keyEvents", c.key_events, crate::model::limits::MAX_K)?;
        }
        if let Some(ep) = &self.episodes {
            if ep.budget_tokens < 8 {
                return Err(Error::invalid("episodes.budgetTokens", "must be at least 8"));
            }
            if !(0.0..=1.0).contains(&ep.min_importance) {
                return Err(Error::invalid("episodes.minImportance", format!("{} is outside [0, 1]", crate::error::shown(ep.min_importance))));
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
