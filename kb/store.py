"""The built knowledge base: passages and their embeddings in Chroma, one complete generation at a time.

Each build writes a new generation directory and only then points `CURRENT` at it (an atomic rename),
so a build killed at any moment leaves the previous knowledge base answering. Embeddings are reused
from the previous generation for every passage whose indexed text is unchanged, and a build whose
inputs are identical to the current generation's writes nothing at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import chromadb
from chromadb.config import Settings

from kb.bank import BankEntry
from kb.embeddings import MODEL_ID, QUERY_PREFIX, OfflineBgeEmbedding, embed
from kb.passage import Passage

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SOURCES_DIR = PROJECT_ROOT / "kb" / "sources"
COLLECTION = "passages"
BANK_COLLECTION = "bank"
CURRENT = "CURRENT"
ADD_BATCH = 256


class StoreMissingError(RuntimeError):
    """No knowledge base has been built at this path yet."""


class ModelMismatchError(RuntimeError):
    """The knowledge base was built with another embedding model than the one installed."""


def default_store_dir() -> Path:
    """`PASSENGER_KB_STORE` if set, else `kb/store/` in the project (git-ignored)."""
    configured = os.environ.get("PASSENGER_KB_STORE", "").strip()
    return Path(configured) if configured else PROJECT_ROOT / "kb" / "store"


def _client(path: Path) -> chromadb.ClientAPI:
    return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))


def embed_hash(index_text: str) -> str:
    return hashlib.sha256(f"{MODEL_ID}\n{index_text}".encode()).hexdigest()[:32]


def bank_embed_text(entry: BankEntry) -> str:
    """Bank entries are embedded as questions, like the passenger's question they are compared with."""
    return QUERY_PREFIX + entry.text


@dataclass(frozen=True)
class IndexedPassage:
    """A passage with the text its indexes see (the passage, enriched for search, never shown)."""

    passage: Passage
    index_text: str


@dataclass(frozen=True)
class BuildReport:
    generation: str
    passages: int
    embedded: int
    reused: int
    unchanged: bool
    seconds: float


class KnowledgeBase:
    """One opened generation: its passages, their indexed texts, its Chroma collection and its metadata."""

    def __init__(
        self,
        directory: Path,
        meta: dict,
        indexed: list[IndexedPassage],
        collection,
        bank: list[BankEntry],
        bank_collection,
    ):
        self.directory = directory
        self.meta = meta
        self.indexed = indexed
        self.passages = [item.passage for item in indexed]
        self.by_id = {p.id: p for p in self.passages}
        self.collection = collection
        self.bank = bank
        self.bank_collection = bank_collection

    @classmethod
    def open(cls, store_dir: Path | None = None) -> KnowledgeBase:
        store_dir = store_dir or default_store_dir()
        directory = current_generation(store_dir)
        if directory is None:
            raise StoreMissingError(f"No knowledge base at {store_dir}. Build it with: python -m ingest")
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        if meta.get("model_id") != MODEL_ID:
            raise ModelMismatchError(
                f"The knowledge base at {store_dir} was built with the embedding model {meta.get('model_id')!r}, "
                f"but this installation uses {MODEL_ID!r}. Rebuild it: python -m ingest"
            )
        client = _client(directory / "chroma")
        collection = client.get_collection(COLLECTION, embedding_function=OfflineBgeEmbedding())
        if (collection.metadata or {}).get("model_id") != MODEL_ID:
            raise ModelMismatchError(f"The Chroma collection in {directory} was built with another embedding model.")
        bank_collection = client.get_collection(BANK_COLLECTION, embedding_function=OfflineBgeEmbedding())
        return cls(directory, meta, read_passages(directory), collection, read_bank(directory), bank_collection)


def current_generation(store_dir: Path) -> Path | None:
    pointer = store_dir / CURRENT
    if not pointer.is_file():
        return None
    directory = store_dir / pointer.read_text(encoding="utf-8").strip()
    return directory if (directory / "meta.json").is_file() else None


def read_passages(directory: Path) -> list[IndexedPassage]:
    with (directory / "passages.jsonl").open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines]
    return [IndexedPassage(Passage.from_record(r["passage"]), r["index_text"]) for r in records]


def read_bank(directory: Path) -> list[BankEntry]:
    with (directory / "bank.jsonl").open(encoding="utf-8") as lines:
        return [BankEntry(**json.loads(line)) for line in lines]


def fingerprint(indexed: list[IndexedPassage], sources: dict, bank: list[BankEntry]) -> str:
    digest = hashlib.sha256(MODEL_ID.encode())
    for item in indexed:
        digest.update(item.passage.content_hash.encode())
        digest.update(embed_hash(item.index_text).encode())
    for entry in bank:
        digest.update(embed_hash(bank_embed_text(entry)).encode())
        digest.update(entry.id.encode())
    digest.update(json.dumps(sources, sort_keys=True).encode())
    return digest.hexdigest()


def build(
    indexed: list[IndexedPassage],
    sources: dict,
    store_dir: Path | None = None,
    progress: Callable[[Iterable], Iterable] = lambda batches: batches,
    bank: list[BankEntry] = (),
) -> BuildReport:
    """Write a new generation from `indexed` and the question `bank` and switch to it, unless nothing changed.

    `sources` (what the snapshot's manifests say: instruments, consolidation dates, pages) is kept in the
    generation's metadata for the page's status panel. `progress` wraps the embedding batches.
    """
    started = time.monotonic()
    store_dir = store_dir or default_store_dir()
    store_dir.mkdir(parents=True, exist_ok=True)
    ids = [item.passage.id for item in indexed]
    if len(set(ids)) != len(ids):
        raise ValueError("Two passages share an id; the loader must number the parts of a unit.")
    bank = list(bank)
    print_ = fingerprint(indexed, sources, bank)
    previous = current_generation(store_dir)
    previous_meta = json.loads((previous / "meta.json").read_text(encoding="utf-8")) if previous else {}
    if previous and previous_meta.get("fingerprint") == print_ and previous_meta.get("model_id") == MODEL_ID:
        return BuildReport(previous.name, len(indexed), 0, 0, True, time.monotonic() - started)

    reusable = _previous_embeddings(previous) if previous else {}
    generation = f"gen-{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{os.getpid()}"
    directory = store_dir / generation
    directory.mkdir()
    client = _client(directory / "chroma")
    passage_hashes = [embed_hash(item.index_text) for item in indexed]
    bank_texts = [bank_embed_text(entry) for entry in bank]
    bank_hashes = [embed_hash(text) for text in bank_texts]
    vectors = _embed_new(
        dict(zip(passage_hashes + bank_hashes, [i.index_text for i in indexed] + bank_texts, strict=True)),
        reusable,
        progress,
    )
    _add(
        client,
        COLLECTION,
        ids,
        passage_hashes,
        [item.index_text for item in indexed],
        [_metadata(item.passage, h) for item, h in zip(indexed, passage_hashes, strict=True)],
        vectors,
    )
    _add(
        client,
        BANK_COLLECTION,
        [entry.id for entry in bank],
        bank_hashes,
        [entry.text for entry in bank],
        [
            {"doc": e.doc, "unit": e.unit, "lang": e.lang, "embed_hash": h}
            for e, h in zip(bank, bank_hashes, strict=True)
        ],
        vectors,
    )
    with (directory / "passages.jsonl").open("w", encoding="utf-8") as out:
        for item in indexed:
            record = {"passage": item.passage.to_record(), "index_text": item.index_text}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    with (directory / "bank.jsonl").open("w", encoding="utf-8") as out:
        for entry in bank:
            out.write(json.dumps(entry.to_record(), ensure_ascii=False) + "\n")
    meta = {
        "model_id": MODEL_ID,
        "fingerprint": print_,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "passages": len(indexed),
        "bank_entries": len(bank),
        "sources": sources,
    }
    (directory / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    _switch_to(store_dir, generation)
    _remove_old_generations(store_dir, keep={generation, previous.name if previous else ""})
    embedded = len(set(vectors) - set(reusable))
    total = len(set(passage_hashes + bank_hashes))
    return BuildReport(generation, len(indexed), embedded, total - embedded, False, time.monotonic() - started)


def _embed_new(
    texts: dict[str, str], reusable: dict[str, list[float]], progress: Callable[[Iterable], Iterable]
) -> dict[str, list[float]]:
    """embed_hash -> vector for every text: reused when the previous generation has it, else embedded now."""
    vectors = {h: reusable[h] for h in texts if h in reusable}
    missing = [h for h in texts if h not in reusable]
    batches = [missing[start : start + 64] for start in range(0, len(missing), 64)]
    for batch in progress(batches):
        for hash_, vector in zip(batch, embed([texts[h] for h in batch]), strict=True):
            vectors[hash_] = vector.tolist()
    return vectors


def _add(client, name: str, ids: list[str], hashes: list[str], documents: list[str], metadatas: list[dict], vectors):
    collection = client.create_collection(
        name,
        embedding_function=OfflineBgeEmbedding(),
        metadata={"model_id": MODEL_ID},
        configuration={"hnsw": {"space": "cosine"}},
    )
    for start in range(0, len(ids), ADD_BATCH):
        chunk = slice(start, start + ADD_BATCH)
        collection.add(
            ids=ids[chunk],
            embeddings=[vectors[h] for h in hashes[chunk]],
            documents=documents[chunk],
            metadatas=metadatas[chunk],
        )


def _metadata(passage: Passage, hash_: str) -> dict:
    return {"doc": passage.doc, "unit": passage.unit, "lang": passage.lang, "kind": passage.kind, "embed_hash": hash_}


def _previous_embeddings(directory: Path) -> dict[str, list[float]]:
    """embed_hash -> vector from the previous generation; an unreadable one just means re-embedding."""
    vectors: dict[str, list[float]] = {}
    for name in (COLLECTION, BANK_COLLECTION):
        try:
            collection = _client(directory / "chroma").get_collection(name, embedding_function=OfflineBgeEmbedding())
            if (collection.metadata or {}).get("model_id") != MODEL_ID:
                continue
            stored = collection.get(include=["embeddings", "metadatas"])
        except Exception:  # noqa: BLE001 - a damaged old generation must not block a rebuild
            continue
        for meta, vector in zip(stored["metadatas"], stored["embeddings"], strict=True):
            vectors[meta["embed_hash"]] = list(vector)
    return vectors


def _switch_to(store_dir: Path, generation: str) -> None:
    pointer = store_dir / f"{CURRENT}.tmp"
    with pointer.open("w", encoding="utf-8") as out:
        out.write(generation)
        out.flush()
        os.fsync(out.fileno())
    os.replace(pointer, store_dir / CURRENT)


def _remove_old_generations(store_dir: Path, keep: set[str]) -> None:
    """Keep the new generation and the one a running page may still have open; drop the rest."""
    for directory in store_dir.glob("gen-*"):
        if directory.name not in keep:
            shutil.rmtree(directory, ignore_errors=True)
