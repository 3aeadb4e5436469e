"""Saved guide pages turned into verbatim passages: the main content only, one passage per h1–h3 section.

A passage is the lines of one section, each line the text of one block of the page (a paragraph, a list
item, a table cell), so the unit-complete check (`kb.verbatim`) holds against the saved file. Navigation,
headers, footers, asides, cookie banners, skip links and scripts are left out (`kb.html_page`). Steps stay together:
headings inside an ordered list, or headings such as "Step 1" / "Étape 1", do not start a new passage,
because a step makes sense only with the others.

The sections are cut by langchain-text-splitters' HTMLSectionSplitter, which reads every string between two
headings in document order. It joins strings with a space, so "<a>Agency</a>." would read "Agency ."; the
content it is given is therefore first made plain: the boilerplate is removed, inline elements are
unwrapped so that a block's text is one string, and each block is put on a line of its own. (Its sibling
HTMLHeaderTextSplitter reads only an element's own strings and moves link text out of its sentence.)
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
from langchain_text_splitters import HTMLSectionSplitter
from lxml import etree

from foundation.text import detect_language, squash_spaces
from kb.html_page import NotAnHtmlPage, decode_page, is_not_content, is_step_heading, main_content
from kb.passage import Passage
from kb.sources import MANIFEST, SavedPage, read_pages

SPLIT_HEADINGS = ["h1", "h2", "h3"]
BLOCKS = frozenset({
    "address", "article", "blockquote", "br", "caption", "dd", "details", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "main", "ol", "p", "pre",
    "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})  # fmt: skip
_SPACES = re.compile(r"\s+")


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
    for page in read_pages(snapshot_dir):
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
    """The passages of one saved page: its main content cut into sections, each section a passage."""
    soup = BeautifulSoup(decode_page(html), "html.parser")
    if soup.find() is None:
        raise MalformedPage("no HTML elements")
    main = main_content(soup)
    lang = _language(soup, main)
    sections = _split_sections(main)
    instrument = page.title or page.url
    doc = page.canonical_url
    units = Counter()
    passages = []
    for section in sections:
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


def _split_sections(main: Tag) -> list[_Section]:
    """The main content cut at h1–h3 by HTMLSectionSplitter; `main` is made plain in place first."""
    headings = [
        (int(h.name[1]), squash_spaces(h.get_text(" ")), _anchor(h))
        for h in main.find_all(SPLIT_HEADINGS)
        if not is_step_heading(h) and not any(is_not_content(tag) for tag in (h, *h.parents))
    ]
    html = _plain_html(main)
    splitter = HTMLSectionSplitter(headers_to_split_on=[(name, name) for name in SPLIT_HEADINGS])
    try:
        documents = splitter.split_text(html)
    except etree.LxmlError as error:
        raise MalformedPage(f"its content could not be split into sections ({error})") from error
    sections, open_headings, next_heading = [], [], 0
    for document in documents:
        lines = [squash_spaces(line) for line in document.page_content.split("\n")]
        lines = [line for line in lines if line]
        ((_, title),) = document.metadata.items()
        if title == "#TITLE#":  # the text before the first heading
            sections.append(_Section((), "", lines))
            continue
        while next_heading < len(headings):  # headings of empty sections still open a level
            level, text, anchor = headings[next_heading]
            next_heading += 1
            open_headings = [h for h in open_headings if h[0] < level] + [(level, text, anchor)]
            if text == squash_spaces(title):
                break
        if lines and lines[0] == open_headings[-1][1]:
            lines = lines[1:]  # the heading is the passage's title
        sections.append(_Section(tuple(text for _, text, _ in open_headings), open_headings[-1][2], lines))
    return sections


def _plain_html(main: Tag) -> str:
    """`main` as a flat document: h1–h3 headings and lines of plain text, one line per block, nothing else."""
    for tag in main.find_all(True):
        if not tag.decomposed and is_not_content(tag):
            tag.decompose()
    for string in list(main.descendants):
        if not isinstance(string, NavigableString):
            continue
        if type(string) is NavigableString:  # the line breaks left are the ones between blocks
            string.replace_with(_SPACES.sub(" ", string))
        else:  # comments, CDATA, declarations: nothing a reader sees
            string.extract()
    headings = {id(tag) for tag in main.find_all(SPLIT_HEADINGS) if not is_step_heading(tag)}
    inline = []
    for tag in main.find_all(True):
        if tag.name in BLOCKS:
            tag.insert_before("\n")
            tag.insert_after("\n")
        if id(tag) in headings:
            tag.attrs = {}
        else:
            inline.append(tag)
    for tag in inline:
        tag.unwrap()
    main.smooth()
    return f"<html><body>{main.decode_contents()}</body></html>"


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
