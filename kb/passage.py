"""The one unit that flows through the whole product: a verbatim passage of a source, with where it came from."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import NamedTuple

HEADING_SEPARATOR = " › "


class UnitId(NamedTuple):
    """A unit of law as the evaluation set names it (`SOR-2019-150`, `s19`): what is fused, shown and judged."""

    doc: str
    unit: str


@dataclass(frozen=True)
class LawPart:
    """A subsection, paragraph, treaty provision or definition inside a passage: its label path (`(1)(a)(ii)`,
    `(2)"large carrier"`), its words, and where they sit, so that `text == passage.text[start:end]`."""

    label: str
    text: str
    start: int
    end: int

    def shifted(self, offset: int) -> LawPart:
        return replace(self, start=self.start + offset, end=self.end + offset)


@dataclass(frozen=True)
class Passage:
    """A piece of a source shown to a passenger exactly as written.

    `doc`/`unit` identify the unit of law (as the evaluation set defines them) or, for a crawled
    page, the page URL and its header anchor. `part` numbers the pieces of a unit that was split.
    `source` is the path of the shipped source file, relative to `kb/sources/`, whose text must
    contain `text` verbatim. `parts` are the law's own divisions inside `text`, in document order (a parent
    before its children); a guide page has none.
    """

    doc: str
    unit: str
    lang: str
    title: str
    heading_path: tuple[str, ...]
    instrument: str
    url: str
    text: str
    source: str
    part: int = 0
    kind: str = "law"  # "law" or "guide"
    parts: tuple[LawPart, ...] = ()

    @property
    def unit_id(self) -> UnitId:
        return UnitId(self.doc, self.unit)

    @property
    def id(self) -> str:
        return f"{self.doc}|{self.lang}|{self.unit}|{self.part}"

    @property
    def content_hash(self) -> str:
        payload = json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]

    @property
    def where(self) -> str:
        """Instrument › Part › Division, for a reader to see where the passage sits."""
        return HEADING_SEPARATOR.join((self.instrument, *self.heading_path))

    def to_record(self) -> dict:
        record = asdict(self)
        record["heading_path"] = list(self.heading_path)
        record["parts"] = [asdict(part) for part in self.parts]
        return record

    @classmethod
    def from_record(cls, record: dict) -> Passage:
        parts = tuple(LawPart(**part) for part in record.get("parts", ()))
        return cls(**{**record, "heading_path": tuple(record["heading_path"]), "parts": parts})


def whole_unit(pieces: Sequence[Passage]) -> Passage:
    """The pieces of a unit that was indexed in pieces, joined into the one passage shown, parts moved along."""
    pieces = sorted(pieces, key=lambda p: p.part)
    if len(pieces) == 1:
        return pieces[0]
    parts: list[LawPart] = []
    offset = 0
    for piece in pieces:
        parts.extend(part.shifted(offset) for part in piece.parts)
        offset += len(piece.text) + 1
    return replace(pieces[0], text="\n".join(p.text for p in pieces), part=0, parts=tuple(parts))


def index_text(passage: Passage) -> str:
    """The text each index sees for a passage: the passage plus where it sits, never shown to anyone."""
    return "\n".join((passage.title, " ".join(passage.heading_path), passage.text))
