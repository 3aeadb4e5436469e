"""`python -m eval hallucination`: a generative RAG baseline and the product, audited for hallucination.

For each item of the gold file the product's own retrieval runs once. A generative baseline writes an
answer from the passages it found, and the detector audits that answer (figure check, abstention check,
LLM claim audit). The product is audited on the same retrieval: every passage it would show must be its
unit's whole text, word for word, and every sub-question one plain line; its hallucination count is that
failure count. Beside it, the product is judged as the baseline is against the gold labels: false acceptance,
false refusal, and the share of shown units that are not in gold (wrong law shown as if it applied).
Exit status: 0, or 1 when the product breaks its verbatim promise, or 2 when the knowledge base is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from tqdm import tqdm

from eval.chat import ENDPOINT_HOWTO, Chat, StageFailure
from eval.claim_audit import Evidence
from eval.detector import detect
from eval.generative_baseline import write_answer
from eval.hallucination_prompts import PROMPT_VERSION
from eval.hallucination_report import format_summary, summarise, write_report
from eval.product_audit import audit_search, judge_item, shown_tokens, tokens
from eval.result_cache import DEFAULT_DIR, ResultCache
from foundation.settings import LLMSettings, Settings
from kb.jsonl import read_jsonl
from kb.passage import Passage
from kb.store import ModelMismatchError, StoreMissingError, current_generation
from query_understanding.understanding import Understanding
from retrieval.results import Hit, QuestionResult, SearchResult

PROJECT = Path(__file__).resolve().parents[1]
# What the product's retrieval depends on: a cached item is stale once any of these changes.
PRODUCT_CODE = ("kb", "query_understanding", "retrieval")

Retrieve = Callable[[list[str], int], SearchResult]

OFFLINE_MESSAGE = f"""\
The generative baseline needs an LLM endpoint, and none is configured: the baseline and the LLM detector are
not run, and the baseline's hallucination rate is reported as "not run".
{ENDPOINT_HOWTO}
The product's audit (verbatim units, false acceptance, false refusal, wrong law shown) runs anyway."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", type=Path, required=True, help="evaluation items, JSON Lines")
    parser.add_argument("--limit", type=int, help="only the first N items")
    parser.add_argument("--k", type=int, default=5, help="passages per question, as the app shows (default 5)")
    parser.add_argument("--json", type=Path, help="write every item's audit and the summary to this file")
    parser.add_argument("--report", type=Path, help="write report.md and a bar chart into this directory")
    parser.add_argument("--cache", type=Path, default=DEFAULT_DIR, help="where LLM results are kept")
    parser.add_argument("--refresh", action="store_true", help="ignore cached results and ask again")


def main(args: argparse.Namespace) -> int:
    from retrieval import search  # the search engine and its models load only when this command runs

    settings = Settings.from_environment()
    config = settings.llm
    try:
        engine = search.load_engine(settings.store_dir, settings.chroma_url)
    except (StoreMissingError, ModelMismatchError) as error:
        print(f"Cannot open the knowledge base: {error}", file=sys.stderr)
        return 2
    return run(
        args, lambda turns, k: search.search_dialogue(turns, engine, k=k, llm_config=config), config, settings.store_dir
    )


def run(args: argparse.Namespace, retrieve: Retrieve, config: LLMSettings | None, store_dir: Path) -> int:
    """The audit of every item, with `retrieve` standing for the product searching the store in `store_dir`."""
    items = load_items(args.gold, args.limit)
    chat = None
    if config is None:
        print(OFFLINE_MESSAGE, file=sys.stderr)
    else:
        chat = Chat(config)
    cache = ResultCache(args.cache / "hallucination")
    fingerprint = product_fingerprint(store_dir)
    rows = [
        audit_item(item, retrieve, chat, cache, k=args.k, fingerprint=fingerprint, refresh=args.refresh)
        for item in tqdm(items, desc="hallucination audit", unit="item", file=sys.stderr)
    ]
    summary = summarise(rows, model=chat.model if chat else None, prompt_version=PROMPT_VERSION)
    print(format_summary(summary))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"summary": summary, "items": rows}, ensure_ascii=False, indent=2))
    if args.report:
        write_report(args.report, summary, rows)
    return 1 if summary["product"]["failed"] else 0


def load_items(path: Path, limit: int | None) -> list[dict]:
    items = read_jsonl(path)
    return items[:limit] if limit is not None else items


def audit_item(
    item: dict, retrieve: Retrieve, chat: Chat | None, cache: ResultCache, *, k: int, fingerprint: str, refresh: bool
) -> dict:
    """One item: the product's retrieval (cached with the baseline when an LLM ran), both sides audited."""
    unanswerable = not item.get("gold")
    key = ResultCache.key(item["id"], item["turns"], chat.model if chat else None, PROMPT_VERSION, k, fingerprint)
    record = cache.get(key) if chat and not refresh else None
    if record is None:
        found = retrieve(item["turns"], k)
        record = {"search": _search_record(found), "baseline": None}
        if chat:
            record["baseline"] = baseline(chat, item["turns"], found, retrieve, k=k, unanswerable=unanswerable)
            cache.put(key, record)
    found = _search_from_record(record["search"])
    failures = audit_search(found)
    return {
        "id": item["id"],
        "type": item.get("type", ""),
        "unanswerable": unanswerable,
        "questions": [result.question for result in found.results],
        "baseline": record["baseline"],
        "product": {
            "failures": [asdict(failure) for failure in failures],
            "shown_tokens": shown_tokens(found),
            "failed_tokens": sum(tokens(failure.span) for failure in failures),
            "judged": judge_item(found, item.get("gold", [])),
        },
    }


def baseline(
    chat: Chat, turns: list[str], found: SearchResult, retrieve: Retrieve, *, k: int, unanswerable: bool
) -> dict:
    """The generative answer from the product's passages, and what the detector finds in it."""
    evidence = _evidence(found.shown_passages)
    try:
        text = write_answer(chat, turns, evidence)
    except StageFailure as failure:
        return {"answer": None, "failure": failure.reason, "evidence": [asdict(e) for e in evidence]}
    wider = [e for e in _evidence(retrieve(turns, 2 * k).shown_passages) if e not in evidence]
    detection = detect(text, evidence, turns, unanswerable=unanswerable, chat=chat, wider=wider)
    return {
        "answer": text,
        "failure": None,
        "evidence": [asdict(e) for e in evidence],
        "wider_passages": len(wider),
        "detection": detection.to_record(),
    }


def product_fingerprint(store_dir: Path) -> str:
    """A hash of the product's retrieval code and built knowledge base, so a cached retrieval is never stale."""
    digest = hashlib.sha256()
    for package in PRODUCT_CODE:
        for path in sorted((PROJECT / package).glob("*.py")):
            digest.update(path.read_bytes())
    generation = current_generation(store_dir)
    if generation is not None:
        digest.update(generation.name.encode())
        digest.update((generation / "meta.json").read_bytes())
    return digest.hexdigest()[:16]


def _evidence(passages: list[Passage]) -> list[Evidence]:
    unique = dict.fromkeys(Evidence(p.doc, p.unit, p.text) for p in passages)
    return list(unique)


def _search_record(found: SearchResult) -> dict:
    return {
        "understanding": asdict(found.understanding),
        "results": [
            {"question": r.question, "hits": [{"passage": h.passage.to_record(), "score": h.score} for h in r.hits]}
            for r in found.results
        ],
    }


def _search_from_record(record: dict) -> SearchResult:
    understanding = record["understanding"]
    return SearchResult(
        Understanding(**{**understanding, "questions": tuple(understanding["questions"])}),
        tuple(
            QuestionResult(r["question"], tuple(Hit(Passage.from_record(h["passage"]), h["score"]) for h in r["hits"]))
            for r in record["results"]
        ),
    )
