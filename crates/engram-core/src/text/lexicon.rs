//! Categories of things people state preferences about. A preference for a member of a
//! category gets the key `(user, preferred <category>)`, so "switched to Go" supersedes
//! "prefers Python"; anything else gets `(user, opinion of <thing>)`.

const CATEGORIES: &[(&str, &[&str])] = &[
    (
        "programming language",
        &[
            "python", "go", "golang", "rust", "java", "javascript", "typescript", "c", "c++", "c#", "kotlin", "swift", "ruby",
            "php", "scala", "haskell", "elixir", "clojure", "dart", "lua", "perl", "r", "julia", "zig", "ocaml",
        ],
    ),
    ("editor", &["vim", "neovim", "emacs", "vscode", "vs code", "sublime", "intellij", "pycharm", "cursor", "zed"]),
    ("database", &["postgresql", "postgres", "mysql", "mongodb", "sqlite", "redis", "oracle", "cassandra", "dynamodb"]),
    ("operating system", &["linux", "macos", "windows", "ubuntu", "debian", "arch", "fedora"]),
    ("llm", &["gpt-4", "gpt-4o", "gpt-5", "claude", "gemini", "llama", "qwen", "deepseek", "mistral"]),
    ("drink", &["coffee", "tea", "green tea", "black tea", "咖啡", "茶", "绿茶", "红茶"]),
    ("answer style", &["concise answers", "detailed answers", "short answers", "bullet points", "简洁的回答", "详细的回答"]),
];

/// The category of `thing`, if it is a known member of one.
pub fn category_of(thing: &str) -> Option<&'static str> {
    let t = thing.trim().to_lowercase();
    CATEGORIES.iter().find(|(_, members)| members.contains(&t.as_str())).map(|(c, _)| *c)
}

/// Nationalities, peoples and faiths: after "I'm" they are not a name but a fact of
/// identity ("I'm Brazilian", "I'm Catholic").
const PEOPLES_AND_FAITHS: &[&str] = &[
    "american", "canadian", "mexican", "brazilian", "argentinian", "argentine", "chilean", "colombian", "peruvian", "venezuelan", "cuban",
    "british", "english", "scottish", "welsh", "irish", "french", "german", "dutch", "belgian", "swiss", "austrian", "italian", "spanish",
    "portuguese", "greek", "turkish", "polish", "czech", "slovak", "hungarian", "romanian", "bulgarian", "serbian", "croatian", "ukrainian",
    "russian", "swedish", "norwegian", "danish", "finnish", "icelandic", "chinese", "japanese", "korean", "vietnamese", "thai", "filipino",
    "filipina", "indonesian", "malaysian", "singaporean", "indian", "pakistani", "bangladeshi", "nepali", "iranian", "persian",
    "iraqi", "syrian", "lebanese", "israeli", "palestinian", "jordanian", "saudi", "egyptian", "moroccan", "algerian", "tunisian",
    "nigerian", "ghanaian", "kenyan", "ethiopian", "somali", "ugandan", "tanzanian", "african", "australian", "kiwi", "european",
    "asian", "latino", "latina", "hispanic", "arab", "texan", "californian", "catholic", "christian", "protestant", "baptist",
    "methodist", "lutheran", "orthodox", "mormon", "muslim", "jewish", "hindu", "buddhist", "sikh", "jain", "atheist", "agnostic",
    "pagan", "wiccan", "quaker",
];

/// True for a nationality, a people or a faith, lower-cased ("brazilian", "catholic").
pub(crate) fn is_people_or_faith(word: &str) -> bool {
    PEOPLES_AND_FAITHS.contains(&word)
}
