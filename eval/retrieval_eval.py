"""`python -m eval retrieval`: every retrieval system on the same gold file, in one run, in one table.

Systems (all turns joined into one query unless said otherwise):
  bm25         sparse only, over passages enriched with title and heading path
  dense        Chroma (bge-small-en) only
  hybrid       reciprocal-rank fusion of the two, no question bank, no threshold
  full         what the page runs: query understanding (--qu), passages and question bank fused, threshold
  full-joined  the full search on all turns joined, without query understanding
  full-last    the full search on the last turn only, without query understanding

The last two are the product's engine searching one question the evaluator writes itself (`search_one_question`);
the passage BM25 of the baselines is the evaluator's own (`PassageBM25`): the product gives it no weight.

For `full`, the table ends with where the passages land (`placement`): of the passages shown under the questions of
a message the page splits into several, how many sit under a question whose own search would not rank them in its
first ten while another question's would. A passenger reads question by question; the pooled figures cannot see a
bag's compensation shown under the cancellation's question.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from eval.metrics import average_precision_at_k, dedupe_units, f1, precision_at_k, recall_at_k
from foundation.settings import LLMSettings, Settings
from foundation.text import detect_language
from kb.jsonl import read_jsonl
from kb.passage import UnitId
from retrieval.coverage import outside_coverage
from retrieval.engine import SearchEngine
from retrieval.results import SearchResult
from retrieval.retrievers import SparseRetriever
from retrieval.search import load_engine, search_dialogue

SYSTEMS = ("bm25", "dense", "hybrid", "full", "full-joined", "full-last")
Units = list[UnitId]
# the one question each system without query understanding searches: all turns joined, or the last turn
ONE_QUESTION = {"full-joined": lambda turns: "\n".join(turns), "full-last": lambda turns: turns[-1] if turns else ""}


@dataclass(frozen=True)
class GoldItem:
    id: str
    type: str
    turns: list[str]
    gold: set[UnitId]


def load_gold(path: Path) -> list[GoldItem]:
    items = []
    for record in read_jsonl(path):
        gold = {UnitId(g["doc"], g["unit"]) for g in record.get("gold", [])}
        items.append(GoldItem(record["id"], record.get("type", "?"), record["turns"], gold))
    return items


def search_one_question(text: str, turns: list[str], engine: SearchEngine, k: int) -> Units:
    """The product's engine searching `text` as the only question, without query understanding, after the same
    coverage check the page runs."""
    if outside_coverage("\n".join(turns)) or not text.strip():
        return []
    return [hit.passage.unit_id for hit in engine.search(text, detect_language(turns[-1]), k=k)]


class PassageBM25:
    """BM25 over each language's passages, enriched with title and heading path: the baselines' sparse half."""

    def __init__(self, engine: SearchEngine):
        indexed = engine.knowledge_base.indexed
        self.by_lang = {
            lang: SparseRetriever(
                [i.index_text for i in indexed if i.passage.lang == lang],
                [i.passage.unit_id for i in indexed if i.passage.lang == lang],
                lang,
            )
            for lang in {i.passage.lang for i in indexed}
        }

    def scores(self, text: str, lang: str) -> dict[UnitId, float]:
        return (self.by_lang.get(lang) or self.by_lang["en"]).scores(text)


def reciprocal_rank_fusion(score_maps: list[dict], constant: int = 60) -> list[tuple[UnitId, float]]:
    fused: dict = defaultdict(float)
    for scores in score_maps:
        for rank, unit in enumerate(sorted(scores, key=lambda u: (-scores[u], u))):
            fused[unit] += 1.0 / (constant + rank + 1)
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


# each baseline: (passage BM25 scores, passage dense scores) -> ranked units
BASELINES = {
    "bm25": lambda sparse, dense: sorted(sparse.items(), key=lambda kv: (-kv[1], kv[0])),
    "dense": lambda sparse, dense: sorted(dense.items(), key=lambda kv: (-kv[1], kv[0])),
    "hybrid": lambda sparse, dense: reciprocal_rank_fusion([sparse, dense]),
}


def system_runner(
    name: str, engine: SearchEngine, k: int, llm_config: LLMSettings | None, searched: dict | None = None
) -> Callable[[list[str]], Units]:
    """turns -> ranked units shown, for one system; `full` keeps each dialogue's last search in `searched` (by its
    turns), for the placement line."""
    if name in BASELINES:
        passage_bm25 = PassageBM25(engine)

        def baseline(turns: list[str]) -> Units:
            text = "\n".join(turns)
            lang = detect_language(text)
            sparse, dense = passage_bm25.scores(text, lang), engine.evidence(text, lang).passage_dense
            return [unit for unit, _ in BASELINES[name](sparse, dense)][:k]

        return baseline
    if name == "full":

        def full(turns: list[str]) -> Units:
            result = search_dialogue(turns, engine, k=k, llm_config=llm_config)
            if searched is not None:
                searched[tuple(turns)] = result
            return [p.unit_id for p in result.shown_passages]

        return full
    if name in ONE_QUESTION:

        def one_question(turns: list[str]) -> Units:
            return search_one_question(ONE_QUESTION[name](turns), turns, engine, k)

        return one_question
    raise ValueError(f"unknown system {name!r}; expected some of {', '.join(SYSTEMS)}")


PLACEMENT_DEPTH = 10  # how far down a question's own search a passage shown under it may stand


def placement(results: list[SearchResult], turns: list[list[str]], engine: SearchEngine) -> dict[str, int]:
    """Passages shown under one question of a several-question message (`results`, the product's searches of the
    dialogues `turns`), and those of them "crossed": outside that question's own first results and inside another
    question's. Each question's own search is its searched text alone, without the rest of the message (the page's
    search reads the message's situations too)."""
    crossed = shown = 0
    for result, dialogue in zip(results, turns, strict=True):
        if len(result.results) < 2 or result.outside_coverage:
            continue
        lang = detect_language(dialogue[-1])
        own = [
            {hit.passage.unit_id for hit in engine.search(result.understanding.searched(i), lang, PLACEMENT_DEPTH, q)}
            for i, q in enumerate(result.understanding.questions)
        ]
        for i, question in enumerate(result.results):
            others = set().union(*(units for j, units in enumerate(own) if j != i))
            for hit in question.hits:
                shown += 1
                crossed += hit.passage.unit_id not in own[i] and hit.passage.unit_id in others
    return {"shown": shown, "crossed": crossed}


def score(items: list[GoldItem], shown: dict[str, Units], k: int) -> dict:
    """Macro P/R/F1/MAP@k over answerable items, abstention over unanswerable ones."""
    answerable = [item for item in items if item.gold]
    unanswerable = [item for item in items if not item.gold]
    row: dict = {"n": len(items)}
    if answerable:
        precision = statistics.fmean(precision_at_k(shown[i.id], i.gold, k) for i in answerable)
        recall = statistics.fmean(recall_at_k(shown[i.id], i.gold, k) for i in answerable)
        row[f"precision@{k}"] = precision
        row[f"recall@{k}"] = recall
        row[f"f1@{k}"] = statistics.fmean(
            f1(precision_at_k(shown[i.id], i.gold, k), recall_at_k(shown[i.id], i.gold, k)) for i in answerable
        )
        row[f"map@{k}"] = statistics.fmean(average_precision_at_k(shown[i.id], i.gold, k) for i in answerable)
        # the wrong-law share: of the units shown for answerable items, those not in gold
        top = [(unit, i.gold) for i in answerable for unit in shown[i.id][:k]]
        row["wrong law"] = sum(unit not in gold for unit, gold in top) / len(top) if top else 0.0
    if unanswerable:
        row["abstention"] = sum(not shown[i.id] for i in unanswerable) / len(unanswerable)
    return row


# Searched before timing whatever the set holds: a set's last French item may be outside the knowledge base, and
# then searching it loads no French encoder, and the first French item timed would pay for the load
WARM_UP = (["My flight was cancelled, what can I get?"], ["Mon vol a été annulé, à quoi ai-je droit?"])


def evaluate(items: list[GoldItem], systems: list[str], engine: SearchEngine, k: int, llm_config) -> dict:
    results = {}
    for name in systems:
        searched: dict[tuple[str, ...], SearchResult] = {}
        run = system_runner(name, engine, k, llm_config, searched)
        for turns in [*WARM_UP, *{detect_language(item.turns[-1]): item.turns for item in items}.values()]:
            run(turns)  # warm caches before timing, and each language's encoders (a first French search loads one)
        shown, latencies = {}, []
        for item in items:
            started = time.perf_counter()
            shown[item.id] = dedupe_units(run(item.turns))
            latencies.append((time.perf_counter() - started) * 1000)
        by_type = defaultdict(list)
        for item in items:
            by_type[item.type].append(item)
        by_length = defaultdict(list)
        for item in items:
            by_length[length_bucket(item)].append(item)
        results[name] = {
            "overall": score(items, shown, k),
            "types": {t: score(group, shown, k) for t, group in sorted(by_type.items())},
            "lengths": {b: score(by_length[b], shown, k) for b in LENGTH_BUCKETS if by_length[b]},
            "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
            "shown": {item_id: [list(u) for u in units[:k]] for item_id, units in shown.items()},
        }
        if name == "full":
            dialogues = [item.turns for item in items]  # searched once, in the timed loop above
            results[name]["placement"] = placement([searched[tuple(d)] for d in dialogues], dialogues, engine)
    return results


LENGTH_BUCKETS = ("≤20 words", "21-60 words", ">60 words")


def length_bucket(item: GoldItem) -> str:
    """How long the message to answer is: long stories should find what short questions find."""
    words = len(item.turns[-1].split()) if item.turns else 0
    return LENGTH_BUCKETS[0] if words <= 20 else LENGTH_BUCKETS[1] if words <= 60 else LENGTH_BUCKETS[2]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def format_table(results: dict, k: int) -> str:
    keys = [f"precision@{k}", f"recall@{k}", f"f1@{k}", f"map@{k}", "wrong law", "abstention"]
    header = f"{'system':<12} {'type/length':<13} {'n':>3} " + " ".join(f"{key:>12}" for key in keys)
    lines = [header, "-" * len(header)]
    for name, result in results.items():
        rows = [("all", result["overall"]), *result["types"].items(), *result["lengths"].items()]
        for type_name, row in rows:
            cells = " ".join(f"{row[key]:>12.3f}" if key in row else f"{'':>12}" for key in keys)
            lines.append(f"{name:<12} {type_name:<13} {row['n']:>3} {cells}")
        lines.append("")
    lines.append(f"{'system':<12} {'p50 ms':>8} {'p95 ms':>8}   (retrieval only, warm)")
    for name, result in results.items():
        lines.append(f"{name:<12} {result['latency_ms']['p50']:>8.1f} {result['latency_ms']['p95']:>8.1f}")
    lines.append("")
    lines.append(f"{'system':<12} " + " ".join(f"{key:>12}" for key in keys))  # wrong law: shown, not in gold
    for name, result in results.items():
        row = result["overall"]
        lines.append(f"{name:<12} " + " ".join(f"{row[key]:>12.3f}" if key in row else f"{'':>12}" for key in keys))
    for name, result in results.items():
        if "placement" in result:
            placed = result["placement"]
            share = placed["crossed"] / placed["shown"] if placed["shown"] else 0.0
            lines.append(
                f"\n{name}: placement, passages under a question that another question's own search finds and its own "
                f"does not: {placed['crossed']} of {placed['shown']} ({share:.1%})"
            )
    return "\n".join(lines)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", type=Path, required=True, help="JSON Lines gold file (the dev set's format)")
    parser.add_argument("--k", type=int, default=5, help="passages per item that count (default: %(default)s)")
    parser.add_argument(
        "--systems", default="bm25,dense,hybrid,full", help=f"comma-separated, from: {', '.join(SYSTEMS)}"
    )
    parser.add_argument("--qu", choices=("offline", "llm"), default="offline", help="query understanding for `full`")
    parser.add_argument("--json", type=Path, help="also write the numbers (and what each system showed) here")
    parser.add_argument("--store", type=Path, help="knowledge base to search (default: the app's)")


def main(args: argparse.Namespace) -> int:
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        print(f"Unknown system(s): {', '.join(unknown)}. Choose from: {', '.join(SYSTEMS)}")
        return 2
    settings = Settings.from_environment()
    llm_config = settings.llm if args.qu == "llm" else None
    if args.qu == "llm" and llm_config is None:
        needs = "--qu llm needs an LLM endpoint: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server."
        print(" ".join([needs, *settings.problems]))
        return 2
    items = load_gold(args.gold)
    engine = load_engine(args.store or settings.store_dir, settings.chroma_url)
    results = evaluate(items, systems, engine, args.k, llm_config)
    print(f"{len(items)} items from {args.gold}, k={args.k}, query understanding: {args.qu}\n")
    print(format_table(results, args.k))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0
