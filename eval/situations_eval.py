"""`python -m eval situations`: how often the situations hold for the way passengers tell them.

`eval/situation_phrasings.jsonl` holds passengers' messages written from the situations' descriptions and their
units' text only, by writers who saw neither the patterns nor any evaluation item: short forum posts (batch A),
news stories, e-mails and help-line summaries (batch B), and long stories telling two or three situations at once
(batch C), in English and everyday Québec French, 90 messages in everyday Québec French alone, short and long
(batch D), and 100 in everyday English as forums and consumer columns read, 70 of them long stories of two or three
situations with the noise real posts carry (batch E), 80 more of the same leaning on the situations hardest to spot
(batch F), 80 in everyday Québec French and first-person retellings of Agency disputes (batch G), and 80 more,
long stories and short notes, 30 in Québec French, at least three for each situation that had few (batch H), and 80
as complainants write to the Agency or a carrier, 60 of them in Québec French (batch I). Each names the situations it
tells. A situation is found when it holds for the message
(`kb.situations.Situations.holding`, with the flight's reach as the search passes it); recall is over every
situation named, and "also held" counts the situations that hold without being named (some are rightly there: a
night at the airport beside a cancellation).

Batches A, B, D, E, F, H and I were read to widen the patterns, each after its first measure (H: 0.817; I: 0.880
at `727ac4d`, 0.913 when written); batches C and G were measured before and after, never read.

`--as-gold F` writes the messages as retrieval items for `python -m eval retrieval --gold F`, each with the first
unit of every situation it names as its gold: what a volunteer shows first for that situation. The gold comes from
the situations file itself, so it measures whether the search shows a situation's first unit once its writer says
the situation is there, not whether the situations list the right units.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from kb.jsonl import read_jsonl
from kb.situations import SITUATIONS_FILE, Situations, load_situations
from query_understanding.flight_scope import flight_reach

PHRASINGS = Path(__file__).resolve().parent / "situation_phrasings.jsonl"


def found(situations: Situations, record: dict) -> tuple[list[bool], int]:
    """Whether each situation the message names holds, and how many others hold."""
    text = record["text"]
    held = {situation.id for situation in situations.holding(text, reach=flight_reach(text))}
    return [name in held for name in record["situations"]], len(held - set(record["situations"]))


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--phrasings", type=Path, default=PHRASINGS, help="messages naming their situations")
    parser.add_argument("--batch", choices=tuple("ABCDEFGHI"), help="only this batch's messages")
    parser.add_argument("--by-situation", action="store_true", help="recall of each situation, weakest first")
    parser.add_argument("--as-gold", type=Path, help="write the messages as retrieval items to this file")


def write_gold(situations: Situations, records: list[dict], path: Path) -> None:
    """Each message as an `eval retrieval` item whose gold is the first unit of each situation it names."""
    first = {situation.id: situation.units[0].unit for situation in situations.situations}
    with path.open("w", encoding="utf-8") as out:
        for number, record in enumerate(records, 1):
            units = list(dict.fromkeys(first[name] for name in record["situations"]))
            gold = [{"doc": unit.doc, "unit": unit.unit} for unit in units]
            kind = "compound" if len(units) > 1 else record["lang"]
            item = {"id": f"{record['batch']}-{number:03d}", "type": kind, "turns": [record["text"]], "gold": gold}
            out.write(json.dumps(item, ensure_ascii=False) + "\n")


def main(args: argparse.Namespace) -> int:
    situations = load_situations()
    records = [r for r in read_jsonl(args.phrasings) if args.batch in (None, r["batch"])]
    print(f"{len(records)} messages from {args.phrasings.name}; situations from {SITUATIONS_FILE.name}")
    print(f"{'batch':10} {'lang':5} {'messages':>8} {'named':>6} {'recall':>7} {'also held':>10}")
    rows: dict[tuple[str, str], list[tuple[list[bool], int]]] = defaultdict(list)
    by_situation: dict[str, list[bool]] = defaultdict(list)
    for record in records:
        hits, others = found(situations, record)
        for key in ((record["batch"], record["lang"]), (record["batch"], "all"), ("all", "all")):
            rows[key].append((hits, others))
        for name, hit in zip(record["situations"], hits, strict=True):
            by_situation[name].append(hit)
    for (batch, lang), results in sorted(rows.items()):
        named = [hit for hits, _ in results for hit in hits]
        also = statistics.fmean(others for _, others in results)
        print(f"{batch:10} {lang:5} {len(results):8} {len(named):6} {sum(named) / len(named):7.3f} {also:10.2f}")
    if args.as_gold:
        write_gold(situations, records, args.as_gold)
        print(f"wrote {len(records)} retrieval items to {args.as_gold}")
    if args.by_situation:
        for name, hits in sorted(by_situation.items(), key=lambda kv: sum(kv[1]) / len(kv[1])):
            print(f"  {name:32} {sum(hits)}/{len(hits)}")
    return 0
