"""What a search hands to the page and to the evaluator: questions, each with the passages found for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from kb.passage import LawPart, Passage
from query_understanding.understanding import Understanding
from retrieval.outcome import Outcome


class Hit(NamedTuple):
    """A passage found for a question, with the ranker's score (how likely the unit is the law a volunteer would
    show, in (0, 1): `retrieval/ranker.py`) and the parts of it that answer the question, best first
    (`retrieval/pinpoint.py`; none when nothing is clear). Each part's text is exactly
    `passage.text[part.start:part.end]`."""

    passage: Passage
    score: float
    parts: tuple[LawPart, ...] = ()


@dataclass(frozen=True)
class QuestionResult:
    """One sub-question and its passages.

    `shown_above` holds what an earlier question already shows among this question's own first results (each
    unit is shown once); no hits and nothing shown above means the knowledge base does not cover the question.
    """

    question: str
    hits: tuple[Hit, ...]
    shown_above: tuple[Hit, ...] = ()

    @property
    def outcome(self) -> Outcome | None:
        """Why this question shows no passage of its own, if it shows none."""
        if self.hits:
            return None
        return Outcome.SHOWN_ABOVE if self.shown_above else Outcome.NOTHING_FOUND


@dataclass(frozen=True)
class SearchResult:
    """`outside_coverage` names why the whole dialogue is beyond the knowledge base (None when it is not)."""

    understanding: Understanding
    results: tuple[QuestionResult, ...]
    outside_coverage: Outcome | None = None

    @property
    def shown_passages(self) -> list[Passage]:
        """Every passage shown, in the order the page shows them: what a passenger reads and the evaluator ranks."""
        return [hit.passage for question in self.results for hit in question.hits]
