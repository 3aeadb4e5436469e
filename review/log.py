"""The local log of what passengers asked and were shown, their feedback, and volunteers' judgements.

One SQLite file (foundation.settings: PASSENGER_FEEDBACK_DB, else kb/feedback.sqlite3, git-ignored), readable by its
owner only.
Each operation opens its own connection, so the page's sessions, which run in separate threads, never share
one. What passengers and volunteers write is redacted (foundation.redact) before it is stored, and again when it is
read back for the review page or the export; turns older than the retention period are deleted.
Volunteers' judgements record the account that made them, and export as JSON Lines in the evaluation set's
format (id, type, turns, gold, note, and the reviewing account in reviewed_by), so reviewed turns can grow the
evaluation set.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from foundation.redact import redact, redact_turns
from foundation.settings import DEFAULT_RETENTION_DAYS
from foundation.text import squash_spaces
from kb.bank import MAX_ENTRY_CHARS, BankEntry
from kb.passage import UnitId
from retrieval.results import SearchResult

log = logging.getLogger(__name__)

MAX_NOTE_CHARS = 500  # a passenger's or volunteer's note: a sentence or two, not a document
# The kinds of message a volunteer files a reviewed turn under: the exported line then reads like any other
# item of a measured set, so volunteers' judgements can be measured with the same command.
ITEM_TYPES = ("simple", "rule", "compound", "followup", "vague", "distracting", "unanswerable", "french")
FeedbackFilter = Literal["all", "any_feedback", "helpful", "not_helpful", "no_feedback", "reviewed", "not_reviewed"]
FEEDBACK_FILTERS: tuple[FeedbackFilter, ...] = (
    "all",
    "any_feedback",
    "helpful",
    "not_helpful",
    "no_feedback",
    "reviewed",
    "not_reviewed",
)
_FILTER_SQL: dict[str, str] = {
    "all": "1",
    "any_feedback": "EXISTS (SELECT 1 FROM shown s WHERE s.turn_id = t.id AND s.helpful IS NOT NULL)",
    "helpful": "EXISTS (SELECT 1 FROM shown s WHERE s.turn_id = t.id AND s.helpful = 1)",
    "not_helpful": "EXISTS (SELECT 1 FROM shown s WHERE s.turn_id = t.id AND s.helpful = 0)",
    "no_feedback": "NOT EXISTS (SELECT 1 FROM shown s WHERE s.turn_id = t.id AND s.helpful IS NOT NULL)",
    "reviewed": "t.reviewed_at IS NOT NULL",
    "not_reviewed": "t.reviewed_at IS NULL",
}

SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY,
    asked_at TEXT NOT NULL,
    history TEXT NOT NULL,
    message TEXT NOT NULL,
    standalone TEXT NOT NULL,
    questions TEXT NOT NULL,
    path TEXT NOT NULL,
    note TEXT NOT NULL,
    outside_coverage TEXT NOT NULL,
    review_type TEXT NOT NULL DEFAULT '',
    review_note TEXT NOT NULL DEFAULT '',
    reviewed_at TEXT,
    reviewed_by TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS shown (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id),
    question_index INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    doc TEXT NOT NULL,
    unit TEXT NOT NULL,
    lang TEXT NOT NULL,
    part INTEGER NOT NULL,
    score REAL NOT NULL,
    title TEXT NOT NULL,
    url TEXT NOT NULL,
    helpful INTEGER,
    feedback_note TEXT NOT NULL DEFAULT '',
    feedback_at TEXT,
    relevant INTEGER,
    judged_by TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS missing_units (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES turns(id),
    doc TEXT NOT NULL,
    unit TEXT NOT NULL,
    why TEXT NOT NULL,
    added_at TEXT NOT NULL,
    added_by TEXT NOT NULL DEFAULT '',
    UNIQUE (turn_id, doc, unit)
);
CREATE INDEX IF NOT EXISTS shown_by_turn ON shown(turn_id);
CREATE INDEX IF NOT EXISTS turns_by_time ON turns(asked_at);
"""
# Columns added since the first files were written: (table, column, definition).
ADDED_COLUMNS = (
    ("turns", "reviewed_by", "TEXT NOT NULL DEFAULT ''"),
    ("shown", "judged_by", "TEXT NOT NULL DEFAULT ''"),
    ("missing_units", "added_by", "TEXT NOT NULL DEFAULT ''"),
)


class FeedbackLogError(RuntimeError):
    """The log cannot be read or written; the message says so plainly, without a stack trace."""


def _note(text: str) -> str:
    return redact(text.strip()[:MAX_NOTE_CHARS])


def parse_unit_id(text: str) -> UnitId | None:
    """ "SOR-2019-150 s19" (or with a comma or "|") as a unit id; None when it is not two parts."""
    parts = [part for part in re.split(r"[\s,|]+", text.strip()) if part]
    return UnitId(parts[0], parts[1]) if len(parts) == 2 else None


@dataclass(frozen=True)
class ShownPassage:
    id: int
    question_index: int
    rank: int
    doc: str
    unit: str
    lang: str
    score: float
    title: str
    url: str
    helpful: bool | None
    feedback_note: str
    relevant: bool | None


@dataclass(frozen=True)
class MissingUnit:
    id: int
    doc: str
    unit: str
    why: str


@dataclass(frozen=True)
class LoggedTurn:
    """One message as it was searched and shown, with what passengers and volunteers said about it."""

    id: int
    asked_at: str
    history: tuple[str, ...]
    message: str
    standalone: str
    questions: tuple[str, ...]
    path: str
    note: str
    outside_coverage: str
    review_type: str
    review_note: str
    reviewed_at: str | None
    reviewed_by: str
    shown: tuple[ShownPassage, ...]
    missing: tuple[MissingUnit, ...]

    @property
    def guessed_type(self) -> str:
        """The evaluation item type the turn's shape suggests, for the volunteer to confirm or change."""
        if self.outside_coverage:
            return "unanswerable"
        if self.history:
            return "followup"
        return "compound" if len(self.questions) > 1 else "simple"

    def evaluation_item(self) -> dict:
        """The turn as an evaluation item: the passages judged relevant and the units added, once each."""
        gold: dict[UnitId, str] = {}
        for passage in self.shown:
            if passage.relevant:
                gold.setdefault(UnitId(passage.doc, passage.unit), passage.title)
        for unit in self.missing:
            gold.setdefault(UnitId(unit.doc, unit.unit), unit.why)
        units = [{"doc": unit.doc, "unit": unit.unit, "why": why} for unit, why in gold.items()]
        return {
            "id": f"feedback-{self.id}",
            "type": self.review_type or (self.guessed_type if units else "unanswerable"),
            "turns": [*self.history, self.message],
            "gold": units,
            "note": self.review_note,
            "reviewed_by": self.reviewed_by,
        }

    def bank_entries(self, lang: str) -> list[BankEntry]:
        """What this review teaches the question bank, once each: for a passage judged relevant, the question it
        was shown for; for a unit a volunteer added, the passenger's question made standalone. Identities are
        taken out again, whatever the log kept."""
        entries: dict[tuple[str, str, str], BankEntry] = {}
        for passage in self.shown:
            if passage.relevant and passage.question_index < len(self.questions):
                text = self.questions[passage.question_index]
                key = (passage.doc, passage.unit, text)
                entries.setdefault(key, _bank_entry(passage.doc, passage.unit, lang, text))
        for unit in self.missing:
            text = self.standalone or self.message
            entries.setdefault((unit.doc, unit.unit, text), _bank_entry(unit.doc, unit.unit, lang, text))
        return [entry for entry in entries.values() if entry.text]


def _bank_entry(doc: str, unit: str, lang: str, text: str) -> BankEntry:
    return BankEntry(doc, unit, lang, squash_spaces(redact(text))[:MAX_ENTRY_CHARS])


def _add_columns(db: sqlite3.Connection) -> None:
    """The columns a file written before them lacks."""
    for table, column, definition in ADDED_COLUMNS:
        if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class FeedbackLog:
    """The SQLite file, created with its tables on first use; `write_failure` says why the last write of a
    passenger's turn or feedback failed, until one succeeds again, so the page can tell maintainers."""

    def __init__(self, path: Path, retention: int = DEFAULT_RETENTION_DAYS):
        self.path = path
        self.retention = retention
        self.write_failure = ""
        self._created = False

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection in a transaction; the file and its tables are made on first use, so that a log that
        cannot be written fails in the operation (which the page reports) rather than when the page opens.
        Every fault of the file comes out as FeedbackLogError."""
        try:
            if not self._created:
                self._create_file()
            db = sqlite3.connect(self.path, timeout=10)
        except (sqlite3.Error, OSError) as error:
            raise FeedbackLogError(self._plain(error)) from error
        db.row_factory = sqlite3.Row
        try:
            db.execute("PRAGMA secure_delete = ON")  # deleted turns are overwritten, not left in free pages
            if not self._created:
                db.executescript(SCHEMA)
                _add_columns(db)
                self._created = True
            with db:
                self._forget_old_turns(db)
            with db:
                yield db
        except (sqlite3.Error, OSError, ValueError, KeyError, TypeError) as error:
            raise FeedbackLogError(self._plain(error)) from error
        finally:
            db.close()

    def _create_file(self) -> None:
        """The file made readable and writable by its owner only (SQLite gives its journal the same mode)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            if self.path.is_file() and self.path.stat().st_mode & 0o077:
                self.path.chmod(0o600)

    def _plain(self, error: BaseException) -> str:
        reason = str(error).strip() or type(error).__name__
        return f"The log of questions at {self.path} cannot be used ({reason})."

    def _forget_old_turns(self, db: sqlite3.Connection) -> int:
        """Delete the turns asked more than `retention` days ago, with what was shown and added for them; run
        before every operation, so nothing older is ever read or exported."""
        cutoff = (datetime.now(UTC) - timedelta(days=self.retention)).isoformat(timespec="seconds")
        old = "SELECT id FROM turns WHERE asked_at < ?"
        db.execute(f"DELETE FROM shown WHERE turn_id IN ({old})", (cutoff,))
        db.execute(f"DELETE FROM missing_units WHERE turn_id IN ({old})", (cutoff,))
        return db.execute("DELETE FROM turns WHERE asked_at < ?", (cutoff,)).rowcount

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        """A passenger's write: a failure is logged as a warning and kept in `write_failure` for the page."""
        try:
            yield
        except FeedbackLogError as error:
            self.write_failure = str(error)
            log.warning("could not write %s: %s", what, error)
            raise
        self.write_failure = ""

    def log_turn(self, turns: list[str], search_result: SearchResult) -> tuple[int, tuple[tuple[int, ...], ...]]:
        """Record a searched message and what it showed; returns the turn's id and, per question, the shown ids."""
        understanding = search_result.understanding
        *history, message, standalone = redact_turns([*turns, understanding.standalone])
        questions = redact_turns(list(understanding.questions))
        with self._writing("the turn"), self._connect() as db:
            turn_id = db.execute(
                "INSERT INTO turns (asked_at, history, message, standalone, questions, path, note, outside_coverage)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    _now(),
                    json.dumps(history, ensure_ascii=False),
                    message,
                    standalone,
                    json.dumps(questions, ensure_ascii=False),
                    understanding.path,
                    understanding.note,
                    search_result.outside_coverage or "",
                ),
            ).lastrowid
            shown_ids = []
            for question_index, result in enumerate(search_result.results):
                ids = []
                for rank, hit in enumerate(result.hits):
                    p = hit.passage
                    ids.append(
                        db.execute(
                            "INSERT INTO shown (turn_id, question_index, rank, doc, unit, lang, part, score, title,"
                            " url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (turn_id, question_index, rank, p.doc, p.unit, p.lang, p.part, hit.score, p.title, p.url),
                        ).lastrowid
                    )
                shown_ids.append(tuple(ids))
        return turn_id, tuple(shown_ids)

    def record_feedback(self, shown_id: int, helpful: bool | None, note: str = "") -> None:
        """A passenger's or volunteer's word on one shown passage; the latest one counts."""
        with self._writing("the feedback"), self._connect() as db:
            db.execute(
                "UPDATE shown SET helpful = ?, feedback_note = ?, feedback_at = ? WHERE id = ?",
                (None if helpful is None else int(helpful), _note(note), _now(), shown_id),
            )

    def judge(self, shown_id: int, relevant: bool | None, by: str = "") -> None:
        """A volunteer's judgement of whether a shown passage is relevant to its turn; `by` is their account."""
        with self._connect() as db:
            db.execute(
                "UPDATE shown SET relevant = ?, judged_by = ? WHERE id = ?",
                (None if relevant is None else int(relevant), by, shown_id),
            )
            db.execute(
                "UPDATE turns SET reviewed_at = ?, reviewed_by = ? WHERE id = (SELECT turn_id FROM shown WHERE id = ?)",
                (_now(), by, shown_id),
            )

    def add_missing_unit(self, turn_id: int, doc: str, unit: str, why: str = "", by: str = "") -> None:
        """A relevant unit the search did not show; adding it twice keeps one."""
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO missing_units (turn_id, doc, unit, why, added_at, added_by)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (turn_id, doc[:100], unit[:100], _note(why) or "added in review", _now(), by),
            )
            db.execute("UPDATE turns SET reviewed_at = ?, reviewed_by = ? WHERE id = ?", (_now(), by, turn_id))

    def remove_missing_unit(self, missing_id: int) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM missing_units WHERE id = ?", (missing_id,))

    def save_review(self, turn_id: int, item_type: str, note: str, by: str = "") -> None:
        """The volunteer's item type and note for a turn; saving marks the turn reviewed."""
        if item_type not in ITEM_TYPES:
            raise ValueError(f"item type must be one of {ITEM_TYPES}")
        with self._connect() as db:
            db.execute(
                "UPDATE turns SET review_type = ?, review_note = ?, reviewed_at = ?, reviewed_by = ? WHERE id = ?",
                (item_type, _note(note), _now(), by, turn_id),
            )

    def recent_turns(self, feedback: FeedbackFilter = "all", limit: int = 50) -> list[LoggedTurn]:
        """The most recent turns first, those matching `feedback` only."""
        condition = _FILTER_SQL[feedback]
        with self._connect() as db:
            rows = db.execute(
                f"SELECT * FROM turns t WHERE {condition} ORDER BY t.id DESC LIMIT ?", (limit,)
            ).fetchall()
            return [self._turn(db, row) for row in rows]

    def reviewed_turns(self) -> list[LoggedTurn]:
        with self._connect() as db:
            rows = db.execute("SELECT * FROM turns WHERE reviewed_at IS NOT NULL ORDER BY id").fetchall()
            return [self._turn(db, row) for row in rows]

    def export_jsonl(self) -> str:
        """Every reviewed turn as one evaluation item per line, oldest first."""
        return "".join(json.dumps(turn.evaluation_item(), ensure_ascii=False) + "\n" for turn in self.reviewed_turns())

    @staticmethod
    def _turn(db: sqlite3.Connection, row: sqlite3.Row) -> LoggedTurn:
        """A stored turn, its words redacted again: rows written before redaction existed come out clean too."""
        shown = db.execute("SELECT * FROM shown WHERE turn_id = ? ORDER BY question_index, rank", (row["id"],))
        missing = db.execute("SELECT * FROM missing_units WHERE turn_id = ? ORDER BY id", (row["id"],))
        *history, message, standalone = redact_turns([*json.loads(row["history"]), row["message"], row["standalone"]])
        return LoggedTurn(
            id=row["id"],
            asked_at=row["asked_at"],
            history=tuple(history),
            message=message,
            standalone=standalone,
            questions=tuple(redact(question) for question in json.loads(row["questions"])),
            path=row["path"],
            note=row["note"],
            outside_coverage=row["outside_coverage"],
            review_type=row["review_type"],
            review_note=redact(row["review_note"]),
            reviewed_at=row["reviewed_at"],
            reviewed_by=row["reviewed_by"],
            shown=tuple(
                ShownPassage(
                    id=s["id"],
                    question_index=s["question_index"],
                    rank=s["rank"],
                    doc=s["doc"],
                    unit=s["unit"],
                    lang=s["lang"],
                    score=s["score"],
                    title=s["title"],
                    url=s["url"],
                    helpful=None if s["helpful"] is None else bool(s["helpful"]),
                    feedback_note=redact(s["feedback_note"]),
                    relevant=None if s["relevant"] is None else bool(s["relevant"]),
                )
                for s in shown
            ),
            missing=tuple(MissingUnit(m["id"], m["doc"], m["unit"], redact(m["why"])) for m in missing),
        )
