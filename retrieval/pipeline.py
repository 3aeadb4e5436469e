"""The one function the page and the evaluator both call: a dialogue in, questions with passages out."""

from __future__ import annotations

import math
from pathlib import Path

import httpx

from kb.settings import LLMSettings
from kb.store import KnowledgeBase
from kb.text import detect_language
from query_understanding import understand
from query_understanding.understanding import Understanding
from retrieval.coverage import outside_coverage
from retrieval.engine import SearchEngine
from retrieval.results import Answer, Hit, QuestionResult

DEFAULT_K = 5
QUESTION_MODES = ("understand", "joined", "last")


def load_engine(store_dir: Path, chroma_url: str = "") -> SearchEngine:
    """Open the built knowledge base; raises StoreMissingError or ModelMismatchError with what to do."""
    return SearchEngine(KnowledgeBase.open(store_dir, chroma_url))


def per_question_k(k: int, questions: int) -> int:
    """Several questions share the reader's attention: together they show about k passages, at least 2 each.

    Measured on compound dev items: recall@5 1.00 with this, 0.79 with k passages for every question.
    """
    return max(2, math.ceil(k / max(questions, 1)))


def answer(
    turns: list[str],
    engine: SearchEngine,
    *,
    k: int = DEFAULT_K,
    llm_config: LLMSettings | None = None,
    http_client: httpx.Client | None = None,
    question_mode: str = "understand",
) -> Answer:
    """Understand the last turn in the light of the earlier ones, then search each question.

    A unit already shown for an earlier question is not repeated: the question points up to it when it is
    among the question's own first results. A question with nothing above the
    relevance threshold keeps an empty list, which the page reports as not covered. `question_mode`
    "joined" or "last" skips query understanding (one question: all turns, or the last turn), for the
    evaluator's comparisons.
    """
    if question_mode == "understand":
        understanding = understand(turns, config=llm_config, http_client=http_client)
    elif question_mode in QUESTION_MODES:
        text = "\n".join(turns) if question_mode == "joined" else (turns[-1] if turns else "")
        understanding = Understanding(standalone=text, questions=(text,) if text.strip() else (), path="none")
    else:
        raise ValueError(f"question_mode must be one of {QUESTION_MODES}")
    reason = outside_coverage("\n".join(turns))
    if reason:
        return Answer(understanding, tuple(QuestionResult(q, ()) for q in understanding.questions), reason)
    lang = detect_language(turns[-1] if turns else "")
    limit = per_question_k(k, len(understanding.questions))
    shown: set[tuple[str, str]] = set()
    results = []
    for question in understanding.questions:
        found = engine.search(question, lang, k=limit + len(shown))
        hits = [hit for hit in found if _unit(hit) not in shown][:limit]
        # a pointer up names only what this question would itself have shown first, never a weaker match
        above = [hit for hit in found[:limit] if _unit(hit) in shown]
        shown.update(_unit(hit) for hit in hits)
        results.append(QuestionResult(question, tuple(hits), tuple(above)))
    return Answer(understanding, tuple(results))


def _unit(hit: Hit) -> tuple[str, str]:
    return hit.passage.doc, hit.passage.unit
