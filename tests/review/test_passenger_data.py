"""Passengers' data in the log: redacted when stored and exported, deleted after the retention period, readable
by the owner only; the review page's password locked after repeated mistakes; a broken file said plainly."""

from __future__ import annotations

import json
import sqlite3
import stat
import threading
from datetime import UTC, datetime, timedelta

import pytest
from test_review_log import two_question_search

from foundation.redact import BOOKING, EMAIL, NAME, PHONE, TICKET, redact
from foundation.text import clean_message
from page.conversation import refusal_for
from query_understanding.languages import in_unsupported_language
from retrieval.outcome import Outcome
from review.log import (
    MAX_NOTE_CHARS,
    FeedbackLog,
    FeedbackLogError,
    lockout_seconds,
)

PLANTED = (
    "Hi, my name is Marie Tremblay, booking reference QX7T2B, ticket 014 2345678901. Call me at 514-555-0199 or "
    "write to marie.tremblay@example.com. Air Canada cancelled my flight AC870 from Montreal."
)
SECRETS = ("Marie", "Tremblay", "QX7T2B", "2345678901", "555-0199", "example.com")


@pytest.fixture
def log(tmp_path) -> FeedbackLog:
    return FeedbackLog(tmp_path / "feedback.sqlite3")


def stored_text(log: FeedbackLog) -> str:
    """Everything in the file, as SQLite has it."""
    with sqlite3.connect(log.path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return json.dumps([db.execute(f"SELECT * FROM {table}").fetchall() for table in tables])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            PLANTED,
            f"my name is {NAME}, booking reference {BOOKING}, ticket {TICKET}. Call me at {PHONE} or write "
            f"to {EMAIL}. Air Canada cancelled my flight AC870 from Montreal.",
        ),
        ("I'm John Smith, flight AC1234 was 5 hours late", f"I'm {NAME}, flight AC1234 was 5 hours late"),
        (
            "my wife Sarah and my son, Liam lost their bags. Thanks, Paul",
            f"my wife {NAME} and my son, {NAME} lost their bags. Thanks, {NAME}",
        ),
        ("Mon numéro de dossier : KXQJTB, tél. +1 (438) 555 0123", f"Mon numéro de dossier : {BOOKING}, tél. {PHONE}"),
        ("Je m'appelle Élise Gagnon", f"Je m'appelle {NAME}"),
    ],
)
def test_what_identifies_a_passenger_is_redacted(text, expected):
    assert expected in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "Under SOR-2019-150 s19, a 5 hour delay on 2024-05-12 gives $400",
        "I'm flying Air Canada from Toronto at 10:30, seat 23A, gate B12",
        "CANADA and WESTJET made me wait 26 hours",
        "vol TS1234 de Montréal",
    ],
)
def test_what_the_law_needs_is_kept(text):
    assert redact(text) == text


def test_the_log_stores_and_exports_no_planted_identity(log):
    turn_id, shown = log.log_turn(["My name is Paul Martin, e-mail paul@example.org", PLANTED], two_question_search())
    log.record_feedback(shown[0][0], True, "Call me on 613 555 0142, Paul")
    log.log_turn([PLANTED, "Marie again: any news about the refund?"], two_question_search())
    log.add_missing_unit(turn_id, "SOR-2019-150", "s12", "see booking KXQJ7B")
    log.save_review(turn_id, "compound", "booking QX7T2B asked for a refund")
    everything = stored_text(log) + log.export_jsonl() + repr(log.recent_turns())
    for secret in (*SECRETS, "Paul", "paul@", "555 0142", "KXQJ7B"):
        assert secret not in everything
    (item,) = [json.loads(line) for line in log.export_jsonl().splitlines()]
    assert item["turns"][-1].endswith("Air Canada cancelled my flight AC870 from Montreal.")


def test_rows_written_before_redaction_are_redacted_when_read(log):
    log.log_turn(["my flight was late"], two_question_search())
    with sqlite3.connect(log.path) as db:
        db.execute("UPDATE turns SET message = ?", (PLANTED,))
    (turn,) = log.recent_turns()
    assert not any(secret in turn.message for secret in SECRETS)


def test_notes_are_cut_to_the_limit(log):
    turn_id, shown = log.log_turn(["my flight was late"], two_question_search())
    log.record_feedback(shown[0][0], False, "x" * 100_000)
    log.save_review(turn_id, "simple", "y" * 100_000)
    (turn,) = log.recent_turns()
    assert len(turn.shown[0].feedback_note) == len(turn.review_note) == MAX_NOTE_CHARS


def test_turns_older_than_the_retention_period_are_deleted(tmp_path):
    log = FeedbackLog(tmp_path / "feedback.sqlite3", retention=30)
    old_id, _ = log.log_turn(["an old question about my bag"], two_question_search())
    new_id, _ = log.log_turn(["a new question about my bag"], two_question_search())
    log.add_missing_unit(old_id, "SOR-2019-150", "s23")
    long_ago = (datetime.now(UTC) - timedelta(days=31)).isoformat(timespec="seconds")
    with sqlite3.connect(log.path) as db:
        db.execute("UPDATE turns SET asked_at = ? WHERE id = ?", (long_ago, old_id))
    assert [turn.id for turn in log.recent_turns()] == [new_id]
    with sqlite3.connect(log.path) as db:
        assert db.execute("SELECT COUNT(*) FROM shown WHERE turn_id = ?", (old_id,)).fetchone() == (0,)
        assert db.execute("SELECT COUNT(*) FROM missing_units").fetchone() == (0,)
    assert "an old question" not in stored_text(log)


def test_the_file_is_readable_by_its_owner_only(log, tmp_path):
    log.log_turn(["my flight was late"], two_question_search())
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600
    loose = tmp_path / "loose.sqlite3"
    loose.touch(mode=0o644)
    loose.chmod(0o644)
    FeedbackLog(loose).recent_turns()
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600


def test_wrong_passwords_lock_the_page_for_longer_each_time_even_for_a_new_session(database_url):
    log = FeedbackLog(database_url)
    waits = [log.try_review_password("guess", "right").locked_for for _ in range(3)]
    assert waits == [0.0, 0.0, lockout_seconds(3)] and lockout_seconds(3) > 0
    for session in (log, FeedbackLog(database_url)):  # a new page session opens the same database
        attempt = session.try_review_password("right", "right")
        assert not attempt.opened and attempt.locked_for > 0
    assert lockout_seconds(4) == 2 * lockout_seconds(3) and lockout_seconds(50) == 3600


def test_the_right_password_opens_and_clears_the_count(database_url):
    log = FeedbackLog(database_url)
    log.try_review_password("guess", "right")
    assert log.try_review_password("right", "right").opened
    assert [log.try_review_password("guess", "right").locked_for for _ in range(2)] == [0.0, 0.0]


def test_many_sessions_guessing_at_once_are_all_counted(database_url):
    log = FeedbackLog(database_url)
    results = []
    workers = [
        threading.Thread(target=lambda: results.append(log.try_review_password("guess", "right"))) for _ in range(20)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not any(result.opened for result in results)
    assert not log.try_review_password("right", "right").opened


@pytest.mark.parametrize("damage", ["garbage", "directory", "truncated", "wrong_schema"])
def test_a_broken_file_is_reported_plainly(tmp_path, damage):
    path = tmp_path / "feedback.sqlite3"
    if damage == "garbage":
        path.write_bytes(b"this is not a database" * 100)
    elif damage == "directory":
        path.mkdir()
    elif damage == "truncated":
        for _ in range(30):
            FeedbackLog(path).log_turn(["my flight was late " * 50], two_question_search())
        path.write_bytes(path.read_bytes()[:5000])
    else:
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE turns (id INTEGER PRIMARY KEY, other TEXT)")
    log = FeedbackLog(path)
    with pytest.raises(FeedbackLogError, match="cannot be used"):
        log.log_turn(["my flight was late"], two_question_search())
    assert log.write_failure
    with pytest.raises(FeedbackLogError):
        log.recent_turns()


def test_terminal_escapes_and_invisible_controls_are_removed_from_messages():
    assert clean_message("\x1b[31mMy flight\x1b[0m was \x1b]0;title\x07late\u202e") == "My flight was late"
    assert clean_message("bag\u200b lost") == "bag lost"


@pytest.mark.parametrize(
    "message",
    [
        "Mi vuelo fue cancelado, ¿qué compensación me corresponde?",
        "Meu voo atrasou 6 horas, tenho direito a indenização?",
        "Mein Flug hatte 5 Stunden Verspätung, was steht mir zu?",
        "我的航班延误了五个小时",
        "Мой рейс отменили",
    ],
)
def test_flight_questions_in_other_languages_are_told_which_languages_work(message):
    assert in_unsupported_language(message) and refusal_for(message) is Outcome.UNSUPPORTED_LANGUAGE


@pytest.mark.parametrize(
    "message",
    ["My flight was delayed 5 hours", "Mon vol a été annulé", "I flew to Madrid and the aeropuerto lost my bag"],
)
def test_english_and_french_are_searched(message):
    assert refusal_for(message) is None
