"""The product's side of the hallucination measurement: what it shows is the law's words, or a labelled question.

The product writes no answer. It shows sub-questions (its own words, labelled as questions) and passages
(which must occur verbatim in the source file they cite). Every departure is a failure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.store import SOURCES_DIR
from kb.verbatim import occurs_verbatim, source_text
from query_understanding.understanding import MAX_QUESTIONS
from retrieval.results import Answer

_MARKUP = re.compile(r"[*#`<>|\[\]]|\n|\r")
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class ProductFailure:
    kind: str  # "passage not verbatim", "source missing", "question not a plain line", "too many questions"
    span: str
    detail: str


def audit_answer(answer: Answer) -> list[ProductFailure]:
    """Every shown passage that is not its source's own words, and every question that is not one plain line."""
    failures = []
    questions = [result.question for result in answer.results]
    if len(questions) > MAX_QUESTIONS:
        detail = f"{len(questions)} questions, at most {MAX_QUESTIONS}"
        failures.append(ProductFailure("too many questions", "", detail))
    for question in questions:
        if not question.strip() or _MARKUP.search(question):
            failures.append(ProductFailure("question not a plain line", question, "empty, several lines or markup"))
    for passage in answer.ranked_passages():
        path = SOURCES_DIR / passage.source
        if not path.is_file():
            failures.append(ProductFailure("source missing", passage.text, f"{passage.source} is not shipped"))
        elif not occurs_verbatim(passage.text, source_text(path)):
            failures.append(ProductFailure("passage not verbatim", passage.text, f"not found in {passage.source}"))
    return failures


def tokens(text: str) -> int:
    """Word tokens, the unit of every token share in the hallucination report."""
    return len(_TOKEN.findall(text))


def shown_tokens(answer: Answer) -> int:
    return sum(tokens(result.question) for result in answer.results) + sum(
        tokens(passage.text) for passage in answer.ranked_passages()
    )
