"""`python -m eval ingest`: a full build timed side by side with an earlier version's, and what a build produces.

Both builds run in this one command, one after the other on the same machine, each as a whole `python -m ingest`
process into its own temporary store (the app's store is left alone): first the version `--baseline` (a git
revision, extracted with `git archive`), then this checkout. Then this checkout's unchanged re-run, in process and
as a process, and the store's size.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from foundation.settings import PROJECT_ROOT, Settings
from ingest.build import build_knowledge_base
from kb.store import SOURCES_DIR

BASELINE = "1d5e8d0"  # the build before the bank's vectors moved from every page start into the build


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sources", type=Path, default=SOURCES_DIR, help="snapshot to build (default: %(default)s)")
    parser.add_argument(
        "--keep-store", type=Path, help="build this checkout's store here and keep it (e.g. to measure retrieval on it)"
    )
    parser.add_argument(
        "--baseline", default=BASELINE, help="git revision whose build is timed beside this one (default %(default)s)"
    )


def directory_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def extract(revision: str, destination: Path) -> Path:
    """The project's files at `revision`, as `git archive` gives them."""
    archive = subprocess.run(["git", "archive", revision], cwd=PROJECT_ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(destination, filter="data")
    return destination


def timed_ingest(project: Path, sources: Path, store: Path, environment: dict[str, str]) -> float:
    """Seconds one `python -m ingest` process takes, imports and model loading included."""
    command = [sys.executable, "-m", "ingest", "--sources", str(sources), "--store", str(store), "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=project, env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ingest in {project} failed: {done.stderr[-2000:]}")
    return time.perf_counter() - started


def main(args: argparse.Namespace) -> int:
    chroma_url = Settings.from_environment().chroma_url  # as the `python -m ingest` runs below read it
    sources = args.sources.resolve()
    with tempfile.TemporaryDirectory(prefix="kb-benchmark-") as scratch:
        scratch = Path(scratch)
        environment = {**os.environ, "PASSENGER_DATA_DIR": str(scratch / "data")}
        baseline = extract(args.baseline, scratch / "baseline")
        baseline_seconds = timed_ingest(baseline, sources, scratch / "baseline-store", environment)
        store = args.keep_store or scratch / "store"
        full_seconds = timed_ingest(PROJECT_ROOT, sources, store, environment)
        started = time.perf_counter()
        again, passages, _ = build_knowledge_base(args.sources, store, chroma_url=chroma_url)
        rerun_seconds = time.perf_counter() - started
        rerun_process_seconds = timed_ingest(PROJECT_ROOT, sources, store, environment)
        size = directory_size(store)
    languages = Counter(p.lang for p in passages)
    print(f"full build, {args.baseline} (as a process):      {baseline_seconds:7.1f} s")
    print(f"full build, this checkout (as a process): {full_seconds:7.1f} s  ({baseline_seconds / full_seconds:.1f}x)")
    print(f"re-run, nothing changed:                  {rerun_seconds:7.2f} s  ({again.embedded} texts embedded)")
    print(f"re-run as `python -m ingest` process:     {rerun_process_seconds:7.1f} s")
    print(f"passages per language:                    {', '.join(f'{k} {n}' for k, n in sorted(languages.items()))}")
    print(f"store size on disk:                       {size / 1e6:7.1f} MB")
    print(f"cores: {len(os.sched_getaffinity(0))}")
    return 0
