//! The engram runs of the harness: every turn remembered (or appended to its session) at
//! its date, each question asked once per cut-off one day after the last session.

use std::collections::HashMap;
use std::time::Instant;

use engram_core::calendar::DAY_MS;
use engram_core::consolidate::{Consolidation, CITES_PREFIX};
use engram_core::read::dated::named_period;
use engram_core::model::{Kind, Record};
use engram_core::{Config, Engram, MemoryInput, RecallQuery, Scope, Turn};

use super::{Embed, LocomoQuestion, LocomoSample, Measures, Run, CUTS};

/// Remember every turn of every sample through the core as the protocol says, at its
/// session's date (or all at the last session's, with `same_moment`), and ask each
/// question one day after the last session, once per cut-off.
pub fn evaluate(samples: &[LocomoSample], config: &Config, embed: Option<Embed>, same_moment: bool) -> Run {
    let mut run = Run::default();
    for s in samples {
        let mut per_sample = Measures::default();
        let mut mem = Engram::new(config.clone(), 1);
        let scope = Scope::user("locomo", &s.id);
        let mut turns_of: HashMap<String, Vec<String>> = HashMap::new();
        let last = s.turns.iter().map(|t| t.at).max().unwrap_or(0);
        for t in &s.turns {
            let text = format!("{}: {}", t.speaker, t.text);
            let mut input = MemoryInput::fact(&text);
            if let Some(v) = embed.map(|e| e(&text)).filter(|v| v.iter().any(|x| *x != 0.0)) {
                input = input.with_embedding(v);
            }
            let out = mem.remember(&scope, input, if same_moment { last } else { t.at }).unwrap_or_else(|e| panic!("remember {}: {e}", t.dia_id));
            let ids = turns_of.entry(out.id).or_default();
            run.merged += usize::from(!ids.is_empty());
            ids.push(t.dia_id.clone());
        }
        for q in &s.questions {
            let ranked = ask(&mem, &scope, &q.question, embed, last + DAY_MS, &mut run, &|r| turns_of.get(&r.id).cloned().unwrap_or_default());
            let missed: Vec<&String> = q.evidence.iter().filter(|e| !ranked[2].iter().any(|ids| ids.contains(e))).collect();
            if !missed.is_empty() {
                let said = |id: &str| s.turns.iter().find(|t| t.dia_id == id).map_or(String::new(), |t| format!("{}: {}", t.speaker, t.text));
                let mut lines = vec![format!("[{} c{}] {}", s.id, q.category, q.question)];
                lines.extend(missed.iter().map(|m| format!("  missed {m}  {}", said(m))));
                lines.extend(ranked[2].iter().take(3).map(|ids| format!("  got {}  {}", ids.join(","), ids.first().map_or(String::new(), |i| said(i)))));
                run.misses.push(lines.join("\n"));
            }
            // The speakers' names are left out on both sides: every line carries one.
            let said_terms = |id: &str| s.turns.iter().find(|t| t.dia_id == id).map_or(Vec::new(), |t| engram_core::index::lexical::terms::index_terms(&t.text));
            let names: Vec<String> = s.turns.iter().flat_map(|t| engram_core::index::lexical::terms::index_terms(&t.speaker)).collect();
            let asked: Vec<String> = engram_core::index::lexical::terms::index_terms(&q.question).into_iter().filter(|t| !names.contains(t)).collect();
            run.unmatched_evidence.1 += q.evidence.len();
            let unmatched = |e: &String| !said_terms(e).iter().any(|t| asked.contains(t));
            let near_match = |e: &String| {
                let Some(i) = s.turns.iter().position(|t| &t.dia_id == e) else { return false };
                let session = s.turns[i].session;
                (i.saturating_sub(2)..(i + 3).min(s.turns.len())).any(|j| s.turns[j].session == session && !unmatched(&s.turns[j].dia_id))
            };
            let share = |f: &dyn Fn(&String) -> bool| q.evidence.iter().filter(|e| f(e)).count() as f64 / q.evidence.len() as f64;
            run.word_ceiling.0 += share(&|e| !unmatched(e));
            run.word_ceiling.1 += share(&near_match);
            run.unmatched_evidence.0 += q.evidence.iter().filter(|e| unmatched(e)).count();
            run.missed_evidence.0 += missed.len();
            run.missed_evidence.1 += missed.iter().filter(|e| unmatched(e)).count();
            credit(&mut run, &mut per_sample, q, &ranked, last + DAY_MS);
        }
        run.by_sample.push((s.id.clone(), per_sample));
    }
    run.latencies.sort_by(f64::total_cmp);
    run
}

/// Ask `question` at `now` once per cut-off (see [`Measures::add`]); each hit stands for
/// the turns `covers` names. The `k = 10` call's latency, emptiness and episode hits are
/// counted in `run`.
fn ask(mem: &Engram, scope: &Scope, question: &str, embed: Option<Embed>, now: i64, run: &mut Run, covers: &dyn Fn(&Record) -> Vec<String>) -> [Vec<Vec<String>>; 4] {
    let embedding = embed.map(|e| e(question));
    CUTS.map(|k| {
        let mut rq = RecallQuery::text(question).with_k(k);
        rq.embedding = embedding.clone();
        let t = Instant::now();
        let r = mem.recall(scope, &rq, now).unwrap_or_else(|e| panic!("recall: {e}"));
        if k == 10 {
            run.latencies.push(t.elapsed().as_secs_f64() * 1e3);
            run.empty += usize::from(r.hits.is_empty());
            run.episode_hits += r.hits.iter().filter(|h| h.record.kind == Kind::Episode).count();
        }
        r.hits.iter().map(|h| covers(&h.record)).collect::<Vec<_>>()
    })
}

/// Count one question's answers overall, in its conversation, in its category, and among
/// the questions that name no date when it names none (asked at `now`).
fn credit(run: &mut Run, per_sample: &mut Measures, q: &LocomoQuestion, ranked: &[Vec<Vec<String>>; 4], now: i64) {
    run.measures.add(&q.evidence, ranked);
    if named_period(&q.question, now).is_none() {
        run.undated.add(&q.evidence, ranked);
    }
    per_sample.add(&q.evidence, ranked);
    run.by_category.entry(q.category).or_default().add(&q.evidence, ranked);
}

/// The session protocol, for consolidation on vs off (issue 19): every turn is appended to
/// its LoCoMo session (`s<n>`) as a user turn `"<speaker>: <text>"` with its vector, at its
/// session's date, and each session is ended after its last turn — so with `consolidation`
/// its old turns fold (compression) and its episode is written. Questions are asked as in
/// [`evaluate`]. A recalled turn maps to itself; a recalled episode to the turns it cites
/// (`turn:<id>` tags) when `credit_episodes`, else to nothing.
pub fn evaluate_sessions(samples: &[LocomoSample], config: &Config, consolidation: &Consolidation, embed: Option<Embed>, credit_episodes: bool) -> Run {
    let mut run = Run::default();
    for s in samples {
        let mut mem = Engram::new(config.clone(), 1);
        mem.set_consolidation(consolidation.clone()).unwrap_or_else(|e| panic!("consolidation: {e}"));
        let user = Scope::user("locomo", &s.id);
        let mut dia_of: HashMap<String, String> = HashMap::new();
        let last = s.turns.iter().map(|t| t.at).max().unwrap_or(0);
        for (i, t) in s.turns.iter().enumerate() {
            let at = user.clone().with_session(format!("s{}", t.session));
            let text = format!("{}: {}", t.speaker, t.text);
            let mut turn = Turn::user(&text);
            turn.embedding = embed.map(|e| e(&text)).filter(|v| v.iter().any(|x| *x != 0.0));
            let id = mem.append_turn(&at, turn, t.at).unwrap_or_else(|e| panic!("append {}: {e}", t.dia_id));
            dia_of.insert(id, t.dia_id.clone());
            if s.turns.get(i + 1).is_none_or(|n| n.session != t.session) {
                mem.end_session(&at, t.at).unwrap_or_else(|e| panic!("end session {}: {e}", t.session));
            }
        }
        let all = mem.list(&user, &engram_core::ListFilter { include_superseded: true, ..Default::default() }, last).unwrap_or_default();
        run.episodes += all.iter().filter(|r| r.kind == Kind::Episode).count();
        run.folded += dia_of.len() - all.iter().filter(|r| r.kind == Kind::Message && r.layer == engram_core::model::Layer::Working).count();
        let covers = |r: &Record| -> Vec<String> {
            if let Some(d) = dia_of.get(&r.id) {
                return vec![d.clone()];
            }
            if !credit_episodes || r.kind != Kind::Episode {
                return Vec::new();
            }
            r.tags.iter().filter_map(|t| t.strip_prefix(CITES_PREFIX)).filter_map(|id| dia_of.get(id).cloned()).collect()
        };
        let mut per_sample = Measures::default();
        for q in &s.questions {
            let ranked = ask(&mem, &user, &q.question, embed, last + DAY_MS, &mut run, &covers);
            credit(&mut run, &mut per_sample, q, &ranked, last + DAY_MS);
        }
        run.by_sample.push((s.id.clone(), per_sample));
    }
    run.latencies.sort_by(f64::total_cmp);
    run
}
