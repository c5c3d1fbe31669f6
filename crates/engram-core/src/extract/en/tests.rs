use super::*;

fn fact(s: &str) -> Extracted {
    self_fact(s).unwrap_or_else(|| panic!("{s:?} kept nothing"))
}

#[test]
fn first_person_becomes_third_person() {
    assert_eq!(fact("I'm allergic to peanuts").text, "User is allergic to peanuts");
    assert_eq!(fact("I love to bake cookies and knit").text, "User loves to bake cookies and knit");
    assert_eq!(fact("My brother is a year older than me").text, "User's brother is a year older than them");
    assert_eq!(fact("I watch TV when I'm bored").text, "User watches TV when they are bored");
    assert_eq!(fact("I also volunteer at a homeless shelter").text, "User volunteers at a homeless shelter");
    assert_eq!(fact("I grew up in Ohio").text, "User grew up in Ohio");
    assert_eq!(fact("I usually just run 5Ks").text, "User usually just runs 5Ks");
    assert_eq!(fact("I don't drink alcohol").text, "User doesn't drink alcohol");
    assert_eq!(fact("I used to do ballet when I was younger").text, "User used to do ballet when they were younger");
    assert_eq!(fact("I need to make some new friends").text, "User needs to make some new friends");
    assert_eq!(fact("I feed the ducks at the pond every Sunday").text, "User feeds the ducks at the pond every Sunday");
    assert_eq!(fact("I cannot wait to move out of my parents home").text, "User cannot wait to move out of their parents home");
    assert_eq!(fact("I do enjoy a good mystery").text, "User enjoys a good mystery");
    assert_eq!(fact("I do a lot of street dancing").text, "User does a lot of street dancing");
    assert_eq!(fact("I mostly read fiction").text, "User mostly reads fiction");
    assert_eq!(fact("I read it last summer and loved the ending").text, "User read it last summer and loved the ending");
    // A past without -ed stays past, and the speaker's household is theirs.
    assert_eq!(fact("I tore my ACL skiing").text, "User tore their ACL skiing");
    assert_eq!(fact("I woke up at 5 today").text, "User woke up at 5 today");
    assert_eq!(fact("My mum lives with us now").text, "User's mum lives with them now");
    assert_eq!(fact("I love our little flat").text, "User loves their little flat");
    assert_eq!(fact("I moved to the us last year").text, "User moved to the us last year", "the country, not the speaker's household");
}

#[test]
fn each_kind_of_self_fact_gets_its_category() {
    for (s, c) in [
        ("I'm allergic to peanuts", "health"),
        ("I'm vegetarian", "health"),
        ("My sister is called Ana", "family"),
        ("I have two kids", "family"),
        ("I have a German Shepherd named Barnaby", "family"),
        ("I work at Acme as a nurse", "work"),
        ("I'm a high school chemistry teacher", "work"),
        ("I'm studying biology at college", "study"),
        ("I grew up in a small town", "place"),
        ("I have a red truck", "possession"),
        ("I've got an old Gibson guitar I play every night", "possession"),
        ("My car is a 2009 Toyota Corolla", "possession"),
        ("I got a new puppy", "family"),
        ("I have a fear of deep water", "habit"),
        ("I'm afraid of spiders", "habit"),
        ("I love country music", "preference"),
        ("I'm really into jazz", "preference"),
        ("I'm a huge Star Wars fan", "preference"),
        ("I find opera boring", "preference"),
        ("I prefer working from home", "preference"),
        ("I plan to go to business school next year", "plan"),
        ("I'm looking forward to going to business school next year", "plan"),
        ("I can't wait to move out of my parents home", "plan"),
        ("My birthday is on March 3rd", "date"),
    ] {
        assert_eq!(fact(s).tags, vec![format!("category:{c}")], "{s:?}");
    }
}

#[test]
fn values_that_replace_older_ones_carry_a_key() {
    let key = |s: &str| fact(s).key.map(|k| k.attribute);
    assert_eq!(key("I'm vegetarian").as_deref(), Some("diet"));
    assert_eq!(key("My birthday is on March 3rd").as_deref(), Some("birthday"));
    assert_eq!(key("My favorite color is red").as_deref(), Some("favorite_color"));
    assert_eq!(key("I'm allergic to peanuts").as_deref(), Some("allergy_peanuts"));
    assert_eq!(key("I have two kids"), None);
}

#[test]
fn a_favorite_named_before_it_is_put_first() {
    let f = fact("Mickey Mouse is my favorite character");
    assert_eq!(f.text, "User's favorite character is Mickey Mouse");
    assert_eq!(f.key.map(|k| k.attribute).as_deref(), Some("favorite_character"));
    assert_eq!(fact("Horror movies are my favorite").text, "User's favorites are horror movies");
    assert_eq!(fact("Zelda is my favorite").text, "User's favorite is Zelda");
    assert_eq!(fact("Pizza is my favorite food").text, "User's favorite food is pizza");
    assert_eq!(fact("Hindi is my mother tongue").text, "User's mother tongue is Hindi");
    assert_eq!(self_fact("That is my favorite"), None);
}

#[test]
fn a_named_relative_or_pet_is_linked_in_the_graph() {
    let l = fact("My sister is called Ana").link.expect("link");
    assert_eq!((l.rel.as_str(), l.object.name.as_str()), ("sister", "Ana"));
    let l = fact("I have a turtle named Timothy").link.expect("link");
    assert_eq!((l.rel.as_str(), l.object.name.as_str()), ("pet", "Timothy"));
}

#[test]
fn a_fact_said_with_a_partner_is_the_users_with_them() {
    assert_eq!(fact("my wife and I live in Toronto").text, "User lives in Toronto with their wife");
    assert_eq!(fact("my boyfriend Marco and I live together").text, "User lives with their boyfriend Marco");
    assert_eq!(fact("My wife and I are divorcing").text, "User is divorcing with their wife");
    assert_eq!(fact("my bf and I have been together 6 years").text, "User has been together 6 years with their bf");
}

#[test]
fn what_the_user_cannot_eat_or_drink_is_kept_though_it_is_said_with_a_negation() {
    assert_eq!(fact("I can't eat gluten").text, "User can't eat gluten");
    assert_eq!(fact("I cannot have dairy").text, "User cannot have dairy");
}

#[test]
fn someone_elses_fact_is_theirs_with_no_key_of_the_users() {
    let e = someone_elses_fact("My mom is diabetic").expect("kept");
    assert_eq!(e.text, "User's mom is diabetic");
    assert_eq!((e.tags.as_slice(), e.key.is_none()), (&["category:people".to_owned()][..], true));
}

#[test]
fn dates_frequencies_faiths_and_plans_get_their_categories() {
    for (s, c) in [
        ("I'm flying to Rome on December 20th", "date"),
        ("I run every morning before work", "habit"),
        ("I'm Brazilian", "identity"),
        ("I'm applying to grad school this fall", "plan"),
        ("I'm a pharmacist", "work"),
        ("I have high blood pressure", "health"),
        ("I wear glasses", "health"),
        ("I love going to museums", "preference"),
        ("I like working with my hands", "preference"),
        ("I love vegan food", "health"),
    ] {
        assert_eq!(fact(s).tags, vec![format!("category:{c}")], "{s:?}");
    }
}

#[test]
fn a_pronoun_after_a_thing_the_clause_names_points_to_it_and_a_correction_that_only_takes_back_keeps_nothing() {
    let kept = |s: &str| crate::extract::extract(s).into_iter().map(|e| e.text).collect::<Vec<_>>();
    assert_eq!(kept("i have a kindle and like 400 books on it"), vec!["User has a kindle and like 400 books on it"]);
    assert_eq!(kept("i like it too"), Vec::<String>::new());
    assert_eq!(kept("no no, the trip isnt mine, you got it wrong"), Vec::<String>::new());
    assert_eq!(kept("i'm in the same boat"), Vec::<String>::new());
}

#[test]
fn a_people_word_is_an_identity_only_as_what_the_speaker_is() {
    assert_eq!(fact("I'm half Korean").tags, vec!["category:identity"]);
    assert_eq!(fact("I'm obsessed with Korean dramas").tags, vec!["category:preference"]);
    assert_eq!(fact("I bike to work every day").tags, vec!["category:place"]);
}

#[test]
fn what_people_say_while_asking_for_something_is_kept_and_the_request_is_not() {
    let kept = |s: &str| crate::extract::extract(s).into_iter().map(|e| (e.text, e.tags)).collect::<Vec<_>>();
    assert_eq!(kept("can you suggest a recipe? no dairy pls, im lactose intolerant"), vec![("User is lactose intolerant".to_owned(), vec!["category:health".to_owned()])]);
    assert_eq!(kept("ugh long day. just got off a 12h shift, i'm a nurse in the ER so it's always like this"), vec![("User is a nurse in the ER".to_owned(), vec!["category:work".to_owned()])]);
    assert_eq!(kept("been learning guitar for 2 years now"), vec![("User has been learning guitar for 2 years now".to_owned(), vec!["category:habit".to_owned()])]);
    assert_eq!(kept("moved to denver last year for work"), vec![("User moved to denver last year for work".to_owned(), vec!["category:place".to_owned()])]);
    assert!(kept("No the deadline is Friday").iter().any(|(t, _)| t == "Correction from the user: the deadline is Friday"));
}

#[test]
fn a_dislike_said_as_not_a_fan_is_kept_and_having_none_or_being_away_is_not() {
    let kept = |s: &str| crate::extract::extract(s).into_iter().map(|e| (e.text, e.tags)).collect::<Vec<_>>();
    assert_eq!(kept("I'm not a fan of horror films"), vec![("User is not a fan of horror films".to_owned(), vec!["category:preference".to_owned()])]);
    for said in ["I have no plans for the weekend", "sorry, I was away for a bit", "I haven't got a job interview, I was asking for a friend"] {
        assert_eq!(kept(said), Vec::new(), "{said}");
    }
}

#[test]
fn a_move_typed_in_lower_case_replaces_the_city_as_a_capitalised_one_does() {
    let key = |s: &str| crate::extract::extract(s).into_iter().find_map(|e| e.key.map(|k| k.attribute));
    assert_eq!(key("moved to denver last year for work").as_deref(), Some("location"));
    assert_eq!(key("i live in porto now").as_deref(), Some("location"));
    assert_eq!(key("I moved to Lisbon in 2022").as_deref(), Some("location"));
    for said in ["i used to live in berlin", "i live in a small flat", "i lived in chicago for 10 years"] {
        assert_ne!(key(said).as_deref(), Some("location"), "{said}");
    }
}

