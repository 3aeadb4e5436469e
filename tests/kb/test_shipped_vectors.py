"""The vectors shipped with the snapshot: a first build reuses them, and they cover what the snapshot holds."""

from __future__ import annotations

import numpy as np

from ingest.build import build_knowledge_base, load_passages, load_question_bank
from kb.embeddings import MODEL_ID
from kb.passage import index_text
from kb.store import SHIPPED_VECTORS, SOURCES_DIR, KnowledgeBase, bank_hash, embed_hash, export_embeddings
from testing.fixtures import FAKE_ENCODERS


def test_the_shipped_vectors_cover_every_passage_and_bank_entry_of_the_snapshot():
    passages = load_passages(SOURCES_DIR)
    wanted = {embed_hash(MODEL_ID, index_text(p)) for p in passages}
    wanted |= {bank_hash(MODEL_ID, entry) for entry in load_question_bank(passages)}
    with np.load(SHIPPED_VECTORS, allow_pickle=False) as data:
        shipped = set(data["hashes"].astype(str))
        assert data["vectors"].shape == (len(shipped), 384)
    missing = wanted - shipped
    assert not missing, f"{len(missing)} texts have no shipped vector: run python -m ingest --export-vectors"


def test_a_first_build_reuses_shipped_vectors_and_embeds_the_rest(tmp_path):
    first, _, _ = build_knowledge_base(SOURCES_DIR, tmp_path / "a", encoders=FAKE_ENCODERS, shipped_vectors=None)
    shipped = tmp_path / "english.npz"
    knowledge_base = KnowledgeBase.open(tmp_path / "a", encoders=FAKE_ENCODERS)
    try:
        written = export_embeddings(knowledge_base, shipped)
    finally:
        knowledge_base.close()
    assert written == first.embedded

    with np.load(shipped) as data:  # as if the snapshot gained texts since the file was written
        np.savez(shipped, hashes=data["hashes"][10:], vectors=data["vectors"][10:])
    again, _, _ = build_knowledge_base(SOURCES_DIR, tmp_path / "b", encoders=FAKE_ENCODERS, shipped_vectors=shipped)
    assert (again.embedded, again.reused) == (10, first.embedded - 10)


def test_an_unreadable_shipped_file_only_makes_the_build_slower(tmp_path):
    shipped = tmp_path / "english.npz"
    shipped.write_bytes(b"not a numpy file")
    report, _, _ = build_knowledge_base(SOURCES_DIR, tmp_path / "s", encoders=FAKE_ENCODERS, shipped_vectors=shipped)
    assert report.reused == 0 and report.embedded > 0 and not report.unchanged
