"""A saved HTML page's bytes as text, decoded one way for both the page splitter and the verbatim check.

Guessing an encoding from the bytes alone (what BeautifulSoup does by default) reads a Latin-1 French page
as Central European and turns "à" into "ŕ". Here the first of these that decodes wins: a byte-order mark,
the charset the page declares, UTF-8, Windows-1252 (the superset of Latin-1 that pages labelled Latin-1
really use). Bytes that decode to no text, or to text that is not an HTML document, are refused rather
than turned into a garbled passage.
"""

from __future__ import annotations

import codecs
import re

BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
DECLARED_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
LATIN_1_LABELS = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "us-ascii", "ascii", "cp819"}
HTML_DOCUMENT = re.compile(r"<\s*(?:!doctype\s+html|html|head|body)[\s>/]", re.IGNORECASE)
MAX_CONTROL_SHARE = 0.01  # control characters in real text are rare; in binary data about one in eight


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
