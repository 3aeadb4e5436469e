"""The feedback log: turns and shown passages stored, feedback and judgements kept, export in the eval format."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kb.passage import Passage, UnitId
from query_understanding.understanding import Understanding
from retrieval.results import Hit, QuestionResult, SearchResult
from review import storage
from review.log import (
    FEEDBACK_FILTERS,
    ITEM_TYPES,
    FeedbackLog,
    parse_unit_id,
)

# An item of the evaluation sets (`python -m eval retrieval --gold`), as they are written.
EVAL_SET_ITEM = {
    "id": "dev-02",
    "type": "simple",
    "turns": ["Flying Porter to Halifax with my violin. Can they force me to check it?"],
    "gold": [{"doc": "SOR-2019-150", "unit": "s24", "why": "musical instruments as checked or carry-on baggage"}],
    "note": "",
}


def passage(doc: str, unit: str, title: str, lang: str = "en") -> Passage:
    return Passage(doc, unit, lang, title, ("Part",), "Instrument", f"https://example.test/{unit}", "text", "src")


def two_question_search() -> SearchResult:
    understanding = Understanding("standalone", ("how much?", "what about the bag?"), "offline")
    return SearchResult(
        understanding,
        (
            QuestionResult("how much?", (Hit(passage("SOR-2019-150", "s19", "Compensation"), 1.2),)),
            QuestionResult(
                "what about the bag?",
                (
                    Hit(passage("SOR-2019-150", "s23", "Baggage"), 0.9),
                    Hit(passage("C-26", "sch6-art31", "Art 31"), 0.7),
                ),
            ),
        ),
    )


@pytest.fixture
def log(database_url) -> FeedbackLog:
    """The same log on both databases: a SQLite file and a real PostgreSQL server."""
    return FeedbackLog(database_url)


def test_a_turn_is_stored_with_its_history_questions_and_passages(log):
    turn_id, shown_ids = log.log_turn(["earlier message", "the message"], two_question_search())
    assert [len(ids) for ids in shown_ids] == [1, 2]
    (turn,) = log.recent_turns()
    assert (turn.id, turn.history, turn.message, turn.questions) == (
        turn_id,
        ("earlier message",),
        "the message",
        ("how much?", "what about the bag?"),
    )
    assert [(s.question_index, s.rank, s.doc, s.unit, s.lang) for s in turn.shown] == [
        (0, 0, "SOR-2019-150", "s19", "en"),
        (1, 0, "SOR-2019-150", "s23", "en"),
        (1, 1, "C-26", "sch6-art31", "en"),
    ]
    assert turn.shown[0].score == pytest.approx(1.2)


def test_feedback_filters_select_the_right_turns(log):
    shown = {message: log.log_turn([message], two_question_search())[1] for message in ("a", "b", "c", "d")}
    log.record_feedback(shown["a"][0][0], True)
    log.record_feedback(shown["b"][1][1], False, "  not about my bag ")
    log.record_feedback(shown["c"][0][0], True)
    log.record_feedback(shown["c"][0][0], None)
    log.judge(shown["d"][0][0], True)
    by_filter = {name: [turn.message for turn in log.recent_turns(name)] for name in FEEDBACK_FILTERS}
    assert by_filter == {
        "all": ["d", "c", "b", "a"],
        "any_feedback": ["b", "a"],
        "helpful": ["a"],
        "not_helpful": ["b"],
        "no_feedback": ["d", "c"],
        "reviewed": ["d"],
        "not_reviewed": ["c", "b", "a"],
    }
    assert log.recent_turns("not_helpful")[0].shown[2].feedback_note == "not about my bag"
    assert [turn.message for turn in log.recent_turns(limit=2)] == ["d", "c"]


def test_export_writes_reviewed_turns_in_the_evaluation_format(log):
    turn_id, shown = log.log_turn(["history", "my bag broke"], two_question_search())
    log.log_turn(["never reviewed"], two_question_search())
    log.judge(shown[1][0], True)
    log.judge(shown[1][1], False)
    log.judge(shown[0][0], True)
    log.judge(shown[0][0], None)
    log.add_missing_unit(turn_id, "SOR-2019-150", "s12", "delay within the carrier's control")
    log.add_missing_unit(turn_id, "SOR-2019-150", "s12", "")
    log.save_review(turn_id, "followup", "  crack found at home ", by="ana")
    lines = log.export_jsonl().splitlines()
    assert len(lines) == 1
    item = json.loads(lines[0])
    assert item == {
        "id": f"feedback-{turn_id}",
        "type": "followup",
        "turns": ["history", "my bag broke"],
        "gold": [
            {"doc": "SOR-2019-150", "unit": "s23", "why": "Baggage"},
            {"doc": "SOR-2019-150", "unit": "s12", "why": "added in review"},
        ],
        "note": "crack found at home",
        "reviewed_by": "ana",
    }
    assert item.keys() - {"reviewed_by"} == EVAL_SET_ITEM.keys()
    assert {key for unit in item["gold"] for key in unit} == EVAL_SET_ITEM["gold"][0].keys()


def test_each_judgement_records_the_account_that_made_it(log):
    turn_id, shown = log.log_turn(["my bag broke"], two_question_search())
    log.judge(shown[0][0], True, by="ana")
    assert log.reviewed_turns()[0].reviewed_by == "ana"
    log.add_missing_unit(turn_id, "SOR-2019-150", "s12", by="bea")
    (item,) = [json.loads(line) for line in log.export_jsonl().splitlines()]
    assert item["reviewed_by"] == "bea"


def test_a_log_written_before_accounts_gains_their_columns(tmp_path):
    path = tmp_path / "older.sqlite3"
    FeedbackLog(path).log_turn(["my bag broke"], two_question_search())
    with sqlite3.connect(path) as db:  # as a log written before migration 3 (who reviewed) left it
        db.execute("ALTER TABLE turns DROP COLUMN reviewed_by")
        db.execute("DELETE FROM schema_migrations WHERE version >= 3")
    assert storage.migrate(storage.engine_for(f"sqlite:///{path}")) == len(storage.MIGRATIONS)
    older = FeedbackLog(path)
    _, shown = older.log_turn(["again"], two_question_search())
    older.judge(shown[0][0], True, by="ana")
    assert older.reviewed_turns()[0].reviewed_by == "ana"


def test_a_reviewed_turn_with_nothing_relevant_exports_as_unanswerable(log):
    _, shown = log.log_turn(["VIA Rail train late"], two_question_search())
    log.judge(shown[0][0], False)
    (item,) = [json.loads(line) for line in log.export_jsonl().splitlines()]
    assert (item["type"], item["gold"]) == ("unanswerable", [])
    assert item["type"] in ITEM_TYPES


def test_a_missing_unit_can_be_removed_and_the_review_type_is_checked(log):
    turn_id, _ = log.log_turn(["x"], two_question_search())
    log.add_missing_unit(turn_id, "C-10.4", "s85.04")
    (missing,) = log.recent_turns()[0].missing
    log.remove_missing_unit(missing.id)
    assert log.recent_turns()[0].missing == ()
    assert log.recent_turns()[0].guessed_type == "compound"
    with pytest.raises(ValueError):
        log.save_review(turn_id, "invented", "")


def test_unit_ids_are_read_as_document_and_unit():
    assert parse_unit_id(" SOR-2019-150 s19 ") == UnitId("SOR-2019-150", "s19")
    assert parse_unit_id("C-26|sch6-art31") == ("C-26", "sch6-art31")
    assert parse_unit_id("SOR-2019-150, s19") == ("SOR-2019-150", "s19")
    assert parse_unit_id("s19") is None
    assert parse_unit_id("a b c") is None
