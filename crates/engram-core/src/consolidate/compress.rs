//! Compression of old turns (seed 002's threshold): once the unfolded turns past the recent
//! window weigh more tokens than the threshold, they fold into the session's rolling
//! summary — except the key events, which stay in the window — and move to the episodic
//! layer or are deleted. Which turns are folded is replicated state (their layer, or their
//! tombstone), so every replica computes the same overflow from the same ops.

use crate::consolidate::lines::{choose, join, line_weight, turn_line, turn_weight, Line};
use crate::consolidate::{Compression, Folded};
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::model::{Layer, Record, Scope};
use crate::store::ops::{Op, OpBody};

/// What one compression did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Compressed {
    /// The turns folded into the summary, oldest first.
    pub folded: Vec<String>,
    /// The key events past the window that stay in it, oldest first.
    pub kept: Vec<String>,
    /// Tokens of the folded turns (their summary lines), which passed the threshold.
    pub tokens: usize,
}

/// The turns past the window not folded yet: those that fold (and their tokens, counted
/// only when the plan is made to fold), and the key events kept.
struct Plan<'a> {
    fold: Vec<&'a Record>,
    kept: Vec<&'a Record>,
    tokens: usize,
}

impl Engram {
    /// Fold the oldest turns of the scope's session into its rolling summary when the
    /// unfolded turns past the recent window, key events aside, exceed
    /// [`Compression::threshold_tokens`]. The summary is rewritten from its own lines and
    /// the folded turns', the heaviest within [`Compression::summary_tokens`]; the folded
    /// turns then move to the episodic layer or are deleted ([`Folded`]). `None` when
    /// compression is off or the threshold is not passed. [`Engram::commit`] calls it after
    /// appending turns.
    pub fn compress_session(&mut self, scope: &Scope, now: Millis) -> Result<Option<Compressed>> {
        let Some(c) = self.consolidation.compression.clone() else { return Ok(None) };
        scope.require_session()?;
        let (fold, kept, tokens) = {
            let plan = self.fold_plan(scope, &c, true)?;
            if plan.fold.is_empty() || plan.tokens <= c.threshold_tokens {
                return Ok(None);
            }
            let fold: Vec<Record> = plan.fold.into_iter().cloned().collect();
            (fold, plan.kept.into_iter().map(|r| r.id.clone()).collect::<Vec<String>>(), plan.tokens)
        };
        let mut lines: Vec<Line> = self
            .summary(scope)?
            .map(|s| s.lines().filter(|l| !l.trim().is_empty()).map(|l| Line { text: l.to_owned(), weight: line_weight(l), cites: None }).collect())
            .unwrap_or_default();
        for r in &fold {
            lines.push(Line { text: turn_line(&self.tokenizer, r), weight: turn_weight(r), cites: Some(r.id.clone()) });
        }
        let text = join(&lines, &choose(&self.tokenizer, &lines, c.summary_tokens));
        if !text.trim().is_empty() {
            self.set_summary(scope, &text, now)?;
        }
        for r in &fold {
            match c.folded {
                Folded::Keep => self.move_to_layer(scope, &r.id, Layer::Episodic, now)?,
                Folded::Remove => {
                    self.forget(scope, &r.id, now)?;
                }
            }
        }
        Ok(Some(Compressed {
            folded: fold.into_iter().map(|r| r.id).collect(),
            kept,
            tokens,
        }))
    }

    /// The key events past the recent window that compression keeps in it, oldest first
    /// (none when compression is off): `build_context` shows them beside the summary.
    pub fn key_events(&self, scope: &Scope) -> Result<Vec<Record>> {
        match self.consolidation.compression.clone() {
            Some(c) if scope.session.is_some() => Ok(self.fold_plan(scope, &c, false)?.kept.into_iter().cloned().collect()),
            _ => Ok(Vec::new()),
        }
    }

    /// What compression would fold now; the folded turns' tokens only when `count`
    /// (`build_context` asks for the key events alone, on every request).
    fn fold_plan(&self, scope: &Scope, c: &Compression, count: bool) -> Result<Plan<'_>> {
        let unfolded: Vec<&Record> = self.overflow_turn_records(scope)?.into_iter().filter(|r| r.layer == Layer::Working).collect();
        let p = self.partition(scope)?;
        let weight = |r: &Record| p.and_then(|p| p.slot_of(&r.id)).and_then(|s| p?.weight(s, turn_weight)).unwrap_or_else(|| turn_weight(r));
        let keys: Vec<usize> = (0..unfolded.len()).filter(|&i| weight(unfolded[i]) > c.key_importance).collect();
        let kept_from = keys.len().saturating_sub(c.key_events);
        let kept_ix = &keys[kept_from..];
        let (mut fold, mut kept) = (Vec::new(), Vec::new());
        let mut tokens = 0usize;
        for (i, r) in unfolded.into_iter().enumerate() {
            if kept_ix.contains(&i) {
                kept.push(r);
            } else {
                if count {
                    tokens += self.tokenizer.count(&turn_line(&self.tokenizer, r)).tokens + 1;
                }
                fold.push(r);
            }
        }
        Ok(Plan { fold, kept, tokens })
    }

    /// Rewrite a record in another layer (an upsert, applied here as on every replica).
    fn move_to_layer(&mut self, scope: &Scope, id: &str, layer: Layer, now: Millis) -> Result<()> {
        let user = scope.user_key();
        let Some(mut rec) = self.partitions.get(&user).and_then(|p| p.slot_of(id).and_then(|s| p.full_record(s))) else { return Ok(()) };
        rec.layer = layer;
        rec.stamp = self.next_stamp(now);
        self.write_op(Op { user, stamp: rec.stamp, body: OpBody::Upsert(Box::new(rec)) })?;
        Ok(())
    }
}
