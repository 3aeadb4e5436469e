"""Shared pytest fixtures: one real knowledge base built from the shipped snapshot, once per test run."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.build import build_knowledge_base
from ingest.laws import load_law_passages
from kb.store import SOURCES_DIR, KnowledgeBase


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
