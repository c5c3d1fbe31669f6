//! Context assembly: what goes into the prompt, in priority order, under an exact token
//! budget — agent instructions (the tenant's procedures, see `procedures`), the user's profile facts, recalled memories, chunks of
//! the user's documents and their tenant's library (within their own share of the budget), the rolling summary, the
//! key events compression kept (see `consolidate`), then the most recent turns (newest
//! first when space runs out). Everything that came from memory sits inside one untrusted
//! block (see `render`).

use serde::{Deserialize, Serialize};

use crate::read::recall::{RecallQuery, RouteName};
use crate::procedures::instruction_line;
use crate::context::render::{date, quote, CLOSE, OPEN, PREAMBLE};
use crate::engram::Engram;
use crate::error::Result;
use crate::hlc::Millis;
use crate::model::{Record, Scope};

/// What to build a context for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextRequest {
    /// The user's current message.
    pub query: String,
    pub embedding: Option<Vec<f32>>,
    /// The exact token budget for the returned text (seed 001: 900 for memories).
    pub budget: usize,
    /// Memories to recall.
    pub k: usize,
    /// Recent turns to include (default: the configured window).
    pub recent_turns: Option<usize>,
    /// Profile facts (current keyed facts and preferences) to include at most.
    pub profile_limit: usize,
    /// Document chunks to recall (0: none).
    pub archival_k: usize,
    /// The share of `budget` document chunks may take at most, in [0, 1].
    pub archival_share: f32,
    /// The tenant's procedures to render as instructions at most: all of them when there
    /// are this many or fewer, else the best matches of `query` by words.
    pub procedure_limit: usize,
}

impl Default for ContextRequest {
    fn default() -> Self {
        ContextRequest::new("", 900)
    }
}

impl ContextRequest {
    /// A request for `query` under `budget` tokens.
    pub fn new(query: impl Into<String>, budget: usize) -> Self {
        ContextRequest { query: query.into(), embedding: None, budget, k: 8, recent_turns: None, profile_limit: 12, archival_k: 4, archival_share: 0.3, procedure_limit: 8 }
    }
}

/// The assembled context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Context {
    pub text: String,
    /// Tokens in `text`, counted with the engine's tokenizer.
    pub tokens: usize,
    /// True when the count is exact (a rank table is loaded).
    pub exact: bool,
    /// Ids of records in the text, in priority order.
    pub included: Vec<String>,
    /// Ids that were candidates but did not fit the budget.
    pub dropped: Vec<String>,
    pub route: RouteName,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Instructions,
    Profile,
    Recalled,
    Documents,
    Summary,
    KeyEvents,
    Turns,
}

struct Item {
    section: Section,
    id: String,
    line: String,
    /// For turns: position in the conversation, to print them oldest first.
    order: usize,
}

impl Engram {
    /// Build the prompt context for the scope (with or without a session) under `req.budget`.
    pub fn build_context(&self, scope: &Scope, req: &ContextRequest, now: Millis) -> Result<Context> {
        scope.validate()?;
        if !(0.0..=1.0).contains(&req.archival_share) {
            return Err(crate::error::Error::invalid("archivalShare", "must be in [0, 1]"));
        }
        let turns = if scope.session.is_some() { self.recent_turns(scope, req.recent_turns)? } else { Vec::new() };
        let summary = if scope.session.is_some() { self.summary(scope)? } else { None };
        let key_events = self.key_events(scope)?;
        let mut q = RecallQuery::text(req.query.clone()).with_k(req.k);
        q.embedding = req.embedding.clone();
        q.exclude = turns.iter().chain(&key_events).map(|t| t.id.clone()).collect();
        let recall = self.recall(scope, &q, now)?;

        let mut items: Vec<Item> = Vec::new();
        let p = self.partition(scope)?;
        // Instructions come from the tenant's procedures partition only (see `procedures`):
        // nothing of the user's partition, whatever its kind or source, renders as one.
        for r in self.relevant_procedures(&scope.tenant, &req.query, req.procedure_limit) {
            items.push(Item { section: Section::Instructions, id: r.id.clone(), line: instruction_line(r), order: 0 });
        }
        let recalled: std::collections::HashSet<&str> = recall.hits.iter().map(|h| h.record.id.as_str()).collect();
        // The profile: the rules the user set and how they want answers, then the facts
        // that describe them (`profile::profile_records`), most important first.
        if let Some(part) = p {
            let settings = crate::profile::ProfileSettings::from_graph(part.graph());
            for r in &settings.rules {
                items.push(Item { section: Section::Profile, id: format!("rule/{}", r.id), line: format!("- The user asked: {}", quote(&r.text)), order: 0 });
            }
            if let Some(d) = &settings.detail {
                items.push(Item { section: Section::Profile, id: "profile/detail".into(), line: format!("- The user wants {d} answers"), order: 0 });
            }
            if let Some(t) = &settings.tone {
                items.push(Item { section: Section::Profile, id: "profile/tone".into(), line: format!("- The user wants a {t} tone"), order: 0 });
            }
            let facts = crate::profile::profile_records(part, now).into_iter().filter(|r| !recalled.contains(r.id.as_str()));
            for r in facts.take(req.profile_limit) {
                items.push(Item { section: Section::Profile, id: r.id.clone(), line: memory_line(r), order: 0 });
            }
        }
        for h in &recall.hits {
            items.push(Item { section: Section::Recalled, id: h.record.id.clone(), line: memory_line(&h.record), order: 0 });
        }
        let mut dq = RecallQuery::text(req.query.clone()).with_k(req.archival_k);
        dq.embedding = req.embedding.clone();
        let chunks = if req.archival_k > 0 && req.archival_share > 0.0 { self.search_documents(scope, &dq, now)? } else { Vec::new() };
        for c in &chunks {
            // A library chunk says so; it is data inside the untrusted block like the user's own.
            let whose = if c.shared { "shared document" } else { "document" };
            let line = format!("- {} ({whose} {}, part {} of {})", quote(&c.text), quote(&c.title), c.position + 1, c.count);
            items.push(Item { section: Section::Documents, id: c.chunk.clone(), line, order: 0 });
        }
        if let Some(s) = summary {
            items.push(Item { section: Section::Summary, id: "summary".into(), line: quote(&s), order: 0 });
        }
        for (i, t) in key_events.iter().enumerate().rev() {
            items.push(Item { section: Section::KeyEvents, id: t.id.clone(), line: format!("{}: {}", t.source.as_str(), quote(&t.text)), order: i });
        }
        for (i, t) in turns.iter().enumerate().rev() {
            items.push(Item { section: Section::Turns, id: t.id.clone(), line: format!("{}: {}", t.source.as_str(), quote(&t.text)), order: i });
        }

        // Greedy by priority with per-line counts, then verify the exact count of the
        // whole text and drop the lowest-priority item until it fits.
        let mut keep = vec![false; items.len()];
        let mut used = 0usize;
        let mut opened: Vec<Section> = Vec::new();
        let mut turns_stopped = false;
        let archival_cap = (req.budget as f32 * req.archival_share) as usize;
        let mut archival_used = 0usize;
        for (i, it) in items.iter().enumerate() {
            if it.section == Section::Turns && turns_stopped {
                continue;
            }
            let mut cost = self.tokenizer.count(&it.line).tokens + 1;
            if !opened.contains(&it.section) {
                cost += self.tokenizer.count(header(it.section)).tokens + 1;
                if it.section != Section::Instructions && !opened.iter().any(|s| *s != Section::Instructions) {
                    cost += self.tokenizer.count(OPEN).tokens + self.tokenizer.count(PREAMBLE).tokens + self.tokenizer.count(CLOSE).tokens + 3;
                }
            }
            if it.section == Section::Documents && archival_used + cost > archival_cap {
                continue;
            }
            if used + cost <= req.budget {
                used += cost;
                if it.section == Section::Documents {
                    archival_used += cost;
                }
                keep[i] = true;
                if !opened.contains(&it.section) {
                    opened.push(it.section);
                }
            } else if it.section == Section::Turns {
                turns_stopped = true;
            }
        }
        let (text, tokens) = loop {
            let text = render(&items, &keep);
            let n = self.tokenizer.count(&text).tokens;
            if n <= req.budget {
                break (text, n);
            }
            match keep.iter().rposition(|k| *k) {
                Some(last) => keep[last] = false,
                None => break (String::new(), 0),
            }
        };
        let included = items.iter().zip(&keep).filter(|(_, k)| **k).map(|(i, _)| i.id.clone()).collect();
        let dropped = items.iter().zip(&keep).filter(|(_, k)| !**k).map(|(i, _)| i.id.clone()).collect();
        Ok(Context { text, tokens, exact: self.tokenizer.is_exact(), included, dropped, route: recall.route })
    }
}

fn header(s: Section) -> &'static str {
    match s {
        Section::Instructions => "<agent-instructions>",
        Section::Profile => "[profile]",
        Section::Recalled => "[recalled]",
        Section::Documents => "[documents]",
        Section::Summary => "[conversation summary]",
        Section::KeyEvents => "[key events]",
        Section::Turns => "[recent turns]",
    }
}

fn memory_line(r: &Record) -> String {
    format!("- {} ({}, {})", quote(&r.text), r.kind.as_str(), date(r.valid_from))
}

fn render(items: &[Item], keep: &[bool]) -> String {
    let chosen: Vec<&Item> = items.iter().zip(keep).filter(|(_, k)| **k).map(|(i, _)| i).collect();
    if chosen.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let instr: Vec<&&Item> = chosen.iter().filter(|i| i.section == Section::Instructions).collect();
    if !instr.is_empty() {
        out.push_str(header(Section::Instructions));
        out.push('\n');
        for i in instr {
            out.push_str(&i.line);
            out.push('\n');
        }
        out.push_str("</agent-instructions>\n");
    }
    let data: Vec<&&Item> = chosen.iter().filter(|i| i.section != Section::Instructions).collect();
    if !data.is_empty() {
        out.push_str(OPEN);
        out.push('\n');
        out.push_str(PREAMBLE);
        out.push('\n');
        for section in [Section::Profile, Section::Recalled, Section::Documents, Section::Summary, Section::KeyEvents, Section::Turns] {
            let mut lines: Vec<&&&Item> = data.iter().filter(|i| i.section == section).collect();
            if lines.is_empty() {
                continue;
            }
            if matches!(section, Section::Turns | Section::KeyEvents) {
                crate::sort::sort_by_key(&mut lines, |i| i.order);
            }
            out.push_str(header(section));
            out.push('\n');
            for i in lines {
                out.push_str(&i.line);
                out.push('\n');
            }
        }
        out.push_str(CLOSE);
        out.push('\n');
    }
    out
}
