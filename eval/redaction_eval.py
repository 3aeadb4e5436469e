"""`python -m eval redaction`: how much of what identifies a passenger redaction removes, and how much of what
the law needs it wrongly takes with it.

The check set (eval/redaction_set.jsonl, English and French) plants identifiers in the shapes passengers type,
each labelled with its kind, and lists the facts of each message that must survive (carriers, airports, flight
numbers, amounts, dates, durations). An identifier counts as removed when its text no longer appears in the
redacted message (for a name, none of its words); "as its kind" counts those replaced by their own placeholder.
A kept fact counts as wrongly removed when its text no longer appears.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from foundation.redact import find_identifiers, redact
from kb.jsonl import read_jsonl

DEFAULT_SET = Path(__file__).with_name("redaction_set.jsonl")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, help="check set (default: the shipped one)")
    parser.add_argument("--show", action="store_true", help="print each identifier missed and each fact removed")


def removed(planted: dict, redacted: str) -> bool:
    if planted["text"] in redacted:
        return False
    if planted["kind"] == "name":
        return not any(re.search(rf"\b{re.escape(word)}\b", redacted) for word in planted["text"].split())
    return True


def main(args: argparse.Namespace) -> int:
    items = read_jsonl(args.set)
    planted, gone, typed = Counter(), Counter(), Counter()
    facts = facts_removed = 0
    misses: list[str] = []
    for item in items:
        redacted = redact(item["text"])
        found = find_identifiers(item["text"])
        for identifier in item["identifiers"]:
            kind = identifier["kind"]
            planted[kind] += 1
            if removed(identifier, redacted):
                gone[kind] += 1
                placeholder = f"[{kind}]"
                typed[kind] += any(f.kind == placeholder and identifier["text"] in f.text for f in found) or any(
                    f.kind == placeholder and f.text in identifier["text"] for f in found
                )
            else:
                misses.append(f"{item['id']}: {kind} {identifier['text']!r} kept in {redacted!r}")
        for fact in item["keep"]:
            facts += 1
            if fact not in redacted:
                facts_removed += 1
                misses.append(f"{item['id']}: fact {fact!r} removed: {redacted!r}")
    languages = Counter(item["lang"] for item in items)
    print(f"{len(items)} messages ({', '.join(f'{n} {lang}' for lang, n in sorted(languages.items()))})")
    print(f"{'kind':<20}{'planted':>8}{'removed':>9}{'recall':>8}{'as its kind':>13}")
    for kind in sorted(planted):
        recall = gone[kind] / planted[kind]
        print(f"{kind:<20}{planted[kind]:>8}{gone[kind]:>9}{recall:>8.2f}{typed[kind]:>13}")
    total, total_gone = sum(planted.values()), sum(gone.values())
    print(f"{'all':<20}{total:>8}{total_gone:>9}{total_gone / total:>8.2f}{sum(typed.values()):>13}")
    share = facts_removed / facts if facts else 0.0
    print(f"kept facts wrongly removed: {facts_removed} of {facts} ({share:.1%})")
    if args.show:
        print("\n".join(misses))
    return 0
