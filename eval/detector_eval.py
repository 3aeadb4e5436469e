"""`python -m eval detector`: how well the hallucination detector finds planted errors.

The planted set holds faithful answers written from the gold passages of dev items, and copies with one
planted error each: a changed amount or duration, a changed obligation word, a fabricated detail, or an
answer that does not abstain on an unanswerable item. Scoring is per answer: an answer is flagged when the
detector keeps at least one finding; a flagged planted answer is a true positive, a flagged faithful answer a
false positive, an unflagged planted answer a false negative. Precision, recall and F1 are given for the
deterministic checks alone, the LLM stages alone and both combined, with recall by kind of planted error and,
among true positives, the share where a finding overlaps the planted span.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from eval.chat import ENDPOINT_HOWTO, Chat
from eval.claim_audit import Evidence
from eval.detector import Detection, detect
from eval.hallucination_prompts import PROMPT_VERSION
from eval.result_cache import DEFAULT_DIR, ResultCache
from foundation.settings import LLMSettings, Settings
from kb.jsonl import read_jsonl

PLANTED_SET = Path(__file__).resolve().parent / "planted_hallucinations.jsonl"
METHODS = ("deterministic", "llm", "combined")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", type=Path, default=PLANTED_SET, help="planted-hallucination set, JSON Lines")
    parser.add_argument("--limit", type=int, help="only the first N records")
    parser.add_argument("--json", type=Path, help="write every record's detection and the scores to this file")
    parser.add_argument("--cache", type=Path, default=DEFAULT_DIR, help="where LLM results are kept")
    parser.add_argument("--refresh", action="store_true", help="ignore cached results and ask again")


def main(args: argparse.Namespace) -> int:
    return run(args, Settings.from_environment().llm)


def run(args: argparse.Namespace, config: LLMSettings | None) -> int:
    records = read_jsonl(args.set)
    records = records[: args.limit] if args.limit is not None else records
    chat = Chat(config) if config else None
    if chat is None:
        print(f"No LLM endpoint is configured: the LLM stages are not run.\n{ENDPOINT_HOWTO}", file=sys.stderr)
    cache = ResultCache(args.cache / "detector")
    results = [
        judge(record, chat, cache, refresh=args.refresh)
        for record in tqdm(records, desc="detector", unit="answer", file=sys.stderr)
    ]
    scores = {method: score(results, method) if chat or method == "deterministic" else None for method in METHODS}
    print(format_scores(scores, len(records), chat.model if chat else None))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"model": chat.model if chat else None, "prompt_version": PROMPT_VERSION, "scores": scores}
        args.json.write_text(json.dumps({**payload, "records": results}, ensure_ascii=False, indent=2))
    return 0


def judge(record: dict, chat: Chat | None, cache: ResultCache, *, refresh: bool) -> dict:
    """The detection for one record (cached when an LLM ran), and whether each side flagged it."""
    key = ResultCache.key(record, chat.model if chat else None, PROMPT_VERSION)
    cached = cache.get(key) if chat and not refresh else None
    if cached is None:
        evidence = [Evidence(p["doc"], p["unit"], p["text"]) for p in record["passages"]]
        unanswerable = record["type"] == "unanswerable"
        detection = detect(record["answer"], evidence, record["turns"], unanswerable=unanswerable, chat=chat)
        if chat:
            cache.put(key, detection.to_record())
    else:
        detection = Detection.from_record(cached)
    planted = record["planted"]
    start = record["answer"].find(planted["span"]) if planted else -1
    return {
        "id": record["id"],
        "planted": planted["kind"] if planted else None,
        "flagged": {method: detection.flagged(method) for method in METHODS},
        "on_planted_span": {
            method: start >= 0
            and any(
                f.start is not None and f.start < start + len(planted["span"]) and start < f.end
                for f in detection.kept(method)
            )
            for method in METHODS
        },
        "detection": detection.to_record(),
    }


def score(results: list[dict], method: str) -> dict:
    true_positives = sum(1 for r in results if r["planted"] and r["flagged"][method])
    false_positives = sum(1 for r in results if not r["planted"] and r["flagged"][method])
    planted = sum(1 for r in results if r["planted"])
    precision = true_positives / (true_positives + false_positives) if true_positives + false_positives else 0.0
    recall = true_positives / planted if planted else 0.0
    kinds = sorted({r["planted"] for r in results if r["planted"]})
    return {
        "true_positives": true_positives,
        "false_positives": false_positives,
        "false_negatives": planted - true_positives,
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "recall_by_kind": {
            kind: sum(1 for r in results if r["planted"] == kind and r["flagged"][method])
            / sum(1 for r in results if r["planted"] == kind)
            for kind in kinds
        },
        "on_planted_span": sum(1 for r in results if r["planted"] and r["on_planted_span"][method]) / true_positives
        if true_positives
        else 0.0,
    }


def format_scores(scores: dict, records: int, model: str | None) -> str:
    lines = [f"{records} answers; model {model or 'none'}; prompts {PROMPT_VERSION}"]
    lines.append(f"{'detector':<14}{'precision':>10}{'recall':>8}{'F1':>7}{'TP':>5}{'FP':>5}{'FN':>5}{'on span':>9}")
    for method, s in scores.items():
        if s is None:
            lines.append(f"{method:<14}{'not run':>10}")
            continue
        lines.append(
            f"{method:<14}{s['precision']:>10.2f}{s['recall']:>8.2f}{s['f1']:>7.2f}"
            f"{s['true_positives']:>5}{s['false_positives']:>5}{s['false_negatives']:>5}{s['on_planted_span']:>9.2f}"
        )
    for method, s in scores.items():
        if s is not None:
            recall = ", ".join(f"{kind} {value:.2f}" for kind, value in s["recall_by_kind"].items())
            lines.append(f"recall by planted kind, {method}: {recall}")
    return "\n".join(lines)
