"""The page under a misconfigured language service, a hostile visitor and a broken log, driven by AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_session import open_page, open_review, send, sign_in
from streamlit.testing.v1 import AppTest

from page.wording import TEXT, escape_markdown
from retrieval.outcome import Outcome
from review.accounts import Accounts, Role
from review.log import FeedbackLog
from review.storage import engine_for
from testing.postgres import new_database

PASSWORD = "volunteer-pass-phrase"
LLM_SETTINGS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PASSENGER_LLM_MODEL", "PASSENGER_LLM_TIMEOUT")


@pytest.fixture
def page_env(store_dir, tmp_path, monkeypatch) -> Path:
    """The page on the session's knowledge base, a fresh log, no language service and no review password."""
    monkeypatch.setenv("PASSENGER_KB_STORE", str(store_dir))
    monkeypatch.setenv("PASSENGER_FEEDBACK_DB", str(tmp_path / "feedback.sqlite3"))
    Accounts(engine_for(f"sqlite:///{tmp_path / 'feedback.sqlite3'}")).create("max", Role.MAINTAINER, PASSWORD)
    for name in (*LLM_SETTINGS, "PASSENGER_LLM_RETRIES", "PASSENGER_RETENTION_DAYS"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "feedback.sqlite3"








def log_in(review: AppTest, password: str) -> AppTest:
    return sign_in(review, "max", password)


def everything_shown(at: AppTest) -> str:
    elements = [*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.text]
    return "\n".join(str(element.value) for element in elements).replace("\\", "")


def test_the_sidebar_never_shows_credentials_in_the_address(page_env, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://alice:s3cret@127.0.0.1:9/v1?api-key=t0ken")
    page = open_page()
    sidebar = "\n".join(str(element.value) for element in [*page.sidebar.caption, *page.sidebar.text])
    assert "127.0.0.1:9/v1" in sidebar
    assert not any(secret in sidebar for secret in ("alice", "s3cret", "t0ken"))


def test_a_bad_setting_is_named_and_the_page_still_answers(page_env, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("PASSENGER_LLM_TIMEOUT", "fifteen")
    at = open_page()
    assert any("PASSENGER\\_LLM\\_TIMEOUT" in warning.value for warning in at.sidebar.warning)
    at = send(at, "My flight to Halifax was delayed 5 hours, what am I owed?")
    found = at.session_state.conversation.exchanges[-1].search_result
    assert found.understanding.path == "offline" and any(result.hits for result in found.results)


def test_passengers_are_told_their_questions_are_kept_and_for_how_long(page_env, monkeypatch):
    monkeypatch.setenv("PASSENGER_RETENTION_DAYS", "30")
    captions = [caption.value for caption in open_page().caption]
    assert escape_markdown(TEXT["en"]["privacy_notice"].format(days=30)) in captions


def test_a_flight_question_in_another_language_is_told_which_languages_work(page_env):
    at = send(open_page(), "Mi vuelo fue cancelado, ¿qué compensación me corresponde?")
    assert TEXT["en"][Outcome.UNSUPPORTED_LANGUAGE] in [warning.value for warning in at.warning]
    assert TEXT["en"][Outcome.NOT_AIR_TRAVEL] not in everything_shown(at)


def test_terminal_escapes_never_reach_the_page_or_the_log(page_env):
    at = send(open_page(), "\x1b[31mMy bag was lost\x1b[0m on my flight to Halifax")
    shown = everything_shown(at)
    assert "My bag was lost on my flight to Halifax" in shown and "[31m" not in shown and "[0m" not in shown
    (turn,) = FeedbackLog(page_env).recent_turns()
    assert turn.message == "My bag was lost on my flight to Halifax"


def test_a_passenger_s_identity_is_not_shown_to_volunteers_or_exported(page_env, monkeypatch):
    at = send(
        open_page(), "I'm Gabrielle Fortin, booking ZK4P9Q, 416-555-0187. My bag was lost on my flight to Halifax"
    )
    at.feedback[0].set_value(1).run()
    review = log_in(open_review(), PASSWORD)
    review.button_group[0].set_value("relevant").run()
    shown = everything_shown(review) + FeedbackLog(page_env).export_jsonl()
    assert "My bag was lost on my flight to Halifax" in shown
    assert not any(secret in shown for secret in ("Gabrielle", "Fortin", "ZK4P9Q", "555-0187"))
    assert json.loads(FeedbackLog(page_env).export_jsonl())["turns"][0].startswith("I'm [name], booking [booking")


def test_wrong_passwords_lock_the_review_page_for_every_session(page_env, monkeypatch):
    for attempt in range(4):
        review = log_in(open_review(), f"guess {attempt}")
        assert not review.download_button
    locked = TEXT["en"]["review_locked"].split("{")[0]
    assert any(error.value.startswith(locked) for error in review.error)
    review = log_in(open_review(), PASSWORD)  # a new session, the right password: still locked
    assert not review.download_button and any(error.value.startswith(locked) for error in review.error)


def test_a_broken_log_is_a_plain_message_on_the_review_page(page_env, monkeypatch):
    page_env.write_bytes(b"not a database at all " * 200)
    review = open_review()  # the accounts live in the same database: nobody can sign in, and the page says why
    assert not review.exception and not review.download_button and not review.text_input
    assert any("cannot" in error.value and "feedback" in error.value for error in review.error)


def test_a_log_that_cannot_be_written_is_shown_to_maintainers(page_env, tmp_path, monkeypatch):
    monkeypatch.setenv("PASSENGER_FEEDBACK_DB", str(tmp_path))  # a directory: SQLite cannot open it
    at = send(open_page(), "My bag was lost on my flight to Halifax")
    assert at.expander, "the passenger still sees the passages"
    assert TEXT["en"]["log_failed"] in [caption.value for caption in at.sidebar.caption]


def test_with_a_database_server_configured_a_question_lands_in_postgresql(page_env, postgres, monkeypatch):
    url = new_database(postgres)
    monkeypatch.setenv("PASSENGER_DATABASE_URL", url)
    page_env.unlink()  # the fixture's review account; the page must not make the file again
    send(open_page(), "My bag was lost on my flight to Halifax")
    (turn,) = FeedbackLog(url).recent_turns()
    assert turn.message == "My bag was lost on my flight to Halifax" and turn.shown
    assert not page_env.exists(), "nothing went to the SQLite file"
