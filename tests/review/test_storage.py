"""The storage layer on both databases: numbered migrations applied once, one engine per process, volunteers'
bank additions kept until accepted, and turns from many threads each stored once."""

from __future__ import annotations

import sqlite3
import threading

from sqlalchemy import inspect, select

from foundation.settings import Settings
from kb.bank import BankEntry
from query_understanding.understanding import Understanding
from retrieval.results import SearchResult
from review import storage
from review.log import FeedbackLog

SEARCHED = SearchResult(Understanding("my flight was cancelled", ("what compensation?",), "offline"), ())


def test_migrations_are_numbered_and_applied_once(database_url):
    engine = storage.engine_for(database_url)
    assert storage.migrate(engine) == storage.migrate(engine) == len(storage.MIGRATIONS)
    with engine.connect() as connection:
        versions = list(connection.scalars(select(storage.schema_migrations.c.version)))
    assert versions == list(range(1, len(storage.MIGRATIONS) + 1))
    tables = set(inspect(engine).get_table_names())
    assert {"turns", "shown", "missing_units", "review_login", "bank_additions"} <= tables


def test_one_engine_per_process_for_the_configured_database(tmp_path, postgres):
    settings = Settings.from_environment({"PASSENGER_DATA_DIR": str(tmp_path)})
    assert storage.database(settings) is storage.database(settings)
    assert storage.database(settings).dialect.name == "sqlite"
    on_server = Settings.from_environment({"PASSENGER_DATABASE_URL": postgres})
    assert storage.database(on_server).dialect.name == "postgresql"
    assert storage.database(on_server).driver == "psycopg"


def test_a_log_from_before_the_numbering_keeps_its_turns(tmp_path):
    path = tmp_path / "feedback.sqlite3"
    FeedbackLog(path).log_turn(["my flight was cancelled"], SEARCHED)
    with sqlite3.connect(path) as db:  # as the log was before migrations were numbered
        db.execute("DROP TABLE schema_migrations")
        db.execute("DROP TABLE bank_additions")
    storage._migrated.clear()
    log = FeedbackLog(path)
    assert [turn.message for turn in log.recent_turns()] == ["my flight was cancelled"]
    assert log.bank_additions(accepted=False) == []


def test_a_volunteers_bank_entry_waits_for_a_maintainer(database_url):
    log = FeedbackLog(database_url)
    entry = BankEntry("SOR-2019-150", "s19", "en", "how much do I get for a cancelled flight?")
    log.propose_bank_entries([entry, entry])
    log.propose_bank_entries([entry])
    (waiting,) = log.bank_additions(accepted=False)
    assert waiting.entry == entry and log.bank_additions(accepted=True) == []
    log.accept_bank_addition(waiting.id)
    (accepted,) = log.bank_additions(accepted=True)
    assert accepted.entry == entry and accepted.accepted_at and log.bank_additions(accepted=False) == []


def test_turns_from_many_threads_are_each_stored_once(database_url):
    log = FeedbackLog(database_url)
    workers = [
        threading.Thread(target=log.log_turn, args=([f"my flight number {n} was cancelled"], SEARCHED))
        for n in range(20)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    messages = sorted(turn.message for turn in log.recent_turns(limit=100))
    assert messages == sorted(f"my flight number {n} was cancelled" for n in range(20))
