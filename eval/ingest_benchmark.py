"""`python -m eval ingest`: how long a full build and an unchanged re-run take, and what they produce.

Builds into a temporary store (the app's store is left alone) with the same code `python -m ingest` runs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from foundation.settings import Settings
from ingest.build import build_knowledge_base
from kb.store import SOURCES_DIR


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sources", type=Path, default=SOURCES_DIR, help="snapshot to build (default: %(default)s)")


def directory_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main(args: argparse.Namespace) -> int:
    chroma_url = Settings.from_environment().chroma_url  # as the `python -m ingest` run below reads it
    with tempfile.TemporaryDirectory(prefix="kb-benchmark-") as scratch:
        store = Path(scratch) / "store"
        started = time.perf_counter()
        full, passages, _ = build_knowledge_base(args.sources, store, chroma_url=chroma_url)
        full_seconds = time.perf_counter() - started
        started = time.perf_counter()
        again, _, _ = build_knowledge_base(args.sources, store, chroma_url=chroma_url)
        rerun_seconds = time.perf_counter() - started
        # the maintainer's view: a whole `python -m ingest` process, imports and model loading included
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "ingest", "--sources", str(args.sources), "--store", str(store), "--quiet"],
            check=True,
            capture_output=True,
        )
        rerun_process_seconds = time.perf_counter() - started
        size = directory_size(store)
    languages = Counter(p.lang for p in passages)
    print(f"full build from the snapshot:       {full_seconds:7.1f} s  ({full.embedded} texts embedded)")
    print(f"re-run, nothing changed:            {rerun_seconds:7.2f} s  ({again.embedded} texts embedded)")
    print(f"re-run as `python -m ingest` process: {rerun_process_seconds:5.1f} s")
    print(f"passages per language:              {', '.join(f'{lang} {n}' for lang, n in sorted(languages.items()))}")
    print(f"store size on disk:                 {size / 1e6:7.1f} MB")
    return 0
