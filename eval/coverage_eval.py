"""`python -m eval coverage`: does the page show no law where no Canadian law on air passengers applies, and law
where it does?

`eval/coverage_set.jsonl` holds 80 long messages written as passengers post them, by a writer who saw neither the
coverage rules nor any evaluation item: 40 where no law here applies though the message sounds as if it might (a
flight wholly abroad on a foreign carrier, travel insurance, a hotel or resort, a rental car, a cruise, a train, a
border refusal, airport parking, points, an agency's own fee), and 40 where the law applies and the message names
the same things beside a flight's trouble (the hotel paid because of a cancellation, the cruise missed because of
a delay). A quarter of each is in everyday Québec French. The messages with odd numbers were read to widen the rules;
those with even numbers were not, and are printed apart.

Printed: messages not covered that show law (false acceptances) and covered messages shown nothing (false
refusals), by the coverage rules alone (`retrieval.coverage.outside_coverage`) and by the whole search.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kb.jsonl import read_jsonl
from retrieval.coverage import outside_coverage
from retrieval.search import load_engine, search_dialogue

COVERAGE_SET = Path(__file__).resolve().parent / "coverage_set.jsonl"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", type=Path, default=COVERAGE_SET, help="messages, each marked covered or not")
    parser.add_argument("--store", type=Path, default=Path("data/store"))


def main(args: argparse.Namespace) -> int:
    records = list(read_jsonl(args.gold))
    engine = load_engine(args.store)
    shown = {r["id"]: bool(search_dialogue([r["text"]], engine).shown_passages) for r in records}
    flagged = {r["id"]: outside_coverage(r["text"]) is not None for r in records}
    print(f"{'messages':<22} {'not covered, law shown':>24} {'covered, nothing shown':>24}   (rules alone: same)")
    for name, part in (("read (odd)", 1), ("never read (even)", 0), ("all", None)):
        chosen = [r for r in records if part is None or int(r["id"].split("-")[-1]) % 2 == part]
        for lang in ("en", "fr", None):
            rows = [r for r in chosen if lang is None or r["lang"] == lang]
            uncovered = [r["id"] for r in rows if not r["covered"]]
            covered = [r["id"] for r in rows if r["covered"]]
            accepted = sum(shown[i] for i in uncovered)
            refused = sum(not shown[i] for i in covered)
            accepted_rules = sum(not flagged[i] for i in uncovered)
            refused_rules = sum(flagged[i] for i in covered)
            label = f"{name}, {lang or 'both'}"
            print(
                f"{label:<22} {accepted:>17} of {len(uncovered):<4} {refused:>17} of {len(covered):<4}"
                f"   ({accepted_rules}, {refused_rules})"
            )
    return 0
