"""From the shipped sources to a new knowledge-base generation: the one path every build takes."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

from ingest.laws import load_law_passages
from kb.bank import BANK_DIR, OUTSIDE_DIR, BankEntry, load_bank, load_outside, parse_entry
from kb.passage import Passage, index_text
from kb.sources import MANIFEST, WEB_DIR, read_sources
from kb.store import SHIPPED_VECTORS, BuildReport, Encoders, IndexedPassage, build
from kb.verbatim import VerbatimError, check_passages


def load_passages(sources_dir: Path) -> list[Passage]:
    """Law passages, plus guide pages when a crawl has saved a web snapshot beside the law."""
    passages = load_law_passages(sources_dir)
    web_dir = sources_dir / WEB_DIR
    if (web_dir / MANIFEST).is_file():
        from ingest.web_pages import load_web_passages

        passages.extend(load_web_passages(web_dir))
    return passages


def load_question_bank(
    passages: list[Passage], bank_dir: Path = BANK_DIR, additions: Iterable[BankEntry] = ()
) -> list[BankEntry]:
    """The bank entries for units the knowledge base has, then the volunteers' `additions` a maintainer accepted;
    every refused line or addition is a warning naming it."""
    known_units = {(p.doc, p.unit) for p in passages}
    entries, problems = load_bank(known_units, bank_dir)
    for problem in problems:
        warnings.warn(f"question bank entry left out: {problem}", stacklevel=2)
    labels = {(p.doc, p.unit, p.lang, part.label) for p in passages for part in p.parts}
    for entry in [e for e in entries if e.part and (e.doc, e.unit, e.lang, e.part) not in labels]:
        warnings.warn(f"question bank entry left out: {entry.doc} {entry.unit} has no part {entry.part}", stacklevel=2)
        entries.remove(entry)
    seen = {entry.id for entry in entries}
    for addition in additions:
        entry, reason = parse_entry(addition.to_record(), known_units)
        if entry is None:
            warnings.warn(f"volunteers' bank entry left out ({addition.doc} {addition.unit}): {reason}", stacklevel=2)
        elif entry.id not in seen:
            seen.add(entry.id)
            entries.append(entry)
    return entries


def build_knowledge_base(
    sources_dir: Path,
    store_dir: Path,
    progress: Callable[[Iterable], Iterable] = lambda x: x,
    bank_dir: Path = BANK_DIR,
    lock_wait: float = 0.0,
    on_wait: Callable[[str], None] | None = None,
    chroma_url: str = "",
    additions: Iterable[BankEntry] = (),
    outside_dir: Path = OUTSIDE_DIR,
    encoders: Encoders | None = None,
    shipped_vectors: Path | None = SHIPPED_VECTORS,
) -> tuple[BuildReport, list[Passage], list[BankEntry]]:
    """Read the sources, the question bank with the volunteers' accepted `additions` (`review.storage`), and the
    questions no unit answers, then build (see `kb.store.build`; `lock_wait` seconds for another build to finish;
    the collections on the Chroma server `chroma_url`, if any; `encoders` the shipped models unless a test says
    otherwise; `shipped_vectors` the vectors shipped with the snapshot, reused where they fit), unless a passage
    is not its unit's text word for word (VerbatimError names each one)."""
    passages = load_passages(sources_dir)
    if failures := check_passages(passages, sources_dir):
        raise VerbatimError(failures)  # the knowledge base in use stays as it was
    bank = load_question_bank(passages, bank_dir, additions)
    indexed = [IndexedPassage(p, index_text(p)) for p in passages]
    report = build(
        indexed,
        read_sources(sources_dir),
        store_dir,
        progress,
        lock_wait,
        on_wait,
        bank,
        chroma_url,
        load_outside(outside_dir),
        encoders,
        shipped_vectors,
    )
    return report, passages, bank
