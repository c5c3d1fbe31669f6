//! The default embedder's retrieval evaluation: chatterbot-corpus questions (English and
//! Chinese, data no one here wrote; exported by `scripts/distill/distill.py`), each to be
//! answered by finding one of its answers among all answers — through the core's recall,
//! with the vector channel alone, BM25 alone, and fused.

use std::path::{Path, PathBuf};

use engram_core::embed::{BertConfig, BertEmbedder, StaticEmbedder};
use engram_core::index::lexical::terms::is_cjk;
use engram_core::{ChannelWeights, Config, Engram, MemoryInput, RecallQuery, Scope};

/// Where the committed table lives.
pub fn default_table_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/embed/minilm-l6-v2-static-256.engemb")
}

/// Load the committed default table.
pub fn load_default_table() -> StaticEmbedder {
    let bytes = std::fs::read(default_table_path()).unwrap_or_else(|e| panic!("read the default table: {e}"));
    StaticEmbedder::from_bytes(&bytes).unwrap_or_else(|e| panic!("load the default table: {e}"))
}

/// Where the full all-MiniLM-L6-v2 lives: `$ENGRAM_MINILM_DIR`, else where
/// `scripts/env.sh`'s `ensure_minilm` puts it (`scripts/test.sh` runs that first).
pub fn minilm_dir() -> PathBuf {
    std::env::var_os("ENGRAM_MINILM_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var_os("HOME").unwrap_or_else(|| panic!("neither ENGRAM_MINILM_DIR nor HOME is set"));
        PathBuf::from(home).join(".cache/engram-models/all-MiniLM-L6-v2")
    })
}

/// The full all-MiniLM-L6-v2, run by the core (see [`minilm_dir`]).
pub fn load_minilm() -> BertEmbedder {
    let dir = minilm_dir();
    let weights = std::fs::read(dir.join("model.safetensors")).unwrap_or_else(|e| panic!("read {}/model.safetensors: {e} (fetch it: source scripts/env.sh && ensure_minilm)", dir.display()));
    let vocab = std::fs::read_to_string(dir.join("vocab.txt")).unwrap_or_else(|e| panic!("read {}/vocab.txt: {e}", dir.display()));
    BertEmbedder::from_safetensors(&weights, &vocab, BertConfig::MINILM_L6).unwrap_or_else(|e| panic!("load all-MiniLM-L6-v2: {e}"))
}

/// The question → answers task.
pub struct QaTask {
    pub answers: Vec<String>,
    /// Each question with the indexes of its answers.
    pub questions: Vec<(String, Vec<usize>)>,
}

/// Load `data/qa_chatterbot.tsv`.
pub fn load_task() -> QaTask {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/qa_chatterbot.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut task = QaTask { answers: Vec::new(), questions: Vec::new() };
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            ["a", _, text, ..] => task.answers.push((*text).to_owned()),
            ["q", _, text, gold] => task.questions.push(((*text).to_owned(), gold.split(',').filter_map(|g| g.parse().ok()).collect())),
            _ => panic!("bad line in {}: {line:?}", path.display()),
        }
    }
    task
}

/// The questions written in Chinese (`chinese`) or not, with their vectors from
/// `question_vecs`; the answers stay all of them.
pub fn questions_in(task: &QaTask, question_vecs: &[Vec<f32>], chinese: bool) -> (QaTask, Vec<Vec<f32>>) {
    let keep: Vec<usize> = (0..task.questions.len()).filter(|&i| task.questions[i].0.chars().any(is_cjk) == chinese).collect();
    let questions = keep.iter().map(|&i| task.questions[i].clone()).collect();
    (QaTask { answers: task.answers.clone(), questions }, keep.iter().map(|&i| question_vecs[i].clone()).collect())
}

/// Which channels a run uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Channels {
    Vector,
    Lexical,
    /// Both, fused with these weights (vector, lexical).
    Hybrid(f32, f32),
}

/// recall@1 and recall@10 over the task's questions.
#[derive(Debug, Clone, Copy)]
pub struct QaScore {
    pub at1: f64,
    pub at10: f64,
}

/// Run the task through the core's recall at the default `rrf_k`. `answer_vecs` /
/// `question_vecs` come from the embedder (computed once by the caller).
pub fn evaluate(task: &QaTask, answer_vecs: &[Vec<f32>], question_vecs: &[Vec<f32>], channels: Channels) -> QaScore {
    evaluate_at_k(task, answer_vecs, question_vecs, channels, Config::default().rrf_k)
}

/// [`evaluate`] with reciprocal-rank fusion's `k` set to `rrf_k`.
pub fn evaluate_at_k(task: &QaTask, answer_vecs: &[Vec<f32>], question_vecs: &[Vec<f32>], channels: Channels, rrf_k: f32) -> QaScore {
    let (wv, wl) = match channels {
        Channels::Vector => (1.0, 0.0),
        Channels::Lexical => (0.0, 1.0),
        Channels::Hybrid(v, l) => (v, l),
    };
    let config = Config {
        dedup_threshold: 1.01, // distinct answers stay distinct
        weights: ChannelWeights { vector: wv, lexical: wl, key: 0.0, graph: 0.0 },
        min_similarity: -1.0,
        rrf_k,
        ..Config::default()
    };
    let mut e = Engram::new(config, 1);
    let s = Scope::user("eval", "qa");
    let now = 1_764_000_000_000;
    let mut id_of = Vec::new();
    for (text, v) in task.answers.iter().zip(answer_vecs) {
        let mut m = MemoryInput::fact(text.clone());
        if v.iter().any(|x| *x != 0.0) {
            m = m.with_embedding(v.clone()); // zeros: the table declined this text
        }
        let out = e.remember(&s, m, now).unwrap_or_else(|e| panic!("{e}"));
        id_of.push(out.id);
    }
    let (mut hit1, mut hit10) = (0usize, 0usize);
    for ((q, gold), qv) in task.questions.iter().zip(question_vecs) {
        let mut query = RecallQuery::text(if channels == Channels::Vector { String::new() } else { q.clone() }).with_k(10);
        query.force = true;
        if channels != Channels::Lexical && qv.iter().any(|x| *x != 0.0) {
            query.embedding = Some(qv.clone());
        }
        let hits = e.recall(&s, &query, now).unwrap_or_else(|e| panic!("{e}")).hits;
        let rank = hits.iter().position(|h| gold.iter().any(|&g| id_of[g] == h.record.id));
        hit1 += usize::from(rank == Some(0));
        hit10 += usize::from(rank.is_some());
    }
    let n = task.questions.len() as f64;
    QaScore { at1: hit1 as f64 / n, at10: hit10 as f64 / n }
}

/// Cosine similarity of two vectors (for parity checks against reference vectors).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (n(a) * n(b))
}

/// `sentence<TAB>space-separated floats` lines of a parity file.
pub fn parity_rows(tsv: &str) -> Vec<(&str, Vec<f32>)> {
    tsv.lines()
        .map(|line| {
            let (sentence, numbers) = line.split_once('\t').unwrap_or_else(|| panic!("sentence<TAB>vector: {line:?}"));
            (sentence, numbers.split(' ').map(|x| x.parse().unwrap_or_else(|e| panic!("{x:?}: {e}"))).collect())
        })
        .collect()
}

/// Embed every answer and question of the task.
pub fn embed_task(task: &QaTask, embed: impl Fn(&str) -> Vec<f32>) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let a = task.answers.iter().map(|t| embed(t)).collect();
    let q = task.questions.iter().map(|(t, _)| embed(t)).collect();
    (a, q)
}
