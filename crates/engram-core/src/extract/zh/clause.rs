//! The Chinese general reader: a first-person statement no rule read ("我海鲜过敏",
//! "我自己开了家奶茶店", "养了只乌龟，名字叫慢慢") is kept as the user's fact, in the third
//! person, its category named by the words it uses. Chinese is written topic first and
//! drops its subject: in a chat with the assistant a statement without one is the user's
//! own news ("最近在吃二甲双胍", "国庆准备自驾去川西") unless its first words name someone
//! else (`NOT_NEWS`). What `self_facts::blocked` refuses never reaches here.

use std::sync::OnceLock;

use regex_lite::Regex;

use crate::extract::rules::untagged;
use crate::extract::Extracted;
use crate::model::{FactKey, Kind};

/// The categories in the order they are tried, each with the words that name it, as in
/// `en::category`, with health first (it is what a memory must not miss: "猫毛过敏但还是想养猫"
/// is an allergy before it is a wish): an event on a named day is a date; a plan or another
/// date is what a statement is for, whatever it is about; how often says a habit; a liking
/// is a preference whatever is liked; family, work and study are named by their nouns
/// before the place, possession or pastime a statement also mentions.
const CATEGORIES: &[(&str, &str)] = &[
    ("work", r"全职(?:妈妈|太太|爸爸|奶爸)|家庭主妇"),
    ("health", r"过敏|病|症|炎|药|看医生|心理医生|医院|确诊|诊断|手术|血糖|血压|血脂|尿酸|抑郁|焦虑|失眠|近视|远视|散光|怀孕|孕|哮喘|胃|心脏|支架|腰椎|颈椎|膝盖|听力|视力|助听器|疼|痛|吃素|素食|忌口|不耐受|戒烟|戒酒|戒了|戒掉|不耐|素$|疹|骨折|石膏|崴|扭伤|色弱|色盲|生酮|携带者|乙肝|癌|化疗|甲减|甲亢|贫血|鼻炎|湿疹|住院|康复|体检"),
    ("plan", r"^(?:我|用户)?(?:TIME)?(?:一定|必须)?(?:打算|计划|准备|决定|想|争取|立志|要在|一定要|报名了?|报了名|约了|目标是|要开始)"),
    ("date", r"明天|后天|(?:^|[^每])(?:下|这)?周[一二三四五六日天]|[0-9一二三四五六七八九十]{1,2}[日号]"),
    ("plan", r"^我?(?:TIME)(?:一定|必须)?要|^我?(?:下个月|下周|明年|年底|暑假|寒假|国庆|五一|春节|过年|元旦|这个夏天|这周末)[^，]{0,3}(?:去|回|带|冲|飞)|打算|计划|目标|等.{1,8}就"),
    ("date", r"[0-9一二三四五六七八九十]{1,2}月[0-9一二三四五六七八九十]{0,3}[日号]?|[0-9]{1,2}[日号]|生日|纪念日|预产期|截止|到期|周年|[0-9]{4}年"),
    ("identity", r"社恐|社牛|[IE][NS][FT][PJ]|MBTI|[ie]人(?:，|$)|AGE"),
    ("habit", r"每天|每周|每晚|每年|每个月|每次|每逢|每半|每[^，]{0,3}[一两][次回]|[一每]个月|一周|一天|经常|常常|一般|平时|习惯|总是|通常|^天天|[^今明昨后]天天|固定|^我周末"),
    ("preference", r"喜欢|最爱|爱吃|爱喝|爱看|爱听|爱玩|偏好|偏爱|钟爱|讨厌|受不了|接受不了|天敌|粉丝|球迷|迷$|党(?:，|$)|(?:超|巨|贼|真|最)爱|爱好者|死忠|本命|(?:猫|狗)派|无感|好这口|喜静|喜动|口味|更爱|只喝|只吃"),
    ("family", r"老婆|老公|媳妇|对象|男朋友|女朋友|爸|妈|父母|家人|孩子|宝宝|娃|儿子|女儿|哥|姐|弟|妹|兄弟|表|堂|爷爷|奶奶|外公|外婆|姥姥|姥爷|结婚|离婚|订婚|恋爱|单身|在一起|老大|老二|独生|继父|继母|后妈|后爸|岳父|岳母|丈母娘|公婆|两口子|丁克|二胎|[养有].{0,4}[猫狗]|猫咪|狗狗|狗子|小狗|小猫|喵|金毛|柯基|泰迪|乌龟|鹦鹉|仓鼠|兔子|宠物|养了|铲屎"),
    ("work", r"工作|上班|公司|职业|岗位|实习|入职|离职|辞职|经理|升了|淘宝|开店|裸辞|被裁|跳槽|升职|转正|码农|社畜|打工人|外卖|滴滴|大夫|幼师|掌勺|厨子|柜员|文案|HR|UP主|博主|主播|搬砖|老板|开了家|开了个|创业|自由职业|兼职|加班|行业|负责|客户|外贸|销售|运营|金融|投行|大厂|搞[^，]{1,6}的(?:，|$)|SRE|PM|QA|CTO|CEO|[Dd]eveloper|[Ee]ngineer|[Aa]nalyst|[Mm]anager|[Dd]esigner|工程师|程序员|设计师|老师|医生|护士|律师|厨师|司机|会计|写代码|项目|团队|手下|工资|领导|博士后|博后|研究所|科学院|单位|体制内|打工|退休|做.{1,6}的(?:，|$)"),
    ("study", r"大学|学院|读研|读博|考研|研究生|研[一二三]|大[一二三四]|本科|硕士|博士|专业|学位|毕业|高[一二三]|初[一二三]|上学|读书|念书|年级|高中|初中|小学|中学|职高|系(?:，|$)|课|学期|考试|雅思|托福|四六级|备考|考公|公务员|教资|CPA|驾校|科目[一二三四]|录取|N[1-5]|学到|留学|论文|导师|学生|自学|在学|学习|单词|网课|在读|读(?:[Mm]aster|MBA|PhD)|在[^，]{1,8}读|GRE|GMAT|中专|大专|技校|职校|(?:艺术|体育|美术|音乐|特长|交换)生|学[一-鿿]{1,3}的(?:，|$)|[语文]班|培训班|报了[^，]{0,4}班"),
    ("place", r"住|老家|家乡|故乡|祖籍|出生|长大|定居|搬到|搬去|搬家|来自|从.{2,8}来|坐标|[北沪深杭]漂|租房|家在|家就在|现居|人在|^(?:现在|目前)?在[^，]{2,6}$|小区|村|镇|国外|海外|移民|郊区|市区"),
    ("possession", r"买了|入手|新入|入了|收藏|用的是|家里?有个|有[辆台部块架把套]|[一两二三四五几百千多][辆台部块架把套栋双张]|车|手机|电脑|笔记本|相机|iPhone|iPad|Mac|Kindle|PS5|Switch|房子|吉他|钢琴|小提琴|电子琴|乐高|手表|Watch|投影|无人机|耳机|自行车|电动车|电驴|摩托"),
    ("habit", r"每天|每周|每晚|每年|每个月|每次|一周|一天|经常|常常|一般|平时|习惯|总是|通常|^天天|[^今明昨后]天天|固定|雷打不动|健身|跑步|锻炼|游泳|瑜伽|打球|羽毛球|篮球|足球|网球|抽烟|喝酒|通勤|日记|看书|追剧|游戏|段位|织|烤|做饭|讲得来|说得来|粤语|方言|练|弹|画画|拍照|摄影|旅行|怕|恐"),
    ("identity", r"岁|[0-9]0后|零零后|九零后|八零后|血型|身高|体重|座(?:的)?(?:，|$)|属[鼠牛虎兔龙蛇马羊猴鸡狗猪]|族(?:，|$)|籍|人(?:，|$)|[男女]的?(?:，|$)|男生|女生|名字|网名|真名|小名|英文名|成年|左撇子"),
];

/// An age said bare ("我35了", "今年二十八了").
const AGE: &str = r"^我?(?:今年|都)?[0-9二三四五六七八九十]{2,3}了";
/// A first clause that is a noun alone, its "我是" dropped ("日本人", "回族", "射手座",
/// "独生女", "00后一枚", "INFP", "跑外卖的"): the fact says "用户是…".
const NOUN_ALONE: &str = r"^(?:我|典型的?|标准的?)?[^，是有在了过的]{0,8}?(?:[^个]人|族|座|[男女]生|独生[女子]|[0-9]0后|[A-Z]{4})(?:一枚|一个)?$|^我?(?:跑|开|做|搞|卖|写)[^，是]{1,5}的$";
/// Kin after "我" read "用户的…" ("我妈这么喊我" → "用户的妈这么喊用户").
const MY: &str = r"我(妈|爸|哥|姐|弟|妹|老公|老婆|媳妇|对象|儿子|女儿|闺女)";

/// `statement` in the third person: "我" is "用户" ("我们家" the user's household), kin
/// after it are the user's, and a statement without its subject (`news`) gets one; `is`
/// puts back the "是" a noun alone dropped, `age` the "岁" a bare age dropped ("32了").
fn third_person(statement: &str, news: bool, is: bool, age: bool) -> String {
    static MY_RE: OnceLock<Regex> = OnceLock::new();
    let my = MY_RE.get_or_init(|| crate::statements::pattern(MY));
    let mut s = my.replace_all(&statement.replace("我们", "用户"), "用户的$1").replace('我', "用户");
    if age && !s.contains('岁') {
        if let Some(at) = s.find('了') {
            s.insert(at, '岁');
        }
    }
    if is {
        let rest = s.strip_prefix("用户").unwrap_or(&s);
        return format!("用户是{}", rest.strip_prefix('是').unwrap_or(rest));
    }
    if news { format!("用户{s}") } else { s }
}

/// Words that put a statement in the past ("我住过上海", "以前住在成都"): it says where the
/// user lived, not where they live, so it takes no key that would replace the current one.
const PAST: &str = r"住过|以前|之前|小时候|曾经|当年";

/// Time words a statement may open with ("今年", "国庆", "三十五岁之前").
const TIME: &str = r"最近|刚刚?|今年|去年|前年|上个月|这个月|下个月|明年|年底|年后|年前|以后|将来|周末|周[一二三四五六日天]|这周末?|下周|国庆|五一|春节|过年|暑假|寒假|平时|目前|现在|一直|从小|小时候|[^，,\s]{1,6}之前";

/// A subjectless clause is the user's own news: Chinese drops the subject it would repeat.
/// Not when someone else is named in its first words ("大学同学在英国读博", "周杰伦的老婆…"),
/// when it opens with a pronoun or a pointer ("这家店…"), or when a noun before "是" is
/// its subject ("张伟是程序员"; not an adverb, "还是"; and "生日是5月20号" drops "我的").
const NOT_NEWS: &str = r"^.{0,5}?(?:PEOPLE)|^(?:这[^学周辈]|那|他|她|它|你|咱|谁)|^[^是]{0,5}[^是还就都也总可真正算但不]是|^(?:小|老|阿)[一-鿿](?:在|是|喜欢|住|对|有|去|的|和|跟|说)|^(?:SURNAME)[一-鿿]{1,2}(?:在|是|喜欢|住|对|有|去|的|和|跟)";
/// Common surnames: a clause that opens with one and a verb names its subject ("王芳喜欢猫").
const SURNAME: &str = "王|李|张|刘|陈|杨|黄|赵|吴|徐|孙|朱|胡|郭|何|林|罗|郑|梁|谢|宋|唐|许|韩|冯|邓|曹|彭|曾|肖|田|董|袁|潘|蒋|蔡|余|杜|叶|程|苏|魏|吕|丁|任|沈|姚|卢|姜|崔|钟|谭|陆|汪|范|廖|贾|夏|韦|邹|孟|熊|秦|邱|尹|薛|闫|段|雷|侯|史|陶|黎|贺|顾|毛|郝|龚|邵|万|钱|严|覃|戴|莫|孔|汤";
/// A clause that is a role alone ("高中数学老师", "银行柜员一枚") says what the user does.
const ROLE_ALONE: &str = r"^[^是]{0,8}(?:老师|医生|大夫|护士|律师|会计|程序员|码农|工程师|设计师|厨师|厨子|司机|幼师|销售|柜员|HR|主播|博主|UP主|店主|学生|研究生|博士生)(?:一枚|一个)?$";
/// Kin the user has or names, their "我的" dropped ("有个弟弟", "女朋友叫小雨").
const MY_KIN: &str = r"^(?:有个|有一个|有俩|有两个|家里有)|^(?:老婆|老公|媳妇|对象|女朋友|男朋友|儿子|女儿|闺女|妈|爸|哥|姐|弟|妹)[^，]{0,3}叫";
const ATTRIBUTE_IS: &str = r"^(?:TIME)?(?:的)?(?:网名|真名|小名|英文名|名字|手机|车|电脑|生日|老家|祖籍|专业|血型|星座|身高|体重|预产期|职业|工作|目标|梦想|爱好|口头禅)是";

/// Clause marks, the openers that say nothing ("其实我…", "对了，…"), the particles and
/// laughter that end a clause, and what a statement may not contain (see `self_fact`).
const SPLIT: &str = r"[，,；;：:～~…\s]+";
const OPENER: &str = r"^(?:其实|对了|另外|顺便说一下|话说|说起来|嗯|哎|唉|害)+";
const PARTICLES: &str = r"[。！!.、\x{2600}-\x{27BF}\x{1F000}-\x{1FAFF}\x{FE0F}\x{200D}]+|(?:哈哈|嘿嘿|呵呵|啦|呀|哦|哈|呢|嘛|吧|哟|噢)+$";
const NO_FACT: &str = r"你[^好]|你$|^(?:请|麻烦)?帮我|^(?:请|麻烦)(?:给|替)我|^我?先|^我家?也.{0,2}$|也[^，]{0,4}[一两][只个台辆条部]$|(?:见|聊)$";
const NEGATED: &str = r"不";
const NOT_NEGATED: &str = r"受不了|接受不了|不耐|不能|不了|不然|不好";
/// The user's own "我们…" ("我们家住在郊区", "我们公司是外企"); any other "我们" is not the
/// user alone.
const OURS: &str = r"^我们(?:家|镇|村|小区|公司|学校|单位|两口子|夫妻|俩)";
/// People other than the user: named in a clause's first words, or in a topic before "我",
/// they are its subject ("大学同学在英国读博", "同事跟我说").
const PEOPLE: &str = "嫂|姐夫|妹夫|弟媳|侄|外甥|亲戚|同事|朋友|同学|室友|舍友|闺蜜|老板|领导|老师|爸|妈|哥|姐|弟|妹|老公|老婆|男友|女友|对象|孩子|儿子|女儿|他们|她们|人家|别人|大家|邻居|隔壁|公公|婆婆|爷爷|奶奶|外公|外婆|叔|姨|舅|姑|客户|网友|明星|同桌|实习生|新来的|组里|上司|师傅|导师|员工|队友";
const PERSON_BEFORE_I: &str = "PEOPLE|医生";

/// The patterns: the categories', then `NOT_NEWS`, `SPLIT`, `OPENER`, `PARTICLES`,
/// `NO_FACT`, `NEGATED`, `NOT_NEGATED`, `OURS`, `PERSON_BEFORE_I`, `ATTRIBUTE_IS`,
/// `ROLE_ALONE`, `MY_KIN`, `AGE`, `PAST`, `NOUN_ALONE`.
fn regexes() -> &'static [Regex] {
    static R: OnceLock<Vec<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        let all = CATEGORIES.iter().map(|(_, p)| *p).chain([NOT_NEWS, SPLIT, OPENER, PARTICLES, NO_FACT, NEGATED, NOT_NEGATED, OURS, PERSON_BEFORE_I, ATTRIBUTE_IS, ROLE_ALONE, MY_KIN, AGE, PAST, NOUN_ALONE]);
        all.map(|p| crate::statements::pattern(&p.replace("TIME", TIME).replace("SURNAME", SURNAME).replace("PEOPLE", PEOPLE).replace("AGE", AGE))).collect()
    })
}

/// The fact a Chinese sentence states about the user, read by no rule; `None` when it has no
/// first-person statement or names no category. `refused` tells a clause that states
/// nothing as the user's (`self_facts::refuses`).
pub(crate) fn self_fact(sentence: &str, refused: fn(&str) -> bool) -> Option<Extracted> {
    let re = regexes();
    let n = CATEGORIES.len();
    let [not_news, split, opener, particles, no_fact, negated, not_negated, ours, someone, attribute_is, role_alone, my_kin, age, past, noun_alone]: [&Regex; 15] = std::array::from_fn(|i| &re[n + i]);
    // "本人", "俺" and the playful "偶" are "我".
    let trimmed = sentence.trim();
    let normal = match ["本人", "俺", "偶是"].into_iter().find(|w| trimmed.starts_with(w)) {
        Some(w) => format!("{}{}", if w == "偶是" { "我是" } else { "我" }, &trimmed[w.len()..]),
        None => trimmed.to_owned(),
    };
    let mut parts = split.split(&normal).map(|c| particles.replace_all(c, "")).filter(|c| !c.is_empty());
    let first = parts.next()?;
    let head = opener.replace(&first, "");
    // A statement to the assistant ("我想你了"), a negation the rules did not read ("我不吃素"),
    // what the user does this minute ("我先睡了"), an echo that names nothing ("我也养了").
    if no_fact.is_match(&head) || negated.is_match(&head) && !not_negated.is_match(&head) {
        return None;
    }
    // The subject: "我…" or the user's own "我们家…", a topic before it ("奶茶我戒了",
    // "香菜是我的天敌"), or none.
    let mine = head.starts_with('我') && !head.starts_with("我们") || ours.is_match(&head);
    // A "我" after a verb that takes it as its object ("老板让我加班", "她送我…") is not the
    // subject; nor one after someone the user knows ("同事跟我说").
    let before: String = head.chars().take_while(|c| *c != '我').collect();
    let object = before.ends_with(['让', '帮', '给', '叫', '送', '跟', '和', '对', '把', '被', '带', '陪', '找', '问', '教', '请', '催', '劝', '替', '喊']);
    let topic = !mine && !object && !before.starts_with(['这', '那']) && before.chars().count() <= 7 && before.len() < head.len() && !head[before.len()..].starts_with("我们") && !someone.is_match(&before);
    let news = !mine && !topic && !head.starts_with("我们") && (!not_news.is_match(&head) || attribute_is.is_match(&head) || role_alone.is_match(&head) || my_kin.is_match(&head));
    if !(mine || topic || news) || head.chars().count() < 2 {
        return None;
    }
    // The statement runs on through the clauses that state nothing refused and name no one
    // else ("我吃辣就胃疼，只能吃清淡的"; "我跟奶奶一起住，她把我带大的" stops at "她").
    let first_clause = head.to_string();
    let mut statement = head.into_owned();
    for c in parts {
        if refused(&c) || c.starts_with(['你', '他', '她', '它']) || statement.chars().count() > 30 {
            break;
        }
        statement = format!("{statement}，{c}");
    }
    // Two characters may be a whole clause ("研二", "已婚"), not a whole statement ("明天").
    if statement.chars().count() < 4 && (news || statement.chars().count() < 3) {
        return None;
    }
    // The first clause sets the topic and the clauses after it comment on it ("我是某大厂的
    // SRE，经常半夜被叫起来" is work, not a habit): it names the category when it can.
    let named = |text: &str| CATEGORIES.iter().zip(re).find(|(_, r)| r.is_match(text)).map(|((c, _), _)| *c);
    let category = match named(&first_clause).or_else(|| named(&statement)) {
        Some(c) => c,
        None if mine && statement.starts_with("我是") => "identity",
        None => return None,
    };
    let is = (news || mine) && (role_alone.is_match(&first_clause) || noun_alone.is_match(&first_clause));
    let text = third_person(&statement, news, is, age.is_match(&first_clause));
    let kind = match category {
        "plan" => Kind::Task,
        "date" if !text.contains("生日") && !text.contains("纪念日") => Kind::Event,
        "preference" => Kind::Preference,
        _ => Kind::Fact,
    };
    let importance = match category {
        "health" => 0.9,
        "identity" | "family" | "date" => 0.85,
        "work" | "place" | "study" => 0.8,
        "preference" => 0.7,
        _ => 0.65,
    };
    let mut e = untagged(kind, text, importance, 0.65);
    // The attributes a new statement replaces: where the user lives (now, not once), their
    // age, birthday.
    let key = [("生日", "date", "birthday"), ("岁", "identity", "age"), ("住", "place", "location"), ("定居", "place", "location"), ("现居", "place", "location"), ("坐标", "place", "location"), ("搬到", "place", "location"), ("搬去", "place", "location"), ("老家", "place", "hometown"), ("祖籍", "place", "hometown")]
        .into_iter()
        .find(|(w, c, a)| statement.contains(w) && (category == *c || *w == "生日") && !(*a == "location" && past.is_match(&statement)))
        .or_else(|| (category == "identity" && age.is_match(&statement)).then_some(("", "", "age")));
    e.key = key.map(|(_, _, a)| FactKey::new("user", a));
    e.tags.push(format!("category:{category}"));
    Some(e)
}

#[cfg(test)]
mod tests {
    use crate::extract::extract;

    fn kept(s: &str) -> Vec<(String, Vec<String>)> {
        extract(s).into_iter().map(|e| (e.text, e.tags)).collect()
    }

    fn one(s: &str, text: &str, category: &str) {
        let got = kept(s);
        assert!(got.iter().any(|(t, tags)| t == text && tags.contains(&format!("category:{category}"))), "{s}: {got:?}");
    }

    #[test]
    fn a_first_person_statement_no_rule_reads_is_kept_in_its_category() {
        one("我海鲜过敏 虾蟹都不能碰", "用户海鲜过敏，虾蟹都不能碰", "health");
        one("我自己开了家奶茶店", "用户自己开了家奶茶店", "work");
        one("我晚上一般十二点以后才睡", "用户晚上一般十二点以后才睡", "habit");
    }

    #[test]
    fn a_statement_without_its_subject_is_the_users_news() {
        one("最近在吃二甲双胍控制血糖", "用户最近在吃二甲双胍控制血糖", "health");
        one("养了只乌龟 名字叫慢慢", "用户养了只乌龟，名字叫慢慢", "family");
        one("国庆准备自驾去川西", "用户国庆准备自驾去川西", "plan");
    }

    #[test]
    fn a_topic_before_the_subject_keeps_its_place() {
        one("奶茶我戒了 现在只喝无糖乌龙", "奶茶用户戒了，现在只喝无糖乌龙", "health");
        one("香菜是我的天敌！！", "香菜是用户的天敌", "preference");
    }

    #[test]
    fn a_role_alone_kin_the_user_has_and_a_dropped_wode_before_shi_are_the_users() {
        one("高中数学老师 带俩毕业班", "用户是高中数学老师，带俩毕业班", "work");
        one("有个弟弟 比我小五岁", "用户有个弟弟，比用户小五岁", "family");
        one("生日是5月20号", "用户生日是5月20号", "date");
    }

    #[test]
    fn someone_named_first_or_a_noun_before_shi_is_the_subject_not_the_user() {
        for s in ["张伟是程序员", "小李在杭州工作", "王芳喜欢猫", "大学同学在英国读博", "周杰伦的老婆是昆凌", "老板让我周末加班", "这毛病我也有"] {
            assert_eq!(kept(s), Vec::new(), "{s}");
        }
    }

    #[test]
    fn health_comes_before_the_wish_it_is_said_with() {
        one("猫毛过敏但还是想养猫", "用户猫毛过敏但还是想养猫", "health");
    }

    #[test]
    fn the_statement_stops_at_a_clause_about_someone_else() {
        one("我跟奶奶一起住，她把我带大的", "用户跟奶奶一起住", "family");
    }

    #[test]
    fn small_talk_echoes_and_sentences_with_no_subject_or_news_keep_nothing() {
        for s in ["周末愉快", "辛苦了", "同上", "明天见", "先撤了 明天聊", "我也有一个", "我也买了同款", "我也养了", "我也养了一只", "烟酒都不沾", "今天天气真好"] {
            assert_eq!(kept(s), Vec::new(), "{s}");
        }
    }

    #[test]
    fn the_first_clause_names_the_category_and_the_clauses_after_it_comment() {
        one("我是某大厂的SRE 经常半夜被叫起来", "用户是某大厂的SRE，经常半夜被叫起来", "work");
        one("我报了个日语班 每周两次", "用户报了个日语班，每周两次", "study");
        one("我每周六上午打羽毛球", "用户每周六上午打羽毛球", "habit");
        one("我打算明天去办护照", "用户打算明天去办护照", "plan");
    }

    #[test]
    fn a_noun_alone_gets_back_its_shi_a_bare_age_its_sui_and_kin_after_wo_are_the_users() {
        one("我日本人 在中国待了五年了", "用户是日本人，在中国待了五年了", "identity");
        one("我护士 三班倒 累成狗", "用户是护士，三班倒，累成狗", "work");
        one("我32了 不年轻咯", "用户32岁了，不年轻咯", "identity");
        one("跑外卖的 风里雨里", "用户是跑外卖的，风里雨里", "work");
        one("小名豆豆 只有我妈这么喊我", "用户小名豆豆，只有用户的妈这么喊用户", "identity");
    }

    #[test]
    fn a_past_home_takes_no_key_that_would_replace_where_the_user_lives_now() {
        let key = |s: &str| extract(s).into_iter().find_map(|e| e.key).map(|k| k.attribute);
        assert_eq!(key("我住过上海 现在在杭州"), None);
        assert_eq!(key("我以前住在成都"), None);
        assert_eq!(key("我住在西安").as_deref(), Some("location"));
        assert_eq!(key("我35了 上有老下有小").as_deref(), Some("age"));
        assert_eq!(key("现居西安 老家河南").as_deref(), Some("location"));
        assert_eq!(key("下个月搬去广州").as_deref(), None, "a move to come is a plan, not where the user lives");
    }

    #[test]
    fn benren_inside_a_word_is_not_the_user() {
        one("本人是日本人", "用户是日本人", "identity");
        assert!(kept("我女朋友是日本人").iter().all(|(t, _)| !t.contains("日用户")), "{:?}", kept("我女朋友是日本人"));
    }

    #[test]
    fn laughter_or_a_closing_ne_does_not_make_a_statement_a_question() {
        one("我是天蝎座哈哈", "用户是天蝎座", "identity");
        one("我左腿骨折了 打着石膏呢", "用户左腿骨折了，打着石膏", "health");
        for s in ["你呢", "我也是 你呢", "哈哈哈"] {
            assert_eq!(kept(s), Vec::new(), "{s}");
        }
    }

    #[test]
    fn a_request_a_denial_and_a_we_that_is_not_the_household_keep_nothing() {
        for s in ["帮我写封感谢信给老师", "帮我订个明天早上七点的闹钟", "我们部门经理喜欢打高尔夫", "不对不对 不是我生日", "嫂子怀二胎了"] {
            assert_eq!(kept(s), Vec::new(), "{s}");
        }
        assert!(kept("不对，我在杭州工作").iter().any(|(t, _)| t == "用户纠正：我在杭州工作"));
    }
}
