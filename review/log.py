"""The log of what passengers asked and were shown, their feedback, volunteers' judgements and bank additions.

Kept in the configured database (review/storage.py, which holds every statement): PostgreSQL when
PASSENGER_DATABASE_URL names one, else one SQLite file (PASSENGER_FEEDBACK_DB, else feedback.sqlite3 in the data
folder), readable by its owner only. Each operation borrows a connection from the process's pool for one
transaction, so the page's sessions, which run in separate threads, never share one. What passengers and
volunteers write is redacted (foundation.redact) before it is stored, and again when it is read back for the review
page or the export; turns older than the retention period are deleted.
Volunteers' judgements record the account that made them, and export as JSON Lines in the evaluation set's
format (id, type, turns, gold, note, and the reviewing account in reviewed_by), so reviewed turns can grow the
evaluation set.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from sqlalchemy import Connection
from sqlalchemy.exc import SQLAlchemyError

from foundation.redact import redact, redact_turns
from foundation.settings import DEFAULT_RETENTION_DAYS, Settings
from foundation.text import squash_spaces
from kb.bank import MAX_ENTRY_CHARS, BankEntry
from kb.passage import UnitId
from retrieval.results import SearchResult
from review import storage

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
class BankAddition:
    """A volunteer's question-bank entry in the log; `accepted_at` is set when a maintainer accepts it."""

    id: int
    entry: BankEntry
    proposed_at: str
    accepted_at: str | None


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


class FeedbackLog:
    """The log in its database (storage.py: a SQLite file, or PostgreSQL), its tables made on first use, so that a
    log that cannot be written fails in the operation (which the page reports) rather than when the page opens.
    `write_failure` says why the last write of a passenger's turn or feedback failed, until one succeeds again,
    so the page can tell maintainers."""

    def __init__(self, database: Path | str, retention: int = DEFAULT_RETENTION_DAYS):
        """`database`: a SQLite file's path, or a database address (`postgresql://…`, `sqlite:///…`)."""
        self.url = f"sqlite:///{database}" if isinstance(database, Path) else database
        self.path = database if isinstance(database, Path) else None
        self.retention = retention
        self.write_failure = ""

    @classmethod
    def configured(cls, settings: Settings) -> FeedbackLog:
        return cls(storage.database_url(settings), settings.retention_days)

    @contextmanager
    def _connect(self) -> Iterator[Connection]:
        """A connection in one transaction, turns past the retention period deleted first, so nothing older is
        ever read or exported. Every fault of the database comes out as FeedbackLogError."""
        try:
            with storage.transaction(storage.engine_for(self.url)) as db:
                cutoff = (datetime.now(UTC) - timedelta(days=self.retention)).isoformat(timespec="seconds")
                storage.forget_turns_before(db, cutoff)
                yield db
        except (SQLAlchemyError, OSError, ValueError, KeyError, TypeError) as error:
            raise FeedbackLogError(
                f"The log of questions at {storage.where(self.url)} cannot be used ({storage.first_line(error)})."
            ) from error

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
            turn_id = storage.insert_turn(
                db,
                history=json.dumps(history, ensure_ascii=False),
                message=message,
                standalone=standalone,
                questions=json.dumps(questions, ensure_ascii=False),
                path=understanding.path,
                note=understanding.note,
                outside_coverage=search_result.outside_coverage or "",
            )
            shown_ids = []
            for question_index, result in enumerate(search_result.results):
                ids = []
                for rank, hit in enumerate(result.hits):
                    p = hit.passage
                    ids.append(
                        storage.insert_shown(
                            db,
                            turn_id,
                            question_index=question_index,
                            rank=rank,
                            doc=p.doc,
                            unit=p.unit,
                            lang=p.lang,
                            part=p.part,
                            score=hit.score,
                            title=p.title,
                            url=p.url,
                        )
                    )
                shown_ids.append(tuple(ids))
        return turn_id, tuple(shown_ids)

    def record_feedback(self, shown_id: int, helpful: bool | None, note: str = "") -> None:
        """A passenger's or volunteer's word on one shown passage; the latest one counts."""
        with self._writing("the feedback"), self._connect() as db:
            storage.record_feedback(db, shown_id, None if helpful is None else int(helpful), _note(note))

    def judge(self, shown_id: int, relevant: bool | None, by: str = "") -> None:
        """A volunteer's judgement of whether a shown passage is relevant to its turn."""
        with self._connect() as db:
            storage.judge(db, shown_id, None if relevant is None else int(relevant), by)

    def add_missing_unit(self, turn_id: int, doc: str, unit: str, why: str = "", by: str = "") -> None:
        """A relevant unit the search did not show; adding it twice keeps one."""
        with self._connect() as db:
            storage.add_missing_unit(db, turn_id, doc[:100], unit[:100], _note(why) or "added in review", by)

    def remove_missing_unit(self, missing_id: int) -> None:
        with self._connect() as db:
            storage.remove_missing_unit(db, missing_id)

    def save_review(self, turn_id: int, item_type: str, note: str, by: str = "") -> None:
        """The volunteer's item type and note for a turn; saving marks the turn reviewed."""
        if item_type not in ITEM_TYPES:
            raise ValueError(f"item type must be one of {ITEM_TYPES}")
        with self._connect() as db:
            storage.save_review(db, turn_id, item_type, _note(note), by)

    def recent_turns(self, feedback: FeedbackFilter = "all", limit: int = 50) -> list[LoggedTurn]:
        """The most recent turns first, those matching `feedback` only."""
        with self._connect() as db:
            return [self._turn(db, row) for row in storage.recent_turns(db, feedback, limit)]

    def reviewed_turns(self) -> list[LoggedTurn]:
        with self._connect() as db:
            return [self._turn(db, row) for row in storage.reviewed_turns(db)]

    def export_jsonl(self) -> str:
        """Every reviewed turn as one evaluation item per line, oldest first."""
        return "".join(json.dumps(turn.evaluation_item(), ensure_ascii=False) + "\n" for turn in self.reviewed_turns())

    def propose_bank_entries(self, entries: list[BankEntry]) -> None:
        """A volunteer's question-bank entries, kept until a maintainer accepts them; the same entry is kept once."""
        with self._connect() as db:
            for entry in entries:
                storage.propose_bank_entry(db, entry.doc, entry.unit, entry.lang, entry.text)

    def bank_additions(self, accepted: bool) -> list[BankAddition]:
        """The volunteers' entries a maintainer accepted (`accepted`), or those waiting, oldest first."""
        with self._connect() as db:
            return [
                BankAddition(row.id, BankEntry(row.doc, row.unit, row.lang, row.text), row.proposed_at, row.accepted_at)
                for row in storage.bank_entries(db, accepted)
            ]

    def accept_bank_addition(self, addition_id: int) -> None:
        """A maintainer's yes: the next `python -m ingest` builds the entry into the knowledge base."""
        with self._connect() as db:
            storage.accept_bank_entry(db, addition_id)

    def reject_bank_addition(self, addition_id: int) -> None:
        """A maintainer's no: the waiting entry goes, and no build ever sees it."""
        with self._connect() as db:
            storage.reject_bank_entry(db, addition_id)

    @staticmethod
    def _turn(db: Connection, row) -> LoggedTurn:
        """A stored turn, its words redacted again: rows written before redaction existed come out clean too."""
        shown = storage.shown_for(db, row.id)
        missing = storage.missing_for(db, row.id)
        *history, message, standalone = redact_turns([*json.loads(row.history), row.message, row.standalone])
        return LoggedTurn(
            id=row.id,
            asked_at=row.asked_at,
            history=tuple(history),
            message=message,
            standalone=standalone,
            questions=tuple(redact(question) for question in json.loads(row.questions)),
            path=row.path,
            note=row.note,
            outside_coverage=row.outside_coverage,
            review_type=row.review_type,
            review_note=redact(row.review_note),
            reviewed_at=row.reviewed_at,
            reviewed_by=row.reviewed_by,
            shown=tuple(
                ShownPassage(
                    id=s.id,
                    question_index=s.question_index,
                    rank=s.rank,
                    doc=s.doc,
                    unit=s.unit,
                    lang=s.lang,
                    score=s.score,
                    title=s.title,
                    url=s.url,
                    helpful=None if s.helpful is None else bool(s.helpful),
                    feedback_note=redact(s.feedback_note),
                    relevant=None if s.relevant is None else bool(s.relevant),
                )
                for s in shown
            ),
            missing=tuple(MissingUnit(m.id, m.doc, m.unit, redact(m.why)) for m in missing),
        )
