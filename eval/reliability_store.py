"""Reliability scenarios for the knowledge base and ingest (see `eval.reliability`).

Every trial works on a temporary copy of one store prepared once per run: the app's own store when it is
intact and up to date (else a fresh build), built a second time so that, like any store in use, it holds
the current generation and the intact one it replaced. A repair therefore reuses stored embeddings, as a
maintainer's rebuild does, and takes seconds. "One `python -m ingest`" is its build function called in
this process, except where processes matter (concurrent and killed ingests), which run the real command.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from eval.reliability import Scenario
from foundation.settings import Settings
from ingest.__main__ import main as ingest_main
from ingest.build import build_knowledge_base, load_passages, load_question_bank
from ingest.web_pages import MalformedPageWarning
from kb.embeddings import embed_query
from kb.passage import index_text
from kb.sources import WEB_DIR, read_sources
from kb.store import (
    CURRENT,
    META,
    SOURCES_DIR,
    IndexedPassage,
    KnowledgeBase,
    StoreDamagedError,
    StoreMissingError,
    StoreUnreachableError,
    build,
    build_lock,
)
from kb.verbatim import check_passages
from testing.chroma_server import chroma_server
from testing.saved_pages import save_example_pages

PROJECT = Path(__file__).resolve().parent.parent
QUESTIONS = (
    "My flight was cancelled for a crew shortage; what compensation do I get?",
    "How long do I have to complain about damaged baggage?",
    "Mon vol a été retardé de cinq heures, quelle indemnité?",
)
HALF_WRITTEN = "gen-29991231T235959999999-1"  # sorts after every real generation, as a killed build's would


# -- the store every trial copies ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def base_store() -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="reliability-store-"))
    atexit.register(shutil.rmtree, scratch, True)
    store = scratch / "store"
    try:
        settings = Settings.from_environment()
        app_store = KnowledgeBase.open(settings.store_dir, settings.chroma_url)
    except Exception:  # noqa: BLE001 - no usable app store: build one from scratch below
        store.mkdir()
    else:
        shutil.copytree(app_store.directory, store / app_store.directory.name)
        (store / CURRENT).write_text(app_store.directory.name, encoding="utf-8")
        app_store.close()
    passages = load_passages(SOURCES_DIR)
    indexed = [IndexedPassage(p, index_text(p)) for p in passages]
    sources = read_sources(SOURCES_DIR)
    bank = load_question_bank(passages)
    build(indexed, replace(sources, licence=replace(sources.licence, name="an earlier build")), store, bank=bank)
    build(indexed, sources, store, bank=bank)
    return store


@lru_cache(maxsize=1)
def baseline() -> tuple[frozenset[str], tuple[tuple[str, ...], ...]]:
    """The passage ids of the intact store, and the nearest passages to each question."""
    knowledge_base = KnowledgeBase.open(base_store())
    try:
        return frozenset(p.id for p in knowledge_base.passages), nearest(knowledge_base)
    finally:
        knowledge_base.close()


def nearest(knowledge_base: KnowledgeBase) -> tuple[tuple[str, ...], ...]:
    found = knowledge_base.collection.query(query_embeddings=[embed_query(q) for q in QUESTIONS], n_results=5)
    return tuple(tuple(ids) for ids in found["ids"])


@contextlib.contextmanager
def store_copy() -> Iterator[Path]:
    scratch = Path(tempfile.mkdtemp(prefix="reliability-trial-"))
    try:
        shutil.copytree(base_store(), scratch / "store")
        yield scratch / "store"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def current(store: Path) -> Path:
    return store / (store / CURRENT).read_text(encoding="utf-8").strip()


def assert_answers_as_before(store: Path) -> None:
    """The store opens, holds every passage of the intact store, and finds the same nearest passages."""
    ids, answers = baseline()
    knowledge_base = KnowledgeBase.open(store)
    try:
        assert frozenset(p.id for p in knowledge_base.passages) == ids, "the rebuilt store holds other passages"
        assert nearest(knowledge_base) == answers, "the rebuilt store finds other passages"
    finally:
        knowledge_base.close()


def generations(store: Path) -> list[str]:
    return sorted(path.name for path in store.glob("gen-*"))


# -- damage, each repaired by one ingest --------------------------------------------------------------------


def hnsw_file(generation: Path, name: str) -> Path:
    return next((generation / "chroma").glob(f"*/{name}"))


def truncate(path: Path) -> None:
    with path.open("r+b") as data:
        data.truncate(path.stat().st_size // 2)


def garble(path: Path) -> None:
    path.write_bytes(random.Random(path.name).randbytes(path.stat().st_size))


def set_count(generation: Path) -> None:
    meta = json.loads((generation / META).read_text(encoding="utf-8"))
    meta["counts"]["passages"] += 7
    (generation / META).write_text(json.dumps(meta), encoding="utf-8")


def leave_half_written(store: Path) -> None:
    """What a build killed while writing Chroma leaves: a generation with part of its files and no meta.json."""
    partial = store / HALF_WRITTEN
    shutil.copytree(current(store) / "chroma", partial / "chroma")
    truncate(hnsw_file(partial, "data_level0.bin"))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "meta.json deleted": lambda store: (current(store) / META).unlink(),
    "meta.json unparseable": lambda store: (current(store) / META).write_text('{"model_id": "bge', encoding="utf-8"),
    "meta.json wrong count": lambda store: set_count(current(store)),
    "passages.jsonl truncated": lambda store: truncate(current(store) / "passages.jsonl"),
    "passages.jsonl deleted": lambda store: (current(store) / "passages.jsonl").unlink(),
    "HNSW data file deleted": lambda store: hnsw_file(current(store), "data_level0.bin").unlink(),
    "HNSW data file truncated": lambda store: truncate(hnsw_file(current(store), "data_level0.bin")),
    "HNSW link file garbled": lambda store: garble(hnsw_file(current(store), "link_lists.bin")),
    "chroma.sqlite3 deleted": lambda store: (current(store) / "chroma" / "chroma.sqlite3").unlink(),
    "chroma.sqlite3 garbage": lambda store: garble(current(store) / "chroma" / "chroma.sqlite3"),
    "CURRENT pointing nowhere": lambda store: (store / CURRENT).write_text("gen-19990101T000000000000-1"),
    "CURRENT deleted": lambda store: (store / CURRENT).unlink(),
}


def damaged_store_is_repaired(kind: str) -> Callable[[int], None]:
    def trial(_: int) -> None:
        with store_copy() as store:
            DAMAGE[kind](store)
            try:
                KnowledgeBase.open(store).close()
            except (StoreDamagedError, StoreMissingError):
                pass
            else:
                raise AssertionError("the damaged store opened as if it were intact")
            report, _, _ = build_knowledge_base(SOURCES_DIR, store)
            assert not report.unchanged, "ingest said 'already up to date' for a damaged store"
            assert_answers_as_before(store)
            assert len(generations(store)) <= 2, f"generations left behind: {generations(store)}"

    return trial


def half_written_generation_is_removed(_: int) -> None:
    with store_copy() as store:
        leave_half_written(store)
        KnowledgeBase.open(store).close()  # the current generation is untouched and still answers
        report, _, _ = build_knowledge_base(SOURCES_DIR, store)
        assert report.unchanged and report.removed == 1, report
        assert HALF_WRITTEN not in generations(store)
        assert_answers_as_before(store)


# -- processes: concurrent and killed ingests ---------------------------------------------------------------


def run_ingest(store: Path, *options: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ingest", "--store", str(store), "--quiet", *options],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def two_concurrent_ingests(trial: int) -> None:
    """Both finish cleanly: one repairs the store, the other waits for it and finds it up to date."""
    with store_copy() as store:
        DAMAGE["HNSW data file deleted" if trial % 2 else "meta.json unparseable"](store)
        processes = [run_ingest(store), run_ingest(store)]
        outputs = [process.communicate(timeout=240) for process in processes]
        for process, (_, err) in zip(processes, outputs, strict=True):
            assert process.returncode == 0 and "Traceback" not in err, err[-500:]
        assert sum("already up to date" in out for out, _ in outputs) == 1, [out for out, _ in outputs]
        assert_answers_as_before(store)


def ingest_refuses_while_another_builds(_: int) -> None:
    with store_copy() as store:
        with build_lock(store):
            process = run_ingest(store, "--wait", "1")
            _, err = process.communicate(timeout=120)
        assert process.returncode == 3 and "Another build" in err and "Traceback" not in err, err[-500:]
        assert_answers_as_before(store)


def killed_ingest_keeps_the_knowledge_base(trial: int) -> None:
    """A rebuild killed at a different moment each trial leaves a store that answers, old or new."""
    with store_copy() as store:
        sources = store.parent / "sources"
        shutil.copytree(SOURCES_DIR, sources)
        manifest = json.loads((sources / "manifest.json").read_text(encoding="utf-8"))
        manifest["licence"]["name"] += f" (trial {trial})"  # changed sources, so the run writes a new generation
        (sources / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        before = set(generations(store))
        process = run_ingest(store, "--sources", str(sources))
        deadline = time.monotonic() + 120
        while process.poll() is None and set(generations(store)) <= before and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.4 * trial)  # killed as the new generation is begun, later into writing it, or after
        process.send_signal(signal.SIGKILL)
        process.communicate()
        after = KnowledgeBase.open(store)
        try:
            assert after.directory.name in before or after.sources.licence.name.endswith(
                f"(trial {trial})"
            )
        finally:
            after.close()
        assert_answers_as_before(store)
        build_knowledge_base(sources, store)
        assert_answers_as_before(store)
        assert len(generations(store)) <= 2, generations(store)


# -- malformed sources ---------------------------------------------------------------------------------------


NESTED_DIVS = 5000
FRENCH_TEXT = (
    "Si votre vol est annulé, le transporteur doit vous offrir un réacheminement ou un remboursement à vos frais."
)


def hostile_pages(trial: int) -> dict[str, bytes]:
    deep = "<div>" * NESTED_DIVS + "Keep your boarding pass and receipts." + "</div>" * NESTED_DIVS
    return {
        "nested.html": f"<!DOCTYPE html><html lang='en'><body><main><h1>Deep</h1>{deep}</main></body></html>".encode(),
        "random.html": random.Random(trial).randbytes(20_000),
        "latin1.html": (
            "<!DOCTYPE html><html><head><title>Vol annulé</title></head><body><main><h1>Vol annulé</h1>"
            f"<p>{FRENCH_TEXT}</p></main></body></html>"
        ).encode("latin-1"),
        "report.pdf": b"%PDF-1.4\n" + random.Random(trial + 1).randbytes(5_000),
    }


def sources_with_pages(root: Path, pages: dict[str, bytes]) -> Path:
    sources = root / "sources"
    shutil.copytree(SOURCES_DIR, sources)
    save_example_pages(sources / WEB_DIR, pages)
    return sources


def hostile_pages_are_survived(trial: int) -> None:
    """Deep nesting is read, binary data and a PDF are refused with a warning naming them, Latin-1 is French."""
    with store_copy() as store:
        sources = sources_with_pages(store.parent, hostile_pages(trial))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report, passages, _ = build_knowledge_base(sources, store)
        skipped = " ".join(str(w.message) for w in caught if issubclass(w.category, MalformedPageWarning))
        assert "random.html" in skipped and "report.pdf" in skipped, skipped
        guides = {p.doc.rsplit("/", 1)[-1]: p for p in passages if p.kind == "guide"}
        assert set(guides) == {"nested.html", "latin1.html"}, sorted(guides)
        assert "Keep your boarding pass and receipts." in guides["nested.html"].text
        latin1 = guides["latin1.html"]
        assert latin1.lang == "fr" and FRENCH_TEXT in latin1.text, (latin1.lang, latin1.text)
        assert check_passages(list(guides.values()), sources) == []
        KnowledgeBase.open(store).close()


BAD_MANIFESTS: dict[str, Callable[[dict], object]] = {
    "not JSON": lambda manifest: '{"instruments": [',
    "a list": lambda manifest: [manifest],
    "instruments not a list": lambda manifest: {**manifest, "instruments": "all of them"},
    "instrument without a file": lambda manifest: {
        **manifest,
        "instruments": [{k: v for k, v in e.items() if k != "file"} for e in manifest["instruments"]],
    },
    "instrument that is a number": lambda manifest: {**manifest, "instruments": [7]},
    "no licence": lambda manifest: {k: v for k, v in manifest.items() if k != "licence"},
}


def bad_manifest_is_a_clear_error(trial: int) -> None:
    """`python -m ingest` names the manifest and the problem, exits 2, and leaves the knowledge base as it was."""
    kind = list(BAD_MANIFESTS)[trial % len(BAD_MANIFESTS)]
    with store_copy() as store:
        sources = store.parent / "sources"
        shutil.copytree(SOURCES_DIR, sources)
        manifest = json.loads((SOURCES_DIR / "manifest.json").read_text(encoding="utf-8"))
        bad = BAD_MANIFESTS[kind](manifest)
        (sources / "manifest.json").write_text(bad if isinstance(bad, str) else json.dumps(bad), encoding="utf-8")
        before = current(store).name
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            code = ingest_main(["--sources", str(sources), "--store", str(store), "--quiet"])
        assert code == 2 and str(sources / "manifest.json") in stderr.getvalue(), (kind, stderr.getvalue())
        assert current(store).name == before
        assert_answers_as_before(store)


def wrong_xml_is_named(_: int) -> None:
    """Valid XML that is not a Justice Canada instrument yields no passage and a warning naming the file."""
    with tempfile.TemporaryDirectory(prefix="reliability-xml-") as scratch:
        sources = Path(scratch) / "sources"
        shutil.copytree(SOURCES_DIR, sources)
        target = next((sources / "justice-laws" / "eng" / "regulations").glob("SOR-2019-110.xml"))
        target.write_text("<?xml version='1.0'?><catalog><book id='1'><title>Not law</title></book></catalog>")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            passages = load_passages(sources)
        assert any("SOR-2019-110.xml" in str(w.message) and "no passages" in str(w.message) for w in caught)
        assert passages and not any(p.doc == "SOR-2019-110" for p in passages)


# -- Chroma in client/server mode ---------------------------------------------------------------------------


def server_store_is_repaired_and_an_outage_named(_: int) -> None:
    """On a Chroma server: a deleted collection is repaired by one ingest; a stopped server is named plainly."""
    with tempfile.TemporaryDirectory(prefix="reliability-server-") as scratch:
        root = Path(scratch)
        sources = root / "sources"
        shutil.copytree(SOURCES_DIR, sources)
        manifest = json.loads((sources / "manifest.json").read_text(encoding="utf-8"))
        manifest["instruments"] = [e for e in manifest["instruments"] if e["doc"] in ("SOR-2019-150", "SOR-2019-110")]
        (sources / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        store = root / "store"
        with chroma_server(root / "chroma") as url:
            build_knowledge_base(sources, store, chroma_url=url)
            knowledge_base = KnowledgeBase.open(store, url)
            expected = frozenset(p.id for p in knowledge_base.passages)
            knowledge_base.vectors.client.delete_collection(knowledge_base.collection.name)
            knowledge_base.close()
            try:
                KnowledgeBase.open(store, url).close()
            except StoreDamagedError:
                pass
            else:
                raise AssertionError("a store whose collection is gone from the server opened as if intact")
            assert not build_knowledge_base(sources, store, chroma_url=url)[0].unchanged
            knowledge_base = KnowledgeBase.open(store, url)
            ids = frozenset(p.id for p in knowledge_base.passages)
            assert ids == expected and knowledge_base.collection.count() == len(expected)
            knowledge_base.close()
        try:  # the server has stopped; a page configured for it starts
            KnowledgeBase.open(store, url).close()
        except StoreUnreachableError as error:
            assert url in str(error) and "not answering" in str(error), error
        else:
            raise AssertionError("the store opened with its Chroma server stopped")


SCENARIOS: list[Scenario] = [
    *(Scenario(f"store: {kind}, one ingest repairs", 1, damaged_store_is_repaired(kind)) for kind in DAMAGE),
    Scenario("store: half-written generation removed", 2, half_written_generation_is_removed),
    Scenario("ingest: two at once on one store", 2, two_concurrent_ingests),
    Scenario("ingest: refuses while another builds", 1, ingest_refuses_while_another_builds),
    Scenario("ingest: killed mid-build keeps the store", 4, killed_ingest_keeps_the_knowledge_base),
    Scenario("sources: 5,000 nested divs, random bytes, Latin-1", 2, hostile_pages_are_survived),
    Scenario("sources: bad manifest", len(BAD_MANIFESTS), bad_manifest_is_a_clear_error),
    Scenario("sources: XML of another structure", 1, wrong_xml_is_named),
    Scenario("Chroma server: collection lost, server stopped", 1, server_store_is_repaired_and_an_outage_named),
]
