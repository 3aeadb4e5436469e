"""Chroma in client/server mode: a real `chroma run` on 127.0.0.1, shared by ingest and several app processes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import chromadb
import pytest
from chromadb.config import Settings

from ingest.build import build_knowledge_base
from kb.store import SOURCES_DIR, KnowledgeBase, StoreDamagedError, StoreUnreachableError
from page.conversation import Conversation
from retrieval.engine import SearchEngine
from retrieval.outcome import Outcome
from review.log import FeedbackLog
from testing.chroma_server import chroma_server
from testing.local_server import free_port

PROJECT = Path(__file__).resolve().parents[2]
FILES = ["SOR-2019-110.xml", "SOR-2019-150.xml"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma-server")) as url:
        yield url


def two_instruments(tmp_path: Path, edition: str = "") -> Path:
    """A snapshot of two instruments; a different `edition` makes a build write a new generation."""
    sources = tmp_path / f"sources{edition}"
    shutil.copytree(SOURCES_DIR / "justice-laws", sources / "justice-laws")
    manifest = json.loads((SOURCES_DIR / "manifest.json").read_text(encoding="utf-8"))
    manifest["instruments"] = [e for e in manifest["instruments"] if e["file"].split("/")[-1] in FILES]
    manifest["licence"]["name"] += edition
    (sources / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return sources


def server_collections(url: str) -> list[str]:
    host, port = url.removeprefix("http://").split(":")
    client = chromadb.HttpClient(host=host, port=int(port), settings=Settings(anonymized_telemetry=False))
    return sorted(collection.name for collection in client.list_collections())


NEAREST = """
import json, sys
from foundation.settings import Settings
from kb.store import KnowledgeBase
settings = Settings.from_environment()
kb = KnowledgeBase.open(settings.store_dir, settings.chroma_url)
vector = kb.collection.get(ids=[sys.argv[1]], include=["embeddings"])["embeddings"][0]
print(json.dumps(kb.collection.query(query_embeddings=[vector.tolist()], n_results=5)["ids"][0]))
"""


def test_app_processes_share_one_store_on_the_server(server, tmp_path, monkeypatch):
    store = tmp_path / "store"
    report, _, _ = build_knowledge_base(two_instruments(tmp_path), store, chroma_url=server)
    assert not (store / report.generation / "chroma").exists()  # the vectors live on the server
    assert f"{report.generation}.passages" in server_collections(server)

    monkeypatch.setenv("PASSENGER_KB_STORE", str(store))
    monkeypatch.setenv("PASSENGER_CHROMA_URL", server)
    knowledge_base = KnowledgeBase.open(store, server)
    probe = knowledge_base.passages[10].id
    vector = knowledge_base.collection.get(ids=[probe], include=["embeddings"])["embeddings"][0]
    here = knowledge_base.collection.query(query_embeddings=[vector], n_results=5)["ids"][0]
    knowledge_base.close()
    others = [
        subprocess.run([sys.executable, "-c", NEAREST, probe], cwd=PROJECT, capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert here[0] == probe
    assert [json.loads(other.stdout) for other in others] == [here, here]


def test_rebuilds_keep_the_current_and_replaced_generations_on_the_server(server, tmp_path):
    store = tmp_path / "store"
    generations = [
        build_knowledge_base(two_instruments(tmp_path, f" {n}"), store, chroma_url=server)[0].generation
        for n in range(3)
    ]
    mine = [name for name in server_collections(server) if name.split(".")[0] in generations]
    kept = [f"{generation}.{part}" for generation in generations[1:] for part in ("bank", "passages")]
    assert sorted(mine) == kept
    assert sorted(path.name for path in store.glob("gen-*")) == generations[1:]


def test_a_collection_missing_on_the_server_is_named_and_repaired(server, tmp_path):
    store, sources = tmp_path / "store", two_instruments(tmp_path, " first")
    build_knowledge_base(sources, store, chroma_url=server)
    sources = two_instruments(tmp_path, " second")
    current = build_knowledge_base(sources, store, chroma_url=server)[0].generation
    host, port = server.removeprefix("http://").split(":")
    chromadb.HttpClient(host=host, port=int(port)).delete_collection(f"{current}.passages")

    with pytest.raises(StoreDamagedError, match="Chroma cannot search passages"):
        KnowledgeBase.open(store, server)
    report, _, _ = build_knowledge_base(sources, store, chroma_url=server)
    assert not report.unchanged and report.embedded == 0  # reused from the generation it replaced
    KnowledgeBase.open(store, server).close()


def test_a_server_that_is_down_is_a_clear_error(tmp_path, monkeypatch):
    down = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("PASSENGER_CHROMA_URL", down)  # for the `python -m ingest` below
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "CURRENT").write_text("gen-20260101T000000000000-1")
    with pytest.raises(StoreUnreachableError, match="is not answering"):
        KnowledgeBase.open(tmp_path / "store", down)
    result = subprocess.run(
        [sys.executable, "-m", "ingest", "--sources", str(two_instruments(tmp_path)), "--store",
         str(tmp_path / "store"), "--quiet"],
        cwd=PROJECT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2 and "is not answering" in result.stderr and "Traceback" not in result.stderr


def test_a_server_that_stops_mid_conversation_is_said_plainly(tmp_path):
    with chroma_server(tmp_path / "chroma-data") as url:
        build_knowledge_base(two_instruments(tmp_path), tmp_path / "store", chroma_url=url)
        engine = SearchEngine(KnowledgeBase.open(tmp_path / "store", url))
        conversation = Conversation()
        log = FeedbackLog(tmp_path / "feedback.sqlite3")
        assert conversation.ask("My flight was cancelled, what am I owed?", engine, log, None).search_result
    exchange = conversation.ask("And my bag was lost?", engine, log, None)
    assert exchange.refusal is Outcome.SEARCH_SERVER_DOWN
