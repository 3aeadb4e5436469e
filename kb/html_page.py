"""A saved HTML page read one way for both the page splitter and the verbatim check: its bytes as text, where
its main content is, which elements in it are not content (navigation, cookie banners, scripts, skip links)
and which headings are steps of a list rather than sections.

Guessing an encoding from the bytes alone (what BeautifulSoup does by default) reads a Latin-1 French page
as Central European and turns "à" into "ŕ". Here the first of these that decodes wins: a byte-order mark,
the charset the page declares, UTF-8, Windows-1252 (the superset of Latin-1 that pages labelled Latin-1
really use). Bytes that decode to no text, or to text that is not an HTML document, are refused rather
than turned into a garbled passage.
"""

from __future__ import annotations

import codecs
import re

from bs4 import BeautifulSoup, Tag

BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
DECLARED_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
LATIN_1_LABELS = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "us-ascii", "ascii", "cp819"}
HTML_DOCUMENT = re.compile(r"<\s*(?:!doctype\s+html|html|head|body)[\s>/]", re.IGNORECASE)
MAX_CONTROL_SHARE = 0.01  # control characters in real text are rare; in binary data about one in eight
NOT_CONTENT_TAGS = frozenset({
    "aside", "button", "dialog", "footer", "form", "head", "iframe", "nav", "noscript", "script", "select",
    "style", "svg", "template",
})  # fmt: skip
NOT_CONTENT_ROLES = frozenset(
    {"alertdialog", "banner", "complementary", "contentinfo", "dialog", "navigation", "search"}
)
NOT_CONTENT_MARKS = ("cookie", "consent", "skip-link", "skiplink", "skip-to")  # in an id or class
SKIP_LINK_TEXT = ("skip to", "passer au", "aller au")
STEP_HEADING = re.compile(r"^\s*(step|étape)\s*\d+", re.IGNORECASE)


class NotAnHtmlPage(ValueError):
    """The bytes are not an HTML page in any encoding a page could be in."""


def decode_page(raw: bytes) -> str:
    """The page's text; NotAnHtmlPage (with the reason) for binary data or a document that is not HTML."""
    text = _decode(raw)
    controls = sum(1 for char in text if _is_control(char))
    if text and controls / len(text) > MAX_CONTROL_SHARE:
        raise NotAnHtmlPage(f"binary data, not text ({controls:,} control characters in {len(text):,})")
    if not HTML_DOCUMENT.search(text):
        raise NotAnHtmlPage("not an HTML document (no <html>, <head> or <body>)")
    return text


def _decode(raw: bytes) -> str:
    for bom, encoding in BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding)
            except UnicodeDecodeError:
                raise NotAnHtmlPage(f"its bytes are not the {encoding} text its byte-order mark announces") from None
    encodings = ["utf-8", "cp1252"]
    declared = DECLARED_CHARSET.search(raw[:4096])
    if declared:
        label = declared.group(1).decode("ascii").lower()
        if not label.startswith("utf-16"):  # a page read as ASCII cannot be UTF-16, whatever it says
            encodings.insert(0, "cp1252" if label in LATIN_1_LABELS else label)
    for encoding in encodings:
        try:
            return raw.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
    raise NotAnHtmlPage("its bytes are text in neither its declared character set, UTF-8 nor Windows-1252")


def _is_control(char: str) -> bool:
    code = ord(char)
    return (code < 32 and char not in "\t\n\r\f") or 0x7F <= code <= 0x9F or code == 0xFFFD


def main_content(soup: BeautifulSoup) -> Tag:
    """The page's <main>, else its role="main" element, its <article>, its body, or the whole document."""
    return soup.find("main") or soup.find(attrs={"role": "main"}) or soup.find("article") or soup.body or soup


def is_not_content(tag: Tag) -> bool:
    """Page furniture: navigation, forms, scripts, hidden elements, cookie banners, a site header, skip links."""
    if tag.name in NOT_CONTENT_TAGS or tag.has_attr("hidden") or tag.get("aria-hidden") == "true":
        return True
    if tag.name == "header" and tag.find_parent(["main", "article"]) is None:
        return True
    if tag.get("role") in NOT_CONTENT_ROLES:
        return True
    marks = " ".join([tag.get("id") or "", *(tag.get("class") or [])]).lower()
    if any(mark in marks for mark in NOT_CONTENT_MARKS):
        return True
    return tag.name == "a" and tag.get_text(" ").strip().lower().startswith(SKIP_LINK_TEXT)


def is_step_heading(heading: Tag) -> bool:
    """A heading inside a numbered list, or reading "Step 2 …": part of its section, not a section of its own."""
    return heading.find_parent("ol") is not None or bool(STEP_HEADING.match(heading.get_text(" ")))
