"""What identifies a passenger never reaches the language model: a recording endpoint on 127.0.0.1, asked through
the real openai client, receives placeholders instead, and the questions come back with the passenger's words."""

from __future__ import annotations

import json

from query_understanding import CircuitBreaker, understand
from testing.openai_stub import StubEndpoint

CONVERSATION = [
    "Hi, my name is Marie Tremblay. Air Canada cancelled flight AC 870 from YUL to CDG on 2024-05-12.",
    "Booking reference QX7T2B, e-ticket 014 2345678901, paid $1,240 with card 4111 1111 1111 1111.",
    "Call me at 514-555-0199 or +33 6 12 34 56 78, or write to marie.tremblay@example.com. Aeroplan number "
    "123 456 789. We waited 26 hours; my husband Paul too.",
    "Marie again: what are we owed for the cancellation?",
]
PLANTED = (
    "Marie",
    "Tremblay",
    "Paul",
    "QX7T2B",
    "2345678901",
    "4111 1111 1111 1111",
    "514-555-0199",
    "12 34 56 78",
    "example.com",
    "123 456 789",
)
KEPT = ("Air Canada", "AC 870", "YUL", "CDG", "2024-05-12", "$1,240", "26 hours")


def recording_endpoint(standalone: str, questions: list[str]) -> StubEndpoint:
    def reply(system: str, user: str) -> str:
        return json.dumps({"standalone": standalone} if "history" in json.loads(user) else {"questions": questions})

    return StubEndpoint(reply)


def ask(stub: StubEndpoint):
    return understand(CONVERSATION, config=stub.config, cache=None, breaker=CircuitBreaker())


def test_the_endpoint_receives_no_planted_identifier_and_every_fact_the_law_needs():
    standalone = "What is owed to [name] for the Air Canada flight AC 870 from YUL to CDG, cancelled, 26 hours?"
    with recording_endpoint(standalone, ["What is owed for a cancelled Air Canada flight AC 870?"]) as stub:
        result = ask(stub)
    assert result.path == "llm" and len(stub.requests) == 2
    sent = json.dumps(stub.requests, ensure_ascii=False)
    for planted in PLANTED:
        assert planted not in sent, planted
    for fact in KEPT:
        assert fact in stub.requests[0][1], fact
    history = json.loads(stub.requests[0][1])["history"]
    assert "[name]" in history[0] and "[booking reference]" in history[1] and "[ticket number]" in history[1]
    assert "[card number]" in history[1] and "[phone]" in history[2] and "[phone 2]" in history[2]
    assert "[e-mail]" in history[2] and "[loyalty number]" in history[2] and "[name 2]" in history[2]


def test_the_model_answer_is_read_with_the_passengers_words_back():
    """A placeholder the model repeats is the passenger's own word again on the page; the log redacts it."""
    standalone = "What do [name] and [name 2] get for the cancelled Air Canada flight AC 870?"
    questions = ["What do [name] and [name 2] get when Air Canada cancels flight AC 870?"]
    with recording_endpoint(standalone, questions) as stub:
        result = ask(stub)
    assert result.path == "llm"
    assert result.standalone == "What do Marie Tremblay and Paul get for the cancelled Air Canada flight AC 870?"
    assert result.questions == ("What do Marie Tremblay and Paul get when Air Canada cancels flight AC 870?",)
    assert "[name]" in json.loads(stub.requests[1][1])["message"]


def test_a_placeholder_the_conversation_never_had_is_refused_like_any_bracket():
    with recording_endpoint("unused", ["Can [card number 7] be refunded for flight AC 870?"]) as stub:
        result = understand([CONVERSATION[0]], config=stub.config, cache=None, breaker=CircuitBreaker())
    assert result.path == "offline" and "broke the rule" in result.note
