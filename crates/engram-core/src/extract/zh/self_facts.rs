//! Everyday self-facts in Chinese (issue 35): family, health, work place, study, places,
//! possessions, habits, fears, plans and dates. Every pattern starts at the sentence start
//! with 我 (optionally after 其实/现在/目前), so "如果我是…", "他说他…" and "我朋友住在…" do not
//! match; `blocked` removes negations, hedges, questions, reported speech and pronoun objects.

use std::sync::OnceLock;

use regex_lite::{Captures, Regex};

use crate::extract::rules::{clean, fact, untagged, Rule};
use crate::extract::Extracted;
use crate::model::Kind;

/// Kin, partners, friends and pets, with the relation name used in the graph.
const RELATIVES: &[(&str, &str)] = &[
    ("妹妹", "sister"), ("姐姐", "sister"), ("哥哥", "brother"), ("弟弟", "brother"),
    ("老婆", "wife"), ("妻子", "wife"), ("太太", "wife"), ("老公", "husband"), ("丈夫", "husband"),
    ("女朋友", "girlfriend"), ("男朋友", "boyfriend"), ("儿子", "son"), ("女儿", "daughter"),
    ("爸爸", "father"), ("父亲", "father"), ("妈妈", "mother"), ("母亲", "mother"),
    ("爷爷", "grandfather"), ("奶奶", "grandmother"), ("外公", "grandfather"), ("外婆", "grandmother"),
    ("孩子", "child"), ("闺蜜", "friend"), ("好朋友", "friend"), ("朋友", "friend"), ("同事", "colleague"),
    ("室友", "roommate"), ("猫", "pet"), ("狗", "pet"), ("小狗", "pet"), ("小猫", "pet"), ("狗狗", "pet"), ("猫咪", "pet"),
    ("兔子", "pet"), ("仓鼠", "pet"), ("鹦鹉", "pet"), ("娃", "child"), ("小孩", "child"), ("宝宝", "child"),
    ("对象", "partner"), ("男友", "boyfriend"), ("女友", "girlfriend"),
    // As people say them: "我妈叫…", "我姐大我八岁", "媳妇儿叫小敏".
    ("妈", "mother"), ("爸", "father"), ("老妈", "mother"), ("老爸", "father"), ("姐", "sister"), ("妹", "sister"),
    ("哥", "brother"), ("弟", "brother"), ("媳妇", "wife"), ("媳妇儿", "wife"), ("闺女", "daughter"), ("男票", "boyfriend"),
    ("发小", "friend"),
];

/// The words of [`RELATIVES`] as a regex alternation, the longest first (so "猫咪" is not
/// read as "猫").
pub(crate) fn rel_alt() -> &'static str {
    static S: OnceLock<String> = OnceLock::new();
    S.get_or_init(|| {
        let mut words: Vec<&str> = RELATIVES.iter().map(|(w, _)| *w).collect();
        crate::sort::sort_by_key(&mut words, |w| std::cmp::Reverse(w.chars().count()));
        words.join("|")
    })
}

/// Whether `word` is one of [`RELATIVES`] ("孩子", "猫"): a relative or a pet, not a thing owned.
pub(crate) fn is_relative(word: &str) -> bool {
    RELATIVES.iter().any(|(w, _)| *w == word)
}

/// Cities, provinces and countries: "在X工作" with X one of these is a work city, not an employer.
const PLACES: &[&str] = &[
    "北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "重庆", "武汉", "西安", "天津", "苏州", "长沙", "郑州",
    "青岛", "大连", "厦门", "昆明", "沈阳", "哈尔滨", "济南", "合肥", "福州", "宁波", "无锡", "香港", "澳门", "台北",
    "东京", "大阪", "纽约", "伦敦", "巴黎", "柏林", "悉尼", "新加坡", "首尔", "洛杉矶", "旧金山", "多伦多", "温哥华",
    "日本", "美国", "英国", "法国", "德国", "加拿大", "澳大利亚", "韩国", "中国", "意大利", "西班牙", "泰国", "国外",
    "海外", "老家", "农村", "市区", "郊区",
];

/// True when `s` names a city, province, country or other place rather than an organisation.
pub(crate) fn is_place(s: &str) -> bool {
    const ORG: &[&str] = &["公司", "集团", "银行", "医院", "大学", "学校", "学院", "研究所", "中心", "工厂", "厂", "局", "部", "店", "所"];
    if ORG.iter().any(|o| s.ends_with(o)) {
        return false;
    }
    PLACES.iter().any(|p| s == *p || s.starts_with(p) && s.chars().count() <= p.chars().count() + 1)
        || s.ends_with('省') || s.ends_with('市') || s.ends_with('县') || s.ends_with("区")
}

fn rel_of(word: &str) -> &'static str {
    RELATIVES.iter().find(|(w, _)| *w == word).map_or("relative", |(_, r)| r)
}

/// Tag every fact with its category.
/// "用户的{who}叫{name}", keyed by who and linked to the named person or pet.
fn named(who: &str, name: &str) -> Extracted {
    let kind = if rel_of(who) == "pet" { "pet" } else { "person" };
    fact(Kind::Fact, format!("用户的{who}叫{name}"), &format!("{who} name"), 0.9, 0.9).linked(rel_of(who), name, kind)
}

pub(crate) fn cat(mut v: Vec<Extracted>, c: &str) -> Vec<Extracted> {
    let tag = format!("category:{c}");
    for e in v.iter_mut().filter(|e| !e.tags.contains(&tag)) {
        e.tags.push(tag.clone());
    }
    v
}

/// Why the Chinese rules leave a sentence alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Blocked {
    /// A question, negation, hedge, hypothetical, reported speech or a pronoun object.
    Refused,
    /// A statement about someone else ("我妈妈对花生过敏"): kept as theirs at most.
    SomeoneElse,
}

/// The refusals: a question; a hypothetical or hedge; reported speech; a negation; a pronoun.
fn refusals() -> &'static [Regex] {
    static B: OnceLock<Vec<Regex>> = OnceLock::new();
    B.get_or_init(|| {
        [
            r"[吗嘛]\s*[。！!]?$|(?:^|[，,\s])[^，,\s]{0,3}呢\s*[。！!]?$|什么|谁|哪|怎么|为什么|为啥|咋|啥时候|多少|是不是|有没有|能不能|要不要|[?？]",
            r"如果|假如|要是|万一|假设|倘若|若是|假若|假使|设想|换作|换做|想象|的话|该多好|要有|兴许|没准|指不定|可能|也许|大概|好像|或许|似乎|貌似|说不定|不确定|不知道|应该是|估计|希望|但愿|巴不得|猜|怀疑|认为|记不清|差不多吧",
            r"(?:^|[^会能在])说|听说|告诉|提到|据说|聊到|听.{1,3}讲|以为|觉得|感觉|梦见|梦到|跟我讲|和我讲",
            r"不是|没有|没|从不|从来不|并不|不会|不在|不住|不对.*过敏|不过敏|不想|不打算|不怕|不养|不叫|不再|不用|不沾",
            r"它|他|她|这个|那个|这些|那些|这样|那样|这种|那种|那天$|那儿|那边|那里|这儿|这里|[在去到]那|同款|同上|一样|^(?:哈|呵|嘿)+$",
        ]
        .iter()
        .map(|p| Regex::new(p).unwrap_or_else(|e| unreachable!("blocking pattern {p}: {e}")))
        .collect()
    })
}

/// True when a clause states nothing as the user's fact: a hedge, a hypothetical, reported
/// speech, a negation or a pronoun ("吉他" and "其他" are not pronouns).
pub(crate) fn refuses(clause: &str) -> bool {
    let t = unpronouned(clause);
    refusals()[1..].iter().any(|r| r.is_match(&t))
}

/// `s` with the words that contain a pronoun's characters but point at nothing ("吉他",
/// "其他", "这个月") made harmless.
fn unpronouned(s: &str) -> String {
    s.trim().replace("吉他", "吉T").replace("其他", "其T").replace("这个月", "本月").replace("那个月", "当月")
}

/// Why the Chinese rules must leave `s` alone, or `None` when they may read it.
pub(crate) fn blocked(s: &str) -> Option<Blocked> {
    let b = refusals();
    let t = unpronouned(s);
    let t = t.as_str();
    // A correction of the assistant ("不对，…") is handled by its own rule.
    if t.starts_with("不对") || t.starts_with("错了") || t.starts_with("更正") || t.starts_with("纠正") {
        return None;
    }
    // A question anywhere; a negation, hedge, reporting verb or pronoun in the first clause
    // ("我用GPT-4做模型，Token限制不是大问题" keeps its first clause).
    let first = t.split(|c: char| matches!(c, '，' | ',' | '；') || c.is_whitespace()).next().unwrap_or(t);
    if b[0].is_match(t) || b[1..].iter().any(|r| r.is_match(first)) {
        return Some(Blocked::Refused);
    }
    // About someone else: "我朋友住在上海", "我妹妹是医生", "小王在北京工作" — kept only when it names them.
    static OTHER: OnceLock<Regex> = OnceLock::new();
    let other = OTHER.get_or_init(|| {
        Regex::new(&format!(r"^(?:我的?(?:最好的|大学|高中|初中|小学|以前的?|前)?(?:{rel_alt}|{PEOPLE_ALT})|大家|别人|同学|邻居|老板|老师)", rel_alt = rel_alt()))
            .unwrap_or_else(|e| unreachable!("other-person pattern: {e}"))
    });
    if other.is_match(t) {
        static NAMED: OnceLock<Regex> = OnceLock::new();
        let named = NAMED.get_or_init(|| {
            Regex::new(&format!(r"^我的?(?:最好的)?(?:{rel_alt})(?:叫|名叫|的名字(?:是|叫))", rel_alt = rel_alt())).unwrap_or_else(|e| unreachable!("named: {e}"))
        });
        let ours = named.is_match(t) || t.starts_with("大家都叫我") || t.starts_with("大家叫我");
        return (!ours).then_some(Blocked::SomeoneElse);
    }
    None
}

/// What a sentence says of a relative, a partner, a friend or a pet ("我妈妈对花生过敏" →
/// "用户的妈妈对花生过敏"): kept as theirs, in the category `people`, with no key of the
/// user's, as the English rules do (`en::someone_elses_fact`).
pub(crate) fn someone_else() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        vec![crate::extract::rules::rule(&format!(r"^我的?({rel_alt})({END}[^。！!？?]{{1,40}})", rel_alt = rel_alt()), |c| {
            let mut e = untagged(Kind::Fact, format!("用户的{}{}", &c[1], clean(&c[2])), 0.6, 0.7);
            e.tags.push(crate::extract::PEOPLE_TAG.into());
            vec![e]
        })]
    })
}

const END: &str = r"[^，。,.!！？?\s]";

/// People the user knows who are not in `RELATIVES`: what is said of them is theirs.
const PEOPLE_ALT: &str = "哥|姐|弟|妹|老爸|老妈|表哥|表姐|表弟|表妹|堂哥|堂姐|堂弟|堂妹|同学|同桌|舍友|师傅|师父|发小|领导|老板|上司|导师|邻居|亲戚|婆婆|公公|岳父|岳母|丈母娘|叔叔|阿姨|舅舅|姑姑|姨|侄子|侄女|外甥|爸|妈|父母|对象|哥们|兄弟|姐妹|男友|女友|前任|客户|学生|徒弟|队友|网友";

/// The everyday self-fact rules, compiled once.
pub(crate) fn rules() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        let r = |pattern: String, build: fn(&Captures<'_>) -> Vec<Extracted>| crate::extract::rules::rule(&pattern, build);
        let p = r"^(?:其实|现在|目前|另外|对了|顺便说一下)?[，,]?";
        vec![
            // ---- identity ----
            r(format!(r"^(?:大家都?叫我|朋友们?都?叫我|你可以叫我|叫我)({END}{{1,8}})(?:就行|就好|吧)?"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户的昵称是{}", clean(&c[1])), "nickname", 0.85, 0.85)], "identity")
            }),
            r(format!(r"{p}我的(英文名|小名|网名|昵称|中文名)(?:是|叫)({END}{{1,12}})"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户的{}是{}", &c[1], clean(&c[2])), &c[1], 0.85, 0.85)], "identity")
            }),
            r(format!(r"{p}我(?:今年)?([0-9一二三四五六七八九十两]{{1,3}})岁(?:了)?"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户今年{}岁", &c[1]), "age", 0.8, 0.85)], "identity")
            }),
            r(format!(r"{p}我(?:是)?(?:属|属于)({END})(?:的)?(?:[。！!～~，,\s]|$)"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户属{}", &c[1]), "zodiac", 0.7, 0.8)], "identity")
            }),
            r(format!(r"{p}我(?:是)?({END}{{2,3}}座)(?:的)?(?:[。！!～~，,\s]|$)"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户是{}", &c[1]), "star sign", 0.7, 0.8)], "identity")
            }),
            // ---- family, partners, friends, pets ----
            r(format!(r"^(?:我的?|我家的?)(?:最好的)?({rel_alt})(?:叫|名叫|的名字(?:是|叫))({END}{{1,8}})", rel_alt = rel_alt()), |c| {
                cat(vec![named(&c[1], &clean(&c[2]))], "family")
            }),
            // "我养了一只叫豆豆的狗": a name between the count and who, kept as the name's fact too.
            r(format!(r"{p}我(?:有|养了|养着|家有|家里有)(一|两|二|三|四|五|[0-9])(?:个|只|条|位)(?:(?:叫|名叫)({END}{{1,8}}?)的)?({rel_alt})", rel_alt = rel_alt()), |c| {
                let who = &c[3];
                let text = format!("用户有{}{}{who}", &c[1], if rel_of(who) == "pet" && !c.get(0).map_or("", |m| m.as_str()).contains("个") { "只" } else { "个" });
                let text = if c.get(0).map_or("", |m| m.as_str()).contains("养") { text.replacen("用户有", "用户养了", 1) } else { text };
                let mut v = vec![fact(Kind::Fact, text, &format!("number of {who}"), 0.85, 0.85)];
                if let Some(name) = c.get(2) {
                    v.push(named(who, &clean(name.as_str())));
                }
                cat(v, "family")
            }),
            r(format!(r"{p}我(?:现在|已经|目前|还是)?(已经)?(结婚了|离婚了|订婚了|单身|是单身|已婚|怀孕了|当爸爸了|当妈妈了|有对象了|脱单了)"), |c| {
                let what = c[2].trim_start_matches('是').to_owned();
                cat(vec![fact(Kind::Fact, format!("用户{}", what), "marital status", 0.9, 0.85)], "family")
            }),
            // ---- health, diet, allergies ----
            r(format!(r"{p}我对({END}{{1,10}}?)(?:严重|有点|很)?过敏"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户对{x}过敏"), &format!("allergy {x}"), 0.95, 0.9).linked("allergic_to", &x, "allergen")], "health")
            }),
            r(format!(r"{p}我(?:有|患有|得了|得过|查出了?)({END}{{0,6}}(?:病|症|炎|哮喘|高血压|低血压|糖尿病|近视|失眠|过敏性鼻炎|偏头痛|贫血|抑郁|焦虑|乳糖不耐受))"), |c| {
                let x = clean(&c[1]);
                if x.contains('恐') {
                    return cat(vec![fact(Kind::Fact, format!("用户有{x}"), &format!("fear {x}"), 0.8, 0.85)], "habit");
                }
                cat(vec![fact(Kind::Fact, format!("用户有{x}"), &format!("condition {x}"), 0.9, 0.85).linked("has_condition", &x, "condition")], "health")
            }),
            r(format!(r"{p}我(?:是)?(素食者|素食主义者|吃素|吃全素|纯素食者|在戒烟|在减肥|在戒糖|戒烟了|戒酒了|乳糖不耐受|不吃辣|不吃肉|不吃猪肉|不吃牛肉|不吃海鲜|不喝酒|不喝咖啡|不抽烟|在吃降压药|在备孕)"), |c| {
                cat(vec![fact(Kind::Fact, format!("用户{}", if c[1].ends_with("者") { format!("是{}", &c[1]) } else { c[1].to_owned() }), "diet", 0.9, 0.85)], "health")
            }),
            // ---- work: place, employer, field ----
            // A workplace holds no "了" or "过", and "工作室" is a studio ("在上海开了家设计工作室").
            r(format!(r"{p}我(?:在|于)({END}{{2,12}}?)(?:工作(?:[^室]|$)|上班|任职)"), |c| {
                let x = clean(&c[1]);
                if x.contains(['了', '过']) {
                    Vec::new()
                } else if is_place(&x) {
                    cat(vec![fact(Kind::Fact, format!("用户在{x}工作"), "work city", 0.9, 0.85).linked("works_in", &x, "place")], "work")
                } else if x.starts_with('家') || x.starts_with("这") {
                    Vec::new()
                } else {
                    cat(vec![fact(Kind::Fact, format!("用户在{x}工作"), "employer", 0.9, 0.8).linked("works_at", &x, "organization")], "work")
                }
            }),
            r(format!(r"{p}我(?:从事|做|干|搞)({END}{{1,8}}?)(?:行业|工作|这一行|方面的工作|相关的工作)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户从事{x}工作"), "field", 0.85, 0.8)], "work")
            }),
            r(format!(r"{p}我(?:是|当)(?:一名|一个|个)?({END}{{0,6}}(?:护士|会计|司机|厨师|记者|编辑|警察|律师|销售|保安|快递员|外卖员|公务员|自由职业者|作家|画家|摄影师|翻译|演员|主播|博主|店主|老板|创业者|医生|老师|工程师|程序员|设计师|经理|教授|研究员|分析师|顾问|客服|运营|主管|实习生|产品经理|农民|工人|军人|飞行员|空姐|药剂师|兽医|牙医|建筑师|咨询师|会计师|律师助理))(?:[。！!～~，,\s]|$)"), |c| {
                let x = clean(&c[1]);
                cat(vec![fact(Kind::Fact, format!("用户的职业是{x}"), "occupation", 0.9, 0.85).linked("works_as", &x, "role")], "work")
            }),
            r(format!(r"{p}我(?:刚)?(?:退休了|失业了|辞职了|换工作了|被裁了|在找工作|跳槽了)"), |c| {
                let x = c[0].trim_start_matches(|ch: char| ch != '我').trim_start_matches('我').to_owned();
                cat(vec![fact(Kind::Fact, format!("用户{x}"), "employment status", 0.85, 0.8)], "work")
            }),
        ]
    })
}
