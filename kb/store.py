"""The built knowledge base: passages and their embeddings in Chroma, one complete generation at a time.

Each build writes a new generation and only then points `CURRENT` at it (an atomic rename), so a build
killed at any moment leaves the previous knowledge base answering. Embeddings are reused from an intact
earlier generation for every passage whose indexed text is unchanged, and a build whose inputs are
identical to an intact current generation writes nothing at all.

A generation is trusted only after its integrity check (`verify_generation`): its meta.json parses, every
file it lists is there with the size and SHA-256 it was built with, each part's JSON Lines file holds as
many records as meta.json and Chroma say, and a probe query finds stored vectors again. The page and
`python -m ingest` both run it, so a damaged store is named and rebuilt rather than trusted.

Chroma rewrites its SQLite file whenever a client opens it, so a local generation is opened through a
private temporary copy of its Chroma files (in the store's `copies/`, never in the system's temporary
folder): the generation on disk is never written after its build and its checksums stay valid. Given a
Chroma server's address (`chroma_url`), the collections live on a Chroma server instead (named
`<generation>.<collection>`), and the store directory keeps only the pointer, meta.json and the JSON Lines
files, so several app processes can share one store.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
import weakref
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import chromadb
import numpy as np
from chromadb.config import Settings

from foundation.settings import PROJECT_ROOT
from kb.bank import BankEntry
from kb.embeddings import BgeSmallEncoder, Encoder, OfflineBgeEmbedding
from kb.jsonl import read_jsonl
from kb.multilingual import MultilingualEncoder
from kb.passage import Passage
from kb.sources import Sources

SOURCES_DIR = PROJECT_ROOT / "kb" / "sources"
# The English vectors of the shipped snapshot's passages and bank entries, keyed by `embed_hash`, as a full build
# made them (`python -m ingest --export-vectors`): a first build reuses them instead of spending a minute on the
# encoder, and embeds only what the snapshot has that they lack.
SHIPPED_VECTORS = PROJECT_ROOT / "kb" / "vectors" / "english.npz"
CURRENT = "CURRENT"
META = "meta.json"
CHROMA_DIR = "chroma"
LOCK = ".lock"
STORE_ID = "STORE_ID"  # names this store's collections on a shared Chroma server
GENERATION_PREFIX = "gen-"
ADD_BATCH = 256
# The dense index. With Chroma's defaults a query missed about 0.4 % of its true 150 nearest entries, and which ones
# changed from one process to the next, so the same message could show other passages after a restart. Weighing 500
# neighbours (at least as many as a query asks for: 150 bank entries) and building the graph on one thread, the story
# sets' queries found the same entries in every process and missed 1 in 7,200, at about 0.5 ms more a query; queries
# made up between three random entries still differed once in about 200 (README, latency).
HNSW = {"space": "cosine", "ef_search": 500, "num_threads": 1}
PROBE_DISTANCE = 1e-3  # a stored vector queried for itself comes back at distance ~0


@dataclass(frozen=True)
class Part:
    """One Chroma collection of a generation and the JSON Lines file whose records it indexes, one each."""

    collection: str
    records: str


# What every generation must hold besides meta.json; the integrity check verifies each part in turn.
PASSAGES = Part("passages", "passages.jsonl")
BANK = Part("bank", "bank.jsonl")  # the question bank (`kb.bank`), indexed like the passages
GENERATION_PARTS: tuple[Part, ...] = (PASSAGES, BANK)
# Vectors a search needs besides Chroma's, computed once at build time instead of at every start: the questions
# about flying that no unit answers (`kb.bank.load_outside`) with their texts, and every bank entry through the
# multilingual encoder, in bank.jsonl's order.
VECTORS = "vectors.npz"


class StoreMissingError(RuntimeError):
    """No knowledge base has been built at this path yet."""


class ModelMismatchError(RuntimeError):
    """The knowledge base was built with another embedding model than the one installed."""


class StoreDamagedError(RuntimeError):
    """The current generation is incomplete or corrupted; `cause` says what is wrong, in plain words."""

    def __init__(self, store_dir: Path, cause: str):
        super().__init__(f"The knowledge base at {store_dir} is damaged: {cause}. Rebuild it: python -m ingest")
        self.cause = cause


class StoreUnreachableError(RuntimeError):
    """The configured Chroma server does not answer."""


class BuildLockedError(RuntimeError):
    """Another build holds the store's lock."""


@dataclass(frozen=True)
class Encoders:
    """The models a generation's vectors come from: `english` for passages, bank entries and outside questions,
    `multilingual` for the bank entries a French question is compared with. Tests give fakes (`testing/`)."""

    english: Encoder
    multilingual: Encoder


def default_encoders() -> Encoders:
    """The shipped models: bge-small-en and the multilingual encoder."""
    return Encoders(BgeSmallEncoder(), MultilingualEncoder())


def embed_hash(model_id: str, text: str, as_question: bool = False) -> str:
    """What a stored vector was made from: the model, the text, and whether it was encoded as a question."""
    kind = "question" if as_question else "passage"
    return hashlib.sha256(f"{model_id}\n{kind}\n{text}".encode()).hexdigest()[:32]


def bank_hash(model_id: str, entry: BankEntry) -> str:
    """Bank entries are encoded as questions, like the passenger's question they are compared with."""
    return embed_hash(model_id, entry.text, as_question=True)


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
    repaired: str = ""  # why the previous generation could not be kept, when it could not
    removed: int = 0  # old, partial or damaged generations removed


# -- where the collections live -------------------------------------------------------------------------------


def _settings() -> Settings:
    return Settings(anonymized_telemetry=False)


def _server_client(url: str) -> chromadb.ClientAPI:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise StoreUnreachableError(
            f"PASSENGER_CHROMA_URL={url!r} is not an http(s) address such as http://127.0.0.1:8000"
        )
    try:
        return chromadb.HttpClient(
            host=parts.hostname,
            port=parts.port or (443 if parts.scheme == "https" else 8000),
            ssl=parts.scheme == "https",
            settings=_settings(),
        )
    except Exception as error:  # noqa: BLE001 - chromadb raises ValueError or httpx errors for a dead server
        raise StoreUnreachableError(f"The Chroma server at {url} is not answering ({error}).") from error


COPY_PREFIX = "passenger-kb-"
COPIES = "copies"  # the private copies of local generations, inside the store directory


def _collection_name(generation: str, part: Part, server: str) -> str:
    return f"{generation}.{part.collection}" if server else part.collection


class _Vectors:
    """The Chroma client of one generation, opened for reading without ever writing the generation.

    A local generation is read from `copy`, a private temporary copy of its Chroma files, which goes when
    this object is closed or collected.
    """

    def __init__(self, store_dir: Path, server: str, copy: tempfile.TemporaryDirectory | None):
        self.server = server
        if server:
            self.client = _server_client(server)
        else:
            try:
                self.client = chromadb.PersistentClient(path=str(_copy_dir(copy)), settings=_settings())
            except Exception as error:  # noqa: BLE001 - Chroma cannot open its own files: the store is damaged
                copy.cleanup()
                raise StoreDamagedError(store_dir, f"Chroma cannot open its files ({error})") from error
        self._finalizer = weakref.finalize(self, _release, self.client, copy)

    def collection(self, generation: str, part: Part):
        return self.client.get_collection(
            _collection_name(generation, part, self.server), embedding_function=OfflineBgeEmbedding()
        )

    def close(self) -> None:
        self._finalizer()


def _private_copy(store_dir: Path, directory: Path) -> tempfile.TemporaryDirectory | None:
    """A temporary copy of a local generation's Chroma files, or None when it has none. Its name carries the
    process id, so that the copies of a process that was killed (its cleanup never ran) can be told apart."""
    if not (directory / CHROMA_DIR).is_dir():
        return None
    copies = store_dir / COPIES
    copies.mkdir(exist_ok=True)
    remove_orphaned_copies(copies)
    copy = tempfile.TemporaryDirectory(prefix=f"{COPY_PREFIX}{os.getpid()}-", dir=copies, ignore_cleanup_errors=True)
    try:
        shutil.copytree(directory / CHROMA_DIR, _copy_dir(copy))
    except OSError as error:
        copy.cleanup()
        raise StoreDamagedError(store_dir, f"its Chroma files cannot be read ({error})") from error
    return copy


def remove_orphaned_copies(copies: Path) -> None:
    """Remove the private copies (about 14 MB each) of processes that no longer run: a page process that was
    killed leaves its copies behind, and every later open sweeps them."""
    for path in copies.glob(f"{COPY_PREFIX}*-*"):
        owner = path.name.removeprefix(COPY_PREFIX).split("-", 1)[0]
        if owner.isdigit() and not _running(int(owner)):
            shutil.rmtree(path, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _copy_dir(copy: tempfile.TemporaryDirectory) -> Path:
    return Path(copy.name) / CHROMA_DIR


def _release(client: chromadb.ClientAPI, copy: tempfile.TemporaryDirectory | None) -> None:
    try:
        client.close()
    finally:
        if copy is not None:
            copy.cleanup()


# -- reading and checking a generation --------------------------------------------------------------------------


class KnowledgeBase:
    """One opened, verified generation: its passages, their indexed texts, its Chroma collections, its metadata
    and the sources it was built from."""

    def __init__(
        self,
        directory: Path,
        meta: dict,
        records: dict[str, list[dict]],
        arrays: dict[str, np.ndarray],
        vectors: _Vectors,
        encoders: Encoders,
    ):
        self.directory = directory
        self.encoders = encoders  # the models its vectors were made with, and so the ones its questions need
        self.meta = meta
        self.sources = Sources.from_record(meta["sources"])
        self.records = records
        self.indexed = [IndexedPassage(Passage.from_record(r["passage"]), r["index_text"]) for r in records["passages"]]
        self.passages = [item.passage for item in self.indexed]
        self.vectors = vectors
        self.collections = {part.collection: vectors.collection(directory.name, part) for part in GENERATION_PARTS}
        self.collection = self.collections[PASSAGES.collection]
        self.bank = [BankEntry(**record) for record in records[BANK.collection]]
        self.bank_collection = self.collections[BANK.collection]
        self.outside_texts = list(arrays["outside_texts"])
        self.outside = arrays["outside"]  # English question vectors, one row per outside question
        self.bank_multilingual = arrays["bank_multilingual"]  # multilingual vectors, one row per bank entry

    @classmethod
    def open(cls, store_dir: Path, chroma_url: str = "", encoders: Encoders | None = None) -> KnowledgeBase:
        """The current generation, verified; raises StoreMissingError, StoreDamagedError, ModelMismatchError or
        StoreUnreachableError, each saying what to do. `chroma_url` names the Chroma server holding the
        collections ("" for Chroma files inside the store directory); `encoders` are the models it must have been
        built with (the shipped ones unless a test says otherwise)."""
        encoders = encoders or default_encoders()
        name = _pointed_generation(store_dir)
        try:
            return verify_generation(store_dir, name, chroma_url, encoders)
        except StoreDamagedError:
            if _pointed_generation(store_dir) == name:
                raise
            # a build switched meanwhile
            return verify_generation(store_dir, _pointed_generation(store_dir), chroma_url, encoders)

    def server_unreachable(self) -> bool:
        """True when the collections live on a Chroma server that no longer answers."""
        return bool(self.vectors.server) and not _server_answers(self.vectors)

    def close(self) -> None:
        self.vectors.close()


def current_generation(store_dir: Path) -> Path | None:
    """The directory `CURRENT` names, when it names one that holds a meta.json."""
    pointer = store_dir / CURRENT
    if not pointer.is_file():
        return None
    directory = store_dir / pointer.read_text(encoding="utf-8").strip()
    return directory if (directory / META).is_file() else None


def _pointed_generation(store_dir: Path) -> str:
    """The generation name in `CURRENT`; StoreMissingError when nothing was ever switched to."""
    pointer = store_dir / CURRENT
    if not pointer.is_file():
        raise StoreMissingError(f"No knowledge base at {store_dir}. Build it with: python -m ingest")
    try:
        name = pointer.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise StoreDamagedError(store_dir, f"its {CURRENT} file cannot be read ({error})") from error
    if not name.startswith(GENERATION_PREFIX) or "/" in name:
        raise StoreDamagedError(store_dir, f"its {CURRENT} file does not name a generation")
    return name


def verify_generation(
    store_dir: Path, name: str, chroma_url: str = "", encoders: Encoders | None = None
) -> KnowledgeBase:
    """Open generation `name` only if it is intact; StoreDamagedError names the first fault found.

    A configured Chroma server that does not answer is reported first (StoreUnreachableError), since no
    rebuild can help then."""
    server = chroma_url
    if server:
        _server_client(server).close()
    directory = store_dir / name
    if not directory.is_dir():
        raise StoreDamagedError(store_dir, f"{CURRENT} names {name}, which does not exist")
    encoders = encoders or default_encoders()
    meta = _read_meta(store_dir, directory, encoders)
    if meta["chroma_server"] != server:
        built_for = meta["chroma_server"] or "Chroma files in the store directory"
        raise StoreDamagedError(store_dir, f"it was built for {built_for}, not {server or 'local Chroma files'}")
    copy = None if server else _private_copy(store_dir, directory)
    try:
        _check_files(store_dir, directory, meta, _copy_dir(copy) if copy else None)
    except BaseException:
        if copy is not None:
            copy.cleanup()
        raise
    if not server and copy is None:
        raise StoreDamagedError(store_dir, f"{name}/{CHROMA_DIR} is missing")
    vectors = _Vectors(store_dir, server, copy)
    try:
        records = {part.collection: _read_records(store_dir, directory, part, meta) for part in GENERATION_PARTS}
        arrays = _read_vectors(store_dir, directory, meta)
        for part in GENERATION_PARTS:
            expected = meta["counts"][part.collection]
            _check_collection(store_dir, vectors, name, part, expected, encoders.english.model_id)
        try:
            return KnowledgeBase(directory, meta, records, arrays, vectors, encoders)
        except (KeyError, TypeError) as error:
            raise StoreDamagedError(
                store_dir, f"{name}/{PASSAGES.records} or {BANK.records} holds a record of the wrong shape"
            ) from error
    except BaseException:
        vectors.close()
        raise


def _read_meta(store_dir: Path, directory: Path, encoders: Encoders) -> dict:
    path = directory / META
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise StoreDamagedError(store_dir, f"{directory.name}/{META} is missing") from error
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise StoreDamagedError(store_dir, f"{directory.name}/{META} cannot be read ({error})") from error
    if not isinstance(meta, dict):
        raise StoreDamagedError(store_dir, f"{directory.name}/{META} is not a JSON object")
    for key, encoder in (("model_id", encoders.english), ("multilingual_model_id", encoders.multilingual)):
        if meta.get(key) != encoder.model_id:
            raise ModelMismatchError(
                f"The knowledge base at {store_dir} was built with the embedding model {meta.get(key)!r}, "
                f"but this installation uses {encoder.model_id!r}. Rebuild it: python -m ingest"
            )
    counts, files = meta.get("counts"), meta.get("files")
    valid = (
        isinstance(counts, dict)
        and all(isinstance(counts.get(part.collection), int) for part in GENERATION_PARTS)
        and isinstance(files, dict)
        and all(isinstance(entry, dict) and {"size", "sha256"} <= entry.keys() for entry in files.values())
        and isinstance(meta.get("fingerprint"), str)
        and isinstance(meta.get("chroma_server"), str)
        and isinstance(meta.get("sources"), dict)
    )
    if not valid:
        raise StoreDamagedError(store_dir, f"{directory.name}/{META} lacks the counts and checksums of its files")
    if VECTORS not in files:
        raise StoreDamagedError(store_dir, f"{directory.name} was built by an earlier version, without {VECTORS}")
    return meta


def _read_vectors(store_dir: Path, directory: Path, meta: dict) -> dict[str, np.ndarray]:
    """The build-time vectors, each array the shape its texts say."""
    where = f"{directory.name}/{VECTORS}"
    try:
        with np.load(directory / VECTORS, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in ("outside_texts", "outside", "bank_multilingual")}
    except (OSError, ValueError, KeyError) as error:
        raise StoreDamagedError(store_dir, f"{where} cannot be read ({error})") from error
    expected = {"outside": len(arrays["outside_texts"]), "bank_multilingual": meta["counts"][BANK.collection]}
    for name, rows in expected.items():
        if arrays[name].ndim != 2 or arrays[name].shape[0] != rows:
            raise StoreDamagedError(store_dir, f"{where} holds {name} of shape {arrays[name].shape}, not {rows} rows")
    return arrays


def _check_files(store_dir: Path, directory: Path, meta: dict, chroma_copy: Path | None) -> None:
    """Every file meta.json lists, with its size and SHA-256; Chroma's files are checked in the private copy."""
    for relative, expected in sorted(meta["files"].items()):
        if relative.startswith(f"{CHROMA_DIR}/") and chroma_copy is not None:
            path = chroma_copy / relative.removeprefix(f"{CHROMA_DIR}/")
        else:
            path = directory / relative
        where = f"{directory.name}/{relative}"
        if not path.is_file():
            raise StoreDamagedError(store_dir, f"{where} is missing")
        try:
            size, digest = path.stat().st_size, _sha256(path)
        except OSError as error:
            raise StoreDamagedError(store_dir, f"{where} cannot be read ({error})") from error
        if size != expected["size"]:
            raise StoreDamagedError(store_dir, f"{where} has {size:,} bytes instead of {expected['size']:,}")
        if digest != expected["sha256"]:
            raise StoreDamagedError(store_dir, f"{where} has changed since it was built")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_records(store_dir: Path, directory: Path, part: Part, meta: dict) -> list[dict]:
    where = f"{directory.name}/{part.records}"
    try:
        records = read_jsonl(directory / part.records)
    except FileNotFoundError as error:
        raise StoreDamagedError(store_dir, f"{where} is missing") from error
    except (OSError, ValueError) as error:  # ValueError: a line that is not UTF-8 or not JSON
        raise StoreDamagedError(store_dir, f"{where} cannot be read ({error})") from error
    expected = meta["counts"][part.collection]
    if len(records) != expected:
        raise StoreDamagedError(store_dir, f"{where} holds {len(records):,} records, but meta.json says {expected:,}")
    return records


def _finds_itself(collection, offset: int) -> bool:
    """Whether the vector stored at `offset` comes back first when queried. HNSW search is approximate: a
    healthy graph can leave a rare node unreachable, so only probes that all miss mean damage."""
    probe = collection.get(offset=offset, limit=1, include=["embeddings"])
    found = collection.query(query_embeddings=[probe["embeddings"][0]], n_results=1, include=["distances"])
    return bool(found["ids"][0]) and found["distances"][0][0] <= PROBE_DISTANCE


def _check_collection(
    store_dir: Path, vectors: _Vectors, generation: str, part: Part, expected: int, model_id: str
) -> None:
    """The collection exists, was built with this model, holds `expected` entries, and finds its own vectors."""
    try:
        collection = vectors.collection(generation, part)
        if (collection.metadata or {}).get("model_id") != model_id:
            raise ModelMismatchError(f"The Chroma collection {part.collection} was built with another embedding model.")
        count = collection.count()
        if count != expected:
            raise StoreDamagedError(
                store_dir, f"Chroma holds {count:,} {part.collection}, but meta.json says {expected:,}"
            )
        if count and not any(_finds_itself(collection, offset) for offset in sorted({0, count // 2, count - 1})):
            raise StoreDamagedError(store_dir, f"no probe query of {part.collection} finds its own vector")
    except (StoreDamagedError, ModelMismatchError):
        raise
    except Exception as error:  # noqa: BLE001 - whatever Chroma raises, the generation cannot be searched
        if vectors.server and not _server_answers(vectors):
            raise StoreUnreachableError(f"The Chroma server at {vectors.server} is not answering.") from error
        raise StoreDamagedError(store_dir, f"Chroma cannot search {part.collection} ({error})") from error


def _server_answers(vectors: _Vectors) -> bool:
    try:
        vectors.client.heartbeat()
    except Exception:  # noqa: BLE001 - any failure to answer a heartbeat means the server is unreachable
        return False
    return True


# -- building ---------------------------------------------------------------------------------------------------


def fingerprint(
    indexed: list[IndexedPassage], sources: Sources, bank: list[BankEntry], outside: list[str], encoders: Encoders
) -> str:
    model_id = encoders.english.model_id
    digest = hashlib.sha256(f"{model_id}\n{encoders.multilingual.model_id}".encode())
    digest.update(json.dumps(HNSW, sort_keys=True).encode())  # a store built to search otherwise is rebuilt
    for item in indexed:
        digest.update(item.passage.content_hash.encode())
        digest.update(embed_hash(model_id, item.index_text).encode())
    for entry in bank:
        digest.update(entry.id.encode())
    for text in outside:
        digest.update(hashlib.sha256(f"outside\n{text}".encode()).digest())
    digest.update(json.dumps(sources.to_record(), sort_keys=True).encode())
    return digest.hexdigest()


@contextmanager
def build_lock(store_dir: Path, wait: float = 0.0, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold `store_dir/.lock` for one build; waits up to `wait` seconds for another build, then BuildLockedError.

    The lock is an flock, so the kernel releases it when a build is killed.
    """
    store_dir.mkdir(parents=True, exist_ok=True)
    with (store_dir / LOCK).open("a+", encoding="utf-8") as handle:
        deadline = time.monotonic() + wait
        waited = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().strip() or "unknown"
                if time.monotonic() >= deadline:
                    raise BuildLockedError(
                        f"Another build of the knowledge base in {store_dir} is running (process {holder}). "
                        "Wait for it to finish; it leaves the knowledge base up to date."
                    ) from None
                if on_wait is not None and not waited:
                    on_wait(holder)
                waited = True
                time.sleep(0.2)
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build(
    indexed: list[IndexedPassage],
    sources: Sources,
    store_dir: Path,
    progress: Callable[[Iterable], Iterable] = lambda batches: batches,
    lock_wait: float = 0.0,
    on_wait: Callable[[str], None] | None = None,
    bank: Iterable[BankEntry] = (),
    chroma_url: str = "",
    outside: Iterable[str] = (),
    encoders: Encoders | None = None,
    shipped: Path | None = None,
) -> BuildReport:
    """Write a new generation from `indexed`, the question `bank` and the `outside` questions (about flying, answered
    by no unit) and switch to it, unless an intact current one has the same inputs.

    `sources` (what the snapshot's manifests say: instruments, consolidation dates, licence, pages) is kept in
    the generation's metadata for the page's status panel. `progress` wraps the embedding batches. Every run
    removes old, partial and damaged generations, keeping the current one and the one it replaced. The
    collections go to the Chroma server `chroma_url`, or ("") into the generation's directory. `encoders` make the
    vectors (the shipped models unless a test says otherwise); a vector neither generation has is taken from the
    `shipped` file (`SHIPPED_VECTORS`) when it holds one for the same model and text.
    """
    started = time.monotonic()
    encoders = encoders or default_encoders()
    model_id = encoders.english.model_id
    ids = [item.passage.id for item in indexed]
    if len(set(ids)) != len(ids):
        raise ValueError("Two passages share an id; the loader must number the parts of a unit.")
    bank, outside = list(bank), list(outside)
    print_ = fingerprint(indexed, sources, bank, outside, encoders)
    with build_lock(store_dir, lock_wait, on_wait):
        previous, repaired = _intact_current(store_dir, chroma_url, encoders)
        if previous is not None and previous.meta["fingerprint"] == print_:
            keep = {previous.directory.name, previous.meta.get("replaces") or ""}
            previous.close()
            removed = _remove_other_generations(store_dir, keep, chroma_url)
            return BuildReport(
                previous.directory.name, len(indexed), 0, 0, True, time.monotonic() - started, "", removed
            )
        texts = {embed_hash(model_id, item.index_text): item.index_text for item in indexed}
        questions = {bank_hash(model_id, entry): entry.text for entry in bank}
        wanted = set(texts) | set(questions)
        reusable = _reusable_embeddings(store_dir, chroma_url, previous, wanted, encoders)
        if shipped is not None:
            reusable |= shipped_embeddings(shipped, wanted - set(reusable))
        multilingual_reusable = _reusable_multilingual(previous)
        replaces = previous.directory.name if previous is not None else ""
        if previous is not None:
            previous.close()
        generation = f"{GENERATION_PREFIX}{datetime.now(UTC):%Y%m%dT%H%M%S%f}-{os.getpid()}"
        to_embed = [h for h in [*texts, *questions] if h not in reusable]
        vectors = {h: reusable[h] for h in [*texts, *questions] if h in reusable}
        batches = [to_embed[start : start + 64] for start in range(0, len(to_embed), 64)]
        for batch in progress(batches):
            for kind, encode in ((texts, encoders.english.passages), (questions, encoders.english.queries)):
                hashes = [h for h in batch if h in kind]
                if hashes:
                    for hash_, vector in zip(hashes, encode([kind[h] for h in hashes]), strict=True):
                        vectors[hash_] = vector.tolist()
        arrays = _search_vectors(bank, outside, multilingual_reusable, encoders)
        _write_generation(
            store_dir, chroma_url, generation, indexed, bank, vectors, arrays, print_, sources, replaces, encoders
        )
        _switch_to(store_dir, generation)
        removed = _remove_other_generations(store_dir, {generation, replaces}, chroma_url)
    return BuildReport(
        generation,
        len(indexed),
        len(to_embed),
        len(texts) + len(questions) - len(to_embed),
        False,
        time.monotonic() - started,
        repaired,
        removed,
    )


def _intact_current(store_dir: Path, chroma_url: str, encoders: Encoders) -> tuple[KnowledgeBase | None, str]:
    """The current generation if it passes the integrity check, else None and why it was not kept."""
    try:
        return verify_generation(store_dir, _pointed_generation(store_dir), chroma_url, encoders), ""
    except StoreMissingError:
        return None, ""
    except StoreDamagedError as error:
        return None, error.cause
    except ModelMismatchError as error:
        return None, str(error)


def _reusable_embeddings(
    store_dir: Path, chroma_url: str, previous: KnowledgeBase | None, wanted: set[str], encoders: Encoders
) -> dict[str, list[float]]:
    """embed_hash -> vector from the intact current generation, or else from the newest other intact one.

    Vectors are taken only from a generation that passed the integrity check, so a damaged index never
    leaks wrong vectors into a rebuild. A store moving to a Chroma server reuses the vectors of its local files.
    """
    if previous is not None:
        return _stored_embeddings(previous, wanted)
    for directory in sorted(store_dir.glob(f"{GENERATION_PREFIX}*"), reverse=True):
        try:
            candidate = verify_generation(store_dir, directory.name, chroma_url, encoders)
        except (StoreDamagedError, ModelMismatchError):
            try:
                candidate = verify_generation(store_dir, directory.name, "", encoders) if chroma_url else None
            except (StoreDamagedError, ModelMismatchError):
                candidate = None
        if candidate is None:
            continue
        try:
            return _stored_embeddings(candidate, wanted)
        finally:
            candidate.close()
    return {}


def _reusable_multilingual(previous: KnowledgeBase | None) -> dict[str, np.ndarray]:
    """bank text -> multilingual vector, from the intact current generation."""
    if previous is None:
        return {}
    return {entry.text: vector for entry, vector in zip(previous.bank, previous.bank_multilingual, strict=True)}


def _search_vectors(
    bank: list[BankEntry], outside: list[str], reusable: dict[str, np.ndarray], encoders: Encoders
) -> dict[str, np.ndarray]:
    """The arrays of VECTORS: the outside questions encoded as questions, every bank entry through the
    multilingual encoder (only texts the previous generation lacks)."""
    new = list(dict.fromkeys(entry.text for entry in bank if entry.text not in reusable))  # in bank order
    known = reusable | dict(zip(new, encoders.multilingual.passages(new) if new else [], strict=True))
    return {
        "outside_texts": np.array(outside, dtype=str),
        "outside": encoders.english.queries(outside) if outside else np.zeros((0, 1), dtype=np.float32),
        "bank_multilingual": np.stack([known[entry.text] for entry in bank]) if bank else np.zeros((0, 1)),
    }


def shipped_embeddings(path: Path, wanted: set[str]) -> dict[str, list[float]]:
    """embed_hash -> vector for the `wanted` ones the shipped file holds; none when the file is missing or
    unreadable, which only makes the build slower."""
    try:
        with np.load(path, allow_pickle=False) as data:
            hashes, vectors = data["hashes"].astype(str), data["vectors"]
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return {}
    return {hash_: vectors[row].tolist() for row, hash_ in enumerate(hashes) if hash_ in wanted}


def export_embeddings(knowledge_base: KnowledgeBase, path: Path) -> int:
    """Write every English vector of `knowledge_base` to `path`, sorted by embed_hash; how many were written."""
    stored = _stored_embeddings(knowledge_base, None)
    hashes = sorted(stored)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        np.savez(
            out,
            hashes=np.array(hashes, dtype="S32"),
            vectors=np.array([stored[h] for h in hashes], dtype=np.float32).reshape(len(hashes), -1),
        )
    return len(hashes)


def _stored_embeddings(knowledge_base: KnowledgeBase, wanted: set[str] | None) -> dict[str, list[float]]:
    """embed_hash -> vector of the `wanted` texts (None: all) in the generation's collections."""
    vectors = {}
    for collection in knowledge_base.collections.values():
        stored = collection.get(include=["embeddings", "metadatas"])
        for meta, vector in zip(stored["metadatas"], stored["embeddings"], strict=True):
            if wanted is None or meta["embed_hash"] in wanted:
                vectors[meta["embed_hash"]] = list(vector)
    return vectors


def _write_generation(
    store_dir: Path,
    server: str,
    generation: str,
    indexed: list[IndexedPassage],
    bank: list[BankEntry],
    vectors: dict[str, list[float]],
    arrays: dict[str, np.ndarray],
    print_: str,
    sources: Sources,
    replaces: str,
    encoders: Encoders,
) -> None:
    """Every file of a new generation, meta.json (with the checksums of the others) last."""
    directory = store_dir / generation
    directory.mkdir()
    client = (
        _server_client(server)
        if server
        else chromadb.PersistentClient(path=str(directory / CHROMA_DIR), settings=_settings())
    )
    passage_hashes = [embed_hash(encoders.english.model_id, item.index_text) for item in indexed]
    bank_hashes = [bank_hash(encoders.english.model_id, entry) for entry in bank]
    with closing(client):
        _add_collection(
            client,
            _collection_name(generation, PASSAGES, server),
            _store_id(store_dir),
            encoders.english.model_id,
            ids=[item.passage.id for item in indexed],
            embeddings=[vectors[h] for h in passage_hashes],
            documents=[item.index_text for item in indexed],
            metadatas=[_metadata(item.passage, h) for item, h in zip(indexed, passage_hashes, strict=True)],
        )
        _add_collection(
            client,
            _collection_name(generation, BANK, server),
            _store_id(store_dir),
            encoders.english.model_id,
            ids=[entry.id for entry in bank],
            embeddings=[vectors[h] for h in bank_hashes],
            documents=[entry.text for entry in bank],
            metadatas=[
                {"doc": entry.doc, "unit": entry.unit, "lang": entry.lang, "embed_hash": h}
                for entry, h in zip(bank, bank_hashes, strict=True)
            ],
        )
    _write_records(
        directory / PASSAGES.records,
        [{"passage": item.passage.to_record(), "index_text": item.index_text} for item in indexed],
    )
    _write_records(directory / BANK.records, [entry.to_record() for entry in bank])
    with (directory / VECTORS).open("wb") as out:
        np.savez(out, **arrays)
    files = {
        path.relative_to(directory).as_posix(): {"size": path.stat().st_size, "sha256": _sha256(path)}
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }
    meta = {
        "model_id": encoders.english.model_id,
        "multilingual_model_id": encoders.multilingual.model_id,
        "fingerprint": print_,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "counts": {PASSAGES.collection: len(indexed), BANK.collection: len(bank)},
        "chroma_server": server,
        "files": files,
        "replaces": replaces,
        "sources": sources.to_record(),
    }
    _write_durably(directory / META, json.dumps(meta, indent=2, ensure_ascii=False))


def _add_collection(client, name: str, store_id: str, model_id: str, **records: list) -> None:
    collection = client.create_collection(
        name,
        embedding_function=OfflineBgeEmbedding(),
        metadata={"model_id": model_id, "store": store_id},
        configuration={"hnsw": HNSW},
    )
    for start in range(0, len(records["ids"]), ADD_BATCH):
        collection.add(**{key: values[start : start + ADD_BATCH] for key, values in records.items()})


def _write_records(path: Path, records: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _metadata(passage: Passage, hash_: str) -> dict:
    return {"doc": passage.doc, "unit": passage.unit, "lang": passage.lang, "kind": passage.kind, "embed_hash": hash_}


def _write_durably(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())


def _switch_to(store_dir: Path, generation: str) -> None:
    pointer = store_dir / f"{CURRENT}.tmp"
    _write_durably(pointer, generation)
    os.replace(pointer, store_dir / CURRENT)


def _store_id(store_dir: Path) -> str:
    """A random id kept in the store directory, so that stores sharing one Chroma server never touch each
    other's collections."""
    path = store_dir / STORE_ID
    if not path.is_file():
        _write_durably(path, uuid.uuid4().hex)
    return path.read_text(encoding="utf-8").strip()


def _remove_other_generations(store_dir: Path, keep: set[str], server: str) -> int:
    """Drop every generation but `keep` (the current one and the one it replaced, which a running page may
    still be reading), with its collections on a Chroma server; the build lock guarantees that none of them
    is being written. Returns how many generation directories went."""
    removed = 0
    for directory in store_dir.glob(f"{GENERATION_PREFIX}*"):
        if directory.name not in keep:
            shutil.rmtree(directory, ignore_errors=True)
            removed += 1
    (store_dir / f"{CURRENT}.tmp").unlink(missing_ok=True)
    if server:
        store_id = _store_id(store_dir)
        with closing(_server_client(server)) as client:
            for collection in client.list_collections():
                mine = (collection.metadata or {}).get("store") == store_id
                if mine and collection.name.split(".")[0] not in keep:
                    client.delete_collection(collection.name)
    return removed
