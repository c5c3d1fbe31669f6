//! The Chinese rules: one pattern per statement type, as in `rules.rs` (名字, 职业, 工作单位,
//! 住处, 技能, 偏好, 工具, 决定, 纠正, 任务进度).

pub(crate) mod clause;
mod life;
pub(crate) mod self_facts;

use std::sync::OnceLock;

use crate::extract::rules::{clean, fact, preference, untagged, zh, Rule};
use crate::extract::zh::self_facts::{cat, is_place};
use crate::model::Kind;

pub(crate) use self_facts::{blocked, Blocked};

/// The Chinese rules that apply to a sentence `blocked` read: none for a question,
/// negation, hedge, hypothetical, reported speech or pronoun object; for a statement about
/// someone else, the one that keeps it as theirs.
pub(crate) fn rules(blocked: Option<Blocked>) -> &'static [Rule] {
    static ALL: OnceLock<Vec<Rule>> = OnceLock::new();
    match blocked {
        Some(self_facts::Blocked::Refused) => return &[],
        Some(self_facts::Blocked::SomeoneElse) => return self_facts::someone_else(),
        None => {}
    }
    ALL.get_or_init(|| {
        let all = self_facts::rules().iter().chain(life::rules()).chain(base());
        all.map(|r| Rule { re: r.re.clone(), build: r.build }).collect()
    })
}

/// The first Chinese rules (seed 003), compiled once.
fn base() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        let r = crate::extract::rules::rule;
        vec![
            // ---- identity ----
            // Case-sensitive on purpose: names are capitalized ("my name is Dana Scully and …").
            r(r"(?:我叫|我的名字是|我的名字叫)([^，。,.!！？?\s在是的，]{1,8})", |c| {
                cat(vec![fact(Kind::Fact, format!("用户叫{}", clean(&c[1])), "name", 0.9, 0.9)], "identity")
            }),
            r(r"(?:我是|做|当|职业是|工作是)(?:一名|一个|个)?([^，。,.!！？?\s]{0,8}(?:工程师|程序员|设计师|经理|产品经理|医生|老师|教师|律师|科学家|研究员|分析师|学生|架构师|顾问))", |c| {
                // A student of a named school or field ("武汉大学的学生", "医学生") is a fact of study
                // (`life.rs`, `clause.rs`), not an occupation.
                if c[1].ends_with("学生") && &c[1] != "学生" {
                    return Vec::new();
                }
                cat(vec![fact(Kind::Fact, format!("用户的职业是{}", clean(&c[1])), "occupation", 0.9, 0.85).linked("works_as", &c[1], "role")], "work")
            }),
            r(r"在([^，。,.!！？?\s在了过]{2,12}?)(?:工作(?:[^室]|$)|上班|做|任职)", |c| {
                let place = clean(&c[1]);
                if is_place(&place) || ["家", "这里", "那里", "用", "学"].iter().any(|w| place.starts_with(w)) {
                    return Vec::new();
                }
                cat(vec![fact(Kind::Fact, format!("用户在{place}工作"), "employer", 0.9, 0.8).linked("works_at", &place, "organization")], "work")
            }),
            r(r"(?:我住在|我搬到了?|我现在住在|我在([^，。,.!！？?\s]{2,10}?)(?:生活|定居))([^，。,.!！？?\s]{0,10}?)(?:了|，|。|$)", |c| {
                // "我在X生活" captures X in group 1; "我住在X" in group 2.
                let place = clean(c.get(1).map_or(&c[2], |m| m.as_str()));
                if place.chars().count() < 2 || ["用", "做", "学", "想", "找", "看", "写", "跑"].iter().any(|w| place.starts_with(w)) {
                    return Vec::new();
                }
                cat(vec![fact(Kind::Fact, format!("用户住在{place}"), "location", 0.85, 0.75).linked("lives_in", &place, "place")], "place")
            }),
            r(r"(?:我擅长|我精通|我会)([^，。,.!！？?\s]{1,12})", |c| {
                let s = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户擅长{s}"), &format!("skill {s}"), 0.8, 0.75).linked("skilled_in", &s, "skill")], "habit")
            }),
            // ---- preferences ----
            r(r"(?:从|由)([A-Za-z0-9#+.一-鿿-]{1,20}?)(?:改用|换成|换到|转到|迁移到)了?([A-Za-z0-9#+.-]{1,20}|[^，。,.!！？?\s]{1,10})", |c| {
                cat(vec![preference(&c[2], true, true)], "preference")
            }),
            r(r"(?:改用|换成了?|现在用)([A-Za-z0-9#+.-]{1,20})", |c| cat(vec![preference(&c[1], true, true)], "preference")),
            // "我最喜欢的电影是X" names a favourite, as "my favorite movie is X" does.
            r(r"我最喜欢的([^，。,.!！？?\s是]{1,6})是([^，。,.!！？?\s]{1,16})", |c| {
                let (what, x) = (&c[1], clean(&c[2]));
                cat(vec![fact(Kind::Preference, format!("用户最喜欢的{what}是{x}"), &format!("favorite {what}"), 0.85, 0.85)], "preference")
            }),
            r(r"我(?:比较|更|最|很|非常|超|特别|挺|真的)?(?:偏好|喜欢|爱用|偏爱)([^的，。,.!！？?\s][^，。,.!！？?\s]{0,11})", |c| cat(vec![preference(&c[1], true, true)], "preference")),
            r(r"(?:不太喜欢|不喜欢|讨厌|不爱用)([^，。,.!！？?\s]{1,12})", |c| cat(vec![preference(&c[1], false, true)], "preference")),
            // ---- tools in use ----
            r(r"(?:我(?:最近|现在|目前)?在?用|我使用)([A-Za-z][A-Za-z0-9.+-]{1,20})(?:做|来|开发|写)([^，。,.!！？?\s]{1,12})", |c| {
                let tool = clean(&c[1]);
                let what = clean(&c[2]);
                cat(vec![fact(Kind::Fact, format!("用户用{tool}做{what}"), &format!("uses {}", tool.to_lowercase()), 0.7, 0.8).linked("uses", &tool, "tool")], "habit")
            }),
            // ---- decisions ----
            r(r"(?:我|我们)?(?:决定|定了|确定)(?:了)?(?:要|用|采用)?([^。！!？?\n]{2,40})", |c| {
                cat(vec![untagged(Kind::Event, format!("用户决定{}", clean(&c[1])), 0.85, 0.85)], "plan")
            }),
            // ---- corrections of the assistant ----
            r(r"^\s*(?:不对|错了|不是的|你说错了|更正一下|纠正一下)[，,:：!！。]?\s*(.{2,80})$", |c| {
                // A correction that only denies ("不对不对，不是我生日") states nothing to keep.
                let said = clean(&c[1]);
                let mut rest = said.as_str();
                while let Some(r) = ["不对", "错了", "，", ",", " "].iter().find_map(|w| rest.strip_prefix(w)) {
                    rest = r;
                }
                if rest.split(['，', ',', ' ']).all(|clause| clause.is_empty() || self_facts::refuses(clause)) {
                    return Vec::new();
                }
                let mut e = untagged(Kind::Fact, format!("用户纠正：{said}"), 0.8, 0.9);
                e.tags.push("correction".into());
                vec![e]
            }),
            // ---- task progress ----
            r(r"(?:我)?(?:已经)?(?:完成了|做完了|搞定了)([^，。,.!！？?]{2,30})", |c| {
                vec![untagged(Kind::Task, format!("用户完成了{}", clean(&c[1])), 0.6, 0.85).linked("finished", &c[1], "task")]
            }),
            // As the sentence's first words, or after a clause of what the user is doing ("我
            // 最近在用LangChain做Agent开发，遇到了…"): "正在长牙" after "我家娃8个月了" is the baby's.
            r(r"^(?:我(?:最近|现在|目前|一直)?(?:在|用|正在)[^，,。]*[，,]\s*)?(?:我)?(?:最近|现在|目前|这几天)?(?:正在|在探索|在研究|在做|遇到了)([^，。,.!！？?]{2,30}?)(?:的问题|问题)?(?:[，。,.!！]|$)", |c| {
                let t = clean(&c[1]);
                if !zh(&t) {
                    return Vec::new();
                }
                vec![untagged(Kind::Task, format!("用户在处理{t}"), 0.6, 0.75).linked("works_on", &t, "task")]
            }),
        ]
    })
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;
    use crate::model::FactKey;

    fn has(s: &str, text: &str, attr: &str, category: &str) -> bool {
        extract(s).iter().any(|e| e.text == text && e.key == Some(FactKey::new("user", attr)) && e.tags.contains(&format!("category:{category}")))
    }

    #[test]
    fn wo_zai_beijing_gongzuo_is_a_work_city_not_an_employer() {
        assert!(has("我在北京工作", "用户在北京工作", "work city", "work"));
        assert!(!extract("我在北京工作").iter().any(|e| e.key == Some(FactKey::new("user", "employer"))));
        // A studio the user opened is not an employer named "上海开了家设计".
        assert!(!extract("我在上海开了家设计工作室，手下五个人").iter().any(|e| e.key == Some(FactKey::new("user", "employer"))));
        assert!(has("我在招商银行上班", "用户在招商银行工作", "employer", "work"));
    }

    #[test]
    fn a_student_of_a_named_school_is_a_fact_of_study_not_an_occupation() {
        let got = extract("我是武汉大学的学生");
        assert!(got.iter().any(|e| e.text == "用户是武汉大学的学生" && e.tags.contains(&"category:study".to_owned())), "{got:?}");
        assert!(!got.iter().any(|e| e.tags.contains(&"category:work".to_owned())), "{got:?}");
        assert!(extract("我是一名学生").iter().any(|e| e.text == "用户的职业是学生"));
    }

    #[test]
    fn wo_dui_huasheng_guomin_is_an_allergy() {
        assert!(has("我对花生过敏", "用户对花生过敏", "allergy 花生", "health"));
    }

    #[test]
    fn wo_you_liang_ge_haizi_is_kept() {
        assert!(extract("我有两个孩子").iter().any(|e| e.text == "用户有两个孩子"));
        assert!(extract("我有一辆车").iter().any(|e| e.text == "用户有一辆车" && e.tags.contains(&"category:possession".to_owned())));
        // Emoji say nothing of the fact.
        assert_eq!(extract("女朋友叫小雨 在一起两年了💕").into_iter().map(|e| e.text).collect::<Vec<_>>(), vec!["用户女朋友叫小雨，在一起两年了"]);
    }

    #[test]
    fn wo_meimei_jiao_anna_links_the_sister() {
        let got = extract("我妹妹叫安娜");
        let e = got.iter().find(|e| e.text == "用户的妹妹叫安娜");
        let link = e.and_then(|e| e.link.clone());
        assert_eq!(link.map(|l| (l.rel, l.object.name)), Some(("sister".to_owned(), "安娜".to_owned())));
        // As people say it: one character for the relative, 媳妇儿 for the wife.
        for (s, rel, name) in [("我姐叫林芳 大我八岁", "sister", "林芳"), ("我妈叫张秀英", "mother", "张秀英"), ("我媳妇儿叫小敏", "wife", "小敏")] {
            let link = extract(s).into_iter().find_map(|e| e.link);
            assert_eq!(link.map(|l| (l.rel, l.object.name)), Some((rel.to_owned(), name.to_owned())), "{s}");
        }
    }

    #[test]
    fn a_pet_named_between_its_count_and_its_kind_keeps_its_name() {
        let got = extract("我养了一只叫豆豆的狗。");
        assert!(got.iter().any(|e| e.text == "用户养了一只狗"), "{got:?}");
        let named = got.iter().find(|e| e.text == "用户的狗叫豆豆").unwrap_or_else(|| panic!("{got:?}"));
        assert_eq!(named.link.clone().map(|l| (l.rel, l.object.name)), Some(("pet".to_owned(), "豆豆".to_owned())));
    }

    #[test]
    fn a_favourite_is_kept_under_its_kind_not_as_a_liking_of_its_sentence() {
        let got = extract("我最喜欢的电影是《霸王别姬》。");
        assert!(has("我最喜欢的电影是《霸王别姬》。", "用户最喜欢的电影是《霸王别姬》", "favorite 电影", "preference"), "{got:?}");
        assert!(!got.iter().any(|e| e.text.contains("喜欢的电影") && e.text.starts_with("用户喜欢")), "{got:?}");
    }

    #[test]
    fn birthday_and_plans_are_kept() {
        assert!(has("我的生日是三月三日", "用户的生日是三月三日", "birthday", "date"));
        assert!(extract("我打算明年去日本").iter().any(|e| e.text == "用户打算明年去日本" && e.tags.contains(&"category:plan".to_owned())));
        assert!(extract("我怕蛇").iter().any(|e| e.text == "用户怕蛇"));
    }

    #[test]
    fn negations_questions_hedges_and_reported_speech_keep_nothing() {
        for s in ["我不是医生", "我没有孩子", "我不对花生过敏", "我对花生过敏吗？", "我妹妹叫什么？", "如果我是医生就好了", "我可能对花生过敏",
            "他说他对花生过敏", "我也喜欢它", "我妹妹说她是医生"] {
            assert_eq!(extract(s), Vec::new(), "{s}");
        }
    }

    #[test]
    fn other_people_are_kept_as_theirs_never_as_the_users() {
        for (s, text) in [("我朋友住在上海", "用户的朋友住在上海"), ("我妹妹是医生", "用户的妹妹是医生")] {
            let got = extract(s);
            assert_eq!(got.iter().map(|e| (e.text.as_str(), e.tags.as_slice(), e.key.is_none())).collect::<Vec<_>>(), vec![(text, &["category:people".to_owned()][..], true)], "{s}");
        }
    }
}
