"""Shared pytest fixtures: a knowledge base built from the shipped snapshot once per test run, with the shipped
encoders (end-to-end tests) or with the fake ones (tests of ranking logic), and one real PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.build import build_knowledge_base
from ingest.laws import load_law_passages
from kb.store import SOURCES_DIR, Encoders, KnowledgeBase
from testing.fake_encoder import FakeEncoder
from testing.postgres import new_database, postgres_server

FAKE_MIN_SIMILARITY = 0.5
FAKE_ENCODERS = Encoders(FakeEncoder(), FakeEncoder())


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
def fake_store_dir(tmp_path_factory) -> Path:
    """The shipped snapshot built into real Chroma with the fake encoders: seconds, and no model file."""
    directory = tmp_path_factory.mktemp("fake-store")
    build_knowledge_base(SOURCES_DIR, directory, encoders=FAKE_ENCODERS)
    return directory


@pytest.fixture(scope="session")
def fake_engine(fake_store_dir):
    """A search engine whose every encoder is the fake one, for tests of ranking logic rather than quality. Word
    overlap gives lower cosines than a sentence model, so its closeness gate is set lower."""
    from retrieval.engine import SearchEngine
    from retrieval.fusion import Weights

    knowledge_base = KnowledgeBase.open(fake_store_dir, encoders=FAKE_ENCODERS)
    return SearchEngine(knowledge_base, Weights(min_similarity=FAKE_MIN_SIMILARITY))


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
