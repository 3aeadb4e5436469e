"""The store: complete generations only, incremental re-embedding, a clear error for another model."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ingest.build import build_knowledge_base, load_passages
from kb.store import SOURCES_DIR, IndexedPassage, KnowledgeBase, ModelMismatchError, StoreMissingError, build
from retrieval.enrich import index_text

PROJECT = Path(__file__).resolve().parent.parent


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


def test_rebuild_with_unchanged_sources_writes_nothing(store_dir):
    report, _, _ = build_knowledge_base(SOURCES_DIR, store_dir)
    assert report.unchanged and report.embedded == 0


def test_changed_passage_is_the_only_one_embedded_and_removed_ones_disappear(tmp_path):
    passages = load_passages(small_sources(tmp_path, ["SOR-2019-110.xml", "SOR-2019-150.xml"]))
    indexed = [IndexedPassage(p, index_text(p)) for p in passages]
    first = build(indexed, {}, tmp_path / "store")
    assert first.embedded == len(indexed)

    changed = replace(passages[3], text=passages[3].text + " (amended)")
    kept = [IndexedPassage(p, index_text(p)) for p in [*passages[:3], changed, *passages[4:-1]]]
    second = build(kept, {}, tmp_path / "store")
    assert (second.embedded, second.reused) == (1, len(kept) - 1)
    opened = KnowledgeBase.open(tmp_path / "store")
    assert passages[-1].id not in opened.by_id
    assert opened.by_id[changed.id].text.endswith("(amended)")
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
