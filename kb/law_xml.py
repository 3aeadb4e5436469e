"""Justice Canada XML, read at the lowest level one way for both the passage builder (`ingest/laws.py`) and the
verbatim check (`kb/verbatim.py`): which date an element comes into force, an element's running text, a
label's text and the number a label gives ("IV", "premier").

These are rules of the format, not of how a unit is assembled: each side still decides on its own which
elements make up a unit and in what order, so a fault in the builder's assembly is still caught.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable

LIMS = "{http://justice.gc.ca/lims}"
FOOTNOTES = ("FootnoteRef", "Footnote")
ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def consolidation_date(root: ET.Element) -> str:
    """The date the consolidation is current to (ISO, so dates compare as text); far future when unstated."""
    return root.get(f"{LIMS}current-date", "9999-12-31")


def in_force_on(element: ET.Element, current_to: str) -> bool:
    """Not marked out of force, and in force from a date no later than `current_to` (or from no stated date)."""
    if element.get("in-force") == "no":
        return False
    start = element.get(f"{LIMS}inforce-start-date")
    return start is None or start <= current_to


def running_text(element: ET.Element, keep: Callable[[ET.Element], bool]) -> str:
    """The element's text as written, spaces at its edges kept: they separate it from the words around it.
    A line break reads as a space; footnotes and children that `keep` refuses are left out, their tails kept."""
    parts = [element.text or ""]
    for child in element:
        if child.tag == "LineBreak":
            parts.append(" ")
        elif child.tag not in FOOTNOTES and keep(child):
            parts.append(running_text(child, keep))
        parts.append(child.tail or "")
    return "".join(parts)


def label_text(label: ET.Element | None) -> str:
    """A label's words ("19", "(1)", "SCHEDULE VI"), footnote markers left out, spaces squashed."""
    if label is None:
        return ""
    parts = [label.text or ""]
    for child in label:
        if child.tag not in FOOTNOTES:
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return " ".join("".join(parts).split())


def roman_or_arabic(token: str) -> int:
    """The number of "12", "XII" or "premier" (the French first)."""
    if token.lower() == "premier":
        return 1
    if token.isdigit():
        return int(token)
    values = [ROMAN[c] for c in token.upper()]
    return sum(-v if i + 1 < len(values) and values[i + 1] > v else v for i, v in enumerate(values))


# The law's own divisions below a unit, each a part a passenger can be pointed to.
PART_TAGS = frozenset({"Subsection", "Paragraph", "Subparagraph", "Clause", "Subclause", "Subsubclause", "Provision",
                       "Item", "Definition"})  # fmt: skip


def part_step(element: ET.Element) -> str | None:
    """One step of a part's label path: "(1)", "(a)" (the French "a)" too), a treaty provision's "2" as "(2)", a
    definition's English term in double quotes; None for an element that is not a part of its own."""
    if element.tag not in PART_TAGS:
        return None
    if element.tag == "Definition":
        term = element.find("Text/DefinedTermEn")
        return f'"{" ".join("".join(term.itertext()).split())}"' if term is not None else None
    label = label_text(element.find("Label"))
    return f"({label.strip('()')})" if label else None
