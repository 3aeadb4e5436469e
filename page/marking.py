"""A unit of law with the parts that answer the question marked: styling only, every word the law's own.

The law's text is escaped before it goes into HTML, so nothing in it can become markup or a link; the only
tags added are the marks around the pinpointed parts and the block that keeps the law's line breaks.
"""

from __future__ import annotations

import html
import re

from kb.passage import LawPart, Passage

SECTION_UNIT = re.compile(r"^s(\d[\w.]*)$")
UNIT_STYLE = "white-space: pre-wrap; line-height: 1.6"  # the law's line breaks kept, in the page's own font
MARK_STYLE = "background-color: #ffe08a; color: inherit; border-radius: 0.2rem; padding: 0 0.1rem"


def marked_html(text: str, parts: tuple[LawPart, ...]) -> str:
    """`text` as HTML with each of `parts` (not nested in one another) inside a <mark>."""
    pieces, at = [], 0
    for part in sorted(parts, key=lambda p: p.start):
        if part.start < at:
            continue  # inside a part already marked
        pieces.append(html.escape(text[at : part.start]))
        pieces.append(f'<mark style="{MARK_STYLE}">{html.escape(text[part.start : part.end])}</mark>')
        at = part.end
    pieces.append(html.escape(text[at:]))
    return f'<div class="law-unit" style="{UNIT_STYLE}">{"".join(pieces)}</div>'


def part_reference(passage: Passage, part: LawPart) -> tuple[str, dict[str, str]]:
    """The wording key and values that name where `part` sits: a section's subsection ("19(1)(a)(ii)"), or the
    title of an article or schedule with the part's label path."""
    if match := SECTION_UNIT.match(passage.unit):
        return "pinpointed_section", {"reference": f"{match.group(1)}{part.label}"}
    return "pinpointed_other", {"title": passage.title, "label": part.label}
