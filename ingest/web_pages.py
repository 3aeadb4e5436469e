"""Saved guide pages turned into verbatim passages: the main content only, one passage per h1–h3 section.

A passage is the lines of one section, each line the text of one block of the page (a paragraph, a list
item, a table cell) exactly as `get_text` reads it, so the verbatim check holds against the saved file.
Navigation, headers, footers, asides, cookie banners, skip links and scripts are left out. Steps stay
together: headings inside an ordered list, or headings such as "Step 1" / "Étape 1", do not start a new
passage, because a step makes sense only with the others.

The splitters of langchain-text-splitters are not used: HTMLHeaderTextSplitter reads only an element's own
strings, so "You can <a>file a complaint</a> today." comes out as the lines "You can today." and "file a
complaint", which breaks the verbatim promise; neither it nor HTMLSectionSplitter keeps header ids, which
the passages' anchors need.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.exceptions import ParserRejectedMarkup

from ingest.snapshot import MANIFEST, SavedPage, read_manifest
from kb.html_page import NotAnHtmlPage, decode_page
from kb.passage import Passage
from retrieval.language import detect_language

SPLIT_HEADINGS = ["h1", "h2", "h3"]
BLOCKS = frozenset({
    "address", "article", "blockquote", "br", "caption", "dd", "details", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "main", "ol", "p", "pre",
    "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})  # fmt: skip
BOILERPLATE_TAGS = frozenset({
    "aside", "button", "dialog", "footer", "form", "head", "iframe", "nav", "noscript", "script", "select",
    "style", "svg", "template",
})  # fmt: skip
BOILERPLATE_ROLES = frozenset(
    {"alertdialog", "banner", "complementary", "contentinfo", "dialog", "navigation", "search"}
)
BOILERPLATE_MARKS = ("cookie", "consent", "skip-link", "skiplink", "skip-to")  # in an id or class
SKIP_LINK_TEXT = ("skip to", "passer au", "aller au")
STEP_HEADING = re.compile(r"^\s*(step|étape)\s*\d+", re.IGNORECASE)


class MalformedPageWarning(UserWarning):
    """A saved page could not be read; it is left out and the other pages still load."""


class MalformedPage(ValueError):
    pass


def load_web_passages(snapshot_dir: Path) -> list[Passage]:
    """All passages of the pages in a crawl snapshot (`kb/sources/web`); no network is used.

    `source` is each page's file relative to the snapshot's parent directory, the sources root. A page that
    cannot be read is skipped with a MalformedPageWarning naming its file.
    """
    snapshot_dir = Path(snapshot_dir)
    if not (snapshot_dir / MANIFEST).is_file():
        return []
    passages = []
    for page in read_manifest(snapshot_dir):
        path = snapshot_dir / page.file
        source = path.relative_to(snapshot_dir.parent).as_posix()
        try:
            passages.extend(page_passages(page, path.read_bytes(), source))
        except (OSError, MalformedPage, NotAnHtmlPage, ParserRejectedMarkup) as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            warnings.warn(f"Skipped {source}: {reason}", MalformedPageWarning, stacklevel=2)
        except Exception as error:  # noqa: BLE001 - one page the splitter cannot handle must not stop the build
            warnings.warn(f"Skipped {source}: {type(error).__name__}: {error}", MalformedPageWarning, stacklevel=2)
    return passages


def page_passages(page: SavedPage, html: bytes, source: str) -> list[Passage]:
    """The passages of one saved page, decoded and parsed as `kb.verbatim.source_text` does."""
    soup = BeautifulSoup(decode_page(html), "html.parser")
    if soup.find() is None:
        raise MalformedPage("no HTML elements")
    reader = _SectionReader({id(string) for string in soup.strings})
    main = _main_content(soup)
    reader.read(main)
    instrument = page.title or page.url
    doc = page.canonical_url
    lang = _language(soup, main)
    units = Counter()
    passages = []
    for section in reader.sections:
        if not section.lines:
            continue
        unit = section.anchor or _slug(" ".join(section.headings)) or "intro"
        units[unit] += 1
        if units[unit] > 1:
            unit = f"{unit}-{units[unit]}"
        passages.append(
            Passage(
                doc=doc,
                unit=unit,
                lang=lang,
                title=section.headings[-1] if section.headings else instrument,
                heading_path=section.headings[:-1],
                instrument=instrument,
                url=f"{page.url}#{section.anchor}" if section.anchor else page.url,
                text="\n".join(section.lines),
                source=source,
                kind="guide",
            )
        )
    if not passages:
        raise MalformedPage("no readable text in its main content")
    return passages


@dataclass
class _Section:
    headings: tuple[str, ...]
    anchor: str
    lines: list[str] = field(default_factory=list)


class _SectionReader:
    """Walks the main content in document order, cutting it into sections at h1–h3 and into lines at blocks.

    Only the strings `get_text` reads (`visible`, by identity) are kept, and anything left out ends the
    line, so every line is a run of consecutive page text.
    """

    def __init__(self, visible: set[int]) -> None:
        self.visible = visible
        self.open_headings: list[tuple[int, str, str]] = []  # level, text, anchor
        self.sections = [_Section((), "")]
        self.pieces: list[str] = []

    def read(self, main: Tag) -> None:
        self.walk(main)
        self.end_line()

    def walk(self, node: Tag) -> None:
        """Depth first with an explicit stack, so thousands of nested elements cannot exhaust Python's stack."""
        levels = [(iter(node.children), False)]  # children still to read, and whether leaving ends a line
        while levels:
            child = next(levels[-1][0], None)
            if child is None:
                if levels.pop()[1]:
                    self.end_line()
            elif isinstance(child, NavigableString):
                if id(child) in self.visible:
                    self.pieces.append(str(child))
            elif not isinstance(child, Tag):
                continue
            elif _is_boilerplate(child):
                self.end_line()
            elif child.name in SPLIT_HEADINGS and not _is_step(child):
                self.start_section(child)
            else:
                if child.name in BLOCKS:
                    self.end_line()
                levels.append((iter(child.children), child.name in BLOCKS))

    def end_line(self) -> None:
        line = " ".join("".join(self.pieces).split())
        if line:
            self.sections[-1].lines.append(line)
        self.pieces.clear()

    def start_section(self, heading: Tag) -> None:
        self.end_line()
        level = int(heading.name[1])
        while self.open_headings and self.open_headings[-1][0] >= level:
            self.open_headings.pop()
        anchor = _anchor(heading)
        self.open_headings.append((level, " ".join(heading.get_text(" ").split()), anchor))
        self.sections.append(_Section(tuple(text for _, text, _ in self.open_headings), anchor))


def _main_content(soup: BeautifulSoup) -> Tag:
    return soup.find("main") or soup.find(attrs={"role": "main"}) or soup.find("article") or soup.body or soup


def _is_boilerplate(tag: Tag) -> bool:
    if tag.name in BOILERPLATE_TAGS:
        return True
    if tag.name == "header" and tag.find_parent(["main", "article"]) is None:
        return True
    if tag.get("role") in BOILERPLATE_ROLES or tag.has_attr("hidden") or tag.get("aria-hidden") == "true":
        return True
    marks = " ".join([tag.get("id") or "", *(tag.get("class") or [])]).lower()
    if any(mark in marks for mark in BOILERPLATE_MARKS):
        return True
    return tag.name == "a" and tag.get_text(" ").strip().lower().startswith(SKIP_LINK_TEXT)


def _is_step(heading: Tag) -> bool:
    return heading.find_parent("ol") is not None or bool(STEP_HEADING.match(heading.get_text(" ")))


def _anchor(heading: Tag) -> str:
    """The heading's own id, a named anchor inside it, or the id of the section it opens."""
    if heading.get("id"):
        return heading["id"]
    inner = heading.find(id=True) or heading.find("a", attrs={"name": True})
    if inner is not None:
        return inner.get("id") or inner["name"]
    parent = heading.parent
    opens_section = parent is not None and parent.name in ("section", "article", "div")
    if opens_section and parent.get("id") and parent.find(SPLIT_HEADINGS) is heading:
        return parent["id"]
    return ""


def _language(soup: BeautifulSoup, main: Tag) -> str:
    """The language the page declares, else the one its main content is written in."""
    html = soup.find("html")
    lang = (html.get("lang") or html.get("xml:lang") or "") if html else ""
    return lang.split("-")[0].lower() or detect_language(main.get_text(" "))


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
