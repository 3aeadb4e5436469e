"""Reliability scenarios for the search, the language-model client and the review page (see `eval.reliability`)."""

from __future__ import annotations

import json
import os
import tempfile
import time
from functools import cache, partial
from pathlib import Path
from unittest import mock

from eval.reliability import Scenario
from foundation.settings import Settings
from page.conversation import Conversation
from query_understanding import CircuitBreaker, understand
from query_understanding.llm_path import SKIPPED_NOTE
from retrieval.engine import SearchEngine
from retrieval.outcome import Outcome
from review.log import FeedbackLog
from testing.concurrent_search import QUESTIONS, THREADS, search_concurrently
from testing.openai_stub import FAULTS, FaultyEndpoint


@cache
def _engine() -> SearchEngine:
    from retrieval.search import load_engine

    settings = Settings.from_environment()
    return load_engine(settings.store_dir, settings.chroma_url)


def concurrent_search(trial: int) -> None:
    problems = search_concurrently(_engine(), seed=trial)
    assert not problems, f"{len(problems)} of {THREADS * len(QUESTIONS)} searches differed; first: {problems[0]}"


# -- the language-model endpoint ------------------------------------------------------------------------------

DEADLINE = 3.0  # PASSENGER_LLM_TIMEOUT for these scenarios
FIRST_MESSAGE_LIMIT = DEADLINE + 2.0
LATER_MESSAGE_LIMIT = 1.0
LATER_MESSAGES = 5
DRIP_SECONDS = 5.0  # the dripping endpoint sends one byte this often, as a hostile server did


def faulty_endpoint(fault: str, trial: int) -> None:
    """The first message falls back within the deadline + 2 s, the next ones within 1 s, all with a note, and
    the endpoint receives nothing while it is skipped."""
    message = f"Air Canada cancelled my flight {trial} hours before departure, what am I owed?"
    breaker = CircuitBreaker()
    with FaultyEndpoint(fault, drip_seconds=DRIP_SECONDS) as endpoint:
        config = endpoint.config(timeout=DEADLINE, retries=1)
        timings, results = [], []
        for _ in range(1 + LATER_MESSAGES):
            started = time.monotonic()
            results.append(understand([message], config=config, cache=None, breaker=breaker))
            timings.append(time.monotonic() - started)
        asked = endpoint.requests
    assert timings[0] <= FIRST_MESSAGE_LIMIT, f"first message took {timings[0]:.1f} s"
    assert max(timings[1:]) <= LATER_MESSAGE_LIMIT, f"a later message took {max(timings[1:]):.1f} s"
    assert all(result.path == "offline" and result.note and result.questions for result in results)
    assert all(result.note == SKIPPED_NOTE for result in results[1:]), results[1].note
    assert asked <= 1 + config.max_retries, f"{asked} requests reached the endpoint"


BAD_SETTINGS = (
    ("PASSENGER_LLM_TIMEOUT", "fifteen"),
    ("PASSENGER_LLM_TIMEOUT", "-1"),
    ("PASSENGER_LLM_TIMEOUT", "inf"),
    ("PASSENGER_LLM_RETRIES", "lots"),
    ("PASSENGER_LLM_RETRIES", "-2"),
    ("PASSENGER_LLM_COOLDOWN", "-5"),
    ("OPENAI_BASE_URL", "127.0.0.1:11434/v1"),
    ("OPENAI_BASE_URL", "http://user:pa ss@/v1"),
    ("OPENAI_BASE_URL", "gopher://127.0.0.1/v1"),
)


def bad_setting(variable: str, value: str, trial: int) -> None:
    """The setting is named in the message, and messages are still understood, by the built-in rules."""
    settings = Settings.from_environment({"OPENAI_API_KEY": "sk-test", variable: value})
    (problem,) = settings.problems
    result = understand(["My bag was lost on a flight to Halifax, who pays?"], config=settings.llm, cache=None)
    assert settings.llm is None and variable in problem, problem
    assert result.path == "offline" and result.questions
    assert "pa ss" not in problem


# -- the review page and the log --------------------------------------------------------------------------------


def review_script() -> None:
    import app

    app.review_page(app.page_settings())


def review_lockout(trial: int) -> None:
    """Wrong passwords lock the account, and the right password from a new session is refused while locked."""
    from streamlit.testing.v1 import AppTest

    from review.accounts import Accounts, Role
    from review.storage import engine_for

    with tempfile.TemporaryDirectory() as directory:
        log_db = Path(directory) / "feedback.sqlite3"
        Accounts(engine_for(f"sqlite:///{log_db}")).create("max", Role.MAINTAINER, "the-right-pass-phrase")
        page_environment = {
            "PASSENGER_FEEDBACK_DB": str(log_db),
        }
        with mock.patch.dict(os.environ, page_environment):
            for attempt in range(5):
                page = AppTest.from_function(review_script, default_timeout=60).run()
                page.text_input[0].set_value("max")
                page.text_input[1].set_value(f"guess-{attempt}")
                page.button[0].click().run()
                assert not page.exception and "account" not in page.session_state
            fresh = AppTest.from_function(review_script, default_timeout=60).run()
            fresh.text_input[0].set_value("max")
            fresh.text_input[1].set_value("the-right-pass-phrase")
            fresh.button[0].click().run()
            errors = " ".join(error.value for error in fresh.error)
    assert "account" not in fresh.session_state, "the right password opened a locked account"
    assert "locked" in errors, errors


PLANTED = (
    "Hello, my name is Gabrielle Fortin. Booking reference ZK4P9Q, phone 416-555-0187, e-mail "
    "gabrielle.fortin@example.net. WestJet cancelled my flight from Calgary to Halifax; what am I owed?"
)
PLANTED_IDENTITY = ("Gabrielle", "Fortin", "ZK4P9Q", "416-555-0187", "555-0187", "gabrielle.fortin", "example.net")


def redacted_export(trial: int) -> None:
    """A passenger's planted name, e-mail, phone and booking reference reach neither the file nor the export."""
    with tempfile.TemporaryDirectory() as directory:
        log = FeedbackLog(Path(directory) / "feedback.sqlite3")
        exchange = Conversation().ask(PLANTED, _engine(), log, None)
        assert exchange.turn_id is not None and exchange.shown_ids and exchange.shown_ids[0]
        log.judge(exchange.shown_ids[0][0], True)
        export = log.export_jsonl()
        stored = (Path(directory) / "feedback.sqlite3").read_bytes().decode("utf-8", "replace")
    (item,) = [json.loads(line) for line in export.splitlines()]
    assert "WestJet cancelled my flight" in item["turns"][-1]
    leaked = [part for part in PLANTED_IDENTITY if part in export or part in stored]
    assert not leaked, f"{leaked} left in the export or the file"


OTHER_LANGUAGES = (
    "Mi vuelo fue cancelado y perdieron mi maleta, ¿qué me deben?",
    "Meu voo atrasou 8 horas, tenho direito a indenização?",
    "Mein Flug wurde annulliert, was steht mir zu?",
    "我的航班被取消了，我能得到什么赔偿？",
)


def hostile_input(trial: int) -> None:
    """Terminal escapes never reach the question; other languages are told which languages work."""
    conversation = Conversation()
    with tempfile.TemporaryDirectory() as directory:
        log = FeedbackLog(Path(directory) / "feedback.sqlite3")
        exchange = conversation.ask("\x1b[31mMy flight\x1b[0m was delayed 6 hours\x1b]0;x\x07", _engine(), log, None)
        for message in OTHER_LANGUAGES:
            assert conversation.ask(message, _engine(), log, None).refusal is Outcome.UNSUPPORTED_LANGUAGE, message
    shown = [exchange.message, *exchange.search_result.understanding.questions]
    assert not any("[31m" in text or "\x1b" in text or "[0m" in text for text in shown), shown


SCENARIOS: list[Scenario] = [
    Scenario("search: 8 threads x 50 questions = alone", 2, concurrent_search),
    *(Scenario(f"llm endpoint: {fault}", 1, partial(faulty_endpoint, fault)) for fault in FAULTS),
    *(
        Scenario(f"llm settings: {variable}={value}", 1, partial(bad_setting, variable, value))
        for variable, value in BAD_SETTINGS
    ),
    Scenario("review page: account lockout after wrong passwords", 1, review_lockout),
    Scenario("log: planted identity redacted in the export", 2, redacted_export),
    Scenario("input: terminal escapes, other languages", 1, hostile_input),
]
