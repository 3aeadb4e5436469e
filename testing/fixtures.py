"""Shared pytest fixtures: a knowledge base built from the shipped snapshot once per test run, with the shipped
encoders (end-to-end tests) or with the fake one (tests of ranking logic)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.build import build_knowledge_base
from ingest.laws import load_law_passages
from kb.store import SOURCES_DIR, KnowledgeBase
from testing.fake_encoder import FakeEncoder

FAKE_MIN_SIMILARITY = 0.5


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
    """The shipped snapshot built into real Chroma with the fake encoder: seconds, and no model file."""
    directory = tmp_path_factory.mktemp("fake-store")
    build_knowledge_base(SOURCES_DIR, directory, encoder=FakeEncoder())
    return directory


@pytest.fixture(scope="session")
def fake_engine(fake_store_dir):
    """A search engine whose every encoder is the fake one, for tests of ranking logic rather than quality. Word
    overlap gives lower cosines than a sentence model, so its closeness gate is set lower."""
    from retrieval.engine import SearchEngine
    from retrieval.fusion import Weights

    knowledge_base = KnowledgeBase.open(fake_store_dir, encoder=FakeEncoder())
    return SearchEngine(knowledge_base, Weights(min_similarity=FAKE_MIN_SIMILARITY), multilingual=FakeEncoder())
