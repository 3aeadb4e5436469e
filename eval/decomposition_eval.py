"""`python -m eval decomposition`: how many of a message's issues the questions found, missed and invented.

The check set lists, for each message (with its history), the issues a volunteer would list, as labels of
ISSUES. Each produced question is mapped to labels by the same table: a label holds for a question when the
question contains the cue words of its topics (query_understanding.lexicon.TOPICS, English and French). Per message,
found = gold labels carried by some question, missed = gold labels carried by none, invented = labels carried
by some question but not in the gold list. Because a question that copies its whole message carries every
issue mentioned in it, the split is checked separately: `split ok` counts messages whose number of questions
equals min(number of gold issues, 3). Latency is the wall time of one understand() call, by the path that
actually answered (the language-model path falls back to the built-in one on failure); no cache is used.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from foundation.settings import LLMSettings, Settings
from kb.jsonl import read_jsonl
from query_understanding import understand
from query_understanding.lexicon import topics
from query_understanding.understanding import MAX_QUESTIONS

DEFAULT_SET = Path(__file__).with_name("decomposition_set.jsonl")


@dataclass(frozen=True)
class Issue:
    """A label holds when every group in `all_of` has a topic present and no topic of `none_of` is."""

    all_of: tuple[frozenset[str], ...]
    none_of: frozenset[str] = frozenset()


def _issue(*all_of: str, none_of: str = "") -> Issue:
    return Issue(tuple(frozenset(group.split()) for group in all_of), frozenset(none_of.split()))


# The labels a volunteer would list for a message, built from the topics of the lexicon.
ISSUES: dict[str, Issue] = {
    "delay_compensation": _issue(
        "delay cancellation schedule_change", "compensation", none_of="denied_boarding bag_delayed"
    ),
    "denied_boarding": _issue("denied_boarding"),
    "tarmac_delay": _issue("tarmac"),
    "cancellation_rebooking": _issue("rebooking"),
    "refund": _issue("refund"),
    "meals_hotel": _issue("meals_hotel", none_of="tarmac"),
    "communication": _issue("communication"),
    "baggage_lost": _issue("baggage", "bag_lost"),
    "baggage_delayed": _issue("bag_delayed"),
    "baggage_damaged": _issue("baggage instrument", "damage"),
    "musical_instrument": _issue("instrument"),
    "child_seating": _issue("children", "seating"),
    "disability_assistance": _issue("disability"),
    "claim_deadline": _issue("deadline"),
    "cta_complaint": _issue("complaint"),
}


def issue_labels(text: str) -> set[str]:
    present = topics(text)
    return {
        label
        for label, issue in ISSUES.items()
        if all(group & present for group in issue.all_of) and not issue.none_of & present
    }


@dataclass(frozen=True)
class Outcome:
    id: str
    type: str
    lang: str
    gold: list[str]
    questions: list[str]
    labels: list[str]
    path: str
    seconds: float

    @property
    def found(self) -> set[str]:
        return set(self.gold) & set(self.labels)

    @property
    def split_ok(self) -> bool:
        return len(self.questions) == min(len(self.gold), MAX_QUESTIONS)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, help="check set (default: the shipped one)")
    parser.add_argument("--qu", choices=("offline", "llm"), default="offline", help="query understanding path")
    parser.add_argument("--json", type=Path, help="also write every message's questions and the totals here")
    parser.add_argument("--show", action="store_true", help="print each message's questions and labels")


def main(args: argparse.Namespace) -> int:
    settings = Settings.from_environment()
    config = settings.llm if args.qu == "llm" else None
    if args.qu == "llm" and config is None:
        print(" ".join(["--qu llm needs OPENAI_API_KEY or OPENAI_BASE_URL (see the README).", *settings.problems]))
        return 2
    items = read_jsonl(args.set)
    unknown = {label for item in items for label in item["issues"]} - set(ISSUES)
    if unknown:
        print(f"{args.set}: labels outside the vocabulary: {sorted(unknown)}")
        return 2
    outcomes = [_run(item, config) for item in items]
    if args.show:
        for outcome in outcomes:
            print(f"\n{outcome.id} [{outcome.type}/{outcome.lang}] gold={outcome.gold} got={outcome.labels}")
            for question in outcome.questions:
                print(f"   - {question}")
        print()
    rows = _rows(outcomes)
    _print_table(rows, _latency(outcomes))
    if args.json:
        report = {"rows": rows, "latency": _latency(outcomes), "messages": [asdict(o) for o in outcomes]}
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


def _run(item: dict, config: LLMSettings | None) -> Outcome:
    started = time.perf_counter()
    result = understand(item["turns"], config=config, cache=None)
    seconds = time.perf_counter() - started
    labels = sorted({label for question in result.questions for label in issue_labels(question)})
    return Outcome(
        item["id"], item["type"], item.get("lang", "en"), item["issues"], list(result.questions), labels, result.path,
        seconds,
    )  # fmt: skip


def _rows(outcomes: list[Outcome]) -> list[dict]:
    groups = {"all": outcomes}
    for outcome in outcomes:
        groups.setdefault(f"type={outcome.type}", []).append(outcome)
    for outcome in outcomes:
        groups.setdefault(f"lang={outcome.lang}", []).append(outcome)
    return [_row(name, members) for name, members in groups.items()]


def _row(name: str, outcomes: list[Outcome]) -> dict:
    gold = sum(len(o.gold) for o in outcomes)
    found = sum(len(o.found) for o in outcomes)
    invented = sum(len(set(o.labels) - set(o.gold)) for o in outcomes)
    return {
        "group": name,
        "messages": len(outcomes),
        "issues": gold,
        "found": found,
        "missed": gold - found,
        "invented": invented,
        "recall": found / gold if gold else 0.0,
        "precision": found / (found + invented) if found + invented else 0.0,
        "split_ok": sum(o.split_ok for o in outcomes),
        "questions_per_message": statistics.mean(len(o.questions) for o in outcomes),
    }


def _latency(outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    by_path: dict[str, list[float]] = {}
    for outcome in outcomes:
        by_path.setdefault(outcome.path, []).append(outcome.seconds * 1000)
    return {path: {"calls": len(ms), "mean_ms": statistics.mean(ms), "max_ms": max(ms)} for path, ms in by_path.items()}


def _print_table(rows: list[dict], latency: dict[str, dict[str, float]]) -> None:
    header = f"{'group':<16}{'msgs':>5}{'issues':>7}{'found':>6}{'missed':>7}{'invent':>7}{'recall':>7}{'prec':>6}"
    print(f"{header}{'split ok':>9}{'q/msg':>6}")
    for row in rows:
        print(
            f"{row['group']:<16}{row['messages']:>5}{row['issues']:>7}{row['found']:>6}{row['missed']:>7}"
            f"{row['invented']:>7}{row['recall']:>7.2f}{row['precision']:>6.2f}"
            f"{str(row['split_ok']) + '/' + str(row['messages']):>9}{row['questions_per_message']:>6.2f}"
        )
    for path, numbers in latency.items():
        calls, mean, most = numbers["calls"], numbers["mean_ms"], numbers["max_ms"]
        print(f"latency [{path}]: {calls} calls, mean {mean:.1f} ms, max {most:.1f} ms")
