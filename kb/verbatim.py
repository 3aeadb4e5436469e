"""The verbatim promise, checked: a shown passage is its unit's whole in-force text, word for word.

A passage passes when its words, in order, are exactly the words of its unit as read again from the
shipped source: nothing left out, nothing added from another unit, no two words glued together, no word
changed. Only spacing and line breaks may differ. The reference text is read here, from the XML or the
saved page, without the passage builders of `ingest/`, so that a fault in a builder cannot hide itself.

What the two sides share are rules of the source formats, never the assembly of a unit: for the XML, when
an element is in force, how an element's running text and a label are read and what number a label gives
(`kb/law_xml.py`); for a page, how its bytes are decoded, where its main content is, what is page furniture
and which headings are list steps (`kb/html_page.py`). A fault in a shared rule would be hidden from this
check, so each rule has tests of its own against text written out by hand (tests/ingest: in force, markup,
main content, steps, encodings). Which elements make up a unit, in what order, under which headings, and
where one unit ends and the next begins is decided here and in `ingest/` separately, and that is where a
builder fails: words left out, glued, repeated or taken from the next unit.

For the law, a unit is a section of the body (its marginal note is the passage's title, not its text), an
article of a treaty reproduced in a schedule (with the chapter headings just before it), a treaty's preamble,
final clauses or additional protocol, any other schedule, the enacting text, or the related provisions. Its
in-force text leaves out footnotes, historical notes, provisions not yet in force and provisions whose text
is a repeal notice. For a guide page, a unit is one h1–h3 section of the page's main content, with its heading
as its title.
"""

from __future__ import annotations

import difflib
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag

from foundation.text import squash_spaces
from kb.html_page import decode_page, is_not_content, is_step_heading, main_content
from kb.law_xml import consolidation_date, in_force_on, label_text, part_step, roman_or_arabic, running_text
from kb.passage import Passage, whole_unit

# Annotations printed beside the law, not part of it.
ANNOTATIONS = frozenset({"Footnote", "FootnoteRef", "HistoricalNote", "RecentAmendments"})
# Elements that run on inside a sentence; any other element starts a new piece of text.
INLINE = frozenset({
    "XRefInternal", "XRefExternal", "Emphasis", "DefinedTermEn", "DefinedTermFr", "DefinitionRef",
    "DefinitionEnOnly", "Language", "Sup", "Sub", "Leader", "LeaderRightJustified", "LineBreak", "Repealed",
    "FootnoteRef",
})  # fmt: skip
ARTICLE_HEADING = re.compile(r"^Article\s+([0-9]+|[IVXLC]+|premier|Premier)\b")
SCHEDULE_LABEL = re.compile(r"^(?:SCHEDULE|ANNEXE)\s+([0-9]+|[IVXLC]+)\b")
ADDITIONAL_PROTOCOL = ("additional protocol", "protocole additionnel")


@dataclass(frozen=True)
class Failure:
    """A passage that is not its unit's text, and why, in words a maintainer can act on."""

    passage: str  # doc|lang|unit
    reason: str

    def __str__(self) -> str:
        return f"{self.passage}: {self.reason}"


class VerbatimError(RuntimeError):
    """Passages that are not their units' text; the knowledge base built from them is not switched to."""

    def __init__(self, failures: list[Failure]):
        self.failures = failures
        shown = "\n".join(f"  {failure}" for failure in failures[:20])
        more = f"\n  … and {len(failures) - 20} more" if len(failures) > 20 else ""
        super().__init__(f"{len(failures)} passage(s) are not their unit's text word for word:\n{shown}{more}")


# -- comparing ----------------------------------------------------------------------------------------------


def difference(shown: str, reference: str) -> str | None:
    """None when `shown` has exactly the words of `reference` in order; else the first difference, in words."""
    shown_words, reference_words = shown.split(), reference.split()
    if shown_words == reference_words:
        return None
    if not shown_words:
        return "the passage is empty"
    matcher = difflib.SequenceMatcher(None, reference_words, shown_words, autojunk=False)
    for tag, ref_start, ref_end, shown_start, shown_end in matcher.get_opcodes():
        lost = _quote(reference_words[ref_start:ref_end])
        added = _quote(shown_words[shown_start:shown_end])
        at = f"after {_quote(reference_words[max(0, ref_start - 4) : ref_start])}" if ref_start else "at the start"
        if tag == "delete":
            return f"left out {lost} {at}"
        if tag == "insert":
            return f"not in the unit: {added} {at}"
        if tag == "replace":
            return f"{added} instead of {lost} {at}"
    return "the words differ"  # pragma: no cover - equal word lists returned above


def _quote(words: list[str]) -> str:
    text = " ".join(words)
    return f"“{text[:120]}…”" if len(text) > 120 else f"“{text}”"


def check_passages(passages: Iterable[Passage], sources_dir: Path) -> list[Failure]:
    """Every unit whose shown text (its pieces joined, as the page shows them) is not its reference text, or
    whose law parts are not the law's parts of that unit, each exactly its slice of the text."""
    units: dict[tuple[str, str, str], list[Passage]] = {}
    for passage in passages:
        units.setdefault((passage.doc, passage.lang, passage.unit), []).append(passage)
    failures = []
    for (doc, lang, unit), pieces in units.items():
        shown = whole_unit(pieces)
        failure = check_unit(shown, shown.text, sources_dir) or check_parts(shown, sources_dir)
        if failure:
            failures.append(Failure(f"{doc}|{lang}|{unit}", failure))
    return failures


def check_parts(passage: Passage, sources_dir: Path) -> str | None:
    """Why `passage`'s parts are not its unit's parts as read from the XML, in order, each its exact slice of the
    passage's text and word for word the part's text; None when they are."""
    if passage.kind == "guide":
        return "a guide page has no parts of law" if passage.parts else None
    reference = law_parts(sources_dir / passage.source).get(passage.unit, [])
    labels = [part.label for part in passage.parts]
    if labels != [label for label, _ in reference]:
        missing = [label for label, _ in reference if label not in labels]
        extra = [label for label in labels if label not in dict(reference)]
        return f"its parts are not the law's: missing {missing or 'none'}, not in the law {extra or 'none'}"
    for part, (_, words) in zip(passage.parts, reference, strict=True):
        if passage.text[part.start : part.end] != part.text:
            return f"part {part.label} is not its slice of the text"
        if reason := difference(part.text, words):
            return f"part {part.label}: {reason}"
    return None


def check_unit(passage: Passage, shown: str, sources_dir: Path) -> str | None:
    """Why `shown`, the whole text of `passage`'s unit, is not that unit's text; None when it is."""
    path = sources_dir / passage.source
    if not path.is_file():
        return f"its source {passage.source} is not shipped"
    if passage.kind == "guide":
        candidates = guide_references(path, passage)
        if not candidates:
            return f"no section of {passage.source} has the heading {' › '.join(_chain(passage)) or '(none)'}"
        reasons = [difference(shown, reference) for reference in candidates]
        return None if None in reasons else reasons[0]
    reference = law_units(path).get(passage.unit)
    if reference is None:
        return f"{passage.source} has no unit {passage.unit} in force"
    return difference(shown, reference)


# -- the law, read from its XML ------------------------------------------------------------------------------


Run = tuple[tuple[ET.Element, ...], str]  # the elements from the top down to a run of text, and the text


@lru_cache(maxsize=32)
def law_unit_runs(path: Path) -> dict[str, list[Run]]:
    return LawReader(ET.parse(path).getroot()).unit_runs()


@lru_cache(maxsize=32)
def law_units(path: Path) -> dict[str, str]:
    """unit id -> the unit's in-force text, for one shipped XML instrument (read once per build: callers must not
    change it)."""
    return {unit: "\n".join(text for _, text in runs) for unit, runs in law_unit_runs(path).items()}


@lru_cache(maxsize=32)
def law_parts(path: Path) -> dict[str, list[tuple[str, str]]]:
    """unit id -> (label path, text) of each part of the unit, in document order: the runs under a subsection,
    paragraph, treaty provision or definition, its own marginal note left out. Read once per instrument: the build
    checks every unit against it, and callers must not change it."""
    return {unit: runs_parts(runs) for unit, runs in law_unit_runs(path).items()}


def runs_parts(runs: list[Run]) -> list[tuple[str, str]]:
    parts: dict[int, tuple[str, list[str]]] = {}
    for path, text in runs:
        label = ""
        for depth, element in enumerate(path):
            step = part_step(element)
            if step is None:
                continue
            label += step
            if depth + 1 < len(path) and path[depth + 1].tag == "MarginalNote":
                break
            parts.setdefault(id(element), (label, []))[1].append(text)
    return [(label, "\n".join(texts)) for label, texts in parts.values()]


class LawReader:
    """The in-force text of an instrument's units, read straight from the XML."""

    def __init__(self, root: ET.Element):
        self.root = root
        self.current_to = consolidation_date(root)

    def in_force(self, element: ET.Element) -> bool:
        if element.tag in ANNOTATIONS:
            return False
        return in_force_on(element, self.current_to) and not self.repealed(element)

    @staticmethod
    def repealed(element: ET.Element) -> bool:
        """A provision whose text closes with a repeal notice ("[Repealed, ...]") is no longer law."""
        text = element.find("Text")
        if text is None or not len(text):
            return False
        return text[-1].tag == "Repealed" and not (text[-1].tail or "").strip()

    def pieces(
        self, element: ET.Element, skip: frozenset[str] = frozenset(), path: tuple[ET.Element, ...] = ()
    ) -> Iterator[tuple[tuple[ET.Element, ...], str]]:
        """(elements from the top down to the run, text) for each run of text under `element`, in document
        order; `skip` names child tags of `element` itself to leave out."""
        if not self.in_force(element):
            return
        path = (*path, element)
        if self.runs_on(element):
            yield path, running_text(element, self.in_force)
            return
        for child in element:
            if child.tag not in skip:
                yield from self.pieces(child, path=path)

    @staticmethod
    def runs_on(element: ET.Element) -> bool:
        has_text = (element.text or "").strip() or any((child.tail or "").strip() for child in element)
        return bool(has_text) or any(child.tag in INLINE for child in element)

    def unit_runs(self) -> dict[str, list[Run]]:
        """unit id -> the runs of text that make up the unit, in document order."""
        units: dict[str, list[Run]] = {}
        enacting = next((e for e in self.root if e.tag in ("Order", "Introduction")), None)
        if enacting is not None and self.in_force(enacting):
            units["preamble"] = list(self.pieces(enacting))
        body = self.root.find("Body")
        for section in body.findall("Section") if body is not None else []:
            if self.in_force(section):
                units[section_id(section)] = list(self.pieces(section, skip=frozenset({"MarginalNote"})))
        for schedule in self.root.findall("Schedule"):
            if self.in_force(schedule) and schedule.get("id") != "NifProvs":
                units.update(self.schedule_units(schedule))
        return {unit: runs for unit, runs in units.items() if "".join(text for _, text in runs).split()}

    def schedule_units(self, schedule: ET.Element) -> dict[str, list[Run]]:
        if schedule.get("id") == "RelatedProvs":
            return {"relprov": list(self.pieces(schedule))}
        label = schedule.find("ScheduleFormHeading/Label")
        match = SCHEDULE_LABEL.match(squash_spaces("".join(label.itertext()))) if label is not None else None
        unit = f"sch{roman_or_arabic(match.group(1))}" if match else "sch"
        articles = self.treaty_units(schedule, unit)
        return articles if any("-art" in name for name in articles) else {unit: list(self.pieces(schedule))}

    def treaty_units(self, schedule: ET.Element, unit: str) -> dict[str, list[Run]]:
        """A treaty's text cut into its articles. Headings go with the article (or protocol) that follows them;
        other text before the first article is the preamble, text after the last one the final clauses."""
        units: dict[str, list[Run]] = {}
        waiting: list[Run] = []
        seen_article = False
        for owner, run in self.treaty_pieces(schedule, unit):
            if owner == "heading" or (owner == "text" and seen_article):
                waiting.append(run)
                continue
            if owner == "text":
                owner = f"{unit}-preamble"
            seen_article = seen_article or "-art" in owner
            units.setdefault(owner, []).extend([*waiting, run])
            waiting = []
        if waiting:
            units.setdefault(f"{unit}-final" if seen_article else f"{unit}-preamble", []).extend(waiting)
        return units

    def treaty_pieces(self, schedule: ET.Element, unit: str) -> Iterator[tuple[str, Run]]:
        """(owner, run): owner is an article or protocol unit, "heading" (a heading outside an article),
        or "text" (any other text outside an article)."""
        for path, text in self.pieces(schedule):
            owner = "heading" if any(e.tag in ("GroupHeading", "ScheduleFormHeading") for e in path) else "text"
            for group in (e for e in path if e.tag == "Group"):
                heading = _heading_text(group)
                if article := ARTICLE_HEADING.match(heading):
                    owner = f"{unit}-art{roman_or_arabic(article.group(1))}"
                    break
                if heading.lower().startswith(ADDITIONAL_PROTOCOL):
                    owner = f"{unit}-addprot"
                    break
            yield owner, (path, text)


def _heading_text(group: ET.Element) -> str:
    heading = group.find("GroupHeading")
    return squash_spaces("".join(heading.itertext())) if heading is not None else ""


def section_id(section: ET.Element) -> str:
    """ "s19", "s18.1"; a label naming a range ("11 to 13") gives "s11-13"."""
    label = section.find("Label")
    text = label_text(label)
    return "s" + re.sub(r"\s+", "", re.sub(r"\s+(?:to|à)\s+", "-", text))


# -- guide pages, read from the saved HTML -------------------------------------------------------------------

SECTION_HEADINGS = ("h1", "h2", "h3")
HTML_BLOCKS = frozenset({
    "address", "article", "blockquote", "br", "caption", "dd", "details", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "ol", "p", "pre",
    "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})  # fmt: skip


def guide_references(path: Path, passage: Passage) -> list[str]:
    """The texts of the page's sections that carry `passage`'s headings (several when headings repeat)."""
    chain = _chain(passage)
    return [text for headings, text in page_sections(path) if headings == chain]


def _chain(passage: Passage) -> tuple[str, ...]:
    """The headings over a guide passage; the text before a page's first heading has none."""
    if passage.unit.split("-")[0] == "intro" and not passage.heading_path:
        return ()
    return (*passage.heading_path, passage.title)


@lru_cache(maxsize=64)
def page_sections(path: Path) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(headings, text) for each h1–h3 section of a saved page's main content (the heading is the title)."""
    soup = BeautifulSoup(decode_page(path.read_bytes()), "html.parser")
    main = main_content(soup)
    sections: list[tuple[tuple[str, ...], list[str]]] = [((), [])]
    open_headings: list[tuple[int, str]] = []
    stack: list[Tag | NavigableString | None] = [main]  # None ends a block: a word boundary
    while stack:
        node = stack.pop()
        if node is None:
            sections[-1][1].append("\n")
        elif type(node) is NavigableString:  # text, not a comment, declaration or script
            sections[-1][1].append(str(node))
        elif isinstance(node, Tag) and not is_not_content(node):
            if node.name in SECTION_HEADINGS and not is_step_heading(node):
                level, title = int(node.name[1]), squash_spaces(node.get_text(" "))
                open_headings = [(lv, text) for lv, text in open_headings if lv < level] + [(level, title)]
                sections.append((tuple(text for _, text in open_headings), []))
                continue  # the heading is the passage's title, not part of its text
            block = node.name in HTML_BLOCKS
            stack.extend([None] if block else [])
            stack.extend(reversed(list(node.children)))
            stack.extend([None] if block else [])
    return tuple((headings, "".join(pieces)) for headings, pieces in sections if "".join(pieces).split())


