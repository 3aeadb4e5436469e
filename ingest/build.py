"""From the shipped sources to a new knowledge-base generation: the one path every build takes."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

from ingest.laws import load_law_passages
from kb.bank import BANK_DIR, BankEntry, load_bank
from kb.passage import Passage
from kb.store import BuildReport, IndexedPassage, build
from kb.verbatim import VerbatimError, check_passages
from retrieval.enrich import index_text

WEB_DIR = "web"


def load_passages(sources_dir: Path) -> list[Passage]:
    """Law passages, plus guide pages when a crawl has saved a web snapshot beside the law."""
    passages = load_law_passages(sources_dir)
    web_dir = sources_dir / WEB_DIR
    if (web_dir / "manifest.json").is_file():
        from ingest.web_pages import load_web_passages

        passages.extend(load_web_passages(web_dir))
    return passages


def describe_sources(sources_dir: Path) -> dict:
    """What the status panel shows: instruments with languages and consolidation dates, and saved pages."""
    manifest = json.loads((sources_dir / "manifest.json").read_text(encoding="utf-8"))
    description = {"instruments": manifest["instruments"], "licence": manifest["licence"], "pages": []}
    web_manifest = sources_dir / WEB_DIR / "manifest.json"
    if web_manifest.is_file():
        description["pages"] = json.loads(web_manifest.read_text(encoding="utf-8")).get("pages", [])
    return description


def load_question_bank(passages: list[Passage], bank_dir: Path = BANK_DIR) -> list[BankEntry]:
    """The bank entries for units the knowledge base has; every refused line is a warning naming it."""
    entries, problems = load_bank({(p.doc, p.unit) for p in passages}, bank_dir)
    for problem in problems:
        warnings.warn(f"question bank entry left out: {problem}", stacklevel=2)
    return entries


def build_knowledge_base(
    sources_dir: Path,
    store_dir: Path | None = None,
    progress: Callable[[Iterable], Iterable] = lambda x: x,
    bank_dir: Path = BANK_DIR,
) -> tuple[BuildReport, list[Passage], list[BankEntry]]:
    """Build and switch to a new generation, unless a passage is not its unit's text word for word
    (VerbatimError names each one)."""
    passages = load_passages(sources_dir)
    if failures := check_passages(passages, sources_dir):
        raise VerbatimError(failures)  # the knowledge base in use stays as it was
    bank = load_question_bank(passages, bank_dir)
    indexed = [IndexedPassage(p, index_text(p)) for p in passages]
    return build(indexed, describe_sources(sources_dir), store_dir, progress, bank), passages, bank
