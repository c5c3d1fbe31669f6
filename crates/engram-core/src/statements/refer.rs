//! Who "she", "he" and "they" are, within one turn: "I have a sister. She's a pole dancer."
//! → "My sister is a pole dancer." A sentence that begins with a third person is read with
//! the relative or pet the sentences before it named, when one of that person fits;
//! otherwise it stays as it is (and, not being about the speaker, keeps nothing).
//! A sentence that begins with the household's "we" or "our" is the speaker's ("We're
//! moving to Portugal" → "I'm moving to Portugal"); the "we" of the two who talk is not.

use std::sync::OnceLock;

use regex_lite::Regex;

/// Relatives and pets by the pronoun that stands for them.
const SHE: &[&str] = &["sister", "mom", "mum", "mother", "wife", "girlfriend", "daughter", "aunt", "niece", "grandma", "grandmother", "fiancée", "stepmom"];
const HE: &[&str] = &["brother", "dad", "father", "husband", "boyfriend", "son", "uncle", "nephew", "grandpa", "grandfather", "fiancé", "stepdad"];
const THEY: &[&str] = &["kids", "children", "parents", "sisters", "brothers", "sons", "daughters", "friends", "twins", "grandparents", "cousins", "grandkids", "grandchildren", "roommates", "dogs", "cats", "pets"];
const PETS: &[&str] = &["dog", "cat", "puppy", "kitten", "turtle", "parrot", "bird", "hamster", "rabbit", "horse", "snake", "lizard", "fish"];

/// The last relative or pet `sentence` names as the speaker's ("I have a sister", "my son").
pub(crate) fn antecedent(sentence: &str) -> Option<String> {
    let p = patterns();
    p.named.captures_iter(sentence).filter_map(|c| c.get(1).map(|m| m.as_str().to_lowercase())).filter(|w| fits(w, "she") || fits(w, "he") || fits(w, "they")).last()
}

/// `sentence` with a leading "She"/"He"/"They"/"It" read as "My <antecedent>" when the
/// antecedent fits the pronoun; `None` when it does not begin so or nothing fits.
pub(crate) fn resolved(sentence: &str, antecedent: &str) -> Option<String> {
    let c = patterns().leading.captures(sentence.trim_start())?;
    let pronoun = c[1].to_lowercase();
    if !fits(antecedent, &pronoun) {
        return None;
    }
    let verb = match c.get(2).map(|m| m.as_str()) {
        Some("'s" | "’s") => if THEY.contains(&antecedent) { " are" } else { " is" },
        Some("'re" | "’re") => " are",
        _ => "",
    };
    Some(format!("My {antecedent}{verb}{}", &sentence.trim_start()[c[0].len()..]))
}

/// "We're moving to Portugal", "our daughter Emma just started school": the speaker's
/// household, read as the speaker ("I'm moving to Portugal", "my daughter Emma…"). Not
/// the "we" of the two who talk ("we should hang out", "we have a lot in common"), nor a
/// "we" that supposes or promises ("we could", "we'll see"): `None` for those, and for a
/// sentence that does not begin with "we" or "our".
pub(crate) fn household(sentence: &str) -> Option<String> {
    let p = patterns();
    let lower = sentence.to_lowercase();
    if !p.we_lead.is_match(&lower) || p.joint.is_match(&lower) {
        return None;
    }
    let out = p.we.replace_all(sentence, |c: &regex_lite::Captures<'_>| {
        let word = &c[0];
        let me = match word.to_lowercase().replace('’', "'").as_str() {
            "we're" => "I'm",
            "we've" => "I've",
            "we'd" => "I'd",
            "we are" => "I am",
            "we were" => "I was",
            "we" => "I",
            "our" => "my",
            "ours" => "mine",
            "ourselves" => "myself",
            _ => "me",
        };
        match (word.starts_with(char::is_uppercase), me.strip_prefix('m')) {
            (true, Some(rest)) => format!("M{rest}"),
            _ => me.to_owned(),
        }
    });
    Some(out.into_owned())
}

fn fits(word: &str, pronoun: &str) -> bool {
    match pronoun {
        "she" => SHE.contains(&word) || PETS.contains(&word),
        "he" => HE.contains(&word) || PETS.contains(&word),
        "they" => THEY.contains(&word),
        "it" => PETS.contains(&word),
        _ => false,
    }
}

struct Patterns {
    named: Regex,
    leading: Regex,
    we_lead: Regex,
    joint: Regex,
    we: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = super::pattern;
        Patterns {
            named: re(r"(?i)\b(?:i have|i've got|i had|i've|my)\s+(?:(?:a|an|one|two|three|four|five|\d+|little|older|younger|big|baby|twin|best|new|old|pet)\s+)*([a-zé]+)\b"),
            leading: re(r"^(She|He|They|It)('s|’s|'re|’re)?\b"),
            we_lead: re(r"^(?:(?:oh|yeah|yes|well|actually|so|and|but|wow|haha)[\s,!.]+)*(?:we|our)\b"),
            joint: re(r"\bwe (?:should|could|can|might|may|must|will|would|shall|both|all)\b|\bwe(?:'ll|’ll|'d|’d)\b|^we(?:'re|’re| are) (?:an?|the) |\b(?:in common|the same|same (?:interests|things?)|similar|together|each other|alike|rivals|let's|talked|chatted|discussed|just met)\b|^we (?:do|did|are|were|have)\W*$"),
            // "us" in lower case only: "the US" is a country.
            we: re(r"\b(?i:we(?:'re|’re|'ve|’ve|'d|’d| are| were)?|our|ours|ourselves)\b|\bus\b"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pronoun_after_a_named_relative_or_pet_is_read_as_them() {
        assert_eq!(antecedent("I have a sister.").as_deref(), Some("sister"));
        assert_eq!(resolved("She's a pole dancer.", "sister").as_deref(), Some("My sister is a pole dancer."));
        assert_eq!(antecedent("I spend a lot of time with my son.").as_deref(), Some("son"));
        assert_eq!(resolved("He's in junior high school.", "son").as_deref(), Some("My son is in junior high school."));
        assert_eq!(antecedent("I have two kids.").as_deref(), Some("kids"));
        assert_eq!(resolved("They love soccer.", "kids").as_deref(), Some("My kids love soccer."));
        assert_eq!(resolved("It's called Rex.", "dog").as_deref(), Some("My dog is called Rex."));
    }

    #[test]
    fn the_households_we_is_the_speaker_and_the_we_of_the_talk_is_not() {
        assert_eq!(household("We're moving to Portugal in the spring").as_deref(), Some("I'm moving to Portugal in the spring"));
        assert_eq!(household("our daughter Emma just started kindergarten").as_deref(), Some("my daughter Emma just started kindergarten"));
        assert_eq!(household("Our wedding anniversary is September 18").as_deref(), Some("My wedding anniversary is September 18"));
        assert_eq!(household("we are from a small town, so this is new to us").as_deref(), Some("I am from a small town, so this is new to me"));
        assert_eq!(household("We moved to the US in 2019").as_deref(), Some("I moved to the US in 2019"));
        for s in ["We should hang out sometime", "We have a lot in common!", "we'll see", "We could go to the park", "We do.", "I think we're done", "We talked about a lot of things", "We're a big family", "We have similar taste in music"] {
            assert_eq!(household(s), None, "{s:?}");
        }
    }

    #[test]
    fn a_pronoun_that_fits_no_one_named_before_stays_as_it_is() {
        assert_eq!(resolved("He's a pole dancer.", "sister"), None);
        assert_eq!(resolved("They are great.", "sister"), None);
        assert_eq!(resolved("It's a beautiful country.", "sister"), None);
        assert_eq!(antecedent("I have a car."), None);
        assert_eq!(resolved("My sister is nice.", "sister"), None);
    }
}
