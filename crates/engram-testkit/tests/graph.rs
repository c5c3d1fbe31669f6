//! The knowledge graph: named templates with bound parameters, checked against brute
//! force on seeded random graphs; the graph recall channel; sync and forgetting.

use std::collections::{BTreeMap, BTreeSet};

use engram_core::knowledge::graph::{norm, EntityRef, GraphQuery, Relation};
use engram_core::{Config, Engram, MemoryInput, RecallQuery, Scope};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const T0: i64 = 1_764_000_000_000;

fn user() -> Scope {
    Scope::user("t", "pm")
}

fn names(a: &engram_core::knowledge::graph::GraphAnswer) -> Vec<String> {
    a.entities.iter().map(|e| e.name.clone()).collect()
}

#[test]
fn the_status_of_the_task_alice_and_bob_work_on_and_deadlines_under_an_initiative() {
    let mut e = Engram::new(Config::default(), 1);
    let s = user();
    let (alice, bob, carol) = (EntityRef::new("Alice", "person"), EntityRef::new("Bob", "person"), EntityRef::new("Carol", "person"));
    let billing = EntityRef::new("Billing revamp", "task");
    let onboarding = EntityRef::new("Onboarding flow", "task");
    for (who, task) in [(&alice, &billing), (&bob, &billing), (&alice, &onboarding), (&carol, &onboarding)] {
        e.relate(&s, Relation::new(who.clone(), "works on", task.clone()), T0).expect("relate");
    }
    e.set_entity_attribute(&s, &billing, "status", "in review", T0).expect("attr");
    e.set_entity_attribute(&s, &onboarding, "status", "blocked", T0).expect("attr");
    let shared = e.graph_query(&s, &GraphQuery::SharedTasks { a: "alice".into(), b: "BOB".into() }).expect("query");
    assert_eq!(names(&shared), vec!["Billing revamp"]);
    assert_eq!(shared.entities[0].attributes.get("status").map(String::as_str), Some("in review"));

    let growth = EntityRef::new("Growth 2027", "initiative");
    let pricing = EntityRef::new("Pricing page", "project");
    let checkout = EntityRef::new("Checkout v2", "project");
    let stream = EntityRef::new("Payments stream", "workstream");
    let unrelated = EntityRef::new("Office move", "project");
    e.relate(&s, Relation::new(pricing.clone(), "part of", growth.clone()), T0).expect("r");
    e.relate(&s, Relation::new(stream.clone(), "part of", growth.clone()), T0).expect("r");
    e.relate(&s, Relation::new(checkout.clone(), "part of", stream.clone()), T0).expect("r");
    e.relate(&s, Relation::new(unrelated.clone(), "part of", EntityRef::new("Facilities", "initiative")), T0).expect("r");
    e.set_entity_attribute(&s, &pricing, "deadline", "2027-01-15", T0).expect("a");
    e.set_entity_attribute(&s, &checkout, "deadline", "2027-03-01", T0).expect("a");
    let one_hop = e.graph_query(&s, &GraphQuery::ProjectsUnder { initiative: "Growth 2027".into(), max_depth: 1 }).expect("q");
    assert_eq!(names(&one_hop), vec!["Pricing page"]);
    let two_hops = e.graph_query(&s, &GraphQuery::ProjectsUnder { initiative: "Growth 2027".into(), max_depth: 2 }).expect("q");
    let deadlines: BTreeMap<String, String> =
        two_hops.entities.iter().map(|e| (e.name.clone(), e.attributes.get("deadline").cloned().unwrap_or_default())).collect();
    assert_eq!(deadlines, BTreeMap::from([("Checkout v2".into(), "2027-03-01".into()), ("Pricing page".into(), "2027-01-15".into())]));
    // A removed relation is gone from every template.
    e.relate(&s, Relation::new(bob.clone(), "works on", billing.clone()).removed(), T0 + 1).expect("remove");
    assert!(e.graph_query(&s, &GraphQuery::SharedTasks { a: "Alice".into(), b: "Bob".into() }).expect("q").entities.is_empty());
}

/// A seeded random graph and its undirected adjacency (the brute-force oracle's view).
fn random_graph(seed: u64) -> (Engram, Vec<String>, BTreeMap<String, BTreeSet<String>>, Vec<(String, String, String)>) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut e = Engram::new(Config::default(), 1);
    let names: Vec<String> = (0..40).map(|i| format!("N{i}")).collect();
    let rels = ["knows", "owns", "part_of"];
    let mut adj: BTreeMap<String, BTreeSet<String>> = names.iter().map(|n| (norm(n), BTreeSet::new())).collect();
    let mut edges = Vec::new();
    for _ in 0..60 {
        let (a, b) = (rng.gen_range(0..40), rng.gen_range(0..40));
        if a == b {
            continue;
        }
        let rel = rels[rng.gen_range(0..3)];
        e.relate(&user(), Relation::new(EntityRef::new(&names[a], "thing"), rel, EntityRef::new(&names[b], "thing")), T0).expect("r");
        adj.get_mut(&norm(&names[a])).expect("node").insert(norm(&names[b]));
        adj.get_mut(&norm(&names[b])).expect("node").insert(norm(&names[a]));
        edges.push((norm(&names[a]), rel.to_owned(), norm(&names[b])));
    }
    (e, names, adj, edges)
}

/// All-pairs shortest hop counts by repeated relaxation (brute force).
fn all_pairs(adj: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<(String, String), usize> {
    let mut d: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (a, ns) in adj {
        d.insert((a.clone(), a.clone()), 0);
        for b in ns {
            d.insert((a.clone(), b.clone()), 1);
        }
    }
    let nodes: Vec<&String> = adj.keys().collect();
    for k in &nodes {
        for i in &nodes {
            for j in &nodes {
                if let (Some(&ik), Some(&kj)) = (d.get(&((*i).clone(), (*k).clone())), d.get(&((*k).clone(), (*j).clone()))) {
                    let cur = d.get(&((*i).clone(), (*j).clone())).copied().unwrap_or(usize::MAX);
                    if ik + kj < cur {
                        d.insert(((*i).clone(), (*j).clone()), ik + kj);
                    }
                }
            }
        }
    }
    d
}

#[test]
fn path_and_reachable_templates_agree_with_brute_force_on_seeded_graphs() {
    for seed in 0..8u64 {
        let (e, names, adj, edges) = random_graph(seed);
        let dist = all_pairs(&adj);
        for a in &names {
            for b in names.iter().step_by(3) {
                for max_depth in [1usize, 2, 3, 6] {
                    let ans = e.graph_query(&user(), &GraphQuery::Path { from: a.clone(), to: b.clone(), max_depth }).expect("q");
                    let truth = dist.get(&(norm(a), norm(b))).copied().filter(|d| *d <= max_depth);
                    let known = adj[&norm(a)].len() + adj[&norm(b)].len() > 0 || a == b;
                    match truth {
                        Some(d) if known || d == 0 => {
                            if a == b && adj[&norm(a)].is_empty() {
                                continue; // an entity with no edges does not exist in the graph
                            }
                            assert_eq!(ans.path.len(), d + 1, "seed {seed}: {a}→{b} within {max_depth}");
                            for w in ans.path.windows(2) {
                                assert!(adj[&w[0]].contains(&w[1]), "seed {seed}: not an edge {w:?}");
                            }
                        }
                        _ => assert!(ans.path.is_empty(), "seed {seed}: {a}→{b} within {max_depth} should have no path"),
                    }
                }
            }
        }
        // Reachable along `knows` only, depth ≤ 3, against a brute-force closure.
        for a in names.iter().take(10) {
            let mut truth = BTreeSet::new();
            let mut frontier = vec![norm(a)];
            for _ in 0..3 {
                let mut next = Vec::new();
                for n in &frontier {
                    for (f, r, t) in &edges {
                        if f == n && r == "knows" && *t != norm(a) && truth.insert(t.clone()) {
                            next.push(t.clone());
                        }
                    }
                }
                frontier = next;
            }
            let got: BTreeSet<String> = e
                .graph_query(&user(), &GraphQuery::Reachable { entity: a.clone(), relations: vec!["knows".into()], max_depth: 3 })
                .expect("q")
                .entities
                .into_iter()
                .map(|x| x.id)
                .collect();
            assert_eq!(got, truth, "seed {seed} from {a}");
        }
    }
}

#[test]
fn graph_facts_join_recall_through_the_records_edges_cite() {
    let mut e = Engram::new(Config::default(), 1);
    let s = user();
    let rec = e.remember(&s, MemoryInput::fact("Kickoff notes: the billing revamp starts in January"), T0).expect("m").id;
    e.relate(&s, Relation::new(EntityRef::new("Dmitri", "person"), "works on", EntityRef::new("Billing revamp", "task")).citing(&rec), T0).expect("r");
    let hits = e.recall(&s, &RecallQuery::text("what is Dmitri busy with?"), T0).expect("recall").hits;
    assert_eq!(hits.first().map(|h| h.record.id.clone()), Some(rec));
    assert_eq!(hits[0].parts.graph, Some(1));
    assert_eq!(hits[0].parts.lexical, None, "found through the graph, not the words");
}

#[test]
fn graph_ops_converge_and_forgetting_the_user_removes_the_graph() {
    let s = user();
    let mut a = Engram::new(Config::default(), 1);
    let mut b = Engram::new(Config::default(), 2);
    a.relate(&s, Relation::new(EntityRef::new("Ann", "person"), "manages", EntityRef::new("Team X", "team")), T0).expect("a");
    b.relate(&s, Relation::new(EntityRef::new("Ann", "person"), "manages", EntityRef::new("Team X", "team")).removed(), T0 + 5).expect("b");
    b.set_entity_attribute(&s, &EntityRef::new("Team X", "team"), "size", "7", T0 + 6).expect("b");
    let (oa, ob) = (a.take_pending(), b.take_pending());
    a.apply_ops(ob).expect("a");
    b.apply_ops(oa).expect("b");
    let q = GraphQuery::Neighbours { entity: "Ann".into(), relation: None };
    assert_eq!(a.graph_query(&s, &q).expect("q"), b.graph_query(&s, &q).expect("q"));
    assert!(a.graph_query(&s, &q).expect("q").entities.is_empty(), "the later removal wins");
    let restored = Engram::from_snapshot(&a.snapshot().expect("snap")).expect("restore");
    assert_eq!(restored.graph_query(&s, &q).expect("q"), a.graph_query(&s, &q).expect("q"));
    a.forget_user(&s, T0 + 100).expect("forget");
    let team = a.graph_query(&s, &GraphQuery::Neighbours { entity: "Team X".into(), relation: None }).expect("q");
    assert!(team.entities.is_empty());
    assert!(a.snapshot().expect("snap").len() < restored.snapshot().expect("snap").len());
}

#[test]
fn facts_observed_in_conversation_join_the_graph_and_a_superseding_fact_moves_the_edge() {
    let mut e = Engram::new(Config::default(), 1);
    let s = user();
    e.observe(&s, &["I work at Alibaba. I live in Hangzhou. I prefer Python for scripting.", "我擅长Rust。"], T0).expect("observe");
    let of = |e: &Engram, rel: &str| {
        let q = GraphQuery::Neighbours { entity: "user".into(), relation: Some(rel.into()) };
        names(&e.graph_query(&s, &q).expect("query"))
    };
    assert_eq!(of(&e, "works_at"), vec!["Alibaba"]);
    assert_eq!(of(&e, "lives_in"), vec!["Hangzhou"]);
    assert_eq!(of(&e, "prefers"), vec!["Python"]);
    assert_eq!(of(&e, "skilled_in"), vec!["Rust"]);
    let alibaba = e.graph_query(&s, &GraphQuery::Neighbours { entity: "user".into(), relation: Some("works_at".into()) }).expect("q");
    assert_eq!(alibaba.entities[0].kind, "organization");

    e.observe(&s, &["I switched from Python to Go last month."], T0 + 1).expect("observe");
    assert_eq!(of(&e, "prefers"), vec!["Go"], "the superseded preference's edge is removed");
    // The graph channel now finds the fact through the entity the query names.
    let hits = e.recall(&s, &RecallQuery::text("anything about Alibaba?"), T0 + 2).expect("recall");
    let top = hits.hits.first().expect("a hit");
    assert_eq!(top.record.text, "User works at Alibaba");
}

#[test]
fn every_template_reads_back_from_the_data_it_writes_and_bad_queries_are_named() {
    let queries = [
        GraphQuery::Neighbours { entity: "Ann".into(), relation: Some("knows".into()) },
        GraphQuery::Neighbours { entity: "Ann".into(), relation: None },
        GraphQuery::Path { from: "Ann".into(), to: "Bob".into(), max_depth: 3 },
        GraphQuery::Reachable { entity: "Ann".into(), relations: vec!["knows".into(), "part_of".into()], max_depth: 2 },
        GraphQuery::SharedTasks { a: "Ann".into(), b: "Bob".into() },
        GraphQuery::ProjectsUnder { initiative: "Growth".into(), max_depth: 2 },
    ];
    for q in queries {
        let json = serde_json::to_string(&q).expect("write");
        assert!(json.contains("\"template\":"), "{json}");
        assert_eq!(serde_json::from_str::<GraphQuery>(&json).expect("read"), q, "{json}");
    }
    let err = |s: &str| serde_json::from_str::<GraphQuery>(s).expect_err(s).to_string();
    assert!(err(r#"{"template":"path","from":"Ann","to":"Bob"}"#).contains("missing field `maxDepth`"));
    assert!(err(r#"{"template":"everything"}"#).contains("unknown variant `everything`"));
    assert!(err(r#"{"entity":"Ann"}"#).contains("missing field `template`"));
    let q: GraphQuery = serde_json::from_str(r#"{"template":"shared-tasks","a":"Ann","b":"Bob","extra":1}"#).expect("extra fields ignored");
    assert_eq!(q, GraphQuery::SharedTasks { a: "Ann".into(), b: "Bob".into() });
}
