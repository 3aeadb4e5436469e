"""`python -m eval scale`: several processes, one service. Two `streamlit run app.py` processes on different ports,
one `chroma run` server and one PostgreSQL, all started by this command on 127.0.0.1, and at least 40 passengers at
once, split across both processes, for a bounded time.

Each passenger is a real browser session: headless Chromium (the system's, through playwright) opens the page and,
once every passenger has it open, types a question into the chat box and presses Enter, as a person does, then the
next one, until `--messages` or `--seconds` run out; the page's own script runs the search,
writes the turn to PostgreSQL and draws the passages. A message's time runs from Enter to its passages drawn
with the spinner gone. Nothing is bypassed: no endpoint was added for this. Afterwards every message sent is
looked for in PostgreSQL: it must be there exactly once.

Prints p50/p95 per message, the errors (a message not answered within the limit, or the page showing an error), and
lost or duplicated turns.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

from playwright.async_api import async_playwright
from sqlalchemy import create_engine, select

from foundation.settings import PROJECT_ROOT, Settings
from review.storage import turns
from testing.chroma_server import chroma_server
from testing.local_server import free_port
from testing.postgres import new_database, postgres_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
CHAT_BOX = '[data-testid="stChatInputTextArea"]'
ANSWERED = "Questions searched"
QUESTIONS = (
    "My flight from Toronto to Vancouver was cancelled the night before. What compensation do I get?",
    "Air Canada lost my suitcase on a flight from Montreal to Calgary. How long do I have to claim?",
    "We sat on the tarmac in Ottawa for four hours with no water. What are the rules?",
    "My flight to Halifax was delayed 7 hours because of crew scheduling. How much can I get?",
    "I was denied boarding on an overbooked WestJet flight from Edmonton. What are my rights?",
    "My wheelchair was damaged on a flight from Winnipeg to Toronto. What must the airline do?",
)
MESSAGE_LIMIT_MS = 120_000
OPEN_LIMIT_MS = 600_000  # 40 browser sessions opening the page at once on a small machine


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sessions", type=int, default=40, help="passengers at once, split across both processes")
    parser.add_argument(
        "--seconds", type=float, default=120.0, help="how long passengers keep sending once all have the page open"
    )
    parser.add_argument("--messages", type=int, default=3, help="at most this many messages per passenger (default 3)")


def page_process(port: int, environment: dict[str, str], log: Path) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
        "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    with log.open("w") as out:
        return subprocess.Popen(command, cwd=PROJECT_ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT)


def wait_until_healthy(port: int, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the page process on port {port} did not start")


class Start:
    """The moment every passenger has the page open: then all start sending at once, for `seconds`."""

    def __init__(self, sessions: int, seconds: float):
        self.waiting, self.seconds, self.opened = sessions, seconds, asyncio.Event()
        self.deadline = 0.0

    async def ready(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.deadline = time.monotonic() + self.seconds
            self.opened.set()
        await self.opened.wait()


async def passenger(browser, url: str, number: int, messages: int, start: Start, results: dict) -> None:
    """One passenger's session: open the page, wait for the others, then send messages one after another until the
    deadline."""
    context = await browser.new_context()
    page = await context.new_page()
    page.set_default_timeout(MESSAGE_LIMIT_MS)
    try:
        try:
            await page.goto(url, timeout=OPEN_LIMIT_MS)
            await page.wait_for_selector(CHAT_BOX, timeout=OPEN_LIMIT_MS)
        finally:
            await start.ready()
        for index in range(messages):
            if time.monotonic() > start.deadline:
                break
            message = f"{QUESTIONS[(number + index) % len(QUESTIONS)]} (passenger {number}, message {index + 1})"
            started = time.monotonic()
            try:
                await page.fill(CHAT_BOX, message)
                await page.press(CHAT_BOX, "Enter")
                results["sent"].append(message)
                await page.wait_for_function(
                    "([label, count]) => document.body.innerText.split(label).length - 1 >= count"
                    " && !document.querySelector('[data-testid=\"stSpinner\"]')",
                    arg=[ANSWERED, index + 1],
                )
                if await page.locator('[data-testid="stException"]').count():
                    raise RuntimeError("the page showed an exception")
                results["seconds"].append(time.monotonic() - started)
            except Exception as error:  # noqa: BLE001 - every failure of a message is counted, none stops the run
                results["errors"].append(f"passenger {number}, message {index + 1}: {str(error).splitlines()[0]}")
                break
    except Exception as error:  # noqa: BLE001 - the page did not open
        shown = " ".join((await page.inner_text("body", timeout=5_000)).split())[:200]
        results["errors"].append(f"passenger {number}: the page did not open ({str(error).splitlines()[0]}): {shown}")
    finally:
        await context.close()


async def warm_up(browser, url: str) -> None:
    """One visit that waits for the chat box, so each process has opened its knowledge base before the clock runs
    (a process's own start is what `python -m eval startup` measures)."""
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(url)
    await page.wait_for_selector(CHAT_BOX, timeout=600_000)
    await context.close()


async def drive(urls: list[str], sessions: int, messages: int, seconds: float) -> dict:
    results: dict[str, list] = {"sent": [], "seconds": [], "errors": []}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        await asyncio.gather(*(warm_up(browser, url) for url in urls))
        start = Start(sessions, seconds)
        await asyncio.gather(
            *(passenger(browser, urls[n % len(urls)], n, messages, start, results) for n in range(sessions))
        )
        await browser.close()
    return results


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else float("nan")


def main(args: argparse.Namespace) -> int:
    local_store = Settings.from_environment().store_dir
    scratch = Path(tempfile.mkdtemp(prefix="passenger-scale-"))
    try:
        with ExitStack() as running:
            server = running.enter_context(postgres_server())
            database_url = new_database(server)
            chroma_url = running.enter_context(chroma_server(scratch / "chroma"))
            environment = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
            environment |= {
                "PASSENGER_DATA_DIR": str(scratch / "data"),
                "PASSENGER_DATABASE_URL": database_url,
                "PASSENGER_CHROMA_URL": chroma_url,
            }
            if (local_store / "CURRENT").is_file():  # its vectors are reused: the build takes seconds, not minutes
                shutil.copytree(local_store, scratch / "data" / "store", ignore=shutil.ignore_patterns("copies"))
            print("PostgreSQL and `chroma run` on 127.0.0.1; building the store on the Chroma server…", flush=True)
            subprocess.run([sys.executable, "-m", "ingest", "--quiet"], cwd=PROJECT_ROOT, env=environment, check=True)
            ports = [free_port(), free_port()]
            pages = [page_process(port, environment, scratch / f"page-{port}.log") for port in ports]
            for page in pages:
                running.callback(page.wait, 30)
                running.callback(page.terminate)
            for port, page in zip(ports, pages, strict=True):
                wait_until_healthy(port, page)
            urls = [f"http://127.0.0.1:{port}/" for port in ports]
            print(f"{args.sessions} passengers across {', '.join(urls)} for at most {args.seconds:.0f} s…", flush=True)
            started = time.monotonic()
            results = asyncio.run(drive(urls, args.sessions, args.messages, args.seconds))
            elapsed = time.monotonic() - started
            with create_engine(database_url.replace("postgresql://", "postgresql+psycopg://")).connect() as db:
                logged = Counter(db.scalars(select(turns.c.message)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    sent = Counter(results["sent"])
    answered = results["seconds"]
    lost = [message for message in sent if logged[message] < sent[message]]
    duplicated = [message for message in sent if logged[message] > sent[message]]
    strangers = [message for message in logged if message not in sent]
    print(f"passengers: {args.sessions} at once over 2 page processes, {elapsed:.0f} s (each process opened first)")
    print(f"messages sent: {len(results['sent'])}, answered: {len(answered)}")
    mean = statistics.fmean(answered) if answered else float("nan")
    print(f"seconds per message: p50 {percentile(answered, 0.5):.1f}, p95 {percentile(answered, 0.95):.1f}, "
          f"max {max(answered, default=float('nan')):.1f}, mean {mean:.1f}")  # fmt: skip
    print(f"errors: {len(results['errors'])}")
    for error in results["errors"][:10]:
        print(f"  {error}")
    print(f"turns in PostgreSQL: {sum(logged.values())}; lost: {len(lost)}, duplicated: {len(duplicated)}, "
          f"not sent by this run: {len(strangers)}")  # fmt: skip
    exactly_once = bool(sent) and not lost and not duplicated and not strangers
    print(f"every turn in PostgreSQL exactly once: {'yes' if exactly_once else 'no'}")
    return 0 if exactly_once and not results["errors"] else 1
