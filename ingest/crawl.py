"""Fetch the guide pages of the seed sites, politely, and keep a snapshot of them for the knowledge base.

A crawl stays under each seed's site and path, asks robots.txt first, waits between requests, retries
server errors and timeouts a bounded number of times, and saves HTML pages only, once per canonical URL.
It writes into a fresh directory that replaces the snapshot only when at least one page was saved, so a
failed crawl (no network above all) leaves the knowledge base exactly as it was.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx
from bs4 import BeautifulSoup
from bs4.exceptions import ParserRejectedMarkup

from foundation.text import squash_spaces
from ingest.scope import Scope, clean_url, page_key, site_of
from ingest.snapshot import page_file, replace_snapshot
from kb.sources import SavedPage, write_pages

AGENT = "air-passenger-rights-assistant"
USER_AGENT = f"{AGENT}/1.0 (retrieval of air passenger rights guides)"
HTML_TYPES = ("text/html", "application/xhtml+xml")
MAX_REDIRECTS = 5


class SkipReason(StrEnum):
    ROBOTS = "disallowed by robots.txt"
    OUT_OF_SCOPE = "out of scope"
    NOT_HTML = "not HTML"
    SERVER_ERROR = "server error after retries"
    DUPLICATE = "duplicate of a saved page"
    PAGE_CAP = "page cap reached"


@dataclass(frozen=True)
class Skipped:
    url: str
    reason: SkipReason
    detail: str = ""


@dataclass(frozen=True)
class Failure:
    url: str
    message: str


@dataclass
class CrawlReport:
    """What a crawl saved, what it chose not to fetch or keep (and why), and what went wrong."""

    pages: list[SavedPage] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[Failure] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)  # seeds whose site could not be connected to

    def summary(self) -> str:
        reasons = Counter(skip.reason for skip in self.skipped)
        lines = [f"Saved {len(self.pages)} pages; skipped {len(self.skipped)}; {len(self.errors)} errors."]
        lines += [f"  skipped, {reason}: {count}" for reason, count in reasons.items()]
        lines += [f"  error: {failure.url}: {failure.message}" for failure in self.errors]
        lines += [f"  could not reach {seed}" for seed in self.unreachable]
        return "\n".join(lines)


class CrawlError(Exception):
    """The crawl saved no page, so the snapshot was left as it was; `report` says what happened."""

    def __init__(self, message: str, report: CrawlReport) -> None:
        super().__init__(message)
        self.report = report


class NoNetworkError(CrawlError):
    """Not one seed's site could be connected to."""


def default_client() -> httpx.Client:
    return httpx.Client(headers={"User-Agent": USER_AGENT}, timeout=httpx.Timeout(20.0, connect=10.0))


def crawl(
    seeds: Iterable[str],
    snapshot_dir: Path,
    *,
    client: httpx.Client | None = None,
    max_pages: int = 200,
    delay: float = 1.0,
    retries: int = 2,
) -> CrawlReport:
    """Crawl from `seeds` and replace `snapshot_dir` with the pages saved; raise CrawlError if none was.

    `delay` is the pause in seconds before each request (robots.txt may ask for more); `retries` is how
    many times a server error or timeout is tried again. Without `client`, one is made with the product's
    User-Agent and timeouts, and closed at the end.
    """
    seeds = list(dict.fromkeys(clean_url(seed) for seed in seeds))
    snapshot_dir = Path(snapshot_dir)
    snapshot_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{snapshot_dir.name}-crawl-", dir=snapshot_dir.parent))
    http = client or default_client()
    try:
        report = _Crawl(http, seeds, staging, max_pages=max_pages, delay=delay, retries=retries).run()
        if report.unreachable and len(report.unreachable) == len(seeds):
            raise NoNetworkError(f"No network: could not reach {', '.join(seeds)}", report)
        if not report.pages:
            raise CrawlError(f"No page could be saved from {', '.join(seeds)}:\n{report.summary()}", report)
        write_pages(staging, report.pages)
        replace_snapshot(staging, snapshot_dir)
        return report
    finally:
        if client is None:
            http.close()
        shutil.rmtree(staging, ignore_errors=True)


class _Crawl:
    """The state of one crawl: the queue, the URLs already seen, each site's robots.txt, the report."""

    def __init__(
        self, client: httpx.Client, seeds: list[str], staging: Path, *, max_pages: int, delay: float, retries: int
    ) -> None:
        self.client = client
        self.seeds = seeds
        self.staging = staging
        self.max_pages = max_pages
        self.delay = delay
        self.retries = retries
        self.scopes = [Scope.of_seed(seed) for seed in seeds]
        self.queue = deque(seeds)
        self.seen = {page_key(seed) for seed in seeds}
        self.saved_by_canonical: dict[str, str] = {}
        self.files: set[str] = set()
        self.robots: dict[str, RobotFileParser] = {}
        self.last_request: float | None = None
        self.retrieved = datetime.now(UTC).date().isoformat()
        self.report = CrawlReport()

    def run(self) -> CrawlReport:
        while self.queue:
            url = self.queue.popleft()
            if len(self.report.pages) >= self.max_pages:
                self.skip(url, SkipReason.PAGE_CAP, f"{self.max_pages} pages")
                continue
            try:
                self.visit(url)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                if url in self.seeds:
                    self.report.unreachable.append(url)
                else:
                    self.report.errors.append(Failure(url, f"could not connect: {error}"))
            except httpx.HTTPError as error:
                self.report.errors.append(Failure(url, f"{type(error).__name__}: {error}"))
        return self.report

    def skip(self, url: str, reason: SkipReason, detail: str = "") -> None:
        self.report.skipped.append(Skipped(url, reason, detail))

    def in_scope(self, url: str) -> bool:
        return any(scope.contains(url) for scope in self.scopes)

    def visit(self, url: str) -> None:
        """Fetch one queued URL, following redirects only while they stay in scope and allowed."""
        chain = {page_key(url)}
        for _ in range(MAX_REDIRECTS + 1):
            if not self.allowed_by_robots(url):
                return self.skip(url, SkipReason.ROBOTS)
            response = self.get(url)
            if not response.is_redirect:
                return self.save(url, response)
            target = clean_url(urljoin(url, response.headers["location"]))
            if not self.in_scope(target):
                return self.skip(target, SkipReason.OUT_OF_SCOPE, f"redirected from {url}")
            key = page_key(target)
            if key in self.seen and key not in chain:
                return self.skip(url, SkipReason.DUPLICATE, f"redirects to {target}")
            chain.add(key)
            self.seen.add(key)
            url = target
        self.report.errors.append(Failure(url, f"more than {MAX_REDIRECTS} redirects"))

    def save(self, url: str, response: httpx.Response) -> None:
        """Save a fetched page if it is a new HTML page, and queue its links."""
        if response.status_code >= 500:
            return self.skip(url, SkipReason.SERVER_ERROR, f"HTTP {response.status_code}, {self.retries + 1} tries")
        if response.status_code != 200:
            return self.report.errors.append(Failure(url, f"HTTP {response.status_code}"))
        media_type = _media_type(response)
        if media_type not in HTML_TYPES:
            return self.skip(url, SkipReason.NOT_HTML, media_type or "no content type")
        try:
            soup = BeautifulSoup(response.content, "html.parser")
        except ParserRejectedMarkup:
            soup = None
            self.report.errors.append(Failure(url, "saved, but its HTML could not be parsed; no links followed"))
        canonical = _canonical_url(soup, url) if soup else url
        key = page_key(canonical)
        if key in self.saved_by_canonical:
            return self.skip(url, SkipReason.DUPLICATE, f"same canonical URL as {self.saved_by_canonical[key]}")
        self.saved_by_canonical[key] = url
        self.seen.add(key)
        file = page_file(url, self.files)
        (self.staging / file).parent.mkdir(parents=True, exist_ok=True)
        (self.staging / file).write_bytes(response.content)
        title = squash_spaces(soup.title.get_text(" ")) if soup and soup.title else ""
        self.report.pages.append(SavedPage(url, canonical, title, file, self.retrieved))
        if soup:
            self.follow_links(soup, url)

    def follow_links(self, soup: BeautifulSoup, base: str) -> None:
        for anchor in soup.find_all("a", href=True):
            target = clean_url(urljoin(base, anchor["href"]))
            key = page_key(target)
            if urlsplit(target).scheme not in ("http", "https") or key in self.seen:
                continue
            self.seen.add(key)
            if self.in_scope(target):
                self.queue.append(target)
            else:
                self.skip(target, SkipReason.OUT_OF_SCOPE)

    def allowed_by_robots(self, url: str) -> bool:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self.robots:
            self.robots[origin] = self.read_robots(origin)
        return self.robots[origin].can_fetch(AGENT, url)

    def read_robots(self, origin: str) -> RobotFileParser:
        """The site's rules, read as urllib would: no file allows all, refused or failing forbids all."""
        rules = RobotFileParser(f"{origin}/robots.txt")
        response = self.get(rules.url, robots_file=True)
        if response.status_code in (401, 403) or response.status_code >= 500:
            rules.disallow_all = True
        elif response.status_code >= 400:
            rules.allow_all = True
        else:
            rules.parse(response.text.splitlines())
            self.delay = max(self.delay, float(rules.crawl_delay(AGENT) or 0))
        return rules

    def get(self, url: str, *, robots_file: bool = False) -> httpx.Response:
        """GET with bounded retries: a server error or timeout is tried again up to `retries` times."""
        for _ in range(self.retries):
            try:
                response = self.get_once(url, robots_file)
            except httpx.TimeoutException:
                continue
            if response.status_code < 500:
                return response
        return self.get_once(url, robots_file)

    def get_once(self, url: str, robots_file: bool) -> httpx.Response:
        """One polite request. A page's redirects are followed by `visit`, which checks each hop's scope; a
        page's body is read only when it can be text, so a PDF is never downloaded."""
        if self.last_request is not None:
            time.sleep(max(0.0, self.last_request + self.delay - time.monotonic()))
        try:
            with self.client.stream("GET", url, follow_redirects=robots_file) as response:
                media_type = _media_type(response)
                if robots_file or not media_type or media_type.startswith("text/") or media_type in HTML_TYPES:
                    response.read()
                return response
        finally:
            self.last_request = time.monotonic()


def _media_type(response: httpx.Response) -> str:
    return response.headers.get("content-type", "").split(";")[0].strip().lower()


def _canonical_url(soup: BeautifulSoup, url: str) -> str:
    """The page's `<link rel=canonical>` when it names a page of the same site, else the URL it was fetched at."""
    link = soup.find("link", rel="canonical", href=True)
    if link is None:
        return url
    canonical = clean_url(urljoin(url, link["href"]))
    return canonical if site_of(canonical) == site_of(url) else url
