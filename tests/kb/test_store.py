"""The store: complete generations only, checked before they are trusted and repaired by one ingest;
incremental re-embedding; one build at a time; a clear error for another model."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ingest.build import build_knowledge_base, load_passages
from kb.passage import index_text
from kb.sources import read_sources
from kb.store import (
    CURRENT,
    SOURCES_DIR,
    BuildLockedError,
    IndexedPassage,
    KnowledgeBase,
    ModelMismatchError,
    StoreDamagedError,
    StoreMissingError,
    build,
    build_lock,
)

PROJECT = Path(__file__).resolve().parents[2]


def small_sources(tmp_path: Path, files: list[str]) -> Path:
    """A copy of the snapshot that lists only some instruments."""
    sources = tmp_path / "sources"
    shutil.copytree(SOURCES_DIR / "justice-laws", sources / "justice-laws")
    manifest = json.loads((SOURCES_DIR / "manifest.json").read_text(encoding="utf-8"))
    manifest["instruments"] = [e for e in manifest["instruments"] if e["file"].split("/")[-1] in files]
    (sources / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return sources


def test_every_unit_in_the_store_is_its_whole_text_and_mapped(knowledge_base):
    from kb.verbatim import check_passages

    assert len(knowledge_base.passages) > 1000
    assert check_passages(knowledge_base.passages, SOURCES_DIR) == []
    stored = knowledge_base.collection.get(ids=[knowledge_base.passages[0].id], include=["metadatas"])
    assert stored["metadatas"][0]["unit"] == knowledge_base.passages[0].unit


def test_dev_gold_units_are_in_the_store(knowledge_base):
    units = {(p.doc, p.unit) for p in knowledge_base.passages}
    for doc, unit in [("SOR-2019-150", "s19"), ("C-26", "sch6-art31"), ("C-10.4", "s85.04"), ("SOR-2019-244", "s61")]:
        assert (doc, unit) in units


def test_a_dense_query_weighs_more_neighbours_than_the_search_asks_for(knowledge_base):
    """At Chroma's default breadth, a query missed some of its nearest entries, and which ones changed from one
    process to the next (README, latency)."""
    from retrieval.engine import BANK_CANDIDATES, PASSAGE_CANDIDATES

    for collection in (knowledge_base.collection, knowledge_base.bank_collection):
        assert collection.configuration["hnsw"]["ef_search"] >= 3 * max(BANK_CANDIDATES, PASSAGE_CANDIDATES)


def test_rebuild_with_unchanged_sources_writes_nothing(store_dir):
    report, _, _ = build_knowledge_base(SOURCES_DIR, store_dir)
    assert report.unchanged and report.embedded == 0


def test_changed_passage_is_the_only_one_embedded_and_removed_ones_disappear(tmp_path):
    sources_dir = small_sources(tmp_path, ["SOR-2019-110.xml", "SOR-2019-150.xml"])
    passages, sources = load_passages(sources_dir), read_sources(sources_dir)
    indexed = [IndexedPassage(p, index_text(p)) for p in passages]
    first = build(indexed, sources, tmp_path / "store")
    assert first.embedded == len(indexed)

    changed = replace(passages[3], text=passages[3].text + " (amended)")
    kept = [IndexedPassage(p, index_text(p)) for p in [*passages[:3], changed, *passages[4:-1]]]
    second = build(kept, sources, tmp_path / "store")
    assert (second.embedded, second.reused) == (1, len(kept) - 1)
    opened = KnowledgeBase.open(tmp_path / "store")
    by_id = {p.id: p for p in opened.passages}
    assert passages[-1].id not in by_id
    assert by_id[changed.id].text.endswith("(amended)")
    assert opened.collection.count() == len(kept)


def test_killed_ingestion_leaves_the_previous_knowledge_base_answering(tmp_path):
    store = tmp_path / "store"
    build_knowledge_base(small_sources(tmp_path, ["SOR-2019-110.xml"]), store)
    before = KnowledgeBase.open(store)
    process = subprocess.Popen(
        [sys.executable, "-m", "ingest", "--store", str(store), "--quiet"],
        cwd=PROJECT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(6)  # well into embedding the full snapshot
    process.send_signal(signal.SIGKILL)
    process.wait()
    after = KnowledgeBase.open(store)
    assert after.directory == before.directory
    assert len(after.passages) == len(before.passages) == after.collection.count()


def test_missing_store_is_a_clear_error(tmp_path):
    with pytest.raises(StoreMissingError, match="python -m ingest"):
        KnowledgeBase.open(tmp_path / "nowhere")


def test_store_built_with_another_model_says_to_reingest(tmp_path, store_dir):
    copy = tmp_path / "store"
    shutil.copytree(store_dir, copy)
    generation = copy / (copy / "CURRENT").read_text().strip()
    meta = json.loads((generation / "meta.json").read_text())
    meta["model_id"] = "all-MiniLM-L6-v2"
    (generation / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ModelMismatchError, match="Rebuild it: python -m ingest"):
        KnowledgeBase.open(copy)


def test_ingest_command_prints_a_summary(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "ingest", "--sources", str(small_sources(tmp_path, ["SOR-2019-110.xml"])),
         "--store", str(tmp_path / "store"), "--quiet"],
        cwd=PROJECT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "passages: 4 (en: 4)" in result.stdout


def test_ingest_command_with_no_sources_says_so(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "ingest", "--sources", str(tmp_path), "--store", str(tmp_path / "store")],
        cwd=PROJECT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert "the law snapshot is missing" in result.stderr
    assert not (tmp_path / "store").exists()


# -- integrity, repair, housekeeping and the build lock -----------------------------------------------------


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> tuple[Path, Path]:
    """Sources of two instruments and a store built from them twice: the current generation and the intact one
    it replaced, as in any store that has been rebuilt once."""
    root = tmp_path_factory.mktemp("small")
    sources = small_sources(root, ["SOR-2019-110.xml", "SOR-2019-150.xml"])
    build_knowledge_base(sources, root / "store")
    manifest = json.loads((sources / "manifest.json").read_text(encoding="utf-8"))
    manifest["licence"]["name"] += " (second build)"
    (sources / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    build_knowledge_base(sources, root / "store")
    return sources, root / "store"


def copy_store(small_store, tmp_path: Path) -> Path:
    shutil.copytree(small_store[1], tmp_path / "store", ignore=shutil.ignore_patterns("copies"))
    return tmp_path / "store"


def current_dir(store: Path) -> Path:
    return store / (store / CURRENT).read_text(encoding="utf-8").strip()


def file_digests(store: Path) -> dict[str, tuple[str, int]]:
    return {
        str(path.relative_to(store)): (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
        for path in sorted(store.rglob("*"))
        if path.is_file()
    }


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def hnsw(generation: Path) -> Path:
    return next((generation / "chroma").glob("*/data_level0.bin"))


def test_opening_and_searching_never_writes_to_the_store(small_store, tmp_path):
    store = copy_store(small_store, tmp_path)
    before = file_digests(store)
    knowledge_base = KnowledgeBase.open(store)
    vector = knowledge_base.collection.get(limit=1, include=["embeddings"])["embeddings"][0]
    assert knowledge_base.collection.query(query_embeddings=[vector], n_results=3)["ids"][0]
    knowledge_base.close()
    assert file_digests(store) == before


DAMAGE = {
    "meta.json deleted": (lambda g, s: (g / "meta.json").unlink(), "meta.json is missing"),
    "meta.json unparseable": (lambda g, s: (g / "meta.json").write_text("{not json"), "meta.json cannot be read"),
    "meta.json wrong count": (
        lambda g, s: (g / "meta.json").write_text(
            (g / "meta.json").read_text().replace('"passages": 66', '"passages": 60')
        ),
        "holds 66 records, but meta.json says 60",
    ),
    "passages.jsonl truncated": (lambda g, s: truncate(g / "passages.jsonl"), "passages.jsonl has"),
    "passages.jsonl deleted": (lambda g, s: (g / "passages.jsonl").unlink(), "passages.jsonl is missing"),
    "HNSW file deleted": (lambda g, s: hnsw(g).unlink(), "data_level0.bin is missing"),
    "HNSW file truncated": (lambda g, s: truncate(hnsw(g)), "data_level0.bin has"),
    "chroma.sqlite3 deleted": (lambda g, s: (g / "chroma/chroma.sqlite3").unlink(), "chroma.sqlite3 is missing"),
    "chroma.sqlite3 garbage": (
        lambda g, s: (g / "chroma/chroma.sqlite3").write_bytes(b"x" * (g / "chroma/chroma.sqlite3").stat().st_size),
        "chroma.sqlite3 has changed since it was built",
    ),
    "CURRENT pointing nowhere": (lambda g, s: (s / CURRENT).write_text("gen-1-gone"), "names gen-1-gone"),
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_store_is_named_on_open_and_repaired_by_one_build(small_store, tmp_path, kind):
    sources, _ = small_store
    store = copy_store(small_store, tmp_path)
    intact = KnowledgeBase.open(store)
    ids = {p.id for p in intact.passages}
    intact.close()
    damage, cause = DAMAGE[kind]
    damage(current_dir(store), store)

    with pytest.raises(StoreDamagedError, match="python -m ingest") as raised:
        KnowledgeBase.open(store)
    assert cause in raised.value.cause

    report, _, _ = build_knowledge_base(sources, store, shipped_vectors=None)
    assert not report.unchanged and cause in report.repaired
    assert report.embedded == 0  # every vector came from the intact generation that was replaced
    repaired = KnowledgeBase.open(store)
    assert {p.id for p in repaired.passages} == ids and repaired.collection.count() == len(ids)
    repaired.close()
    assert build_knowledge_base(sources, store)[0].unchanged


def test_ingest_command_repairs_an_unparseable_meta_without_a_traceback(small_store, tmp_path):
    sources, _ = small_store
    store = copy_store(small_store, tmp_path)
    (current_dir(store) / "meta.json").write_text('{"model_id": ', encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "ingest", "--sources", str(sources), "--store", str(store), "--quiet"],
        cwd=PROJECT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "could not be kept" in result.stdout and "meta.json cannot be read" in result.stdout
    KnowledgeBase.open(store).close()


def test_every_run_removes_old_and_partial_generations(small_store, tmp_path):
    sources, _ = small_store
    store = copy_store(small_store, tmp_path)
    kept = sorted(path.name for path in store.glob("gen-*"))
    shutil.copytree(current_dir(store), store / "gen-00000000T000000000000-1")  # an old generation
    (store / "gen-29991231T000000000000-1" / "chroma").mkdir(parents=True)  # a build killed while writing

    report, _, _ = build_knowledge_base(sources, store)
    assert report.unchanged and report.removed == 2
    assert sorted(path.name for path in store.glob("gen-*")) == kept


def test_a_second_build_waits_for_the_first_or_refuses_clearly(small_store, tmp_path):
    sources, _ = small_store
    store = copy_store(small_store, tmp_path)
    with build_lock(store), pytest.raises(BuildLockedError, match="Another build of the knowledge base .* is running"):
        build_knowledge_base(sources, store)

    holding = threading.Event()

    def hold_the_lock_briefly():
        with build_lock(store):
            holding.set()
            time.sleep(1)

    holder = threading.Thread(target=hold_the_lock_briefly)
    holder.start()
    holding.wait()
    waited_for = []
    report, _, _ = build_knowledge_base(sources, store, lock_wait=60, on_wait=waited_for.append)
    holder.join()
    assert report.unchanged and waited_for


def test_two_ingest_commands_at_once_both_finish_and_one_repairs(small_store, tmp_path):
    sources, _ = small_store
    store = copy_store(small_store, tmp_path)
    hnsw(current_dir(store)).unlink()
    command = [sys.executable, "-m", "ingest", "--sources", str(sources), "--store", str(store), "--quiet"]
    runs = [subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    runs.append(subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outputs = [run.communicate(timeout=180) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    assert sorted("already up to date" in out for out, _ in outputs) == [False, True]
    KnowledgeBase.open(store).close()


def test_private_copies_left_by_a_killed_process_are_removed_at_the_next_open(small_store, tmp_path):
    store = copy_store(small_store, tmp_path)
    temp_dir = store / "copies"
    temp_dir.mkdir()
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    orphan = temp_dir / f"passenger-kb-{ended.stdout.strip()}-x1y2"
    (orphan / "chroma").mkdir(parents=True)
    unrelated = temp_dir / "passenger-kb-notapid"
    unrelated.mkdir()
    knowledge_base = KnowledgeBase.open(store)
    assert not orphan.exists() and unrelated.exists()
    own = [path for path in temp_dir.iterdir() if path.name.startswith(f"passenger-kb-{os.getpid()}-")]
    assert len(own) == 1
    knowledge_base.close()
    assert not own[0].exists()
