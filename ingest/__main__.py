"""`python -m ingest`: build the knowledge base from the shipped snapshot, or crawl the guide sites first."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError
from tqdm import tqdm

from foundation.settings import PROJECT_ROOT, Settings
from ingest.build import build_knowledge_base
from kb.sources import WEB_DIR, SourceError
from kb.store import (
    SHIPPED_VECTORS,
    SOURCES_DIR,
    BuildLockedError,
    KnowledgeBase,
    StoreUnreachableError,
    export_embeddings,
)
from kb.verbatim import VerbatimError
from review.storage import accepted_bank_entries, database

DEFAULT_SEEDS = ["https://airpassengerrights.ca/en/practical-guides", "https://rppa-appr.ca/eng/know-your-rights"]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m ingest",
        description="Build the knowledge base (passages + Chroma store) from the shipped law snapshot in "
        "kb/sources/. A rebuild re-embeds only passages whose text changed, and switches to the new "
        "knowledge base only once it is complete.",
    )
    parser.add_argument("--sources", type=Path, default=SOURCES_DIR, help="snapshot directory (default: %(default)s)")
    parser.add_argument(
        "--store",
        type=Path,
        default=None,
        help="where the built store lives (default: $PASSENGER_KB_STORE, else store/ in $PASSENGER_DATA_DIR or data/)",
    )
    parser.add_argument(
        "--crawl", action="store_true", help="first crawl the guide sites (needs a network) and save their pages"
    )
    parser.add_argument(
        "--seed",
        action="append",
        dest="seeds",
        metavar="URL",
        help="a site to crawl (repeatable; default: the two guides)",
    )
    parser.add_argument(
        "--max-pages", type=int, default=200, help="crawl at most this many pages (default: %(default)s)"
    )
    parser.add_argument(
        "--delay", type=float, default=1.0, help="seconds between requests to a site (default: %(default)s)"
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="wait this long for another build of the same store to finish, then give up (default: %(default)s)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--export-vectors",
        action="store_true",
        help=f"after the build, write its English vectors to {SHIPPED_VECTORS.relative_to(PROJECT_ROOT)}, which the "
        "next first build reuses: run it after changing the law snapshot or the question bank, and commit the file",
    )
    return parser.parse_args(argv)


def crawl_guides(args: argparse.Namespace) -> bool:
    """Refresh the saved guide pages; False (with the reason printed) when the crawl could not run."""
    from ingest.crawl import CrawlError, crawl

    seeds = args.seeds or DEFAULT_SEEDS
    try:
        report = crawl(seeds, args.sources / WEB_DIR, max_pages=args.max_pages, delay=args.delay)
    except CrawlError as error:
        print(f"{error}\nThe knowledge base was left untouched.", file=sys.stderr)
        return False
    print(report.summary())
    return True


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.crawl and not crawl_guides(args):
        return 2
    settings = Settings.from_environment()
    store_dir = args.store or settings.store_dir
    try:
        additions = accepted_bank_entries(database(settings))
    except (SQLAlchemyError, OSError) as error:
        print(f"Cannot read the volunteers' accepted bank entries from the log: {error}", file=sys.stderr)
        return 2
    started = time.monotonic()

    def progress(batches):
        return tqdm(batches, desc="Embedding", unit="batch", disable=args.quiet or not batches, file=sys.stderr)

    def waiting(holder: str) -> None:
        print(f"Another build is running (process {holder}); waiting up to {args.wait:.0f} s…", file=sys.stderr)

    failure = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            report, passages, bank = build_knowledge_base(
                args.sources,
                store_dir,
                progress,
                lock_wait=args.wait,
                on_wait=waiting,
                chroma_url=settings.chroma_url,
                additions=additions,
            )
        except (SourceError, BuildLockedError, StoreUnreachableError, VerbatimError) as error:
            failure = error
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    if failure is not None:
        print(f"Cannot build the knowledge base: {failure}", file=sys.stderr)
        if isinstance(failure, VerbatimError):
            print("The knowledge base in use was left as it was.", file=sys.stderr)
            return 1
        return 3 if isinstance(failure, BuildLockedError) else 2
    if report.repaired:
        print(f"The previous knowledge base could not be kept ({report.repaired}); it has been rebuilt.")
    languages = Counter(p.lang for p in passages)
    instruments = {(p.doc, p.lang) for p in passages if p.kind == "law"}
    pages = {p.doc for p in passages if p.kind == "guide"}
    state = "already up to date" if report.unchanged else f"built {report.generation}"
    print(
        f"Knowledge base {state} in {store_dir}\n"
        f"  instruments: {len(instruments)} ({', '.join(sorted(f'{d} [{lang}]' for d, lang in instruments))})\n"
        f"  guide pages: {len(pages)}\n"
        f"  passages: {len(passages)} ({', '.join(f'{lang}: {n}' for lang, n in sorted(languages.items()))})\n"
        f"  question bank: {len(bank)} entries for {len({(e.doc, e.unit) for e in bank})} units"
        f" ({len(additions)} accepted from volunteers)\n"
        f"  embedded: {report.embedded}, reused: {report.reused}\n"
        f"  old or partial generations removed: {report.removed}\n"
        f"  time: {time.monotonic() - started:.1f} s"
    )
    if args.export_vectors:
        knowledge_base = KnowledgeBase.open(store_dir, settings.chroma_url)
        try:
            written = export_embeddings(knowledge_base, SHIPPED_VECTORS)
        finally:
            knowledge_base.close()
        print(f"  vectors written for the next first build: {written} in {SHIPPED_VECTORS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
