"""The crawler and the guide-page passages, against a small passenger-rights site served on 127.0.0.1."""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from ingest.crawl import AGENT, CrawlError, NoNetworkError, SkipReason, crawl
from ingest.scope import page_key
from ingest.web_pages import MalformedPageWarning, load_web_passages
from kb.sources import TERMS_NOTE, SourceError
from kb.verbatim import check_passages
from testing.local_server import LocalServer, free_port, send
from testing.saved_pages import save_example_pages

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "site"
HTML = "text/html; charset=utf-8"
PAGES = {  # path -> (content type, fixture file)
    "/robots.txt": ("text/plain", "robots.txt"),
    "/en/guides": (HTML, "guides.html"),
    "/en/guides/flight-delays": (HTML, "flight-delays.html"),
    "/en/guides/flight-delays-print": (HTML, "flight-delays-print.html"),
    "/en/guides/complaints": (HTML, "complaints.html"),
    "/en/guides/baggage": (HTML, "baggage.html"),
    "/en/guides/seat-selection": (HTML, "seat-selection.html"),
    "/en/guides/members/drafts": (HTML, "drafts.html"),
    "/en/guides/claim-letter.pdf": ("application/pdf", "claim-letter.pdf"),
    "/fr/guides/plainte": (HTML, "plainte.html"),
}
REDIRECTS = {"/en/guides/old-baggage-page": "/en/guides/baggage", "/en/guides/moved": "/about/pets"}
FAILING = {"/en/guides/seat-map"}
SLOW = {"/en/guides/slow"}
SEED_PATHS = ("/en/guides", "/fr/guides/plainte")


class Site(LocalServer):
    """The fixture pages, plus redirects, a failing path and a slow one, served on 127.0.0.1; records every request."""

    def __init__(self) -> None:
        super().__init__(self.respond)
        self.requests: list[tuple[str, str]] = []

    def respond(self, request: BaseHTTPRequestHandler) -> None:
        path = urlsplit(request.path).path
        self.requests.append((path, request.headers.get("User-Agent", "")))
        if path in SLOW:
            time.sleep(0.5)
        if path in REDIRECTS:
            send(request, 301, b"", "text/plain", Location=REDIRECTS[path])
        elif path in FAILING:
            send(request, 500, b"<h1>Internal Server Error</h1>", "text/html")
        elif path in PAGES:
            content_type, name = PAGES[path]
            send(request, 200, (FIXTURES / name).read_bytes(), content_type)
        else:
            send(request, 404, b"<h1>Not found</h1>", "text/html")

    def seeds(self) -> list[str]:
        return [self.url(path) for path in SEED_PATHS]

    def hits(self, path: str) -> int:
        return sum(1 for requested, _ in self.requests if requested == path)


@pytest.fixture
def site():
    with Site() as served:
        yield served


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """One crawl of the whole site, and its snapshot loaded into passages."""
    web = tmp_path_factory.mktemp("sources") / "web"
    with Site() as served:
        report = crawl(served.seeds(), web, delay=0)
    with pytest.warns(MalformedPageWarning) as caught:
        passages = load_web_passages(web)
    return served, report, web, passages, [str(warning.message) for warning in caught]


def passages_of(crawled, path: str):
    site, _, _, passages, _ = crawled
    return [p for p in passages if urlsplit(p.doc).path.rstrip("/") == path]


# -- crawling ------------------------------------------------------------------------------------------


def test_crawl_saves_every_html_page_in_scope_under_its_host(site, tmp_path):
    report = crawl(site.seeds(), tmp_path / "web", delay=0)

    saved = {urlsplit(page.url).path for page in report.pages}
    assert saved == {
        "/en/guides",
        "/en/guides/flight-delays",
        "/en/guides/complaints",
        "/en/guides/baggage",
        "/en/guides/seat-selection",
        "/fr/guides/plainte",
    }
    host = f"127.0.0.1_{site.port}"
    assert {page.file for page in report.pages} >= {f"{host}/en-guides.html", f"{host}/fr-guides-plainte.html"}
    for page in report.pages:
        fixture = FIXTURES / PAGES[urlsplit(page.url).path][1]
        assert (tmp_path / "web" / page.file).read_bytes() == fixture.read_bytes()  # copied unchanged
    assert all(AGENT in agent for _, agent in site.requests)


def test_crawl_reports_each_skipped_url_with_its_reason(site, tmp_path):
    report = crawl(site.seeds(), tmp_path / "web", delay=0, retries=2)

    reasons = {skip.url: skip.reason for skip in report.skipped}
    assert reasons[site.url("/en/guides/members/drafts")] == SkipReason.ROBOTS
    assert reasons[site.url("/en/guides/claim-letter.pdf")] == SkipReason.NOT_HTML
    assert reasons[site.url("/en/guides/seat-map")] == SkipReason.SERVER_ERROR
    assert reasons[site.url("/en/guides/flight-delays-print")] == SkipReason.DUPLICATE
    for outside in ("/about", "/about/pets", "/en/terms"):
        assert reasons[site.url(outside)] == SkipReason.OUT_OF_SCOPE
    assert reasons["https://example.org/regulations"] == SkipReason.OUT_OF_SCOPE
    assert reasons["https://otc-cta.gc.ca/eng/air-travel-complaints"] == SkipReason.OUT_OF_SCOPE
    assert site.hits("/en/guides/members/drafts") == 0
    assert site.hits("/en/guides/seat-map") == 3
    assert site.hits("/about/pets") == 0
    assert site.hits("/robots.txt") == 1

    errors = {failure.url: failure.message for failure in report.errors}
    assert errors[site.url("/en/guides/cookies")] == "HTTP 404"
    assert "could not be parsed" in errors[site.url("/en/guides/seat-selection")]
    assert "page cap reached" not in report.summary()


def test_crawl_follows_redirects_and_fetches_each_page_once(site, tmp_path):
    report = crawl(site.seeds(), tmp_path / "web", delay=0)

    assert site.url("/en/guides/baggage") in {page.url for page in report.pages}
    assert site.hits("/en/guides/old-baggage-page") == 1
    assert site.hits("/en/guides/baggage") == 1
    # linked as is, with tracking parameters and a fragment, relatively, and canonical with a trailing slash
    assert site.hits("/en/guides/flight-delays") == 1


def test_manifest_lists_each_saved_page(site, tmp_path):
    crawl(site.seeds(), tmp_path / "web", delay=0)

    manifest = json.loads((tmp_path / "web" / "manifest.json").read_text(encoding="utf-8"))
    entry = next(page for page in manifest["pages"] if page["url"] == site.url("/en/guides/flight-delays"))
    assert entry == {
        "url": site.url("/en/guides/flight-delays"),
        "canonical_url": site.url("/en/guides/flight-delays/"),
        "title": "Flight delays and cancellations – Air Passenger Rights",
        "file": f"127.0.0.1_{site.port}/en-guides-flight-delays.html",
        "retrieved": datetime.now(UTC).date().isoformat(),
        "terms": TERMS_NOTE,
    }


def test_page_cap_stops_the_crawl_and_says_so(site, tmp_path):
    report = crawl(site.seeds(), tmp_path / "web", delay=0, max_pages=2)

    assert [page.url for page in report.pages] == site.seeds()  # the seeds first, then what they link to
    assert len(list((tmp_path / "web").rglob("*.html"))) == 2
    capped = [skip.url for skip in report.skipped if skip.reason == SkipReason.PAGE_CAP]
    assert site.url("/en/guides/flight-delays") in capped
    assert site.hits("/en/guides/flight-delays") == 0
    assert "page cap reached" in report.summary()


def test_timeouts_are_retried_a_bounded_number_of_times(site, tmp_path):
    with httpx.Client(timeout=0.2) as client, pytest.raises(CrawlError) as caught:
        crawl([site.url("/en/guides/slow")], tmp_path / "web", client=client, delay=0, retries=1)

    assert not isinstance(caught.value, NoNetworkError)
    assert "Timeout" in caught.value.report.errors[0].message
    assert site.hits("/en/guides/slow") == 2


def test_without_network_the_snapshot_is_left_untouched(tmp_path):
    web = tmp_path / "web"
    web.mkdir()
    (web / "manifest.json").write_text('{"pages": []}', encoding="utf-8")
    seed = f"http://127.0.0.1:{free_port()}/en/guides"

    with pytest.raises(NoNetworkError, match=f"No network: could not reach {seed}") as caught:
        crawl([seed], web, delay=0, retries=0)

    assert caught.value.report.unreachable == [seed]
    assert (web / "manifest.json").read_text(encoding="utf-8") == '{"pages": []}'
    assert [path.name for path in tmp_path.iterdir()] == ["web"]


def test_a_completed_crawl_replaces_the_previous_snapshot(site, tmp_path):
    web = tmp_path / "web"
    web.mkdir()
    (web / "stale.html").write_text("<p>an old page</p>", encoding="utf-8")

    crawl(site.seeds(), web, delay=0)

    assert not (web / "stale.html").exists()
    assert (web / "manifest.json").is_file()
    assert [path.name for path in tmp_path.iterdir()] == ["web"]


def test_page_key_names_one_page_once():
    assert page_key("HTTP://Example.org/guides/?utm_source=x&b=2&a=1#fees") == "http://example.org/guides?a=1&b=2"
    assert page_key("http://example.org/") == "http://example.org/"


# -- passages ------------------------------------------------------------------------------------------


def test_every_passage_is_verbatim_text_of_its_saved_page(crawled):
    _, _, web, passages, _ = crawled
    assert passages
    assert check_passages(passages, web.parent) == []
    assert {passage.kind for passage in passages} == {"guide"}


def test_passages_hold_the_main_content_only(crawled):
    _, _, _, passages, _ = crawled
    everything = "\n".join(passage.text for passage in passages)
    for boilerplate in (
        "cookies",
        "Skip to main content",
        "Passer au contenu",
        "All guides",
        "About us",
        "legal information, not legal advice",
        "Related guides",
        "Printable version",
        "trackSection",
        "position: fixed",
        "dataLayer",
    ):
        assert boilerplate not in everything
    assert "Short, plain-language guides to your rights" in everything


def test_sections_carry_their_header_path_and_anchor(crawled):
    site = crawled[0]
    page = site.url("/en/guides/flight-delays")
    passages = passages_of(crawled, "/en/guides/flight-delays")
    top = "Flight delays & cancellations"

    assert [(p.title, p.heading_path, p.url, p.unit) for p in passages] == [
        (top, (), f"{page}#flight-delays", "flight-delays"),
        ("Compensation", (top,), f"{page}#compensation", "compensation"),
        ("Large airlines", (top, "Compensation"), f"{page}#large-airlines", "large-airlines"),
        ("Small airlines", (top, "Compensation"), f"{page}#small-airlines", "small-airlines"),
        ("Rebooking and refunds", (top,), f"{page}#rebooking", "rebooking"),
    ]
    compensation, large = passages[1], passages[2]
    assert compensation.text == (
        "When a delay is within the airline’s control and not required for safety, you may claim compensation "
        "for inconvenience. See the complaint guide to make a claim."
    )
    assert large.text.splitlines() == [
        "$400 for a delay of 3 hours or more, but less than 6 hours;",
        "$700 for a delay of 6 hours or more, but less than 9 hours;",
        "$1,000 for a delay of 9 hours or more.",
    ]
    first = passages[0]
    assert first.doc == site.url("/en/guides/flight-delays/")
    assert first.lang == "en"
    assert first.instrument == "Flight delays and cancellations – Air Passenger Rights"
    assert first.source == f"web/127.0.0.1_{site.port}/en-guides-flight-delays.html"


def test_sections_without_ids_are_named_by_their_header_path(crawled):
    passages = passages_of(crawled, "/en/guides/baggage")

    assert [(p.title, p.unit) for p in passages] == [
        ("Lost or damaged baggage", "lost-damaged-or-delayed-baggage-lost-or-damaged-baggage"),
        ("Costs you can claim", "lost-damaged-or-delayed-baggage-costs-you-can-claim"),
    ]
    assert all("#" not in p.url for p in passages)


def test_a_step_by_step_guide_stays_one_passage(crawled):
    passages = passages_of(crawled, "/en/guides/complaints")
    steps = next(p for p in passages if p.unit == "steps")

    assert [p.title for p in passages] == ["How to claim compensation", "Steps to make a claim", "Documents to keep"]
    assert steps.text.splitlines() == [
        "Write to your airline",
        "Send a written claim to the airline within one year of the delay. Keep a copy.",
        "Wait for the answer",
        "The airline has 30 days to pay or to explain why it believes no compensation is owed.",
        "Complain to the Canadian Transportation Agency",
        "If the airline refuses or does not answer, file a complaint with the Agency.",
    ]


def test_numbered_step_headings_stay_with_their_section(crawled):
    passages = passages_of(crawled, "/fr/guides/plainte")
    steps = next(p for p in passages if p.unit == "etapes")

    assert [p.title for p in passages] == ["Déposer une plainte", "Les étapes", "Délais"]
    assert {p.lang for p in passages} == {"fr"}
    assert [line for line in steps.text.splitlines() if line.startswith("Étape")] == [
        "Étape 1 : écrivez au transporteur",
        "Étape 2 : attendez la réponse",
        "Étape 3 : adressez-vous à l’Office",
    ]


def test_a_malformed_page_is_skipped_with_a_warning_naming_it(crawled):
    site, report, _, passages, warnings = crawled

    assert len(warnings) == 1
    assert f"web/127.0.0.1_{site.port}/en-guides-seat-selection.html" in warnings[0]
    assert {urlsplit(p.url).path for p in passages} == {
        urlsplit(page.url).path for page in report.pages if not page.url.endswith("seat-selection")
    }
    assert len({p.id for p in passages}) == len(passages)


def test_no_snapshot_means_no_guide_passages(tmp_path):
    assert load_web_passages(tmp_path / "web") == []


# -- pages that are not what they claim ------------------------------------------------------------------


def saved_pages(tmp_path: Path, pages: dict[str, bytes]) -> Path:
    web = tmp_path / "web"
    save_example_pages(web, pages)
    return web


def page(body: str, head: str = "", lang: str = "en") -> str:
    lang_attribute = f' lang="{lang}"' if lang else ""
    return f"<!DOCTYPE html><html{lang_attribute}><head>{head}</head><body><main>{body}</main></body></html>"


def test_thousands_of_nested_elements_are_read_without_exhausting_the_stack(tmp_path):
    deep = "<div>" * 5000 + "Keep your boarding pass." + "</div>" * 5000
    web = saved_pages(tmp_path, {"deep.html": page(f"<h1>Receipts</h1>{deep}<p>And the receipts.</p>").encode()})
    [passage] = load_web_passages(web)
    assert passage.text == "Keep your boarding pass.\nAnd the receipts."
    assert check_passages([passage], web.parent) == []


def test_binary_data_and_documents_that_are_not_html_are_refused_with_a_warning(tmp_path):
    web = saved_pages(
        tmp_path,
        {
            "noise.html": random.Random(7).randbytes(20_000),
            "letter.html": b"%PDF-1.4\n" + random.Random(8).randbytes(4_000),
            "notes.html": b"Just a line of plain text, no markup at all.",
            "good.html": page("<h1>Delays</h1><p>Ask the airline why.</p>").encode(),
        },
    )
    with pytest.warns(MalformedPageWarning) as caught:
        passages = load_web_passages(web)
    skipped = sorted(str(warning.message).split(":")[0] for warning in caught)
    assert skipped == ["Skipped web/example.org/letter.html", "Skipped web/example.org/noise.html",
                       "Skipped web/example.org/notes.html"]  # fmt: skip
    assert [p.title for p in passages] == ["Delays"]


def test_a_latin1_french_page_is_decoded_right_and_labelled_french(tmp_path):
    text = "Si votre vol est annulé, le transporteur doit vous offrir un réacheminement à vos frais."
    web = saved_pages(tmp_path, {"vol.html": page(f"<h1>Vol annulé</h1><p>{text}</p>", lang="").encode("latin-1")})
    [passage] = load_web_passages(web)
    assert (passage.lang, passage.title, passage.text) == ("fr", "Vol annulé", text)
    assert check_passages([passage], web.parent) == []


def test_a_declared_character_set_is_honoured(tmp_path):
    text = "Le transporteur doit « répondre » dans les 30 jours — sans frais."
    declared = page(f"<h1>Délais</h1><p>{text}</p>", head='<meta charset="windows-1252">', lang="fr")
    web = saved_pages(tmp_path, {"delais.html": declared.encode("cp1252")})
    [passage] = load_web_passages(web)
    assert passage.text == text


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        ("{pages: []}", "is not valid JSON"),
        ('{"pages": "none"}', 'has no list of "pages"'),
        ('{"pages": [{"url": "https://example.org/"}]}', "page 1 has no text for canonical_url, title, file"),
        (
            json.dumps(
                {
                    "pages": [
                        {"url": "u", "canonical_url": "u", "title": "t", "file": "../../secret.html", "retrieved": "r"}
                    ]
                }
            ),  # fmt: skip
            "page 1 names a file outside the snapshot",
        ),
    ],
)
def test_a_bad_page_manifest_is_an_error_naming_the_file_and_the_problem(tmp_path, manifest, problem):
    (tmp_path / "manifest.json").write_text(manifest, encoding="utf-8")
    with pytest.raises(SourceError) as raised:
        load_web_passages(tmp_path)
    assert str(tmp_path / "manifest.json") in str(raised.value) and problem in str(raised.value)
