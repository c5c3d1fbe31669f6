//! The rule-based extractor on seed 003's conversation and on statement types it must
//! (and must not) turn into memories.

use engram_core::extract::extract;
use engram_core::{Config, Engram, Kind, ListFilter, Scope};

const T0: i64 = 1_764_000_000_000;

fn texts(s: &str) -> Vec<String> {
    extract(s).into_iter().map(|e| e.text).collect()
}

#[test]
fn seed_003_zhang_san_yields_his_facts_and_switching_to_go_supersedes_python() {
    let mut e = Engram::new(Config::default(), 1);
    let user = Scope::user("demo", "zhang-san");
    let said = [
        "我叫张三，在阿里巴巴做算法工程师。",
        "我最近在用LangChain做Agent开发，遇到了记忆管理的问题。",
        "谢谢！我用GPT-4做模型，Token限制不是大问题。",
        "好的我试试。对了，我偏好Python，不太喜欢Java。",
    ];
    e.observe(&user, &said, T0).expect("observe");
    let facts: Vec<String> = e.list(&user, &ListFilter::default(), T0).expect("list").into_iter().map(|r| r.text).collect();
    for expected in ["用户叫张三", "用户在阿里巴巴工作", "用户的职业是算法工程师", "用户用LangChain做Agent开发", "用户用GPT-4做模型", "用户偏好Python", "用户不喜欢Java", "用户在处理记忆管理"] {
        assert!(facts.iter().any(|f| f == expected), "missing {expected:?} in {facts:?}");
    }
    e.observe(&user, &["更新一下：我已经从Python改用Go了。"], T0 + 1000).expect("switch");
    let current = e.list(&user, &ListFilter::default(), T0 + 1000).expect("list");
    let langs: Vec<&str> = current.iter().filter(|r| r.key.as_ref().is_some_and(|k| k.attribute == "preferred_programming_language")).map(|r| r.text.as_str()).collect();
    assert_eq!(langs, vec!["用户偏好Go"]);
    let audit = e.list(&user, &ListFilter { include_superseded: true, ..Default::default() }, T0 + 1000).expect("audit");
    assert!(audit.iter().any(|r| r.text == "用户偏好Python" && r.superseded_by.is_some()));
}

#[test]
fn english_identity_preferences_decisions_corrections_and_tasks_are_extracted() {
    let got = texts("Hi, my name is Maria Lopez. I work as a data scientist at Spotify. I live in Barcelona.");
    assert!(got.contains(&"User's name is Maria Lopez".to_string()), "{got:?}");
    assert!(got.contains(&"User works as a data scientist".to_string()), "{got:?}");
    assert!(got.contains(&"User works at Spotify".to_string()) || got.iter().any(|g| g.contains("Spotify")), "{got:?}");
    assert!(got.contains(&"User lives in Barcelona".to_string()), "{got:?}");
    assert_eq!(texts("I prefer Rust over Go."), vec!["User prefers Rust", "User dislikes Go"]);
    assert_eq!(texts("We decided to use PostgreSQL for the project."), vec!["User decided to use PostgreSQL for the project"]);
    assert_eq!(texts("No, the deadline is Friday, not Thursday"), vec!["Correction from the user: the deadline is Friday, not Thursday"]);
    assert_eq!(texts("I finished the migration script."), vec!["User finished the migration script"]);
    let e = &extract("I switched from Python to Go")[0];
    assert_eq!((e.kind, e.key.as_ref().map(|k| k.attribute.as_str())), (Kind::Preference, Some("preferred_programming_language")));
}

#[test]
fn chit_chat_and_questions_produce_nothing() {
    for s in ["hi!", "thanks a lot", "What's my name?", "我叫什么名字？", "你好", "How are you doing today?", "I'm tired.", "ok cool", "哈哈哈", "Do you like Python?", "密码是多少？"] {
        assert!(extract(s).is_empty(), "{s:?} gave {:?}", extract(s));
    }
}

#[test]
fn extraction_meets_its_f1_goal_on_the_labelled_corpus() {
    let r = engram_testkit::extraction_eval::evaluate();
    assert!(r.cases >= 100, "corpus has {} cases", r.cases);
    assert!(r.counts.f1() >= 0.85, "F1 {:.3}: {:#?}", r.counts.f1(), r.errors);
}

#[test]
fn liking_to_go_to_concerts_is_not_a_dislike_of_concerts_and_an_answer_is_not_a_correction() {
    let all = |s: &str| texts(s).join(" | ");
    let concerts = all("I like to go to concerts with my friends");
    assert!(!concerts.contains("dislikes"), "{concerts}");
    assert!(!texts("I like to go to concerts with my friends").contains(&"User likes to go".to_owned()), "{concerts}");
    assert_eq!(texts("I prefer tea to coffee"), vec!["User prefers tea", "User dislikes coffee"], "prefer X to Y compares");
    for answer in ["No, not really.", "No, I don't have any pets.", "Nope, I've never been there."] {
        assert!(!all(answer).contains("Correction"), "{answer:?}: {}", all(answer));
    }
    assert_eq!(texts("No, I just play with my friends for fun"), vec!["User just plays with their friends for fun"]);
}

#[test]
fn what_is_denied_supposed_or_a_template_slot_is_not_read_by_the_keyed_rules() {
    for s in ["I don't work at Acme any more", "If I lived in Paris I would walk everywhere", "My mom says I moved to Lyon", "Hi, I'm (name)", "I'm [user 1 name]"] {
        assert_eq!(texts(s), Vec::<String>::new(), "{s:?}");
    }
}

#[test]
fn a_name_said_with_a_lower_case_i_is_a_name() {
    assert_eq!(texts("hi, i'm Priya btw"), vec!["User's name is Priya".to_owned()]);
}

#[test]
fn a_pronoun_is_read_as_the_relative_named_before_it_and_an_unresolved_one_keeps_nothing() {
    assert!(texts("I have a sister. She's a pole dancer.").contains(&"User's sister is a pole dancer".to_owned()), "{:?}", texts("I have a sister. She's a pole dancer."));
    assert!(texts("I spend a lot of time with my son. He's in junior high school.").contains(&"User's son is in junior high school".to_owned()));
    for s in ["I love the energy they bring to the stage", "I have read almost all of her books", "I moved there last year", "I like to add some walnuts to mine"] {
        assert_eq!(texts(s), Vec::<String>::new(), "{s:?}");
    }
    let spain = texts("I've been to Spain a few times, it's a beautiful country.");
    assert_eq!(spain, vec!["User has been to Spain a few times"], "a new subject after a comma is a clause of its own");
}

#[test]
fn later_first_persons_and_adverbs_read_as_the_third_person() {
    assert_eq!(texts("I used to do ballet when I was younger"), vec!["User used to do ballet when they were younger"]);
    assert_eq!(texts("I usually just run 5Ks"), vec!["User usually just runs 5Ks"]);
    assert_eq!(texts("I don't drink alcohol"), vec!["User doesn't drink alcohol"]);
    assert_eq!(texts("I'm working on getting my masters degree"), vec!["User is working on getting their masters degree"]);
}

#[test]
fn the_role_after_the_employer_is_kept_beside_the_employer() {
    let nurse = texts("I work at Acme as a nurse");
    assert!(nurse.contains(&"User works at Acme".to_owned()), "{nurse:?}");
    assert!(nurse.contains(&"User works as a nurse".to_owned()), "{nurse:?}");
    let both = texts("I work as a nurse at Acme");
    assert!(both.contains(&"User works at Acme".to_owned()) && both.contains(&"User works as a nurse".to_owned()), "{both:?}");
    assert_eq!(texts("I don't work at Acme as a nurse any more"), Vec::<String>::new());
    assert!(texts("I'm a retired teacher").contains(&"User is a retired teacher".to_owned()), "{:?}", texts("I'm a retired teacher"));
    let spotify = texts("I'm a software engineer at Spotify");
    assert!(spotify.contains(&"User works at Spotify".to_owned()) && spotify.contains(&"User works as a software engineer".to_owned()), "{spotify:?}");
}

#[test]
fn how_the_user_wants_answers_is_a_keyed_preference() {
    assert_eq!(texts("Please keep your answers short"), vec!["User prefers short answers"]);
    assert_eq!(texts("I live in Hangzhou and I prefer short answers."), vec!["User lives in Hangzhou", "User prefers short answers"]);
    assert_eq!(texts("I prefer detailed answers"), vec!["User prefers detailed answers"]);
    assert_eq!(texts("I like a more formal tone"), vec!["User prefers a formal tone"]);
    assert_eq!(texts("Talk casually to me"), vec!["User prefers a casual tone"]);
    assert_eq!(texts("Be more informal with me"), vec!["User prefers an informal tone"]);
    assert_eq!(texts("What is a short answer?"), Vec::<String>::new());
}
