"""Official Canadian law (Justice Canada XML) turned into verbatim passages, one per unit of law.

Units follow the evaluation set's definition: a section of the body, a treaty article in a schedule of
the Carriage by Air Act, any other schedule as a whole, the enacting text. Only the text in force is kept:
repealed provisions, amendments not yet in force, historical notes and footnotes are left out. Each
passage is a list of lines (a label and its text, a marginal note, a heading), so that every line is the
law's own words and the whole reads as the official page does.
"""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from pathlib import Path

from foundation.text import squash_spaces
from kb.law_xml import consolidation_date, in_force_on, label_text, part_step, roman_or_arabic, running_text
from kb.passage import LawPart, Passage
from kb.sources import Instrument, SourceError, read_instruments

MAX_PART_CHARS = 1500  # a longer section is indexed in pieces, cut only between subsections

BLOCKS = {
    "Section", "Subsection", "Paragraph", "Subparagraph", "Clause", "Subclause", "Subsubclause",
    "Definition", "Provision", "ContinuedSectionSubsection", "ContinuedParagraph", "ContinuedSubparagraph",
    "ContinuedClause", "ContinuedDefinition", "ContinuedFormulaParagraph", "FormulaGroup", "Formula",
    "FormulaDefinition", "FormulaParagraph", "Heading", "GroupHeading", "List", "Item", "ScheduleFormHeading",
    "Group", "DocumentInternal", "TableGroup", "table", "tgroup", "thead", "tbody", "BillPiece", "Order",
    "Introduction", "Preamble", "Enacts", "SignatureBlock", "SignatureLine",
}  # fmt: skip
NOT_SHOWN = {"HistoricalNote", "Footnote", "FootnoteRef", "colspec", "RecentAmendments", "Label", "MarginalNote"}
LINE_TEXT = {"Text", "TitleText", "Caption", "FormulaText", "FormulaTerm", "FormulaConnector", "OriginatingRef",
             "SignatureName", "SignatureTitle", "title", "Leader"}  # fmt: skip

ADDITIONAL_PROTOCOL = ("additional protocol", "protocole additionnel")
ARTICLE = re.compile(r"^Article\s+([0-9]+|[IVXLC]+|premier|Premier)\b")
SCHEDULE_NUMBER = re.compile(r"^(?:SCHEDULE|ANNEXE)\s+([0-9]+|[IVXLC]+)\b")

# (unit, article heading, chapter, lines, the elements whose lines they are)
TreatyUnit = tuple[str, str, str, list[str], list[ET.Element]]

LABELS = {
    "en": {"preamble": "Enacting text", "section": "Section", "related": "Related provisions"},
    "fr": {"preamble": "Texte d’édiction", "section": "Article", "related": "Dispositions connexes"},
}


def load_law_passages(sources_dir: Path) -> list[Passage]:
    """All passages of all instruments in the manifest; an unreadable file is skipped with a named warning,
    and so is one that yields no passage (XML, but not a Justice Canada instrument)."""
    instruments = read_instruments(sources_dir)
    passages: list[Passage] = []
    for instrument in instruments:
        path = sources_dir / instrument.file
        try:
            root = ET.parse(path).getroot()
            found = list(InstrumentReader(instrument, root).passages())
        except (ET.ParseError, OSError) as error:
            warnings.warn(f"Skipped {instrument.file}: {error}", stacklevel=2)
            continue
        except Exception as error:  # noqa: BLE001 - one file the reader cannot handle must not stop the build
            warnings.warn(f"Skipped {instrument.file}: {type(error).__name__}: {error}", stacklevel=2)
            continue
        if not found:
            warnings.warn(
                f"{instrument.file} yielded no passages: its root element <{root.tag}> holds no section of law "
                "in the Justice Canada format",
                stacklevel=2,
            )
        passages.extend(found)
    if not passages:
        raise SourceError(f"No passages could be read from the instruments in {sources_dir}.")
    return passages




def section_unit(section: ET.Element) -> str:
    label = re.sub(r"\s+(?:to|à)\s+", "-", label_text(section.find("Label")))
    return "s" + re.sub(r"\s+", "", label)


def is_only_repealed(element: ET.Element) -> bool:
    """A provision whose text ends in a "[Repealed, ...]" notice (after at most its defined term): not in force."""
    if element.tag == "Repealed":
        return True
    text = element.find("Text")
    if text is None:
        return element.find("Repealed") is not None and not any(c.tag in BLOCKS for c in element)
    repealed = text.find("Repealed")
    return repealed is not None and not (repealed.tail or "").strip() and repealed is text[-1]


class InstrumentReader:
    """Reads one XML instrument into passages; knows the document's dates and web addresses."""

    def __init__(self, instrument: Instrument, root: ET.Element):
        self.instrument = instrument
        self.root = root
        self.current_to = consolidation_date(root)
        self.labels = LABELS[instrument.lang]

    # -- what is in force -------------------------------------------------------------------------

    def in_force(self, element: ET.Element) -> bool:
        return in_force_on(element, self.current_to)

    # -- rendering lines --------------------------------------------------------------------------

    def inline(self, element: ET.Element) -> str:
        """Text of a Text-like element, footnote markers left out."""
        return squash_spaces(running_text(element, self.in_force))

    def cell(self, entry: ET.Element) -> str:
        """A table cell: its text, or the lines of the blocks it holds (a signature block) side by side."""
        if (entry.text or "").strip() or not any(child.tag in BLOCKS or child.tag in LINE_TEXT for child in entry):
            return self.inline(entry)
        return " ".join(self.lines(entry))

    def lines(self, element: ET.Element, prefix: str = "") -> list[str]:
        """The lines a reader sees for one element; `prefix` is a parent's label that shares the first line."""
        if element.tag in NOT_SHOWN or not self.in_force(element) or is_only_repealed(element):
            return []
        if element.tag == "row":
            cells = [self.cell(entry) for entry in element]
            return ["    ".join(cell for cell in cells if cell)] if any(cells) else []
        out: list[str] = []
        note = element.find("MarginalNote")
        if note is not None:  # a body section's note is its passage's title; this is a section in a schedule
            out.append(self.inline(note))
        head = squash_spaces(f"{prefix} {label_text(element.find('Label'))}")
        for child in element:
            if child.tag in NOT_SHOWN or not self.in_force(child):
                continue
            if head and is_only_repealed(child):  # the label stands alone, as on the official page
                out.append(head)
                head = ""
            if child.tag in LINE_TEXT:
                text = self.inline(child)
                if text:
                    out.append(squash_spaces(f"{head} {text}"))
                    head = ""
            else:
                child_lines = self.lines(child, prefix=head)
                if child_lines:
                    head = ""
                out.extend(child_lines)
        if head and (out or element.tag == "GroupHeading"):  # "Article 2" heads its article even with no title
            out.insert(0, head)
        return [line for line in out if line]

    # -- units ------------------------------------------------------------------------------------

    def passages(self) -> Iterator[Passage]:
        yield from self.preamble()
        yield from self.body()
        for schedule in self.root.findall("Schedule"):
            if self.in_force(schedule):
                yield from self.schedule(schedule)

    def passage(
        self,
        unit: str,
        title: str,
        heading_path: tuple[str, ...],
        url: str,
        blocks: list[list[str]],
        elements: list[ET.Element],
    ):
        """One passage per unit, or several pieces (`part`) of at most MAX_PART_CHARS cut between blocks; each
        carries the law's parts (`elements`' subsections, paragraphs…) that lie in it."""
        pieces: list[list[str]] = [[]]
        for block in blocks:
            size = sum(len(line) + 1 for line in pieces[-1])
            if pieces[-1] and size + sum(len(line) + 1 for line in block) > MAX_PART_CHARS:
                pieces.append([])
            pieces[-1].extend(block)
        unit_parts = self.law_parts(elements, "\n".join(line for block in blocks for line in block))
        offset = 0
        for number, lines in enumerate(p for p in pieces if p):
            text = "\n".join(lines)
            inside = [p.shifted(-offset) for p in unit_parts if offset <= p.start and p.end <= offset + len(text)]
            offset += len(text) + 1
            yield Passage(
                doc=self.instrument.doc,
                unit=unit,
                lang=self.instrument.lang,
                title=title,
                heading_path=heading_path,
                instrument=self.instrument.instrument,
                url=url,
                text=text,
                source=self.instrument.file,
                part=number,
                parts=tuple(inside),
            )

    def law_parts(self, elements: list[ET.Element], text: str) -> list[LawPart]:
        """Each in-force part under `elements`, found in the unit's `text` in document order. A part's text is
        its own lines without its marginal note, which may share a line with its parent's label in the unit."""
        found: list[LawPart] = []

        def walk(children: Iterable[ET.Element], path: str, cursor: int) -> int:
            for child in children:
                if child.tag in NOT_SHOWN or not self.in_force(child) or is_only_repealed(child):
                    continue
                step = part_step(child)
                if step is None:
                    cursor = walk(child, path, cursor)
                    continue
                lines = self.lines(child)
                note = child.find("MarginalNote")
                if note is not None and lines and lines[0] == self.inline(note):
                    lines = lines[1:]
                words = "\n".join(lines)
                start = text.find(words, cursor) if words else -1
                if start < 0:
                    continue  # the verbatim check names a part the unit's text lacks
                found.append(LawPart(path + step, words, start, start + len(words)))
                walk(child, path + step, start)
                cursor = start + len(words)
            return cursor

        walk(elements, "", 0)
        return found

    def page_url(self, page: str) -> str:
        return self.instrument.url + page

    @property
    def full_text_url(self) -> str:
        return self.page_url("TexteComplet.html" if self.instrument.lang == "fr" else "FullText.html")

    def preamble(self) -> Iterator[Passage]:
        enacting = self.root.find("Order")
        if enacting is None:
            enacting = self.root.find("Introduction")
        if enacting is None:
            return
        lines = self.lines(enacting)
        if lines:
            yield from self.passage("preamble", self.labels["preamble"], (), self.full_text_url, [lines], [enacting])

    def body(self) -> Iterator[Passage]:
        headings: dict[int, str] = {}
        body = self.root.find("Body")
        if body is None:
            return
        page = "article" if self.instrument.lang == "fr" else "section"
        for element in body:
            if not self.in_force(element):
                continue
            if element.tag == "Heading":
                level = int(element.get("level", "1"))
                headings = {k: v for k, v in headings.items() if k < level}
                headings[level] = squash_spaces(f"{label_text(element.find('Label'))} {self.inline_title(element)}")
            elif element.tag == "Section" and not is_only_repealed(element):
                blocks = self.section_blocks(element)
                if not blocks:
                    continue
                unit = section_unit(element)
                number = unit[1:].split("-")[0]
                note = element.find("MarginalNote")
                title = self.inline(note) if note is not None else f"{self.labels['section']} {number}"
                path = tuple(headings[k] for k in sorted(headings))
                yield from self.passage(unit, title, path, self.page_url(f"{page}-{number}.html"), blocks, [element])

    def inline_title(self, heading: ET.Element) -> str:
        title = heading.find("TitleText")
        return self.inline(title) if title is not None else ""

    def section_blocks(self, section: ET.Element) -> list[list[str]]:
        """A section's lines grouped by subsection, so a long section can be cut between them."""
        label = label_text(section.find("Label"))
        blocks: list[list[str]] = []
        head = label
        for child in section:
            if child.tag in NOT_SHOWN or not self.in_force(child):
                continue
            if head and is_only_repealed(child):  # the label stands alone, as on the official page
                blocks.append([head])
                head = ""
            if child.tag in LINE_TEXT:
                lines = [squash_spaces(f"{head} {self.inline(child)}")]
            else:
                lines = self.lines(child, prefix=head)
            if lines:
                head = ""
                if child.tag == "Subsection" or not blocks:
                    blocks.append(lines)
                else:
                    blocks[-1].extend(lines)
        return blocks

    def schedule(self, schedule: ET.Element) -> Iterator[Passage]:
        schedule_id = schedule.get("id", "")
        if schedule_id == "NifProvs":  # amendments not in force
            return
        heading = schedule.find("ScheduleFormHeading")
        label = label_text(heading.find("Label")) if heading is not None else ""
        match = SCHEDULE_NUMBER.match(label)
        number = str(roman_or_arabic(match.group(1))) if match else ""
        url = self.full_text_url
        if schedule_id == "RelatedProvs":
            yield from self.passage("relprov", self.labels["related"], (), url, [self.lines(schedule)], [schedule])
            return
        unit = f"sch{number}"
        title = self.schedule_title(heading) or label
        articles = list(self.treaty_articles(schedule, unit)) if self.instrument.doc == "C-26" else []
        if not any("-art" in article[0] for article in articles):
            yield from self.passage(unit, title, (), url, [self.lines(schedule)], [schedule])
            return
        for article_unit, article_title, chapter, lines, elements in articles:
            path = (title, chapter) if chapter else (title,)
            yield from self.passage(article_unit, article_title, path, url, [lines], elements)

    def schedule_title(self, heading: ET.Element | None) -> str:
        if heading is None:
            return ""
        label = label_text(heading.find("Label"))
        title = heading.find("TitleText")
        return squash_spaces(f"{label} {self.inline(title)}") if title is not None else label

    def treaty_articles(self, schedule: ET.Element, unit: str) -> Iterator[TreatyUnit]:
        """(unit, article heading, chapter, lines, elements) for each article of a treaty reproduced in a schedule.

        Text before the first article is the preamble, text after the last one the final clauses; chapter
        and "Section 1." headings are shown with the article that follows them.
        """
        document = schedule.find("DocumentInternal")
        if document is None:
            return
        pending: list[str] = (
            self.lines(schedule.find("ScheduleFormHeading")) if schedule.find("ScheduleFormHeading") is not None else []
        )
        pending_elements: list[ET.Element] = []
        chapter = ""
        seen_article = False

        def walk(element: ET.Element) -> Iterator[TreatyUnit]:
            nonlocal pending, pending_elements, chapter, seen_article
            heading = element.find("GroupHeading")
            heading_text = self.inline_heading(heading)
            match = ARTICLE.match(heading_text)
            if element.tag == "Group" and match:
                seen_article = True
                lines, elements = pending + self.lines(element), [*pending_elements, element]
                yield f"{unit}-art{roman_or_arabic(match.group(1))}", heading_text, chapter, lines, elements
                pending, pending_elements = [], []
            elif element.tag == "Group" and heading_text.lower().startswith(ADDITIONAL_PROTOCOL):
                lines = pending + self.lines(element)
                yield f"{unit}-addprot", heading_text, "", lines, [*pending_elements, element]
                pending, pending_elements = [], []
            elif element.tag == "Group":
                if heading is not None:
                    pending = pending + self.lines(heading)
                    chapter = heading_text
                for child in element:
                    if child.tag != "GroupHeading":
                        yield from walk(child)
            else:
                lines = self.lines(element)
                if lines and not seen_article:
                    yield f"{unit}-preamble", self.labels["preamble"], "", pending + lines, [*pending_elements, element]
                    pending, pending_elements = [], []
                elif lines:
                    pending = pending + lines
                    pending_elements = [*pending_elements, element]

        # a preamble may sit beside the treaty's DocumentInternal, directly in the schedule
        children = [
            child
            for outer in schedule
            if outer.tag != "ScheduleFormHeading"
            for child in (outer if outer is document else [outer])
        ]
        yield from self.merge_units(item for child in children for item in walk(child))
        if pending and seen_article:
            final = "Final clauses" if self.instrument.lang == "en" else "Clauses finales"
            yield f"{unit}-final", final, "", pending, pending_elements

    @staticmethod
    def merge_units(items: Iterator[TreatyUnit]) -> Iterator[TreatyUnit]:
        """Consecutive pieces of the same unit (several preamble provisions) become one."""
        current: TreatyUnit | None = None
        for item in items:
            if current and current[0] == item[0]:
                current = (current[0], current[1], current[2], current[3] + item[3], current[4] + item[4])
                continue
            if current:
                yield current
            current = item
        if current:
            yield current

    def inline_heading(self, heading: ET.Element | None) -> str:
        if heading is None:
            return ""
        return squash_spaces(" ".join(self.inline(child) for child in heading if child.tag in ("Label", "TitleText")))
