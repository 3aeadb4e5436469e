"""Shared pytest fixtures: one real knowledge base built from the shipped snapshot and one real PostgreSQL server,
each once per test run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.build import build_knowledge_base
from ingest.laws import load_law_passages
from kb.store import SOURCES_DIR, KnowledgeBase
from testing.postgres import new_database, postgres_server


@pytest.fixture(scope="session")
def store_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("store")
    build_knowledge_base(SOURCES_DIR, directory)
    return directory


@pytest.fixture(scope="session")
def knowledge_base(store_dir) -> KnowledgeBase:
    return KnowledgeBase.open(store_dir)


@pytest.fixture(scope="session")
def engine(knowledge_base):
    from retrieval.engine import SearchEngine

    return SearchEngine(knowledge_base)


@pytest.fixture(scope="session")
def law_passages():
    return load_law_passages(SOURCES_DIR)


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """One real PostgreSQL server for the whole run; a server that cannot start fails the tests that need it."""
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> str:
    """An empty log database, once a SQLite file and once a database on the real PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'log.sqlite3'}"
    return new_database(request.getfixturevalue("postgres"))
