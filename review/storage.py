"""The one module that speaks SQL: the log's tables, their numbered migrations, the process's database engine, and
every statement the log runs, the same on SQLite and PostgreSQL (SQLAlchemy Core).

`database(settings)` is the process's engine for the configured database: PostgreSQL when PASSENGER_DATABASE_URL
names one (several app processes then share one log), else the SQLite file PASSENGER_FEEDBACK_DB in the data
folder, created readable by its owner only. One pooled engine per address and process. Every table is defined in
`metadata`, so other tables (volunteers' accounts) can join the same migrations and the same transactions.

Migrations are numbered: `MIGRATIONS[n - 1]` creates what version n added, and `schema_migrations` records each
version applied, once, under a lock (an advisory lock on PostgreSQL, the write lock on SQLite), so processes
starting together migrate once. Tables a log written before the numbering already holds are kept as they are.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    create_engine,
    delete,
    event,
    exists,
    insert,
    inspect,
    make_url,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from foundation.settings import Settings, display_url
from kb.bank import BankEntry

MAX_ACCOUNT_NAME_CHARS = 80
MIGRATION_LOCK = 21_021  # PostgreSQL advisory lock held while migrating

metadata = MetaData()

turns = Table(
    "turns",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("asked_at", Text, nullable=False),
    Column("history", Text, nullable=False),
    Column("message", Text, nullable=False),
    Column("standalone", Text, nullable=False),
    Column("questions", Text, nullable=False),
    Column("path", Text, nullable=False),
    Column("note", Text, nullable=False),
    Column("outside_coverage", Text, nullable=False),
    Column("review_type", Text, nullable=False, server_default=""),
    Column("review_note", Text, nullable=False, server_default=""),
    Column("reviewed_at", Text),
    Column("reviewed_by", Text, nullable=False, server_default=""),  # the account, since migration 3
    Index("turns_by_time", "asked_at"),
)
shown = Table(
    "shown",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("turn_id", Integer, ForeignKey("turns.id"), nullable=False),
    Column("question_index", Integer, nullable=False),
    Column("rank", Integer, nullable=False),
    Column("doc", Text, nullable=False),
    Column("unit", Text, nullable=False),
    Column("lang", Text, nullable=False),
    Column("part", Integer, nullable=False),
    Column("score", Float, nullable=False),
    Column("title", Text, nullable=False),
    Column("url", Text, nullable=False),
    Column("helpful", Integer),
    Column("feedback_note", Text, nullable=False, server_default=""),
    Column("feedback_at", Text),
    Column("relevant", Integer),
    Column("judged_by", Text, nullable=False, server_default=""),  # the account, since migration 3
    Index("shown_by_turn", "turn_id"),
)
missing_units = Table(
    "missing_units",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("turn_id", Integer, ForeignKey("turns.id"), nullable=False),
    Column("doc", Text, nullable=False),
    Column("unit", Text, nullable=False),
    Column("why", Text, nullable=False),
    Column("added_at", Text, nullable=False),
    Column("added_by", Text, nullable=False, server_default=""),  # the account, since migration 3
    UniqueConstraint("turn_id", "doc", "unit"),
)
review_login = Table(
    "review_login",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("failures", Integer, nullable=False),
    Column("locked_until", Float, nullable=False),
)
bank_additions = Table(  # volunteers' question-bank entries; `python -m ingest` builds the accepted ones in
    "bank_additions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("doc", String(100), nullable=False),
    Column("unit", String(100), nullable=False),
    Column("lang", String(8), nullable=False),
    Column("text", Text, nullable=False),
    Column("proposed_at", Text, nullable=False),
    Column("accepted_at", Text),
    UniqueConstraint("doc", "unit", "lang", "text"),
)
accounts_table = Table(
    "accounts",
    metadata,
    Column("name", String(MAX_ACCOUNT_NAME_CHARS), primary_key=True),
    Column("role", String(20), nullable=False),
    Column("password_hash", String(200)),  # none for an account that signs in through the provider only
    Column("email", String(254), unique=True),
    Column("disabled", Boolean, nullable=False, default=False),
    Column("created_at", Float, nullable=False),
)
sign_in_failures = Table(
    "sign_in_failures",
    metadata,
    Column("who", String(300), primary_key=True),  # "account:NAME" or "address:IP"
    Column("failures", Integer, nullable=False),
    Column("last_failure", Float, nullable=False),
    Column("locked_until", Float, nullable=False),
)
schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("applied_at", Text, nullable=False),
)

# version n creates MIGRATIONS[n - 1], tables or (table, column) pairs; a new table or column is a new entry, never
# an edit of an old one. review_login held the shared review password's lockout, before volunteers' own accounts.
MIGRATIONS: tuple[tuple[Table | tuple[Table, str], ...], ...] = (
    (turns, shown, missing_units, review_login),
    (bank_additions,),
    ((turns, "reviewed_by"), (shown, "judged_by"), (missing_units, "added_by")),
    (accounts_table, sign_in_failures),
)

FEEDBACK_FILTERS = {
    "all": true(),
    "any_feedback": exists().where(shown.c.turn_id == turns.c.id, shown.c.helpful.is_not(None)),
    "helpful": exists().where(shown.c.turn_id == turns.c.id, shown.c.helpful == 1),
    "not_helpful": exists().where(shown.c.turn_id == turns.c.id, shown.c.helpful == 0),
    "no_feedback": ~exists().where(shown.c.turn_id == turns.c.id, shown.c.helpful.is_not(None)),
    "reviewed": turns.c.reviewed_at.is_not(None),
    "not_reviewed": turns.c.reviewed_at.is_(None),
}


# -- the engine ---------------------------------------------------------------------------------------------------


def database_url(settings: Settings) -> str:
    """PASSENGER_DATABASE_URL, else the SQLite file in the data folder."""
    return settings.database_url or f"sqlite:///{settings.feedback_db}"


def database(settings: Settings) -> Engine:
    """The process's engine for the configured database, created once and pooled."""
    return engine_for(database_url(settings))


_engines: dict[str, Engine] = {}
_migrated: set[str] = set()
_lock = threading.Lock()


def engine_for(url: str) -> Engine:
    """One engine per address and process; `postgresql://` runs on psycopg 3."""
    with _lock:
        if url not in _engines:
            _engines[url] = _create_engine(url)
        return _engines[url]


def first_line(error: BaseException) -> str:
    """What went wrong, in one line: a database driver's message, without the statement it ran."""
    text_ = str(error).strip()
    return text_.splitlines()[0] if text_ else type(error).__name__


def where(url: str) -> str:
    """The database as it may be shown: a file's path, or a server's address without its credentials."""
    parsed = make_url(url)
    return parsed.database or "" if parsed.get_backend_name() == "sqlite" else display_url(url)


def _create_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_pre_ping=True, pool_size=5, max_overflow=10)
    engine = create_engine(parsed, connect_args={"timeout": 10})

    @event.listens_for(engine, "connect")
    def _sqlite_connection(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # transactions are begun below, not by the driver
        dbapi_connection.execute("PRAGMA secure_delete = ON")  # deleted turns are overwritten, not left in free pages

    @event.listens_for(engine, "begin")
    def _sqlite_begin(connection):
        connection.exec_driver_sql("BEGIN IMMEDIATE")  # one writer at a time, from the first statement on

    return engine


@contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """A connection in one transaction, the schema brought up to date first (once per process)."""
    if engine.url.render_as_string() not in _migrated:
        migrate(engine)
    with engine.begin() as connection:
        yield connection


def migrate(engine: Engine) -> int:
    """Apply the migrations this database lacks; returns its version. A SQLite file is made first, owner only."""
    if engine.dialect.name == "sqlite" and engine.url.database:
        _create_private_file(Path(engine.url.database))
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        schema_migrations.create(connection, checkfirst=True)
        applied = set(connection.scalars(select(schema_migrations.c.version)))
        for version, tables in enumerate(MIGRATIONS, start=1):
            if version in applied:
                continue
            for change in tables:
                if isinstance(change, Table):
                    change.create(connection, checkfirst=True)  # a log from before the numbering already has some
                else:
                    _add_column(connection, *change)
            connection.execute(insert(schema_migrations).values(version=version, applied_at=now()))
    _migrated.add(engine.url.render_as_string())
    return len(MIGRATIONS)


def _add_column(connection: Connection, table: Table, name: str) -> None:
    """A text column, empty by default, that a table made before it lacks (a table made since has it)."""
    if name not in {column["name"] for column in inspect(connection).get_columns(table.name)}:
        connection.execute(text(f"ALTER TABLE {table.name} ADD COLUMN {name} TEXT NOT NULL DEFAULT ''"))


def _create_private_file(path: Path) -> None:
    """The file readable and writable by its owner only (SQLite gives its journal the same mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        if path.is_file() and path.stat().st_mode & 0o077:
            path.chmod(0o600)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _upsert(connection: Connection, table: Table):
    return (postgresql if connection.dialect.name == "postgresql" else sqlite).insert(table)


# -- the log's statements -----------------------------------------------------------------------------------------


def forget_turns_before(connection: Connection, cutoff: str) -> int:
    """Delete the turns asked before `cutoff`, with what was shown and added for them."""
    old = select(turns.c.id).where(turns.c.asked_at < cutoff)
    connection.execute(delete(shown).where(shown.c.turn_id.in_(old)))
    connection.execute(delete(missing_units).where(missing_units.c.turn_id.in_(old)))
    return connection.execute(delete(turns).where(turns.c.asked_at < cutoff)).rowcount


def insert_turn(connection: Connection, **values) -> int:
    return connection.execute(insert(turns).values(asked_at=now(), **values).returning(turns.c.id)).scalar_one()


def insert_shown(connection: Connection, turn_id: int, **values) -> int:
    return connection.execute(insert(shown).values(turn_id=turn_id, **values).returning(shown.c.id)).scalar_one()


def record_feedback(connection: Connection, shown_id: int, helpful: int | None, note: str) -> None:
    connection.execute(
        update(shown).where(shown.c.id == shown_id).values(helpful=helpful, feedback_note=note, feedback_at=now())
    )


def judge(connection: Connection, shown_id: int, relevant: int | None, by: str) -> None:
    """A shown passage judged by the account `by`, and its turn marked reviewed."""
    connection.execute(update(shown).where(shown.c.id == shown_id).values(relevant=relevant, judged_by=by))
    turn_id = select(shown.c.turn_id).where(shown.c.id == shown_id).scalar_subquery()
    connection.execute(update(turns).where(turns.c.id == turn_id).values(reviewed_at=now(), reviewed_by=by))


def add_missing_unit(connection: Connection, turn_id: int, doc: str, unit: str, why: str, by: str) -> None:
    """A unit added to a turn by the account `by`; adding it again replaces the reason."""
    statement = _upsert(connection, missing_units).values(
        turn_id=turn_id, doc=doc, unit=unit, why=why, added_at=now(), added_by=by
    )
    connection.execute(
        statement.on_conflict_do_update(
            index_elements=["turn_id", "doc", "unit"],
            set_={"why": statement.excluded.why, "added_at": now(), "added_by": by},
        )
    )
    connection.execute(update(turns).where(turns.c.id == turn_id).values(reviewed_at=now(), reviewed_by=by))


def remove_missing_unit(connection: Connection, missing_id: int) -> None:
    connection.execute(delete(missing_units).where(missing_units.c.id == missing_id))


def save_review(connection: Connection, turn_id: int, item_type: str, note: str, by: str) -> None:
    connection.execute(
        update(turns)
        .where(turns.c.id == turn_id)
        .values(review_type=item_type, review_note=note, reviewed_at=now(), reviewed_by=by)
    )


def recent_turns(connection: Connection, feedback: str, limit: int) -> list:
    condition = FEEDBACK_FILTERS[feedback]
    return list(connection.execute(select(turns).where(condition).order_by(turns.c.id.desc()).limit(limit)))


def reviewed_turns(connection: Connection) -> list:
    return list(connection.execute(select(turns).where(turns.c.reviewed_at.is_not(None)).order_by(turns.c.id)))


def shown_for(connection: Connection, turn_id: int) -> list:
    statement = select(shown).where(shown.c.turn_id == turn_id).order_by(shown.c.question_index, shown.c.rank)
    return list(connection.execute(statement))


def missing_for(connection: Connection, turn_id: int) -> list:
    return list(
        connection.execute(select(missing_units).where(missing_units.c.turn_id == turn_id).order_by(missing_units.c.id))
    )


def turn_ids(connection: Connection) -> list[int]:
    return list(connection.scalars(select(turns.c.id).order_by(turns.c.id)))


# -- volunteers' bank additions -------------------------------------------------------------------------------------


def propose_bank_entry(connection: Connection, doc: str, unit: str, lang: str, text_: str) -> None:
    """A volunteer's entry, waiting for a maintainer; proposing one that is already there changes nothing."""
    connection.execute(
        _upsert(connection, bank_additions)
        .values(doc=doc, unit=unit, lang=lang, text=text_, proposed_at=now())
        .on_conflict_do_nothing()
    )


def accept_bank_entry(connection: Connection, addition_id: int) -> None:
    connection.execute(
        update(bank_additions)
        .where(and_(bank_additions.c.id == addition_id, bank_additions.c.accepted_at.is_(None)))
        .values(accepted_at=now())
    )


def reject_bank_entry(connection: Connection, addition_id: int) -> None:
    """A maintainer's no: a waiting entry goes; an accepted one stays."""
    connection.execute(
        delete(bank_additions).where(and_(bank_additions.c.id == addition_id, bank_additions.c.accepted_at.is_(None)))
    )


def bank_entries(connection: Connection, accepted: bool) -> list:
    """The additions a maintainer accepted (`accepted`) or has yet to look at, oldest first."""
    condition = bank_additions.c.accepted_at.is_not(None) if accepted else bank_additions.c.accepted_at.is_(None)
    return list(connection.execute(select(bank_additions).where(condition).order_by(bank_additions.c.id)))


def accepted_bank_entries(engine: Engine) -> list[BankEntry]:
    """What `python -m ingest` builds into the next generation: every entry a maintainer accepted."""
    with transaction(engine) as connection:
        return [BankEntry(row.doc, row.unit, row.lang, row.text) for row in bank_entries(connection, accepted=True)]
