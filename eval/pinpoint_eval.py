"""`python -m eval pinpoint --gold FILE [--json OUT]`: does the page point to the part of the law that answers?

Each gold line is `{"id", "turns", "lang", "gold": [{"doc", "unit", "part", "why"}], "note"}`, `part` a label
path such as `(1)(a)(ii)` or `(2)"large carrier"`. The product runs as the page does (built-in rules, k = 5).
For each gold part: is its unit shown at all (unit recall); among shown units, is the unit's first
pinpointed part exactly the gold part (strict), or the gold part, its parent or its child (near); and how many
words a passenger reads before reaching the end of the gold part: with pinpointing (the pinpointed parts first,
then the whole unit) and without (the whole unit from its start).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

from foundation.settings import Settings
from kb.jsonl import read_jsonl
from kb.passage import LawPart
from kb.store import ModelMismatchError, StoreMissingError

STEP = re.compile(r'\([^()]*\)|"[^"]*"')


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", type=Path, required=True, help="pinpoint items, JSON Lines (see eval/pinpoint.jsonl)")
    parser.add_argument("--json", type=Path, help="write the figures and each item's outcome here")


def parent_label(label: str) -> str:
    return "".join(STEP.findall(label)[:-1])


def near(first: str, gold: str) -> bool:
    """The gold part itself, the part it sits in, or a part directly inside it."""
    return first == gold or parent_label(gold) == first or parent_label(first) == gold


def words_before_end(parts_first: tuple[LawPart, ...], unit_text: str, gold: LawPart) -> tuple[int, int]:
    """(with pinpointing, whole unit): words read before the end of the gold part. With pinpointing the
    pinpointed parts are read first; a pinpointed part holding the gold part ends the reading inside it."""
    whole_unit = len(unit_text[: gold.end].split())
    read = 0
    for part in parts_first:
        if part.start <= gold.start and gold.end <= part.end:
            return read + len(unit_text[part.start : gold.end].split()), whole_unit
        read += len(part.text.split())
    return read + whole_unit, whole_unit


def judge(item: dict, engine) -> list[dict]:
    """One outcome per gold part of an item."""
    from retrieval.search import search_dialogue

    found = search_dialogue(item["turns"], engine, llm_config=None)
    hits = {}
    for question in found.results:
        for hit in question.hits:
            hits.setdefault(hit.passage.unit_id, hit)
    outcomes = []
    for gold in item["gold"]:
        hit = hits.get((gold["doc"], gold["unit"]))
        outcome = {"gold": gold["part"], "shown": hit is not None, "first_part": None}
        if hit is not None:
            outcome["first_part"] = hit.parts[0].label if hit.parts else None
            gold_part = next((p for p in hit.passage.parts if p.label == gold["part"]), None)
            if gold_part is None:
                outcome["missing_part"] = True
            else:
                outcome["words"] = words_before_end(hit.parts, hit.passage.text, gold_part)
        outcomes.append(outcome)
    return outcomes


def summarise(items: list[dict], outcomes: dict[str, list[dict]]) -> dict:
    every = [outcome for found in outcomes.values() for outcome in found]
    shown = [outcome for outcome in every if outcome["shown"]]
    counted = [outcome for outcome in shown if "words" in outcome]
    return {
        "items": len(items),
        "gold_parts": len(every),
        "unit_recall": len(shown) / len(every) if every else 0.0,
        "strict": sum(o["first_part"] == o["gold"] for o in shown) / len(shown) if shown else 0.0,
        "near": sum(bool(o["first_part"]) and near(o["first_part"], o["gold"]) for o in shown) / len(shown)
        if shown
        else 0.0,
        "none_pinpointed": sum(o["first_part"] is None for o in shown),
        "words_before_answer": {
            "pinpointed": statistics.median(o["words"][0] for o in counted) if counted else None,
            "whole_unit": statistics.median(o["words"][1] for o in counted) if counted else None,
        },
        "per_item": {
            item["id"]: {"shown": outcomes[item["id"]][0]["shown"], "first_part": outcomes[item["id"]][0]["first_part"]}
            for item in items
        },
    }


def main(args: argparse.Namespace) -> int:
    from retrieval import search  # the search engine and its models load only when this runs

    items = read_jsonl(args.gold)
    settings = Settings.from_environment()
    try:
        engine = search.load_engine(settings.store_dir, settings.chroma_url)
    except (StoreMissingError, ModelMismatchError) as error:
        print(error, file=sys.stderr)
        return 2
    outcomes = {item["id"]: judge(item, engine) for item in items}
    summary = summarise(items, outcomes)
    print(report(summary, items, outcomes))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def report(summary: dict, items: list[dict], outcomes: dict[str, list[dict]]) -> str:
    words = summary["words_before_answer"]
    lines = [
        f"items {summary['items']}, gold parts {summary['gold_parts']}",
        f"unit recall (gold unit shown)        {summary['unit_recall']:.3f}",
        f"strict (first part is the gold part) {summary['strict']:.3f}",
        f"near (gold, its parent or child)     {summary['near']:.3f}",
        f"shown units with nothing pinpointed  {summary['none_pinpointed']}",
        f"median words before the answer: pinpointed {words['pinpointed']}, whole unit {words['whole_unit']}",
        "",
        "missed (id: gold -> first pinpointed part):",
    ]
    for item in items:
        for outcome in outcomes[item["id"]]:
            if outcome["shown"] and outcome["first_part"] != outcome["gold"]:
                lines.append(f"  {item['id']}: {outcome['gold']} -> {outcome['first_part']}")
            elif not outcome["shown"]:
                lines.append(f"  {item['id']}: {outcome['gold']} -> unit not shown")
    return "\n".join(lines)
