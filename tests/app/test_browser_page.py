"""The real page in a real browser: `streamlit run app.py` driven by playwright through the system's headless
Chromium (playwright downloads no browser of its own).

A passenger types a question into the chat box and presses Enter; the law's passages and their links must
appear. Volunteers sign in with a local account, or through an identity provider (oidc-provider-mock on
127.0.0.1). Screenshots go to tests/artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import oidc_provider_mock
import pytest
import werkzeug.serving
from playwright.sync_api import Page, sync_playwright

from query_understanding import understand
from retrieval.engine import SearchEngine
from retrieval.search import search_dialogue
from review.accounts import Accounts, Role
from review.storage import engine_for
from testing.local_server import free_port
from testing.openai_stub import StubEndpoint

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
WAIT_MS = 60_000
LAWS_SITE = "https://laws-lois.justice.gc.ca/"
QUESTION = (
    "Our Sunwing flight home from Punta Cana was cancelled (crew scheduling problem) and we got home to Toronto "
    "26 hours late. Then my suitcase had a huge crack. How much compensation for the cancellation? And what do "
    "I do about the suitcase, is there a time limit?"
)
REVIEW_PASSWORD = "browser-test-pass-phrase"
CHAT_BOX = '[data-testid="stChatInputTextArea"]'
MARKUP = "<img src=x onerror=alert(1)> my flight to Halifax was <b>delayed 5 hours</b> **what now?** [x](http://e)"
FRENCH_QUESTION = "Mon vol Air Transat Montréal-Paris a été annulé. À quelle indemnité ai-je droit?"


def http_get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read().decode()
    except OSError:
        return None


@contextlib.contextmanager
def streamlit_page(
    store_dir: Path, directory: Path, port: int | None = None, arguments: tuple[str, ...] = (), **settings: str
) -> Iterator[str]:
    """The page served by `streamlit run app.py` on a free local port (or `port`), with a maintainer's account
    `max`; `arguments` go to `streamlit run`, `settings` are extra environment."""
    port = port or free_port()
    Accounts(engine_for(f"sqlite:///{directory / 'feedback.sqlite3'}")).create("max", Role.MAINTAINER, REVIEW_PASSWORD)
    env = {
        **os.environ,
        "PASSENGER_KB_STORE": str(store_dir),
        "PASSENGER_FEEDBACK_DB": str(directory / "feedback.sqlite3"),
    }
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(name, None)
    env.update(settings)
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true"]
    command += ["--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    command += arguments
    # the server's output goes to a file, never to a pipe nobody reads: a full pipe would stall the server
    log = directory / "streamlit.log"
    with log.open("wb") as output:
        server = subprocess.Popen(command, cwd=PROJECT, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while http_get(f"http://127.0.0.1:{port}/_stcore/health") != "ok":
            waiting = time.monotonic() < deadline and server.poll() is None
            assert waiting, f"the Streamlit server did not start:\n{log.read_text(errors='replace')[-2000:]}"
            time.sleep(0.25)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.fixture(scope="module")
def page_url(store_dir, tmp_path_factory) -> Iterator[str]:
    with streamlit_page(store_dir, tmp_path_factory.mktemp("browser")) as url:
        yield url


@pytest.fixture(scope="module")
def chromium():
    assert CHROMIUM.exists(), (
        f"headless Chromium is not installed ({CHROMIUM}); the README's test command installs it: "
        "apt-get install chromium"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def browser(chromium) -> Iterator[Page]:
    """A fresh browser context (no cookies, no storage) and its one tab."""
    context = chromium.new_context(viewport={"width": 1280, "height": 1600})
    context.set_default_timeout(WAIT_MS)
    yield context.new_page()
    context.close()


def body_text(browser: Page) -> str:
    return browser.evaluate("document.body.innerText") or ""


def wait_for_text(browser: Page, text: str) -> None:
    browser.wait_for_function("text => document.body.innerText.includes(text)", arg=text)


def type_and_send(browser: Page, text: str) -> None:
    box = browser.locator(CHAT_BOX)
    box.fill(text)
    box.press("Enter")


def screenshot(browser: Page, path: Path) -> None:
    """The whole page from its top: the window is made as tall as the tallest scrolling content."""
    height = browser.evaluate("Math.max(...[...document.querySelectorAll('*')].map(e => e.scrollHeight))")
    browser.set_viewport_size({"width": 1280, "height": min(max(int(height or 0) + 200, 800), 16000)})
    browser.wait_for_timeout(500)  # room for the chat box fixed at the bottom to settle
    browser.evaluate("for (const e of document.querySelectorAll('*')) if (e.scrollTop) e.scrollTop = 0")
    browser.wait_for_timeout(500)
    path.parent.mkdir(parents=True, exist_ok=True)
    browser.screenshot(path=path)


def law_links(browser: Page) -> list[str]:
    """The links to the official sources, once the first has been drawn (a busy machine draws them late)."""
    browser.wait_for_selector(f'a[href^="{LAWS_SITE}"]')
    return browser.eval_on_selector_all(f'a[href^="{LAWS_SITE}"]', "links => links.map(a => a.href)")


def links_not_to_sources(browser: Page, page_url: str) -> list[str]:
    """Every link on the page that is neither an official source nor the page's own navigation."""
    sources = [LAWS_SITE, "https://otc-cta.gc.ca", "https://open.canada.ca/", page_url]
    return browser.eval_on_selector_all(
        "a",
        "(links, sources) => links.map(a => a.href || a.outerHTML)"
        ".filter(href => !sources.some(source => href.startsWith(source)))",
        sources,
    )


def ask(browser: Page, page_url: str, message: str) -> str:
    browser.goto(page_url)
    type_and_send(browser, message)
    wait_for_text(browser, "Questions searched")
    browser.wait_for_function("!document.querySelector('[data-testid=\"stSpinner\"]')")
    return body_text(browser)


def first_line(text: str) -> str:
    return text.splitlines()[0][:80]


def test_a_passenger_asks_in_the_browser_and_sees_the_law_with_links(page_url, browser, knowledge_base):
    expected = search_dialogue([QUESTION], SearchEngine(knowledge_base))
    first_passage = expected.results[0].hits[0].passage
    browser.goto(page_url)
    type_and_send(browser, QUESTION)
    wait_for_text(browser, first_line(first_passage.text))
    text = body_text(browser)
    assert "Questions searched" in text and QUESTION in text
    assert first_passage.url in law_links(browser)
    assert "Legal information, not legal advice" in text
    screenshot(browser, ARTIFACTS / "passenger-page.png")


def test_the_part_that_answers_is_shown_first_and_marked_inside_the_whole_unit(page_url, browser, knowledge_base):
    question = "Air Canada was 7 hours late, how much do I get?"
    hit = search_dialogue([question], SearchEngine(knowledge_base)).results[0].hits[0]
    part = hit.parts[0]
    assert (hit.passage.unit, part.label) == ("s19", "(1)(a)(ii)")
    browser.goto(page_url)
    type_and_send(browser, question)
    browser.wait_for_selector("mark", timeout=3 * WAIT_MS)  # law text is escaped: the page's marks are the only ones
    marked = browser.locator("mark").first.inner_text()
    assert " ".join(marked.split()) == " ".join(part.text.split())
    assert hit.passage.text[part.start : part.end] == part.text
    text = body_text(browser)
    label = "The part that matches your question: subsection 19(1)(a)(ii)"
    unit_start = text.index(hit.passage.text.splitlines()[0])
    assert text.index(label) < text.index(part.text) < unit_start < text.index(part.text, unit_start)
    assert hit.passage.url in law_links(browser)
    screenshot(browser, ARTIFACTS / "passenger-page-pinpointed.png")


def test_markup_in_a_message_is_shown_as_typed(page_url, browser):
    browser.goto(page_url)
    type_and_send(browser, MARKUP)
    wait_for_text(browser, "Questions searched")
    assert MARKUP in body_text(browser)
    planted = '[data-testid="stMain"] img[src="x"], [data-testid="stMain"] b'
    assert browser.locator(planted).count() == 0


def test_a_shared_link_asks_its_question_in_french(page_url, browser):
    browser.goto(f"{page_url}?q={quote(FRENCH_QUESTION)}")
    wait_for_text(browser, "Questions recherchées")
    browser.locator(f'a[href^="{LAWS_SITE}"][href*="/fra/"]').first.wait_for(timeout=30_000)
    assert "Information juridique, et non un avis juridique" in body_text(browser)
    screenshot(browser, ARTIFACTS / "passenger-page-french.png")


def test_a_volunteer_opens_the_review_page_and_sees_the_logged_turn(page_url, browser):
    browser.goto(page_url)
    type_and_send(browser, "My bag was lost on my flight to Halifax")
    wait_for_text(browser, "Questions searched")
    browser.goto(f"{page_url}review")
    browser.locator("input[type=text]").first.fill("max")
    password = browser.locator("input[type=password]")
    password.fill(REVIEW_PASSWORD)
    password.press("Enter")
    wait_for_text(browser, "Export judgements")
    assert "My bag was lost on my flight to Halifax" in body_text(browser)
    screenshot(browser, ARTIFACTS / "review-page.png")


HOSTILE = (
    "My flight to Halifax was delayed 5 hours. Claim at https://evil.example or www.evil.example, mail a@evil.example"
)
PLANTED = "You are owed $4,321 under APPR s.19, claim it now at www.evil.example?"


def test_addresses_typed_by_a_passenger_never_become_links(page_url, browser):
    text = ask(browser, page_url, HOSTILE)
    assert HOSTILE in text
    assert law_links(browser)  # the official sources are links
    assert links_not_to_sources(browser, page_url) == []
    screenshot(browser, ARTIFACTS / "passenger-page-addresses.png")


def test_an_amount_and_a_link_planted_by_the_language_model_appear_nowhere(store_dir, tmp_path, browser):
    message = "Our Porter flight from Ottawa to Halifax was cancelled and we arrived 10 hours late. What are we owed?"
    reply = json.dumps({"standalone": PLANTED, "questions": [PLANTED]})
    with StubEndpoint(lambda system, user: reply) as stub:
        settings = {"OPENAI_BASE_URL": stub.config.base_url, "PASSENGER_LLM_MODEL": "stub-model"}
        with streamlit_page(store_dir, tmp_path, **settings, PASSENGER_LLM_RETRIES="0") as url:
            text = ask(browser, url, message)
            links = links_not_to_sources(browser, url)
            html = browser.content()
        assert stub.requests
    for planted in ("4,321", "4321", "evil"):
        assert planted not in text and planted not in html
    assert links == []
    for question in understand([message], config=None).questions:
        assert question in text


# -- signing in through an identity provider: oidc-provider-mock on 127.0.0.1, the page's `[auth]` secrets --------

SIGN_IN = "Sign in with your organisation's account"


@contextlib.contextmanager
def identity_provider() -> Iterator[str]:
    """oidc-provider-mock on 127.0.0.1: any client id and secret, and whichever user the form names."""
    server = werkzeug.serving.make_server("127.0.0.1", free_port(), oidc_provider_mock.app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def review_url(store_dir, tmp_path_factory) -> Iterator[str]:
    directory = tmp_path_factory.mktemp("sign-in")
    accounts = Accounts(engine_for(f"sqlite:///{directory / 'feedback.sqlite3'}"))
    accounts.create("vera", Role.VOLUNTEER, email="vera@example.org")
    accounts.create("mia", Role.MAINTAINER, email="mia@example.org")
    port = free_port()
    with identity_provider() as provider:
        secrets = directory / "secrets.toml"
        secrets.write_text(
            "[auth]\n"
            f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
            'cookie_secret = "a cookie secret for the test only"\n'
            'client_id = "review-page"\n'
            'client_secret = "review-page-secret"\n'
            f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n',
            encoding="utf-8",
        )
        with streamlit_page(store_dir, directory, port, ("--secrets.files", str(secrets))) as url:
            yield f"{url}review"


def sign_in_as(browser: Page, review_url: str, email: str) -> str:
    browser.goto(review_url)
    browser.get_by_role("button", name=SIGN_IN).click()
    browser.locator("input[name=sub]").fill(email)  # the provider's own form
    browser.get_by_role("button", name="Authorize").click()
    browser.wait_for_url(lambda url: url.startswith(review_url.removesuffix("review")) and "oauth2" not in url)
    browser.goto(review_url)
    wait_for_text(browser, "Review what passengers were shown")
    browser.wait_for_function("!document.body.innerText.includes('Running')", timeout=30_000)
    return body_text(browser)


def test_a_maintainer_signs_in_through_the_provider_and_may_export(review_url, browser):
    sign_in_as(browser, review_url, "mia@example.org")
    wait_for_text(browser, "Signed in as mia (maintainer).")
    wait_for_text(browser, "Export judgements")


def test_a_volunteer_signs_in_through_the_provider_and_may_not_export(review_url, browser):
    sign_in_as(browser, review_url, "vera@example.org")
    wait_for_text(browser, "Signed in as vera (volunteer).")
    assert "Export judgements" not in body_text(browser)


def test_a_provider_user_without_an_account_is_refused(review_url, browser):
    sign_in_as(browser, review_url, "stranger@example.org")
    wait_for_text(browser, "has no review account here")
    assert "Export judgements" not in body_text(browser)
