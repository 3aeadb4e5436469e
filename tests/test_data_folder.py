"""Everything the running product writes goes under PASSENGER_DATA_DIR: a clone used through `python -m ingest` and
the page, with the data folder outside it, is left exactly as it was checked out."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
ASK_ON_THE_PAGE = """
from streamlit.testing.v1 import AppTest

at = AppTest.from_file("app.py", default_timeout=120).run()
at.chat_input[0].set_value("My flight from Toronto to Paris was cancelled. What compensation do I get?").run()
assert not at.exception, at.exception
at.feedback[0].set_value(1).run()
assert not at.exception, at.exception
"""


def git(*args: str, cwd: Path) -> str:
    command = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", *args]
    return subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True).stdout


def clean_clone(destination: Path) -> Path:
    """The project's files as a fresh clone holds them (tracked and not ignored), committed in a new repository."""
    listed = git("ls-files", "--cached", "--others", "--exclude-standard", "-z", cwd=PROJECT).split("\0")
    for name in filter(None, listed):
        source = PROJECT / name
        if source.is_file() and not source.is_symlink():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    git("init", "-q", cwd=destination)
    git("add", "-A", cwd=destination)
    git("commit", "-q", "-m", "checkout", cwd=destination)
    return destination


def test_ingest_and_the_page_write_only_into_the_data_folder(store_dir, tmp_path):
    clone = clean_clone(tmp_path / "clone")
    data = tmp_path / "data"
    shutil.copytree(store_dir, data / "store", ignore=shutil.ignore_patterns("copies"))  # a build takes minutes
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith(("PASSENGER_", "OPENAI_"))
    } | {"PASSENGER_DATA_DIR": str(data), "PYTHONPYCACHEPREFIX": str(data / "pycache")}

    for command in ([sys.executable, "-m", "ingest", "--quiet"], [sys.executable, "-c", ASK_ON_THE_PAGE]):
        done = subprocess.run(command, cwd=clone, env=environment, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]

    assert git("status", "--porcelain", "--ignored", cwd=clone) == ""
    with sqlite3.connect(data / "feedback.sqlite3") as log:
        assert log.execute("SELECT count(*) FROM turns").fetchone() == (1,)
        assert log.execute("SELECT count(*) FROM shown WHERE helpful = 1").fetchone() == (1,)
