"""A real `chroma run` server on 127.0.0.1, for the tests and the evaluator's server-mode scenarios."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from testing.local_server import free_port


@contextlib.contextmanager
def chroma_server(data: Path) -> Iterator[str]:
    """A real `chroma run` on a free port of 127.0.0.1; yields its URL once it answers."""
    port = free_port()
    command = [str(Path(sys.executable).with_name("chroma")), "run", "--path", str(data), "--port", str(port)]
    process = subprocess.Popen([*command, "--host", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _answers(url):
            assert process.poll() is None and time.monotonic() < deadline, "chroma run did not start"
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2).close()
    except OSError:
        return False
    return True
