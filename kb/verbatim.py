"""The verbatim promise, checked: a shown passage must be findable in the source text it cites."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

from bs4 import BeautifulSoup

from kb.html_page import decode_page

_WHITESPACE = re.compile(r"\s+")


def squeeze(text: str) -> str:
    """Drop all whitespace, so that line breaks and spacing choices do not count as differences."""
    return _WHITESPACE.sub("", text)


def occurs_verbatim(text: str, source_text: str) -> bool:
    """True when every line of `text` occurs, in order and character for character, in `source_text`.

    A passage is shown as lines (a label and its text, a heading); material the law marks as
    repealed or historical may sit between two lines in the source, never inside one.
    """
    haystack = squeeze(source_text)
    position = 0
    for line in text.splitlines():
        needle = squeeze(line)
        if not needle:
            continue
        found = haystack.find(needle, position)
        if found < 0:
            return False
        position = found + len(needle)
    return bool(squeeze(text))


@lru_cache(maxsize=64)
def source_text(path: Path) -> str:
    """The full text of a shipped source file: an XML instrument or a saved HTML page."""
    if path.suffix == ".xml":
        return " ".join(law_text(ET.parse(path).getroot()))
    return BeautifulSoup(decode_page(path.read_bytes()), "html.parser").get_text(" ")


def law_text(element: ET.Element):
    """Every piece of text of an XML instrument but footnote markers and footnotes, which annotate the law."""
    if element.tag in ("FootnoteRef", "Footnote"):
        return
    yield element.text or ""
    for child in element:
        yield from law_text(child)
        yield child.tail or ""
