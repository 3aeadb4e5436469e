"""`python -m eval startup`: how long a new page process takes to answer its first passenger, on an existing store.

Each trial starts `streamlit run app.py` on 127.0.0.1 and, in headless Chromium (started beforehand, so the
browser's own start is not counted), opens `/?q=…`, a passenger's question as a shared link; the clock runs from
the process's spawn to the first passage of law on the page. Then one fresh interpreter says where a process's
time goes: imports, opening the store (integrity check included), the engine's indexes, the first search.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import sync_playwright

from foundation.settings import PROJECT_ROOT, Settings
from testing.local_server import free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
QUESTION = "My flight from Toronto to Halifax was cancelled. What compensation do I get?"
LAWS_SITE = "https://laws-lois.justice.gc.ca/"
WAIT_MS = 120_000
BREAKDOWN = """
import json, sys, time
marks, wall, cpu = {}, time.perf_counter(), time.process_time()
def mark(step):
    global wall, cpu
    marks[step] = (time.perf_counter() - wall, time.process_time() - cpu)
    wall, cpu = time.perf_counter(), time.process_time()
import streamlit, chromadb, onnxruntime  # noqa: E401, F401 - what the page imports first
from foundation.settings import Settings
from kb.store import KnowledgeBase
from retrieval.engine import SearchEngine
from retrieval.search import search_dialogue
mark("imports")
settings = Settings.from_environment()
knowledge_base = KnowledgeBase.open(settings.store_dir, settings.chroma_url)
mark("open the store (integrity check)")
engine = SearchEngine(knowledge_base)
mark("engine: indexes")
search_dialogue([sys.argv[1]], engine)
mark("first search (encoder loaded)")
print(json.dumps(marks))
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trials", type=int, default=3, help="page processes started one after another (default 3)")


def page_command(port: int) -> list[str]:
    return [
        sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
        "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (user and system), which other work on the machine does not add to."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_to_first_answer(browser, environment: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawning a page process to the first passage of law shown for a shared question, and the CPU
    seconds the process used by then."""
    port = free_port()
    context = browser.new_context()
    page = context.new_page()
    started = time.monotonic()
    server = subprocess.Popen(
        page_command(port), cwd=PROJECT_ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        url = f"http://127.0.0.1:{port}/?q={quote(QUESTION)}"
        while True:
            try:
                page.goto(url, timeout=1_000)
                break
            except Exception:  # noqa: BLE001 - not listening yet: try again at once
                if server.poll() is not None or time.monotonic() - started > WAIT_MS / 1000:
                    raise RuntimeError("the page process did not start") from None
                time.sleep(0.05)
        page.wait_for_selector(f'a[href^="{LAWS_SITE}"]', timeout=WAIT_MS)
        return time.monotonic() - started, cpu_seconds(server.pid)
    finally:
        context.close()
        server.terminate()
        server.wait(timeout=30)


def main(args: argparse.Namespace) -> int:
    settings = Settings.from_environment()
    environment = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
    print(f"store: {settings.store_dir}   cores: {os.cpu_count()}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            times = [time_to_first_answer(browser, environment) for _ in range(args.trials)]
        finally:
            browser.close()
    for trial, (seconds, cpu) in enumerate(times, start=1):
        print(f"trial {trial}: first passage on the page {seconds:5.1f} s after the process started (CPU {cpu:.1f} s)")
    walls, cpus = [wall for wall, _ in times], [cpu for _, cpu in times]
    print(f"time to first answer: median {statistics.median(walls):.1f} s, worst {max(walls):.1f} s; "
          f"CPU used by the page process by then: median {statistics.median(cpus):.1f} s")  # fmt: skip
    breakdown = subprocess.run(
        [sys.executable, "-c", BREAKDOWN, QUESTION], cwd=PROJECT_ROOT, env=environment, capture_output=True, text=True
    )
    if breakdown.returncode != 0:
        print(breakdown.stderr[-2000:], file=sys.stderr)
        return 1
    marks = json.loads(breakdown.stdout.strip().splitlines()[-1])
    print("where one fresh process spends it (wall clock, and the CPU time a busy machine does not inflate):")
    for step, (wall, cpu) in marks.items():
        print(f"  {step:34} {wall:5.2f} s  (CPU {cpu:5.2f} s)")
    total_wall, total_cpu = (sum(values) for values in zip(*marks.values(), strict=True))
    print(f"  {'total':34} {total_wall:5.2f} s  (CPU {total_cpu:5.2f} s)")
    return 0
