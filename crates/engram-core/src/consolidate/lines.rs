//! Extractive summaries: lines taken from what was said, each weighed by what it states,
//! and the heaviest chosen within an exact token budget, printed in the order they were said.

use crate::extract::{extract, is_question};
use crate::model::{Record, Source};
use crate::context::tokens::Tokenizer;

/// Longest line taken from one turn, in tokens: one long paste must not fill a summary.
pub(crate) const LINE_TOKENS: usize = 60;

/// One candidate line of a summary.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub text: String,
    pub weight: f32,
    /// The turn the line was taken from (none for a line of an earlier summary).
    pub cites: Option<String>,
}

/// What a turn weighs: its own importance, or for a user turn the importance of the
/// heaviest fact the rule extractor finds in it ("I live in Lisbon" weighs 0.85, a key
/// event; "ok" weighs what a user turn does).
pub(crate) fn turn_weight(r: &Record) -> f32 {
    if r.source != Source::User {
        return r.importance;
    }
    extract(&r.text).iter().map(|e| e.importance).fold(r.importance, f32::max)
}

/// A turn as one line: `role: text`, cut to [`LINE_TOKENS`].
pub(crate) fn turn_line(tok: &Tokenizer, r: &Record) -> String {
    let flat = r.text.split_whitespace().collect::<Vec<_>>().join(" ");
    let (cut, _) = tok.truncate(&flat, LINE_TOKENS);
    let ellipsis = if cut.len() < flat.len() { "…" } else { "" };
    format!("{}: {}{ellipsis}", r.source.as_str(), cut.trim_end())
}

/// The weight of a line of an earlier summary, recomputed from its text as [`turn_weight`]
/// weighs the turn it came from (the summary is plain text: it carries no numbers).
pub(crate) fn line_weight(line: &str) -> f32 {
    match line.split_once(": ") {
        Some(("user", said)) => {
            let own = if is_question(said) { 0.2 } else { 0.4 };
            extract(said).iter().map(|e| e.importance).fold(own, f32::max)
        }
        Some(("assistant" | "tool" | "system", _)) => 0.25,
        _ => 0.3,
    }
}

/// The indexes of the lines chosen, in their given order: heaviest first (later first
/// among equals) while they fit `budget` tokens joined by newlines — counted exactly, the
/// lightest dropped again until the joined text fits.
pub(crate) fn choose(tok: &Tokenizer, lines: &[Line], budget: usize) -> Vec<usize> {
    // Later first among equals: the slot is counted down from the top.
    let mut ranked: Vec<(u32, f32)> = lines.iter().enumerate().map(|(i, l)| (u32::MAX - i as u32, l.weight)).collect();
    crate::index::vector::top_k_by_score(&mut ranked, lines.len());
    let by_weight: Vec<usize> = ranked.into_iter().map(|(s, _)| (u32::MAX - s) as usize).collect();
    let mut chosen: Vec<usize> = Vec::new();
    let mut used = 0usize;
    for i in by_weight {
        let cost = tok.count(&lines[i].text).tokens + 1;
        if used + cost <= budget {
            used += cost;
            chosen.push(i);
        }
    }
    // `chosen` is in priority order: the last is the lightest.
    loop {
        let text = join(lines, &chosen);
        if chosen.is_empty() || tok.count(&text).tokens <= budget {
            break;
        }
        chosen.pop();
    }
    crate::sort::sort(&mut chosen);
    chosen
}

/// The chosen lines joined by newlines, in the order they were said.
pub(crate) fn join(lines: &[Line], chosen: &[usize]) -> String {
    let mut order = chosen.to_vec();
    crate::sort::sort(&mut order);
    order.iter().map(|&i| lines[i].text.as_str()).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, weight: f32) -> Line {
        Line { text: text.into(), weight, cites: None }
    }

    #[test]
    fn the_heaviest_lines_are_chosen_within_the_budget_and_printed_in_their_order() {
        let tok = Tokenizer::Heuristic;
        let lines = vec![line("user: ok", 0.4), line("user: I live in Lisbon", 0.85), line("assistant: noted, thanks for that", 0.25)];
        let chosen = choose(&tok, &lines, 12);
        assert!(chosen.contains(&1), "{chosen:?}");
        assert!(tok.count(&join(&lines, &chosen)).tokens <= 12);
        assert!(choose(&tok, &lines, 1000).len() == 3);
        assert!(choose(&tok, &lines, 0).is_empty());
    }

    #[test]
    fn a_summary_line_weighs_what_the_turn_it_came_from_weighed() {
        assert!(line_weight("user: I live in Lisbon") > 0.7);
        assert!((line_weight("user: what time is it?") - 0.2).abs() < 1e-6);
        assert!((line_weight("assistant: I live in Lisbon") - 0.25).abs() < 1e-6);
    }
}
