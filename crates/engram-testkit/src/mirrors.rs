//! What the TypeScript SDK mirrors by hand, written from the Rust definitions so an SDK
//! test can check the copies (`pkg/src/errors.ts`, `pkg/src/types.ts`) have not drifted:
//! `tests/vectors/error-codes.json` (every error code the core and the binding raise, with
//! its class) and `tests/vectors/types.json` (the JSON field names serde writes for each
//! type the SDK declares, and the string values of each enum). Enum lists are checked by
//! `match`es without a wildcard, so a new variant does not compile until it is listed here.

use engram_core::write::resolution::Resolution;
use engram_core::knowledge::graph::{Entity, EntityRef, GraphAnswer, GraphQuery};
use engram_core::pii::{PiiKind, Sealed};
use engram_core::{
    ChunkHit, Config, Context, Document, DocumentInput, Engram, FactKey, Hit, Kind, Layer, ListFilter, MemoryInput, Recall, Record, RouteName, Scope, ScoreParts, Sensitivity,
    Source, TokenCount, WriteAction, WriteOutcome,
};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// `tests/vectors/error-codes.json`: `{ "codes": { CODE: "input" | "data" } }`, the core's
/// codes (one per [`engram_core::Error`] variant) and the binding's own.
pub fn error_codes() -> String {
    let mut codes = Map::new();
    for e in engram_core::testing::error_examples() {
        codes.insert(e.code().to_owned(), json!(e.class().name()));
    }
    for (code, class) in engram_wasm::ERROR_CODES {
        codes.insert(code.to_owned(), json!(class.name()));
    }
    pretty(&json!({ "writtenBy": WRITTEN_BY, "codes": codes }))
}

/// `tests/vectors/types.json`: `objects` (TS interface name → the JSON field names of the
/// Rust type it mirrors), `unions` (TS string-union name → the enum's values) and `tagged`
/// (the graph templates: tag value → field names).
pub fn types() -> String {
    let (record, outcome) = sample_record();
    let parts = ScoreParts::default();
    let hit = Hit { record: record.clone(), score: 0.0, parts: parts.clone() };
    let scope = Scope::user("t", "u").with_session("s");
    let objects = json!({
        "FactKey": fields(&FactKey { subject: "s".into(), attribute: "a".into() }),
        "Scope": fields(&scope),
        "MemoryInput": fields(&MemoryInput::default()),
        "SealedValue": fields(&Sealed { placeholder: "p".into(), kind: PiiKind::Email, cipher: "c".into() }),
        "MemoryRecord": fields(&record),
        "WriteOutcome": fields(&outcome),
        "ScoreParts": fields(&parts),
        "Hit": fields(&hit),
        "Recall": fields(&Recall { route: RouteName::Retrieve, hits: vec![hit.clone()] }),
        "Context": fields(&Context { text: String::new(), tokens: 0, exact: true, included: vec![], dropped: vec![], route: RouteName::Empty }),
        "TokenCount": fields(&TokenCount { tokens: 0, exact: true }),
        "ListFilter": fields(&ListFilter::default()),
        "EntityRef": fields(&EntityRef::new("Ann", "person")),
        "Entity": fields(&Entity { id: "ann".into(), name: "Ann".into(), kind: "person".into(), attributes: Default::default() }),
        "GraphAnswer": fields(&GraphAnswer::default()),
        "Document": fields(&sample_document()),
        "ChunkHit": fields(&ChunkHit {
            chunk: "c".into(), document: "d".into(), title: String::new(), position: 0, count: 1, text: "t".into(),
            previous: None, next: None, score: 0.0, parts: parts.clone(), shared: false,
        }),
    });
    let unions = json!({
        "Kind": values(&kinds()),
        "Layer": values(&layers()),
        "Source": values(&sources()),
        "Sensitivity": values(&sensitivities()),
        "Resolution": values(&resolutions()),
        "PiiKind": values(&pii_kinds()),
        "Route": values(&routes()),
        "WriteOutcome.action": values(&write_actions()),
    });
    let mut templates = Map::new();
    for q in graph_queries() {
        let Value::Object(mut m) = to_value(&q) else { continue };
        let Some(Value::String(tag)) = m.remove("template") else { continue };
        templates.insert(tag, json!(m.keys().collect::<Vec<_>>()));
    }
    let tagged = json!({ "GraphQuery": { "tag": "template", "variants": templates } });
    pretty(&json!({ "writtenBy": WRITTEN_BY, "objects": objects, "unions": unions, "tagged": tagged }))
}

const WRITTEN_BY: &str = "cargo run --release -p engram-testkit --bin write-vectors -- tests/vectors";

fn sample_record() -> (Record, WriteOutcome) {
    let mut e = Engram::new(Config::default(), 1);
    let s = Scope::user("t", "u");
    let ok = "a valid write";
    let outcome = e.remember(&s, MemoryInput::fact("Ann likes tea").with_key("ann", "drink"), 1_000).expect(ok);
    (e.get(&s, &outcome.id).expect(ok), outcome)
}

fn sample_document() -> Document {
    let mut e = Engram::new(Config::default(), 1);
    let s = Scope::user("t", "u");
    let ok = "a valid document";
    e.put_document(&s, DocumentInput { title: "T".into(), ..DocumentInput::new("d", "Some text.") }, 1_000).expect(ok);
    e.get_document(&s, "d").expect(ok)
}

fn to_value(v: &impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn fields(v: &impl Serialize) -> Value {
    match to_value(v) {
        Value::Object(m) => json!(m.keys().collect::<Vec<_>>()),
        other => json!({ "notAnObject": other }),
    }
}

fn values<T: Serialize>(all: &[T]) -> Value {
    Value::Array(all.iter().map(to_value).collect())
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}

// Each list below is followed by a `match` without a wildcard: a variant added to the core
// fails to compile here until it is listed (and so checked against the SDK).

fn kinds() -> Vec<Kind> {
    use Kind::*;
    let _listed = |k: Kind| match k {
        Message | Fact | Preference | Event | Episode | Instruction | Task | Pattern | Summary | Chunk | Document => (),
    };
    vec![Message, Fact, Preference, Event, Episode, Instruction, Task, Pattern, Summary, Chunk, Document]
}

fn layers() -> Vec<Layer> {
    use Layer::*;
    let _listed = |l: Layer| match l {
        Working | Episodic | Semantic | Archival | Procedural => (),
    };
    vec![Working, Episodic, Semantic, Archival, Procedural]
}

fn sources() -> Vec<Source> {
    use Source::*;
    let _listed = |s: Source| match s {
        System | User | Assistant | Tool | RuleExtracted | LlmExtracted => (),
    };
    vec![System, User, Assistant, Tool, RuleExtracted, LlmExtracted]
}

fn sensitivities() -> Vec<Sensitivity> {
    use Sensitivity::*;
    let _listed = |s: Sensitivity| match s {
        Public | Session | Personal => (),
    };
    vec![Public, Session, Personal]
}

fn resolutions() -> Vec<Resolution> {
    use Resolution::*;
    let _listed = |r: Resolution| match r {
        KeepNew | KeepOld | Merge | Flag => (),
    };
    vec![KeepNew, KeepOld, Merge, Flag]
}

fn pii_kinds() -> Vec<PiiKind> {
    use PiiKind::*;
    let _listed = |k: PiiKind| match k {
        Secret | ApiKey | ChinaId | Card | Iban | Email | Phone | Ip => (),
    };
    vec![Secret, ApiKey, ChinaId, Card, Iban, Email, Phone, Ip]
}

fn routes() -> Vec<RouteName> {
    use RouteName::*;
    let _listed = |r: RouteName| match r {
        Retrieve | SmallTalk | Empty => (),
    };
    vec![Retrieve, SmallTalk, Empty]
}

fn write_actions() -> Vec<WriteAction> {
    use WriteAction::*;
    let _listed = |a: WriteAction| match a {
        Inserted | Duplicate | Reinforced | Dropped | Rejected | Flagged => (),
    };
    vec![Inserted, Duplicate, Reinforced, Dropped, Rejected, Flagged]
}

fn graph_queries() -> Vec<GraphQuery> {
    let s = || "x".to_owned();
    let _listed = |q: &GraphQuery| match q {
        GraphQuery::Neighbours { .. }
        | GraphQuery::Path { .. }
        | GraphQuery::Reachable { .. }
        | GraphQuery::SharedTasks { .. }
        | GraphQuery::ProjectsUnder { .. } => (),
    };
    vec![
        GraphQuery::Neighbours { entity: s(), relation: Some(s()) },
        GraphQuery::Path { from: s(), to: s(), max_depth: 1 },
        GraphQuery::Reachable { entity: s(), relations: vec![s()], max_depth: 1 },
        GraphQuery::SharedTasks { a: s(), b: s() },
        GraphQuery::ProjectsUnder { initiative: s(), max_depth: 1 },
    ]
}
