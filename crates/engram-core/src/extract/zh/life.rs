//! Everyday self-facts in Chinese, second half: study, places, possessions, habits and
//! fears, plans and goals, dates. Same conventions as `self_facts.rs`.

use std::sync::OnceLock;

use regex_lite::Captures;

use crate::extract::rules::{clean, fact, Rule};
use crate::extract::zh::self_facts::{cat, is_relative};
use crate::extract::Extracted;
use crate::model::Kind;

const END: &str = r"[^，。,.!！？?\s]";

/// The rules, compiled once.
pub(crate) fn rules() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        let r = |pattern: String, build: fn(&Captures<'_>) -> Vec<Extracted>| crate::extract::rules::rule(&pattern, build);
        let p = r"^(?:其实|现在|目前|另外|对了|顺便说一下)?[，,]?";
        vec![
            // ---- study ----
            r(format!(r"{p}我(?:在|于)({END}{{2,14}}?(?:大学|学院|中学|高中|初中|小学|学校|研究生院|大专|分校))(?:读书|上学|念书|读研|读博|读大学|上大学|学习|读本科|读硕士|读博士|留学)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户在{x}读书"), "school", 0.9, 0.85).linked("studies_at", &x, "organization")], "study")
            }),
            r(format!(r"{p}我(?:的专业是|学的专业是|学的是|是学|主修|专业是)({END}{{1,10}}?)(?:专业|的)?(?:[。！!～~，,\s]|$)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户的专业是{x}"), "major", 0.85, 0.85)], "study")
            }),
            r(format!(r"{p}我(?:正在|在|最近在|每天都在|开始)(?:学|学习|自学)({END}{{1,10}})"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户在学{x}"), &format!("learning {x}"), 0.75, 0.8).linked("learning", &x, "skill")], "study")
            }),
            r(format!(r"{p}我(?:在)?(?:读|上|念)(大一|大二|大三|大四|研一|研二|研三|博一|博二|博三|高一|高二|高三|初一|初二|初三|研究生|博士|硕士|大学|高中|初中|小学|[一二三四五六]年级)(?:了)?(?:[。！!～~，,\s]|$)"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户在读{}", &c[1]), "grade", 0.85, 0.85)], "study")
            }),
            r(format!(r"{p}我(?:是)({END}{{2,14}}(?:大学|学院|中学|高中))的(?:学生|研究生|博士生|本科生|毕业生)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户是{x}的学生"), "school", 0.9, 0.85).linked("studies_at", &x, "organization")], "study")
            }),
            r(format!(r"{p}我(?:从|在)?({END}{{2,14}}(?:大学|学院))毕业(?:的|了)?"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户毕业于{x}"), "alma mater", 0.85, 0.85).linked("graduated_from", &x, "organization")], "study")
            }),
            // ---- places: lives, grew up, comes from, moved to ----
            r(format!(r"{p}我(?:是在|在|从小在)({END}{{2,10}}?)(?:长大|出生)的?"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户在{x}长大"), "hometown", 0.85, 0.85).linked("grew_up_in", &x, "place")], "place")
            }),
            r(format!(r"{p}我(?:来自|老家是|老家在|的老家是|的老家在|是从)({END}{{2,10}}?)(?:来的)?(?:[。！!～~，,\s]|$)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户来自{x}"), "origin", 0.85, 0.85).linked("comes_from", &x, "place")], "place")
            }),
            r(format!(r"{p}我是({END}{{2,6}}?)人(?:[。！!～~，,\s]|$)"), |c| {
                let x = clean(&c[1]);
                if ["好", "坏", "男", "女", "老实", "普通", "中国", "外国", "本地"].iter().any(|w| x == *w) || x.contains('籍') {
                    return Vec::new();
                }
                cat(vec![fact(Kind::Fact, format!("用户来自{x}"), "origin", 0.85, 0.8).linked("comes_from", &x, "place")], "place")
            }),
            r(format!(r"{p}我(?:现在|目前|一直)?(?:住在|住|定居在|生活在)({END}{{2,10}}?)(?:了|呢)?(?:[。！!～~，,\s]|$)"), |c| {
                let x = clean(&c[1]);
                // "我住过上海" is where the user lived once: the general reader keeps it, unkeyed.
                if x.starts_with('过') {
                    return Vec::new();
                }
                cat(vec![fact(Kind::Fact, format!("用户住在{x}"), "location", 0.85, 0.8).linked("lives_in", &x, "place")], "place")
            }),
            r(format!(r"{p}我(?:刚|上个月|去年|最近)?(?:搬到|搬去|搬家到)了?({END}{{2,10}}?)(?:了|来了|去了)?(?:[。！!～~，,\s]|$)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户搬到了{x}"), "location", 0.85, 0.8).linked("lives_in", &x, "place")], "place")
            }),
            // ---- possessions ----
            r(format!(r"{p}我(?:有|买了|刚买了|家里有|拥有)(一|两|二|三|四|五|几|[0-9])(辆|台|套|部|块|只|把|架|栋|间|艘|个|双|条)({END}{{1,12}})"), |c| {
                let x = clean(&c[3]);
                if is_relative(&x) {
                    return Vec::new();
                }
                let verb = if c[0].contains("买") { "买了" } else { "有" };
                cat(vec![fact(Kind::Fact, format!("用户{verb}{}{}{x}", &c[1], &c[2]), &format!("owns {x}"), 0.75, 0.85).linked("owns", &x, "thing")], "possession")
            }),
            r(format!(r"{p}我(?:开的是|开|骑的是|用的手机是|的车是|的手机是|的电脑是)({END}{{2,12}})(?:[。！!～~，,\s]|$)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户{}{x}", if c[0].contains("开") { "开" } else { "用" }), &format!("owns {x}"), 0.75, 0.8).linked("owns", &x, "thing")], "possession")
            }),
            // ---- habits, hobbies, skills, fears ----
            r(format!(r"{p}我的(?:爱好|兴趣爱好|兴趣)是({END}{{2,14}})"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户的爱好是{x}"), &format!("hobby {x}"), 0.8, 0.85).linked("enjoys", &x, "activity")], "habit")
            }),
            r(format!(r"{p}我(?:很|特别|非常|最)?(?:怕|害怕|恐惧)({END}{{1,8}})(?:[。！!～~，,\s]|$)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户怕{x}"), &format!("fear {x}"), 0.8, 0.85).linked("fears", &x, "thing")], "habit")
            }),
            r(format!(r"{p}我(?:有|得了)?(恐高症|幽闭恐惧症|社恐)"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户有{}", &c[1]), &format!("fear {}", &c[1]), 0.8, 0.85)], "habit")
            }),
            r(format!(r"{p}我(?:会|会说|能说|擅长|精通)(弹|拉|吹|打|说|游|滑|画|做|跳|下|写|开)({END}{{1,10}})"), |c| {
                let x = format!("{}{}", &c[1], clean(&c[2]));
                cat(vec![fact(Kind::Fact, format!("用户会{x}"), &format!("skill {x}"), 0.8, 0.8).linked("skilled_in", &x, "skill")], "habit")
            }),
            // ---- dates ----
            r(format!(r"{p}我的(生日|结婚纪念日|纪念日|恋爱纪念日|预产期|婚礼|毕业典礼|面试|考试|手术)(?:是|在|定在)({END}{{2,14}})"), |c| {
                let what = &c[1];
                let key = match what {
                    "生日" => "birthday",
                    "结婚纪念日" | "纪念日" | "恋爱纪念日" => "anniversary",
                    other => other,
                };
                let key = key.to_owned();
                cat(vec![fact(if key == "birthday" || key == "anniversary" { Kind::Fact } else { Kind::Event }, format!("用户的{what}是{}", clean(&c[2])), &key, 0.9, 0.9)], "date")
            }),
            r(format!(r"{p}我(?:是)?([0-9一二三四五六七八九十]{{1,3}}月[0-9一二三四五六七八九十]{{1,3}}[日号])(?:出生|过生日)的?"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户的生日是{}", &c[1]), "birthday", 0.9, 0.9)], "date")
            }),
            r(format!(r"{p}我(?:是)?([0-9一九零〇二三四五六七八]{{2,4}}年)(?:出生|生)的"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户{}出生", &c[1]), "birth year", 0.85, 0.85)], "date")
            }),
        ]
    })
}
