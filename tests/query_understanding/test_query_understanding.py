"""The built-in method: follow-ups, compound and single-issue messages, French, and garbage input."""

from __future__ import annotations

import pytest

from query_understanding import NO_WORDS_NOTE, understand
from query_understanding.machine_text import rule_broken
from query_understanding.standalone_rules import leans_on_history, make_standalone


def offline(*turns: str):
    return understand(list(turns), config=None)


@pytest.mark.parametrize(
    "turns",
    [[], [""], ["   \n\t "], ["?!?! ... ,,,"], ["😡✈️🧳"], ["\x00\x07\x1b[31m"], ["12345 678"], None, ["ok", "\u200b"]],
)
def test_input_without_words_gives_no_questions(turns):
    result = understand(turns, config=None)
    assert (result.standalone, result.questions, result.path, result.note) == ("", (), "offline", NO_WORDS_NOTE)


def test_huge_noisy_input_is_cleaned_and_bounded():
    message = "\x00My Flair flight was delayed 6 hours 😡, what am I owed?\n" * 1000
    result = offline(message)
    assert 1 <= len(result.questions) <= 3
    for question in result.questions:
        assert len(question) <= 4000 and "\x00" not in question and "😡" not in question
    assert "\n" not in result.standalone


def test_single_issue_message_is_one_question_the_whole_message():
    message = "Jazz cancelled my Regina to Calgary flight two hours before departure. Do I get compensation?"
    result = offline(message)
    assert result.questions == (message,)
    assert (result.path, result.note) == ("offline", "")


def test_long_story_with_one_question_stays_one_question():
    message = (
        "We were going to my cousin's graduation in Moncton, flying Porter from Ottawa. The flight sat at the gate, "
        "then they announced a 5 hour delay for a mechanical problem, and we missed the ceremony entirely. "
        "What are we owed?"
    )
    assert len(offline(message).questions) == 1


@pytest.mark.parametrize(
    ("message", "in_first", "in_second"),
    [
        (  # enumerated questions are kept apart
            "Two questions about our Lynx trip from Calgary to Toronto with my 6 year old daughter. "
            "1) is there a fee to sit next to her 2) can I bring my viola in the cabin?",
            ("sit next to her", "6 year old"),
            ("viola", "Lynx"),
        ),
        (  # a French compound message is split
            "Mon vol Air Transat de Québec à Cancún a été annulé et on est partis 30 heures plus tard. "
            "En plus ma valise est arrivée brisée. Quelle indemnité pour l'annulation? "
            "Et pour la valise, je fais quoi?",
            ("indemnité", "30 heures"),
            ("valise", "Air Transat"),
        ),
    ],
)
def test_two_asks_become_two_questions_each_with_its_facts(message, in_first, in_second):
    first, second = offline(message).questions
    assert all(words in first for words in in_first)
    assert all(words in second for words in in_second)


def test_asks_listed_with_bullets_are_shown_as_asked_without_the_bullet():
    message = (
        "Porter m'a refusée a l'embarquement a Québec, le vol était survendu. Replacée sur le vol du lendemain, "
        "arrivée a Toronto 15h en retard.\n- C'est-tu considéré comme un refus d'embarquement?\n"
        "- Pis pour ma valise brisée, ils paient quoi?"
    )
    first, second = offline(message).questions
    assert first.startswith("C'est-tu considéré comme un refus d'embarquement")
    assert "valise" in second
    assert not any(question.lstrip().startswith("-") for question in (first, second))


def test_at_most_three_questions():
    message = (
        "Air Canada bumped me from an oversold flight to Regina. Is the voucher they gave me enough? "
        "Should they have given me a meal? Can I get my seat fee refunded? And my suitcase arrived torn, who pays?"
    )
    questions = offline(message).questions
    assert len(questions) == 3
    assert "suitcase" in questions[-1]


def test_follow_up_carries_the_facts_it_leans_on():
    result = offline(
        "Sunwing lost my suitcase on the way back from Varadero to Montreal, it has been 9 days.",
        "how long before they have to pay me for it?",
    )
    assert result.standalone.startswith("How long before they have to pay me for it?")
    assert "Sunwing" in result.standalone and "suitcase" in result.standalone and "9 days" in result.standalone
    assert result.searches == (result.standalone,)  # searched whole; the page shows a short question
    (question,) = result.questions
    assert "Sunwing" in question and "suitcase" in question and len(question.split()) <= 25


def test_follow_up_carries_facts_named_in_earlier_questions():
    result = offline("Do I get anything for a 4 hour delay with Flair out of Edmonton?", "What if they blame weather?")
    assert "Flair" in result.standalone and "4 hour" in result.standalone and "Edmonton" in result.standalone


def test_self_contained_last_message_drags_no_history_in():
    last = "Porter cancelled my flight from Ottawa to Halifax because of a storm, do they owe me anything?"
    result = offline("My violin case got scratched on a WestJet flight last year.", last)
    assert result.standalone == last


def test_french_follow_up():
    history = "Air Canada a perdu le fauteuil roulant de mon père entre Montréal et Calgary."
    result = offline(history, "Ils doivent faire quoi?")
    assert "fauteuil roulant" in result.standalone and "Air Canada" in result.standalone


def test_same_input_same_output():
    turns = ["WestJet delayed us 7 hours in Regina.", "and the hotel we paid for?"]
    assert offline(*turns) == offline(*turns)


def test_statements_of_different_kinds_split_even_without_a_question():
    first, second = offline(
        "Porter cancelled my flight out of Moncton. Separately, my scooter came back damaged."
    ).questions
    assert "cancelled" in first and "scooter" in second and "Porter" in second


@pytest.mark.parametrize(
    ("message", "first", "second"),
    [
        ("My flight was cancelled and they lost my bag, what can I get?", "cancelled", "bag"),
        ("Lynx delayed us 6 hours and my suitcase came back ripped, I want compensation for both.", "6 h", "ripped"),
        ("Mon vol a été annulé et ils ont perdu ma valise, à quoi j'ai droit?", "annulé", "valise"),
        ("Mon vol a été annulé pis ma valise est arrivée toute maganée, j'ai droit à quoi?", "annulé", "maganée"),
    ],
)
def test_one_ask_about_two_situations_is_two_short_questions(message, first, second):
    questions = offline(message).questions
    assert len(questions) == 2
    assert first in questions[0] and second in questions[1]
    assert ", À" not in questions[0]  # the ask after a clause goes on in lower case
    assert all(rule_broken(question, message) is None for question in questions)


def test_a_long_story_shows_short_questions_and_searches_its_facts():
    story = (
        "We were flying home from Lisbon to Montreal on Air Transat with our two kids. The flight was supposed to "
        "leave at 1 pm, but they kept pushing it back and finally told us at 9 pm it was cancelled because of a "
        "crew shortage. They gave us a small meal voucher and nothing else, we slept in the terminal. We got home "
        "29 hours late. When we landed my suitcase was not on the carousel and it showed up four days later with "
        "a broken wheel. How much compensation are we owed for the cancellation? And who pays for the suitcase?"
    )
    result = offline(story)
    first, second = result.questions
    assert "compensation" in first and "crew shortage" in first and "suitcase" in second
    assert all(len(question.split()) <= 25 and rule_broken(question, story) is None for question in result.questions)
    assert "29 hours" in result.searched(0) and "broken wheel" in result.searched(1)


def test_a_negated_question_is_asked_with_the_asks_after_it():
    story = (
        "The ticket says the regional partner operated it. Isn't it the big airline's flight though?? They "
        "cancelled it and the partner says it's a small carrier, so it owes less. Nobody has answered my letter "
        "for six weeks. Am I owed the small airline amount or the big one, and can I complain to someone?"
    )
    (question,) = understand([story], config=None).questions
    assert question.startswith("Isn't it the big airline's flight")
    assert "am I owed the small airline amount or the big one" in question
    assert rule_broken(question, story) is None


@pytest.mark.parametrize(
    ("story", "asked"),
    [
        (
            "On revenait de Floride avec Flair pis le vol a été retardé de 4h parce que l'équipage était pas arrivé, "
            "on a atterri à Montréal à 2h du matin avec les enfants. Pis pour le retard, on a droit à quelque chose?",
            "Pour le retard, on a droit à quelque chose (",
        ),
        (
            "WestJet kept us on the plane at the gate for hours with no water and the kids were crying the whole "
            "time, then they cancelled anyway. So we just get nothing for that?",
            "We just get nothing for that (",
        ),
    ],
)
def test_a_question_asked_without_inversion_is_kept_in_the_passengers_words(story, asked):
    (question,) = understand([story], config=None).questions
    assert question.startswith(asked)
    assert rule_broken(question, story) is None


@pytest.mark.parametrize(
    "follow_up",
    [
        "Pis si j'ai pas gardé mes factures pour l'hôtel pis la bouffe, j'ai-tu quand même droit à de quoi?",
        "Update: they now say the cancellation was because of a strike and outside their control, does that matter?",
    ],
)
def test_a_follow_up_opening_with_pis_or_update_leans_on_the_story(follow_up):
    story = "Air Canada a cancellé notre vol YUL-CDG à cause d'une panne informatique, on a payé l'hôtel."
    assert leans_on_history(follow_up)
    assert "Air Canada" in make_standalone([story], follow_up)


def test_a_support_person_is_carried_into_a_follow_up_about_another_leg():
    """The sentence saying who travels with the passenger, and why, tells the disability the follow-up turns on."""
    story = (
        "My dad has MS. We flew Air Canada Halifax to Calgary in May. He can't eat alone, so I travel with him as his "
        "support person. Do I pay for my own seat next time?"
    )
    follow_up = "also what if we stop in Edmonton on the way home, same answer for each leg?"
    assert "support person" in make_standalone([story], follow_up)


def test_a_carrier_calling_the_claim_too_late_leans_on_the_story_it_answers():
    """"Too late" is the claim's timing, not a delay of the flight: the story of the cracked suitcase comes along."""
    story = "Swiss flew me from Zurich to Montréal and my suitcase came out cracked. I wrote to them 9 days later."
    follow_up = "Swiss now says my claim is too late, full stop. Is that right?"
    assert leans_on_history(follow_up)
    assert "suitcase" in make_standalone([story], follow_up)
    assert not leans_on_history("Swiss now says the flight will be two hours late. Is that right?")


@pytest.mark.parametrize(
    "message",
    [
        "We landed five hours late and the airline blamed the weather. Do I have to prove the cause, or do they? "
        "And is it too late to claim after ten months?",
        "The travel site charged me a fee to move my flight after the airline changed it. "
        "Can the site keep its own fee, and how do I get my $60 back?",
    ],
)
def test_clauses_of_one_asking_sentence_are_asked_once(message):
    for question in offline(message).questions:
        clauses = [clause.strip(" ?").lower() for clause in question.split("(")[0].split(",")]
        assert len(clauses) == len(set(clauses)), question


def test_a_regional_carrier_is_the_fact_a_question_carries_not_one_named_in_comparison():
    story = (
        "Pacific Coastal from Vancouver to Port Hardy, cancelled an hour before departure because a pilot called in "
        "sick, and I got there 24 hours late. They emailed me an offer of $125. My buddy got $1,000 from Air Canada "
        "for a similar delay. Is $125 right for 24 hours?"
    )
    (question,) = offline(story).questions
    assert "Pacific Coastal" in question


def test_a_question_never_opens_inside_the_passengers_brackets():
    story = "We flew to Halifax (Air Canada, delayed 6 hours, bag lost). The hotel was fine. What can I claim?"
    for question in offline(story).questions:
        assert question.count("(") == question.count(")") and not question.startswith(("(", ")"))
        assert question.find(")") > question.find("(") or ")" not in question


def test_a_cause_the_passenger_denies_is_not_put_in_their_question():
    story = (
        "Air Canada moved my flight by eleven hours with a schedule change. The agent said network planning, "
        "nothing to do with weather or anything. Do I get anything extra for the hassle?"
    )
    (question,) = offline(story).questions
    assert "weather" not in question.lower()


def test_asks_that_read_as_no_question_together_are_asked_one_by_one_never_as_a_bare_what_are_my_rights():
    story = (
        "Flair cancelled my flight to Cancun the night before for crew availability and moved us two days later. "
        "On the rebooked flight my suitcase came off the belt with a huge crack. My roommate says there's some "
        "2 year thing for suing airlines so maybe I'm fine? Is it too late for the cancellation compensation? "
        "And for the suitcase?"
    )
    questions = offline(story).questions
    assert len(questions) == 2
    assert any(question.startswith("Is it too late for the cancellation compensation") for question in questions)
    assert any(question.startswith("What are my rights (") and "suitcase" in question for question in questions)
    assert all(rule_broken(question, story) is None for question in questions)


@pytest.mark.parametrize(
    ("story", "asked"),
    [
        (  # a label before the asks, and a clause telling when, are no question
            "Notre vol Pascan de Sept-Îles a été annulé la veille, soi-disant pour une question d'équipage. Quand j'ai "
            "appelé pour savoir pourquoi, l'agent m'a juste lu un texte. Mes questions: c'est-tu à eux de prouver la "
            "raison? Pis le taxi pour retourner chez nous, y doivent-tu le payer?",
            "C'est-tu à eux de prouver",
        ),
        (  # "je veux savoir" asks, as "I want to know" does
            "Notre vol WestJet de Calgary à Halifax a été annulé la veille, manque de pilotes, pis on est arrivés le "
            "surlendemain avec les deux enfants, après une nuit à l'hôtel de l'aéroport payée de nos poches. Je veux "
            "savoir combien ils nous doivent pour le retard.",
            "Je veux savoir combien ils nous doivent",
        ),
    ],
)
def test_the_question_shown_is_the_passengers_first_real_ask(story, asked):
    (question,) = offline(story).questions
    assert question.startswith(asked)


def test_a_french_inversion_and_a_closing_guillemet_stay_with_their_sentence():
    """"Puis-je" asks ("puis" alone is a lead-in), and "pas nous. »" ends the carrier's quote, not the next question."""
    story = (
        "Mon fauteuil roulant est arrivé brisé. Réponse d'Air Inuit : « Le règlement vise les grands transporteurs, "
        "pas nous. » Un petit transporteur a-t-il quand même des obligations envers moi? Puis-je porter plainte?"
    )
    questions = understand([story], config=None).questions
    assert questions and all(question[:1].isalpha() for question in questions)
    assert any("puis-je porter plainte" in question.lower() for question in questions)
    assert not any("»" in question for question in questions)


def test_an_ask_joined_by_and_keeps_the_ask_before_it():
    """ "…: y aura-t-il une médiation, et dans quels délais?" asks both, not only the delay."""
    story = (
        "Mon vol Air Canada a été annulé et je n'ai aucune réponse à ma demande. Puis-je porter plainte à l'Office? "
        "Comment ça se passe : y aura-t-il une médiation avant une décision, et dans quels délais?"
    )
    assert any("médiation" in question for question in understand([story], config=None).questions)


def test_a_quebec_story_asked_with_tu_shows_its_own_asks_not_a_general_one():
    story = (
        "Air Canada Québec -> Vancouver le 9 janvier, semaine de planche à Whistler avec ma blonde. J'ai payé 35$ pour "
        "enregistrer ma planche pis mes bottes. À Vancouver la housse était déchirée pis la planche était fendue sur "
        "le long. J'ai fait le rapport au comptoir tout de suite. La planche valait 700$, j'ai la facture. Air Canada "
        "m'offre 100$ en crédit en disant que l'équipement de sport voyage aux risques du client selon leur tarif. "
        "J'ai loué une planche 5 jours, 240$. Y peuvent tu faire ça? Pis la location, ça compte tu?"
    )
    (question,) = understand([story], config=None).questions
    assert question.startswith("Y peuvent tu faire ça") and "location" in question
