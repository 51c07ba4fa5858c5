"""Profile entries about a person's life, read without an LLM: pets and people by name and how
one's time with them ended (engine/memory/persona_life.py); allergies, diet, conditions, not
drinking, fears (persona_health.py); birthday, age, status, children, pronouns, favourites,
what one is learning, languages (persona_self.py); what they become in the vault, and which a
small model is shown."""

import pytest

from engine import prompt_memories
from engine.records import ProfileSlot
from tests.helpers import entries


@pytest.mark.parametrize(
    ("said", "entry"),
    [
        ("My cat is called Miso.", ("pets", "cat: Miso", "cat: Miso")),
        ("My dog is called Biscuit, he's a very lazy beagle.", ("pets", "dog: Biscuit", "dog: Biscuit")),
        ("My cat, Miso, keeps sitting on my keyboard.", ("pets", "cat: Miso", "cat: Miso")),
        ("I have a grey cat called Pixel who sleeps on the radiator.",
         ("pets", "cat: Pixel", "cat: Pixel")),
        ("We've got a rescue dog named Bo.", ("pets", "dog: Bo", "dog: Bo")),
        ("Our dog Rex barks at the postman.", ("pets", "dog: Rex", "dog: Rex")),
        ("I have a brother called Luis.", ("people", "brother: Luis", "brother: Luis")),
        ("Thanks, we got another cat named Bailey too.", ("pets", "cat: Bailey", "cat: Bailey")),
        ("I just adopted a kitten named Mochi!", ("pets", "kitten: Mochi", "kitten: Mochi")),
        ("My GP is Dr Okafor at the Riverside practice.", ("people", "GP: Dr Okafor", "GP: Dr Okafor")),
        ("my doctor is Dr. Patel", ("people", "doctor: Dr. Patel", "doctor: Dr. Patel")),
        ("My dentist, Mr Hale, is retiring.", ("people", "dentist: Mr Hale", "dentist: Mr Hale")),
        ("My sister Ana is a paediatric nurse in Porto.", ("people", "sister: Ana", "sister: Ana")),
        ("My sister Ana's kids are loud.", ("people", "sister: Ana", "sister: Ana")),
        ("my wife's name is Priya", ("people", "wife: Priya", "wife: Priya")),
        ("My best friend, Tom, moved away.", ("people", "best friend: Tom", "best friend: Tom")),
        ("My daughter Chloé just turned seven.", ("people", "daughter: Chloé", "daughter: Chloé")),
        ("I'm allergic to peanuts, even a trace makes my throat swell.",
         ("health", "peanuts", "allergic to peanuts")),
        ("I am severely allergic to bee stings.", ("health", "bee stings", "allergic to bee stings")),
        ("I have a severe shellfish allergy.", ("health", "shellfish", "shellfish allergy")),
        ("I'm lactose intolerant.", ("health", "lactose intolerant", "lactose intolerant")),
        ("I'm vegetarian, I haven't eaten meat in ten years.", ("health", "diet", "vegetarian")),
        ("I went vegan last year.", ("health", "diet", "vegan")),
        ("My birthday is on the 3rd of September, I'll be forty.",
         ("identity", "birthday", "3rd of September")),
        ("I was born on 2 May 1990 in Leeds.", ("identity", "birthday", "2 May 1990")),
        ("my birthday is on the 3rd of september", ("identity", "birthday", "3rd of September")),
    ],
)
def test_a_sentence_about_ones_life_fills_its_entry(said, entry):
    assert entry in entries(said)


def test_each_language_spoken_is_an_entry_of_its_own():
    assert entries("I speak Dutch and some French.") == [
        ("identity", "speaks Dutch", "speaks Dutch"),
        ("identity", "speaks French", "speaks French"),
    ]


@pytest.mark.parametrize(
    "said",
    [
        "my dog is lazy",  # no name
        "My dad I think is fine.",
        "I speak to Maria every day.",  # no language named
        "My son is allergic to eggs.",  # someone else's allergy
        "I'm not vegetarian.",
        "Is my cat Miso ok?",  # a question tells nothing
        "My birthday is next week.",  # no date
        "I have allergies.",  # to nothing named
        "My doctor is great.",
        "My dentist is Polish and very gentle.",
        "My therapist is Italian.",
        "My doctor said I should rest.",
        "I got a dog last week.",
    ],
)
def test_what_does_not_say_it_fills_nothing(said):
    assert [e for e in entries(said) if e[0] in ("pets", "people", "health") or
            e[1] == "birthday" or e[1].startswith("speaks")] == []


def test_entries_stand_side_by_side_and_a_new_diet_replaces_the_old(memory):
    from tests.helpers import learn_exchanges

    learn_exchanges(memory, [
        ("My sister Ana lives in Porto.", "Nice."),
        ("My sister Lena is a marine biologist.", "Interesting."),
        ("My cat Miso and my dog Rex get along.", "Lovely."),
        ("I'm vegetarian these days.", "Noted."),
    ])
    assert {"sister: Ana", "sister: Lena", "cat: Miso", "dog: Rex", "diet: vegetarian"} <= {
        slot.text for slot in memory.profile()
    }
    learn_exchanges(memory, [("I went vegan last month.", "Good luck!")])
    current = {slot.text for slot in memory.profile()}
    assert "diet: vegan" in current and "diet: vegetarian" not in current
    replaced = {slot.text for slot in memory.profile(include_superseded=True)} - current
    assert "diet: vegetarian" in replaced


def test_forgetting_the_exchange_forgets_the_entry(memory):
    page = memory.add_memory("I'm allergic to peanuts.", "I'll keep that in mind.")
    memory.run_consolidation()
    assert "allergic to peanuts" in {slot.text for slot in memory.profile()}
    memory.forget_page(page.id)
    assert "allergic to peanuts" not in {
        slot.text for slot in memory.profile(include_superseded=True)
    }


def _slot(slot_id: int, category: str, name: str, value: str) -> ProfileSlot:
    return ProfileSlot(id=slot_id, category=category, name=name, value=value, origin="pattern",
                       evidence_page_ids=(slot_id,), created=0.0, updated=0.0, status="active")


def test_a_small_model_is_shown_an_allergy_for_a_question_about_food():
    """"Can I eat satay?" names no word of "allergic to peanuts"; the demo model is shown the
    entries a question is about, and any question about eating is about an allergy or a diet."""
    profile = (
        _slot(1, "identity", "name", "Tom"),
        _slot(2, "health", "peanuts", "allergic to peanuts"),
        _slot(3, "pets", "cat: Miso", "cat: Miso"),
        _slot(4, "health", "diet", "vegetarian"),
    )
    shown = [slot.text for slot in prompt_memories.small_profile(profile, "Can I eat satay?")]
    assert shown == ["name: Tom", "allergic to peanuts", "diet: vegetarian"]
    shown = [slot.text for slot in prompt_memories.small_profile(profile, "What is my pet called?")]
    assert shown == ["name: Tom", "cat: Miso"]
    shown = [slot.text for slot in prompt_memories.small_profile(profile, "How far is the moon?")]
    assert shown == ["name: Tom"]


@pytest.mark.parametrize(
    ("said", "entry"),
    [
        ("My daughter May starts school soon.", ("people", "daughter: May", "daughter: May")),
        ("I'll see my sister May 5th.", None),
        ("I called my mum Sunday.", None),
        ("My cat Miso and my dog Rex get along.", ("pets", "dog: Rex", "dog: Rex")),
    ],
)
def test_a_month_or_a_day_is_a_name_only_where_no_date_follows(said, entry):
    found = [e for e in entries(said) if e[0] in ("pets", "people")]
    assert (entry in found) if entry else found == []


def test_a_girlfriend_who_became_a_wife_is_one_current_entry(memory):
    from tests.helpers import learn_exchanges

    learn_exchanges(memory, [
        ("My girlfriend Ana got a new job.", "Congratulations to her!"),
        ("My sister Lena is visiting.", "Have fun!"),
    ])
    learn_exchanges(memory, [("My fiancée Ana and I set a date!", "Wonderful!")])
    learn_exchanges(memory, [("My wife Ana says hi.", "Hi Ana!")])
    current = {slot.text for slot in memory.profile()}
    assert {"wife: Ana", "sister: Lena"} <= current
    assert not {"girlfriend: Ana", "fiancée: Ana"} & current
    # told of the past: the wife stays current; another person is an entry of its own
    learn_exchanges(memory, [
        ("Back then my girlfriend Ana lived in Leeds.", "I see."),
        ("My boyfriend Sam was my first love.", "Sweet."),
    ])
    current = {slot.text for slot in memory.profile()}
    assert {"wife: Ana", "boyfriend: Sam"} <= current and "girlfriend: Ana" not in current
    # forgetting the exchange that said "wife" makes the step before it current again
    (wife,) = [s for s in memory.profile() if s.text == "wife: Ana"]
    memory.forget_page(wife.evidence_page_ids[0])
    assert "fiancée: Ana" in {slot.text for slot in memory.profile()}


@pytest.mark.parametrize(
    ("said", "entry"),
    [
        ("My cat Miso died last week.", ("pets", "cat: Miso", "cat: Miso (died)")),
        ("My dog Rex, sadly, died.", ("pets", "dog: Rex", "dog: Rex (died)")),
        ("We had to put our dog Rex down.", ("pets", "dog: Rex", "dog: Rex (died)")),
        ("We had to put down our dog Rex yesterday.", ("pets", "dog: Rex", "dog: Rex (died)")),
        ("My grandma Rose passed away in May.", ("people", "grandma: Rose", "grandma: Rose (died)")),
        ("My late husband Tom loved jazz.", ("people", "husband: Tom", "husband: Tom (died)")),
        ("My ex-wife Ana called.", ("people", "ex-wife: Ana", "ex-wife: Ana")),
        ("My ex Tom texted me.", ("people", "ex: Tom", "ex: Tom")),
        ("I broke up with my boyfriend Tom.", ("people", "ex-boyfriend: Tom", "ex-boyfriend: Tom")),
        ("I divorced my husband Tom last year.", ("people", "ex-husband: Tom", "ex-husband: Tom")),
        ("I'm separated from my wife Ana.", ("people", "ex-wife: Ana", "ex-wife: Ana")),
        ("My girlfriend Ana and I split up.", ("people", "ex-girlfriend: Ana", "ex-girlfriend: Ana")),
        ("My boyfriend Tom dumped me.", ("people", "ex-boyfriend: Tom", "ex-boyfriend: Tom")),
        ("My wife Ana and I separated in May.", ("people", "ex-wife: Ana", "ex-wife: Ana")),
        ("My boyfriend Tom and I split.", ("people", "ex-boyfriend: Tom", "ex-boyfriend: Tom")),
        # not an end
        ("My cat Miso nearly died.", ("pets", "cat: Miso", "cat: Miso")),
        ("When my dog Rex dies I'll be lost.", ("pets", "dog: Rex", "dog: Rex")),
        ("My sister Ana divorced her husband.", ("people", "sister: Ana", "sister: Ana")),
        ("My sister Ana and I split the bill.", ("people", "sister: Ana", "sister: Ana")),
        ("My girlfriend Ana and I split the bill.", ("people", "girlfriend: Ana", "girlfriend: Ana")),
        ("My husband Tom and I separated the recycling.", ("people", "husband: Tom", "husband: Tom")),
        ("I left my husband Tom a note.", ("people", "husband: Tom", "husband: Tom")),
    ],
)
def test_a_pet_that_died_or_a_partner_one_left_is_said_so(said, entry):
    assert [e for e in entries(said) if e[0] in ("pets", "people")] == [entry]


def test_an_end_replaces_the_entry_and_a_story_afterwards_does_not_undo_it(memory):
    from tests.helpers import learn_exchanges

    learn_exchanges(memory, [
        ("My cat Miso sleeps on my keyboard.", "Cute."),
        ("My boyfriend Tom cooked dinner.", "Nice."),
        ("My sister Lena is visiting.", "Have fun!"),
    ])
    learn_exchanges(memory, [
        ("My cat Miso died last week.", "I'm so sorry."),
        ("My ex Tom wants his records back.", "Awkward."),
    ])
    current = {slot.text for slot in memory.profile()}
    assert {"cat: Miso (died)", "ex: Tom", "sister: Lena"} <= current
    assert not {"cat: Miso", "boyfriend: Tom"} & current
    # told of the past afterwards: the end stands
    learn_exchanges(memory, [
        ("My cat Miso used to wake me at six.", "Sweet memory."),
        ("My boyfriend Tom and I met at a gig.", "I see."),
    ])
    current = {slot.text for slot in memory.profile()}
    assert {"cat: Miso (died)", "ex: Tom"} <= current
    assert not {"cat: Miso", "boyfriend: Tom"} & current
    # forgetting the exchange that said the cat died makes the cat current again
    (died,) = [s for s in memory.profile() if s.text == "cat: Miso (died)"]
    memory.forget_page(died.evidence_page_ids[0])
    assert "cat: Miso" in {slot.text for slot in memory.profile()}


def test_an_entry_filed_under_its_whole_line_is_shown_as_a_name_and_a_value():
    assert _slot(1, "pets", "cat: Miso", "cat: Miso (died)").columns == ("cat", "Miso (died)")
    assert _slot(2, "people", "GP: Dr Okafor", "GP: Dr Okafor").columns == ("GP", "Dr Okafor")
    assert _slot(3, "identity", "speaks Dutch", "speaks Dutch").columns == ("speaks", "Dutch")
    assert _slot(4, "identity", "location", "Ghent").columns == ("location", "Ghent")
    assert _slot(5, "health", "peanuts", "allergic to peanuts").columns == (
        "peanuts", "allergic to peanuts")


@pytest.mark.parametrize(
    ("said", "found"),
    [
        ("Tom and I broke up.", ["ex: Tom"]),
        ("Yesterday Tom and I split up.", ["ex: Tom"]),
        ("I broke up with Tom last week.", ["ex: Tom"]),
        ("I divorced Tom in 2019.", ["ex: Tom"]),
        ("Tom dumped me!", ["ex: Tom"]),
        ("My boyfriend Tom and I broke up.", ["ex-boyfriend: Tom"]),  # one entry, not two
        ("Tom and I broke up the fight.", []),
        ("We broke up.", []),
        ("They and I broke up.", []),
        ("Ana and I split the bill.", []),
    ],
)
def test_a_break_up_told_by_the_name_alone_is_an_ex(said, found):
    assert [e[1] for e in entries(said) if e[0] == "people"] == found


def test_a_break_up_told_by_the_name_alone_retires_the_partner(memory):
    from tests.helpers import learn_exchanges

    learn_exchanges(memory, [("My boyfriend Tom cooked dinner.", "Nice."),
                             ("My brother Tom is visiting.", "Fun!")])
    learn_exchanges(memory, [("Tom and I broke up last night.", "I'm sorry.")])
    current = {slot.text for slot in memory.profile()}
    assert {"ex: Tom", "brother: Tom"} <= current and "boyfriend: Tom" not in current


@pytest.mark.parametrize(
    ("said", "entry"),
    [
        ("My dog Rex ran away last night.", "dog: Rex (missing)"),
        ("Our cat Miso has gone missing!", "cat: Miso (missing)"),
        ("My cat Miso's been missing since Friday.", "cat: Miso (missing)"),
        ("My dog Rex got lost in the park.", "dog: Rex (missing)"),
        ("We found our dog Rex!", "dog: Rex (back home)"),
        ("My cat Miso came home this morning.", "cat: Miso (back home)"),
        ("My cat Miso is back!", "cat: Miso (back home)"),
        # not gone
        ("My dog Rex ran away with my sock.", "dog: Rex"),
        ("When our dog Rex ran away, we put up posters.", "dog: Rex"),  # a story
        ("My cat Miso is missing a tooth.", "cat: Miso"),
        ("My dog Rex loves to run away from the vet.", "dog: Rex"),
    ],
)
def test_a_pet_gone_missing_or_come_home_is_read(said, entry):
    assert [e[2] for e in entries(said) if e[0] == "pets"] == [entry]


def test_a_missing_pet_is_back_only_when_said_so(memory):
    from tests.helpers import learn_exchanges

    def cat() -> set[str]:
        return {s.text for s in memory.profile() if s.category == "pets"}

    learn_exchanges(memory, [("My cat Miso loves the radiator.", "Cosy!"),
                             ("My dog Rex is back from the groomer.", "Fluffy!")])
    assert cat() == {"cat: Miso", "dog: Rex"}  # never missing: no "back home"
    learn_exchanges(memory, [("Our cat Miso has gone missing!", "Oh no, I'm sorry.")])
    assert cat() == {"cat: Miso (missing)", "dog: Rex"}
    learn_exchanges(memory, [("My cat Miso used to sleep on my bed.", "I hope she's back soon.")])
    assert cat() == {"cat: Miso (missing)", "dog: Rex"}  # a story is no homecoming
    learn_exchanges(memory, [("We found our cat Miso!", "Wonderful!")])
    assert cat() == {"cat: Miso (back home)", "dog: Rex"}
    learn_exchanges(memory, [("Sadly my dog Rex died.", "I'm so sorry."),
                             ("My dog Rex ran away last night.", "…")])
    assert "dog: Rex (died)" in cat()  # nothing undoes a death
