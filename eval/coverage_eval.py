"""`python -m eval coverage`: does the page show no law where no Canadian law on air passengers applies, and law
where it does?

`eval/coverage_set.jsonl` holds 1,040 long messages written as passengers post them, by twenty-one writers who saw
neither the coverage rules nor any evaluation item, each message marked covered or not. In each writer's part, more than
half are messages no law here governs though they sound as if it might (a flight wholly abroad on a foreign carrier,
travel insurance, a hotel or resort, a rental car, a cruise, a train, a border refusal, airport parking, points, an
agency's own fee, a balloon ride...), and the rest are messages the law governs that name the same things beside a
flight's trouble (the hotel paid because of a cancellation, the cruise missed because of a delay). Writer A wrote 80
in English and French, B 40 in Québec French, C 40 in English as complaints, news and forum posts, D 40 in both
languages in unusual forms and topics, E 40 in both in many voices, F 40 in English as Reddit and reviews read, G 40
in French as Facebook groups write, H 40 in both as news, letters, complaints and posts retell real cases, I 40 in
French in many voices, J 40 in English in many voices, K 40 in English and L 40 in French as comments, reviews and
complaints read, M 60 in both, written to tempt the rules (40 no law governs), N 60 in both, O 80 and P 80 (half in
Québec French) as long posts and accounts, Q and R 48 each, told as evaluation sets' unanswerable items and as
the Agency's complainants tell them, none of them governed, and S and T 48 each (36 not governed) as unanswerable
items and real posts are told, a third in Québec French. `read` marks the messages read to widen the rules (A's
odd-numbered ones and g-28, seen while a refusal was checked; all of B, C, E, F, G, I, K, L and M to R; the fourteen
of S and the fifteen of T that showed law when each was first measured); the others (A's other even-numbered ones,
all of D, H and J, the rest of S and T, and all of U, 48 more as S and T, 26 not governed) were never read, and
they are the measure.

Printed: messages not covered that show law (false acceptances) and covered messages shown nothing (false
refusals), by the whole search and, in brackets, by the coverage check (`retrieval.coverage.outside_coverage`: the
rules, then the model of words) and by its rules alone (`outside_by_rules`);
then how many of the question bank's entries, each a way passengers ask about a unit of law, the check would
refuse, by reason: short questions the law answers, so a rule that refuses more of them refuses passengers.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from kb.jsonl import read_jsonl
from retrieval.coverage import outside_by_rules, outside_coverage
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
    ruled = {r["id"]: outside_by_rules(r["text"]) is not None for r in records}
    print(f"{'messages':<20} {'not covered, law shown':>28} {'covered, nothing shown':>28}")
    for name, read in (("never read", False), ("read", True), ("all", None)):
        for lang in ("en", "fr", None):
            rows = [r for r in records if (read is None or r.get("read") == read) and lang in (None, r["lang"])]
            uncovered = [r["id"] for r in rows if not r["covered"]]
            covered = [r["id"] for r in rows if r["covered"]]
            accepted = _count(
                sum(shown[i] for i in uncovered),
                sum(not flagged[i] for i in uncovered),
                sum(not ruled[i] for i in uncovered),
                uncovered,
            )
            refused = _count(
                sum(not shown[i] for i in covered),
                sum(flagged[i] for i in covered),
                sum(ruled[i] for i in covered),
                covered,
            )
            print(f"{name + ', ' + (lang or 'both'):<20} {accepted:>28} {refused:>28}")
    bank = engine.knowledge_base.bank
    reasons = Counter(str(outside_coverage(entry.text)) for entry in bank)
    why = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common() if reason != "None")
    print(f"question bank entries refused by the check: {len(bank) - reasons['None']} of {len(bank)} ({why})")
    return 0


def _count(by_search: int, by_check: int, by_rules: int, ids: list[str]) -> str:
    return f"{by_search} ({by_check}; {by_rules}) of {len(ids)}"
