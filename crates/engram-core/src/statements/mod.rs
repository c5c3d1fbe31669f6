//! What a turn states, before anything is kept of it: English sentences cut into clauses
//! (`clauses`), each told a statement of the speaker's own from one they ask, hedge, deny,
//! imagine, report or say about the talk (`refusal`), and a leading "she"/"he"/"they" read
//! as the relative or pet named before it (`refer`). `extract` turns what passes into facts.

pub(crate) mod clauses;
pub(crate) mod refer;
pub(crate) mod refusal;

use regex_lite::Regex;

/// A pattern of the statement and extraction rules, compiled. Not inlined: each pattern is
/// one call of it, not one more copy of the compiler's entry (the tables are built once).
#[inline(never)]
pub(crate) fn pattern(s: &str) -> Regex {
    Regex::new(s).unwrap_or_else(|e| unreachable!("extraction pattern {s}: {e}"))
}

/// Who, after "my", is someone else: relatives, partners, friends, people of work or
/// school, and pets.
pub(crate) const PEOPLE: &str = r"mom|mum|mother|dad|father|parents?|brothers?|sisters?|siblings?|sons?|daughters?|kids?|children|child|wife|husband|spouse|girlfriend|boyfriend|partner|bf|gf|hubby|wifey|grand(?:ma|pa|mother|father|parents?|kids?|children|son|daughter)s?|cousins?|aunts?|uncles?|nieces?|nephews?|twins?|friends?|mates?|best mates?|pastor|priest|imam|kuya|ate|aunty|auntie|nan|nana|gran|granny|grandad|missus|fianc[eé]e?|bestie|bff|buddy|pal|roommates?|flatmates?|housemates?|in-laws?|stepmom|stepdad|stepson|stepdaughter|baby|neighbou?rs?|boss|manager|coworkers?|co-workers?|colleagues?|teachers?|professor|coach|doctor|therapist|physio|dentist|landlord|classmates?|team|dog|cat|puppy|kitten|pets?|bird|parrot|horse|rabbit|hamster|turtle";

