"""The one search the page and the evaluator both run: a dialogue in, questions with passages out."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import numpy as np

from foundation.settings import LLMSettings
from foundation.text import detect_language
from kb.passage import UnitId
from kb.store import KnowledgeBase
from query_understanding import understand
from query_understanding.understanding import Understanding
from retrieval.coverage import outside_coverage
from retrieval.engine import SearchEngine
from retrieval.outcome import Outcome
from retrieval.results import QuestionResult, SearchResult

DEFAULT_K = 5


def load_engine(store_dir: Path, chroma_url: str = "") -> SearchEngine:
    """Open the built knowledge base; raises StoreMissingError or ModelMismatchError with what to do."""
    return SearchEngine(KnowledgeBase.open(store_dir, chroma_url))


def per_question_k(k: int, questions: int) -> int:
    """Several questions share the reader's attention: together they show about k passages, at least 2 each.

    Measured on compound dev items: recall@5 1.00 with this, 0.79 with k passages for every question.
    """
    return max(2, math.ceil(k / max(questions, 1)))


def search_dialogue(
    turns: list[str],
    engine: SearchEngine,
    *,
    k: int = DEFAULT_K,
    llm_config: LLMSettings | None = None,
    http_client: httpx.Client | None = None,
) -> SearchResult:
    """Understand the last turn in the light of the earlier ones, then search each question.

    Coverage is checked first, on the passenger's own words: a dialogue beyond the knowledge base costs no call
    to the language model, and the built-in rules write the questions the review log keeps for it.
    """
    outside = outside_coverage("\n".join(turns), engine.coverage_words)
    understanding = understand(turns, config=None if outside else llm_config, http_client=http_client)
    return _search_each(understanding, turns, engine, k, outside)


def _search_each(
    understanding: Understanding, turns: list[str], engine: SearchEngine, k: int, outside: Outcome | None
) -> SearchResult:
    """Search each question in the language of the last turn, unless the dialogue is outside the knowledge base's
    coverage: then every question keeps an empty list, and the questions are still kept, because the review log
    shows them to volunteers.

    A unit already shown for an earlier question is not repeated: the question points up to it when it is
    among the question's own first results. A question with nothing above the relevance threshold keeps an
    empty list, which the page reports as not covered.
    """
    if outside:
        return SearchResult(understanding, tuple(QuestionResult(q, ()) for q in understanding.questions), outside)
    lang = detect_language(turns[-1] if turns else "")
    context = "\n".join(turns)
    limit = per_question_k(k, len(understanding.questions))
    vector = shared_vector(understanding, turns, engine, lang)
    shown: set[UnitId] = set()
    results = []
    for index, question in enumerate(understanding.questions):
        searched = understanding.searched(index)
        found = engine.search(searched, lang, k=limit + len(shown), ask=question, dialogue=tuple(turns), vector=vector)
        hits = [hit for hit in found if hit.passage.unit_id not in shown][:limit]
        hits = [hit._replace(parts=engine.pinpointer.pinpoint(question, hit.passage, context)) for hit in hits]
        # a pointer up names only what this question would itself have shown first, never a weaker match
        above = [hit for hit in found[:limit] if hit.passage.unit_id in shown]
        shown.update(hit.passage.unit_id for hit in hits)
        results.append(QuestionResult(question, tuple(hits), tuple(above)))
    return SearchResult(understanding, tuple(results))


def shared_vector(understanding: Understanding, turns: list[str], engine: SearchEngine, lang: str) -> np.ndarray | None:
    """One dense vector for all the questions of a message that has several: the whole dialogue's.

    Encoding each question's searched text costs about 60 ms on two cores, the largest part of a long story's
    time, and the dense scores it gave ordered nothing better: with the dialogue's one vector, the 17 story sets
    read the same recall@5 (README, latency). Each question still has its own sparse search, situations and ask.
    """
    if len(understanding.questions) < 2:
        return None
    return engine.query_vector("\n".join(turns), lang)
