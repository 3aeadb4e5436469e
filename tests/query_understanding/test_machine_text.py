"""The rule for machine-written questions, alone and through the real openai client against a local stub."""

from __future__ import annotations

import json

import pytest

from query_understanding import UnderstandingCache, understand
from query_understanding.machine_text import rule_broken
from query_understanding.prompts import DECONTEXTUALISE_PROMPT
from testing.openai_stub import StubEndpoint

MESSAGE = "Porter cancelled our Ottawa to Halifax flight and we got there 10 hours late. We paid $180 for a hotel."
FAIR = [
    "What compensation is owed when Porter cancels an Ottawa to Halifax flight that arrives 10 hours late?",
    "Must Porter pay back the $180 hotel paid during a cancellation?",
    "For a cancelled Porter flight, who pays for the hotel?",
    "Porter doit-il rembourser l'hôtel payé pendant l'annulation?",
    "Quelle indemnité pour un vol Ottawa-Halifax arrivé avec 10 heures de retard?",
]
BROKEN_BY_REASON = {  # what the rule names -> questions that break it
    "figure": [
        "Is Porter liable for $4,321 for a cancelled Ottawa to Halifax flight?",
        "Is compensation owed for a delay of more than 9 hours?",
        "Must the claim be made within one year and 30 days?",
        "Does section 19 of the regulations apply to this Porter flight?",
    ],
    "address": [
        "Where can the claim be filed, https://evil.example/claim?",
        "Can the passenger claim at www.evil.example?",
        "Should the claim go to a@evil.example?",
        "Does evil.example pay Porter claims?",
        "What does Porter owe, [see here](http://x)?",  # a Markdown link
    ],
    "formatting": ["What does Porter owe for a **cancelled** flight?", "Is $x owed for the $y hotel?"],
    "statement": ["You are owed compensation by Porter for this cancellation?"],
    "says something": ["Porter owes you money. What else can you claim?"],
    "question mark": ["What does Porter owe for the cancellation"],
    "longer than 40": ["What " + "very " * 40 + "long question about Porter is this?"],
}
BROKEN = [(question, reason) for reason, questions in BROKEN_BY_REASON.items() for question in questions]


@pytest.mark.parametrize("question", FAIR)
def test_a_plain_question_with_the_passenger_s_own_figures_passes(question):
    assert rule_broken(question, MESSAGE) is None


@pytest.mark.parametrize(("question", "reason"), BROKEN)
def test_each_kind_of_violation_is_named(question, reason):
    assert reason in (rule_broken(question, MESSAGE) or "")


def test_a_question_the_passenger_asked_in_those_words_passes_though_not_shaped_as_one():
    passenger = "Le vol a eu 4h de retard. Pis pour le retard, on a droit à quelque chose?"
    assert rule_broken("Pis pour le retard, on a droit à quelque chose (4h)?", passenger) is None
    assert "statement" in rule_broken("On a droit à 400 $ pour le retard?", passenger)  # not the passenger's words
    assert "statement" in rule_broken("Pour le retard?", passenger)  # too short to be a question of its own


def test_quebec_french_asks_with_tu_after_the_verb_and_an_amount_ends_with_its_dollar_sign():
    passenger = "WestJet a brisé mes skis. J'ai payé 30$ pour le sac pis 240$ de location."
    assert rule_broken("Y peuvent tu se cacher derrière leur tarif, et je peux tu ravoir le 30$?", passenger) is None
    assert rule_broken("La location de 240$, ça compte tu?", passenger) is None
    assert rule_broken("La Convention s'applique pas au Canada, c'est ça?", passenger) is None
    for statement in ("Pis tu sais, les skis étaient neufs?", "Si tu paies le sac, il est couvert?"):
        assert "statement" in rule_broken(statement, passenger)


def test_a_negated_auxiliary_opens_a_question():
    assert rule_broken("Shouldn't Porter pay back the hotel?", MESSAGE) is None
    assert rule_broken("Isn’t the hotel on Porter?", MESSAGE) is None


def test_number_words_and_digits_are_the_same_figure():
    assert rule_broken("Is a ten hour delay compensated for a Porter flight?", MESSAGE) is None
    assert rule_broken("Is a 1 000 $ claim allowed?", "I claimed $1,000 from Porter for my flight.") is None


@pytest.mark.parametrize(("question", "reason"), BROKEN)
def test_a_model_answering_with_a_violation_is_replaced_by_the_built_in_rules(question, reason):
    reply = json.dumps({"questions": [FAIR[0], question]})
    with StubEndpoint(lambda system, user: reply) as stub:
        result = understand([MESSAGE], config=stub.config, cache=UnderstandingCache())
    assert stub.requests
    assert result.path == "offline" and "broke the rule for machine-written text" in result.note
    assert result.questions == understand([MESSAGE], config=None).questions
    assert question not in result.questions


def test_a_model_answering_within_the_rule_is_used():
    reply = json.dumps({"questions": FAIR[:2]})
    with StubEndpoint(lambda system, user: reply) as stub:
        result = understand([MESSAGE], config=stub.config, cache=UnderstandingCache())
    assert (result.path, result.questions) == ("llm", tuple(FAIR[:2]))


def test_a_planted_rewrite_of_the_situation_never_reaches_the_questions():
    planted = "You are owed $4,321, claim at www.evil.example"
    history = ["Porter cancelled our Ottawa to Halifax flight."]

    def reply(system: str, user: str) -> str:
        if system == DECONTEXTUALISE_PROMPT:
            return json.dumps({"standalone": planted})
        return json.dumps({"questions": ["Is $4,321 owed for the cancelled Porter flight?"]})

    with StubEndpoint(reply) as stub:
        result = understand([*history, "What do we get?"], config=stub.config, cache=UnderstandingCache())
    assert result.path == "offline"
    assert not any("4,321" in question or "evil" in question for question in result.questions)
