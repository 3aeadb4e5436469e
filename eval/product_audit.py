"""The product audited as strictly as the baseline: what it shows must be the law's words, and the right law.

The product writes no answer. It shows sub-questions (its own words, labelled as questions) and passages.
Two kinds of failure follow:
- a passage that is not its unit's whole text, word for word (`kb.verbatim`), or a question that is not one
  plain line: the product's own hallucinations;
- a passage of real law that does not answer the item (not in its gold units), passages shown for an item
  the knowledge base cannot answer (false acceptance), or nothing shown for one it can (false refusal). A
  wrong passage shown as the law that applies misleads a passenger as surely as a wrong sentence would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.passage import UnitId
from kb.store import SOURCES_DIR
from kb.verbatim import check_unit
from query_understanding.understanding import MAX_QUESTIONS
from retrieval.results import SearchResult

_MARKUP = re.compile(r"[*#`<>|\[\]]|\n|\r")
_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class ProductFailure:
    kind: str  # "passage not its unit's text", "source missing", "question not a plain line", "too many questions"
    span: str
    detail: str


def audit_search(found: SearchResult) -> list[ProductFailure]:
    """Every shown passage that is not its unit's text, and every question that is not one plain line."""
    failures = []
    questions = [result.question for result in found.results]
    if len(questions) > MAX_QUESTIONS:
        detail = f"{len(questions)} questions, at most {MAX_QUESTIONS}"
        failures.append(ProductFailure("too many questions", "", detail))
    for question in questions:
        if not question.strip() or _MARKUP.search(question):
            failures.append(ProductFailure("question not a plain line", question, "empty, several lines or markup"))
    for passage in found.shown_passages:
        if not (SOURCES_DIR / passage.source).is_file():
            failures.append(ProductFailure("source missing", passage.text, f"{passage.source} is not shipped"))
        elif reason := check_unit(passage, passage.text, SOURCES_DIR):
            detail = f"{passage.doc} {passage.unit} ({passage.lang}): {reason}"
            failures.append(ProductFailure("passage not its unit's text", passage.text, detail))
    return failures


def judge_item(found: SearchResult, gold: list) -> dict:
    """What the product showed for one evaluation item, judged against its gold units.

    `irrelevant` is None when the gold names no units (an item labelled only as answerable).
    """
    shown = list(dict.fromkeys(p.unit_id for p in found.shown_passages))
    gold_units = {UnitId(g["doc"], g["unit"]) for g in gold if isinstance(g, dict)}
    answerable = bool(gold)
    judged = not answerable or bool(gold_units)
    return {
        "answerable": answerable,
        "shown": [list(unit) for unit in shown],
        "false_acceptance": not answerable and bool(shown),
        "false_refusal": answerable and not shown,
        "irrelevant": [list(unit) for unit in shown if unit not in gold_units] if judged else None,
        "not_verbatim": [failure.detail for failure in audit_search(found) if failure.kind != "too many questions"],
    }


def summarise_judgements(judgements: list[dict]) -> dict:
    answerable = [j for j in judgements if j["answerable"]]
    unanswerable = [j for j in judgements if not j["answerable"]]
    judged = [j for j in judgements if j["irrelevant"] is not None]
    shown = sum(len(j["shown"]) for j in judged)
    irrelevant = sum(len(j["irrelevant"]) for j in judged)
    return {
        "items": len(judgements),
        "unanswerable": len(unanswerable),
        "false_acceptance": sum(j["false_acceptance"] for j in unanswerable),
        "false_acceptance_rate": _share(sum(j["false_acceptance"] for j in unanswerable), len(unanswerable)),
        "answerable": len(answerable),
        "false_refusal": sum(j["false_refusal"] for j in answerable),
        "false_refusal_rate": _share(sum(j["false_refusal"] for j in answerable), len(answerable)),
        "shown_units": shown,
        "irrelevant_units": irrelevant,
        "irrelevant_share": _share(irrelevant, shown),
        "items_with_irrelevant": sum(1 for j in judged if j["irrelevant"]),
        "not_verbatim": sum(len(j["not_verbatim"]) for j in judgements),
    }


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def format_judgements(summary: dict) -> list[str]:
    """The product's figures, one per line, named for what they do to a passenger."""
    return [
        f"  false acceptance (law shown for an item the knowledge base cannot answer): "
        f"{summary['false_acceptance']}/{summary['unanswerable']} = {_percent(summary['false_acceptance_rate'])}",
        f"  false refusal (nothing shown for an answerable item): "
        f"{summary['false_refusal']}/{summary['answerable']} = {_percent(summary['false_refusal_rate'])}",
        f"  wrong law shown as if it applied (shown units not in gold): "
        f"{summary['irrelevant_units']}/{summary['shown_units']} = {_percent(summary['irrelevant_share'])}, "
        f"on {summary['items_with_irrelevant']} items",
        f"  passages not their unit's text word for word, or questions not one plain line: {summary['not_verbatim']}",
    ]


def tokens(text: str) -> int:
    """Word tokens, the unit of every token share in the hallucination report."""
    return len(_TOKEN.findall(text))


def shown_tokens(found: SearchResult) -> int:
    return sum(tokens(result.question) for result in found.results) + sum(
        tokens(passage.text) for passage in found.shown_passages
    )
