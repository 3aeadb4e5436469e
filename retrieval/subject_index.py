"""The subject index: from how passengers name a problem to the words and units of the law that deal with it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from retrieval.terms import fold

INDEX_FILE = Path(__file__).with_name("subject_index.json")


@dataclass(frozen=True)
class Concept:
    name: str
    cues: tuple[re.Pattern, ...]
    law_terms: str
    units: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ConceptMatch:
    """`asked`: the concept is named in a sentence that asks something, not only in the story around it."""

    concept: Concept
    cue_count: int
    asked: bool = False


@cache
def concepts(path: Path = INDEX_FILE) -> tuple[Concept, ...]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return tuple(
        Concept(
            name=entry["concept"],
            cues=tuple(re.compile(cue) for cue in entry["cues"]),
            law_terms=entry["law_terms"],
            units=tuple((doc, unit) for doc, unit in entry["units"]),
        )
        for entry in data["concepts"]
    )


SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def asking_part(folded: str) -> str:
    """The sentences that ask something (end with "?"); all of the text when none does."""
    asks = [sentence for sentence in SENTENCE_END.split(folded) if sentence.rstrip().endswith("?")]
    return " ".join(asks) if asks else folded


def match_concepts(text: str) -> list[ConceptMatch]:
    """Concepts whose cues occur in `text`, with how many distinct cues matched and whether one is asked about."""
    folded = fold(text)
    asks = asking_part(folded)
    matches = []
    for concept in concepts():
        count = sum(1 for cue in concept.cues if cue.search(folded))
        if count:
            asked = any(cue.search(asks) for cue in concept.cues)
            matches.append(ConceptMatch(concept, count, asked))
    return matches
