"""The real page in a real browser: `streamlit run app.py` driven through headless Chromium's DevTools protocol.

A passenger types a question into the chat box and presses Enter; the law's passages and their links must
appear. Screenshots go to tests/artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from websockets.sync.client import connect

from eval.openai_stub import StubEndpoint
from query_understanding import understand
from retrieval.engine import SearchEngine
from retrieval.search import search_dialogue

PROJECT = Path(__file__).resolve().parents[2]
ARTIFACTS = PROJECT / "tests" / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUESTION = (
    "Our Sunwing flight home from Punta Cana was cancelled (crew scheduling problem) and we got home to Toronto "
    "26 hours late. Then my suitcase had a huge crack. How much compensation for the cancellation? And what do "
    "I do about the suitcase, is there a time limit?"
)
REVIEW_PASSWORD = "browser-test"
CHAT_BOX = '[data-testid="stChatInputTextArea"]'
MARKUP = "<img src=x onerror=alert(1)> my flight to Halifax was <b>delayed 5 hours</b> **what now?** [x](http://e)"
FRENCH_QUESTION = "Mon vol Air Transat Montréal-Paris a été annulé. À quelle indemnité ai-je droit?"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def http_get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read().decode()
    except OSError:
        return None


def chromium_or_skip() -> Path:
    """Debian's chromium, installed with apt-get when this runs as root and it is missing."""
    if CHROMIUM.exists():
        return CHROMIUM
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("headless Chromium is not installed (/usr/bin/chromium) and apt-get cannot be run as root here")
    install = subprocess.run(
        "apt-get update -q && apt-get install -y -q chromium", shell=True, capture_output=True, text=True, timeout=900
    )
    if install.returncode or not CHROMIUM.exists():
        pytest.skip(f"could not install chromium with apt-get: {install.stderr.strip()[-300:]}")
    return CHROMIUM


@contextlib.contextmanager
def streamlit_page(store_dir: Path, directory: Path, **settings: str) -> Iterator[str]:
    """The page served by `streamlit run app.py` on a free local port; `settings` are extra environment."""
    port = free_port()
    env = {
        **os.environ,
        "PASSENGER_KB_STORE": str(store_dir),
        "PASSENGER_FEEDBACK_DB": str(directory / "feedback.sqlite3"),
        "PASSENGER_REVIEW_PASSWORD": REVIEW_PASSWORD,
    }
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(name, None)
    env.update(settings)
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true"]
    command += ["--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    server = subprocess.Popen(command, cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: http_get(f"http://127.0.0.1:{port}/_stcore/health") == "ok", 60, "the Streamlit server")
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.fixture(scope="module")
def page_url(store_dir, tmp_path_factory) -> Iterator[str]:
    with streamlit_page(store_dir, tmp_path_factory.mktemp("browser")) as url:
        yield url


def launch_chromium(executable: Path, profile: str) -> tuple[subprocess.Popen, str]:
    """Chromium with a fresh profile; returns the process and its first tab's DevTools websocket address."""
    port = free_port()
    process = subprocess.Popen(
        [str(executable), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--remote-debugging-port={port}"]
        + ["--window-size=1280,1600", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so closing it ends its renderers too
    )

    def first_tab() -> str | None:
        listing = http_get(f"http://127.0.0.1:{port}/json/list")
        tabs = [t for t in json.loads(listing) if t.get("type") == "page"] if listing else []
        return tabs[0]["webSocketDebuggerUrl"] if tabs else None

    try:
        return process, wait_for(first_tab, 30, "Chromium's DevTools endpoint")
    except AssertionError:
        close_chromium(process)
        raise


def close_chromium(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=20)


class Browser:
    """One Chromium tab, spoken to over the DevTools protocol."""

    def __init__(self, socket):
        self.socket = socket
        self.ids = itertools.count(1)
        self.resize(1600)

    def call(self, method: str, **params) -> dict:
        call_id = next(self.ids)
        self.socket.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=30))
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def resize(self, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=1280, height=height, deviceScaleFactor=1, mobile=False)

    def type_and_send(self, text: str) -> None:
        self.evaluate(f"document.querySelector('{CHAT_BOX}').focus()")
        self.call("Input.insertText", text=text)
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13)

    def screenshot(self, path: Path) -> None:
        """The whole page from its top: the window is made as tall as the tallest scrolling content."""
        height = self.evaluate("Math.max(...[...document.querySelectorAll('*')].map(e => e.scrollHeight))")
        self.resize(min(max(int(height or 0) + 200, 800), 16000))  # room for the chat box fixed at the bottom
        time.sleep(0.5)
        self.evaluate("for (const e of document.querySelectorAll('*')) if (e.scrollTop) e.scrollTop = 0")
        time.sleep(0.5)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))


@pytest.fixture
def browser() -> Iterator[Browser]:
    executable = chromium_or_skip()
    with tempfile.TemporaryDirectory(prefix="chromium-profile-", ignore_cleanup_errors=True) as profile:
        process, address = launch_chromium(executable, profile)
        try:
            with connect(address, max_size=None, open_timeout=10) as socket:
                yield Browser(socket)
        finally:
            close_chromium(process)


def body_text(browser: Browser) -> str:
    return browser.evaluate("document.body.innerText") or ""


def law_links(browser: Browser) -> list[str]:
    return browser.evaluate(
        "[...document.querySelectorAll('a[href^=\"https://laws-lois.justice.gc.ca/\"]')].map(a => a.href)"
    )


def links_not_to_sources(browser: Browser, page_url: str) -> list[str]:
    """Every link on the page that is neither an official source nor the page's own navigation."""
    sources = ["https://laws-lois.justice.gc.ca/", "https://otc-cta.gc.ca", "https://open.canada.ca/", page_url]
    return browser.evaluate(
        f"[...document.querySelectorAll('a')].map(a => a.href || a.outerHTML)"
        f".filter(href => !{json.dumps(sources)}.some(source => href.startsWith(source)))"
    )


def ask(browser: Browser, page_url: str, message: str) -> str:
    browser.call("Page.navigate", url=page_url)
    wait_for(lambda: browser.evaluate(f"!!document.querySelector('{CHAT_BOX}')"), 60, "the chat box")
    browser.type_and_send(message)
    wait_for(lambda: "Questions searched" in body_text(browser), 60, "the answer")
    wait_for(lambda: not browser.evaluate("!!document.querySelector('[data-testid=\"stSpinner\"]')"), 60, "the end")
    return body_text(browser)


def first_line(text: str) -> str:
    return text.splitlines()[0][:80]


def test_a_passenger_asks_in_the_browser_and_sees_the_law_with_links(page_url, browser, knowledge_base):
    expected = search_dialogue([QUESTION], SearchEngine(knowledge_base))
    first_passage = expected.results[0].hits[0].passage
    browser.call("Page.navigate", url=page_url)
    wait_for(lambda: browser.evaluate(f"!!document.querySelector('{CHAT_BOX}')"), 60, "the chat box")
    browser.type_and_send(QUESTION)
    wait_for(lambda: first_line(first_passage.text) in body_text(browser), 60, "the first passage")
    text = body_text(browser)
    assert "Questions searched" in text and QUESTION in text
    assert first_passage.url in law_links(browser)
    assert "Legal information, not legal advice" in text
    browser.screenshot(ARTIFACTS / "passenger-page.png")


def test_markup_in_a_message_is_shown_as_typed(page_url, browser):
    browser.call("Page.navigate", url=page_url)
    wait_for(lambda: browser.evaluate(f"!!document.querySelector('{CHAT_BOX}')"), 60, "the chat box")
    browser.type_and_send(MARKUP)
    wait_for(lambda: "Questions searched" in body_text(browser), 60, "the answer")
    assert MARKUP in body_text(browser)
    planted = 'document.querySelectorAll(\'[data-testid="stMain"] img[src="x"], [data-testid="stMain"] b\').length'
    assert browser.evaluate(planted) == 0


def test_a_shared_link_asks_its_question_in_french(page_url, browser):
    browser.call("Page.navigate", url=f"{page_url}?q={quote(FRENCH_QUESTION)}")
    wait_for(lambda: "Questions recherchées" in body_text(browser), 60, "the French answer")
    wait_for(lambda: any("/fra/" in link for link in law_links(browser)), 30, "a link to the French text")
    assert "Information juridique, et non un avis juridique" in body_text(browser)
    browser.screenshot(ARTIFACTS / "passenger-page-french.png")


def test_a_volunteer_opens_the_review_page_and_sees_the_logged_turn(page_url, browser):
    browser.call("Page.navigate", url=page_url)
    wait_for(lambda: browser.evaluate(f"!!document.querySelector('{CHAT_BOX}')"), 60, "the chat box")
    browser.type_and_send("My bag was lost on my flight to Halifax")
    wait_for(lambda: "Questions searched" in body_text(browser), 60, "the answer")
    browser.call("Page.navigate", url=f"{page_url}review")
    wait_for(lambda: browser.evaluate("!!document.querySelector('input[type=password]')"), 60, "the password box")
    browser.evaluate("document.querySelector('input[type=password]').focus()")
    browser.call("Input.insertText", text=REVIEW_PASSWORD)
    for kind in ("keyDown", "keyUp"):
        browser.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13)
    wait_for(lambda: "Export judgements" in body_text(browser), 60, "the review page")
    assert "My bag was lost on my flight to Halifax" in body_text(browser)
    browser.screenshot(ARTIFACTS / "review-page.png")


HOSTILE = (
    "My flight to Halifax was delayed 5 hours. Claim at https://evil.example or www.evil.example, mail a@evil.example"
)
PLANTED = "You are owed $4,321 under APPR s.19, claim it now at www.evil.example?"


def test_addresses_typed_by_a_passenger_never_become_links(page_url, browser):
    text = ask(browser, page_url, HOSTILE)
    assert HOSTILE in text
    assert law_links(browser)  # the official sources are links
    assert links_not_to_sources(browser, page_url) == []
    browser.screenshot(ARTIFACTS / "passenger-page-addresses.png")


def test_an_amount_and_a_link_planted_by_the_language_model_appear_nowhere(store_dir, tmp_path, browser):
    message = "Our Porter flight from Ottawa to Halifax was cancelled and we arrived 10 hours late. What are we owed?"
    reply = json.dumps({"standalone": PLANTED, "questions": [PLANTED]})
    with StubEndpoint(lambda system, user: reply) as stub:
        settings = {"OPENAI_BASE_URL": stub.config.base_url, "PASSENGER_LLM_MODEL": "stub-model"}
        with streamlit_page(store_dir, tmp_path, **settings, PASSENGER_LLM_RETRIES="0") as url:
            text = ask(browser, url, message)
            links = links_not_to_sources(browser, url)
            html = browser.evaluate("document.documentElement.outerHTML")
        assert stub.requests
    for planted in ("4,321", "4321", "evil"):
        assert planted not in text and planted not in html
    assert links == []
    for question in understand([message], config=None).questions:
        assert question in text
