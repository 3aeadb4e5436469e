"""`python -m eval coverage-words`: fit the coverage rules' model of words (`retrieval/coverage_words.py`) and
measure it with its writers held out.

The messages are the project's own, marked covered or not: the coverage set's messages that were read
(`eval/coverage_set.jsonl`), the story sets given (an item with gold is covered, an unanswerable one is not), the
situations' phrasings of the batches that were read, and the question bank's entries, each a way passengers ask
about a unit of law (all covered). Messages are grouped by who wrote them (a coverage writer, a story set, a phrasing
batch, a bank file) and the groups dealt into ten folds, so every figure printed is of messages whose writer the fit
never saw. For each L2 penalty and each threshold the command prints the messages not covered that the rules let
through and the model still accepts, and the covered ones refused (by the rules or the model); the candidate chosen
has the fewest false acceptances plus five times the false refusals, since a refusal hides the law from a passenger
it governs. `--write` fits it on every message and writes the shipped file. The dev set's items never go in: a file
named dev.jsonl is refused.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np

from eval.coverage_eval import COVERAGE_SET
from eval.situations_eval import PHRASINGS
from kb.bank import BANK_DIR
from kb.jsonl import read_jsonl
from retrieval.coverage import outside_by_rules
from retrieval.coverage_words import COVERAGE_WORDS_FILE, CoverageWords, features

PENALTIES = (0.3, 1.0, 3.0)
THRESHOLDS = (0.9, 0.95, 0.97, 0.99)
REFUSAL_COST = 5  # a false refusal weighs as five false acceptances
FOLDS = 10
MIN_MESSAGES = 3  # a word in fewer training messages gets no weight
STEPS = 400  # Adam's steps; the fit is deterministic
NEVER_READ_BATCHES = ("C", "G")  # the phrasing batches kept as a measure (eval/situations_eval.py)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", type=Path, nargs="+", required=True, help="story sets whose items were read")
    parser.add_argument("--write", action="store_true", help=f"write the chosen model to {COVERAGE_WORDS_FILE}")


def main(args: argparse.Namespace) -> int:
    if any(path.name == "dev.jsonl" for path in args.gold):
        raise SystemExit("the dev set's items never go into the model's fit")
    messages = read_messages(args.gold)
    for message in messages:
        message["ruled_out"] = outside_by_rules(message["text"]) is not None
        message["words"] = features(message["text"])
    sources = Counter(m["source"] for m in messages)
    print(f"{len(messages)} messages: " + ", ".join(f"{n} {source}" for source, n in sources.items()))
    folds = _folds(messages)
    results = {}
    for penalty in PENALTIES:
        held_out = {}
        for fold in range(FOLDS):
            model = fit([m for m in messages if folds[m["group"]] != fold], penalty, threshold=0.5)
            held_out |= {id(m): model.likelihood_of(m["words"]) for m in messages if folds[m["group"]] == fold}
        for threshold in THRESHOLDS:
            refused = {key for key, likelihood in held_out.items() if likelihood >= threshold}
            results[(penalty, threshold)] = _errors(messages, refused)
    rules_only = _errors(messages, set())
    print(f"{'candidate':<22} {'not covered, accepted':>22} {'covered, refused':>17}   by source (accepted/refused)")
    print(_row("the rules alone", rules_only))
    for (penalty, threshold), errors in results.items():
        print(_row(f"penalty {penalty}, {threshold}", errors))
    penalty, threshold = min(results, key=lambda key: _cost(results[key]))
    print(f"chosen: penalty {penalty}, threshold {threshold} (fewest accepted + {REFUSAL_COST} x refused, held out)")
    if args.write:
        model = fit(messages, penalty, threshold)
        COVERAGE_WORDS_FILE.write_text(json.dumps(model.to_record(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {COVERAGE_WORDS_FILE} ({len(model.weights)} words)")
    return 0


def read_messages(story_sets: list[Path]) -> list[dict]:
    """Every message to fit on: text, whether it is covered, its writer's group and its source."""
    messages = [
        {"text": r["text"], "covered": r["covered"], "group": "coverage " + r["id"].split("-")[0], "source": "coverage"}
        for r in read_jsonl(COVERAGE_SET)
        if r["read"]
    ]
    for path in story_sets:
        messages += [
            {"text": "\n".join(r["turns"]), "covered": bool(r.get("gold")), "group": path.stem, "source": "stories"}
            for r in read_jsonl(path)
        ]
    messages += [
        {"text": r["text"], "covered": True, "group": "phrasings " + r["batch"], "source": "phrasings"}
        for r in read_jsonl(PHRASINGS)
        if r["batch"] not in NEVER_READ_BATCHES
    ]
    for path in sorted(BANK_DIR.glob("*.jsonl")):
        messages += [
            {"text": r["text"], "covered": True, "group": path.stem, "source": "bank"} for r in read_jsonl(path)
        ]
    return messages


def fit(messages: list[dict], penalty: float, threshold: float) -> CoverageWords:
    """A logistic model of "not covered" over each message's `words` (its `features`), the two classes weighed
    equally."""
    counts = Counter(word for m in messages for word in m["words"])
    vocabulary = sorted(word for word, n in counts.items() if n >= MIN_MESSAGES)
    column = {word: i for i, word in enumerate(vocabulary)}
    x = np.zeros((len(messages), len(vocabulary) + 1))
    x[:, -1] = 1.0
    for row, message in enumerate(messages):
        x[row, [column[w] for w in message["words"] if w in column]] = 1.0
    y = np.array([0.0 if m["covered"] else 1.0 for m in messages])
    balance = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    penalised = np.r_[np.ones(len(vocabulary)), 0.0]
    w, first, second = (np.zeros(x.shape[1]) for _ in range(3))
    for step in range(1, STEPS + 1):
        p = 1 / (1 + np.exp(-(x @ w)))
        gradient = (x.T @ (balance * (p - y)) + penalty * penalised * w) / len(y)
        first, second = 0.9 * first + 0.1 * gradient, 0.999 * second + 0.001 * gradient**2
        w -= 0.05 * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    weights = {word: round(float(w[i]), 4) for word, i in column.items() if round(float(w[i]), 4)}
    return CoverageWords(weights, round(float(w[-1]), 4), threshold)


def _folds(messages: list[dict]) -> dict[str, int]:
    groups = sorted({m["group"] for m in messages})
    random.Random(0).shuffle(groups)
    return {group: i % FOLDS for i, group in enumerate(groups)}


def _errors(messages: list[dict], refused_by_model: set[int]) -> dict[str, tuple[int, int]]:
    """(not covered accepted, covered refused) by source, the rules first and the model after them (the `id` of
    each message it refuses)."""
    errors = {}
    for source in ("coverage", "stories", "phrasings", "bank", "all"):
        mine = [m for m in messages if source in ("all", m["source"])]
        accepted = sum(1 for m in mine if not m["covered"] and not m["ruled_out"] and id(m) not in refused_by_model)
        refused = sum(1 for m in mine if m["covered"] and (m["ruled_out"] or id(m) in refused_by_model))
        errors[source] = (accepted, refused)
    return errors


def _cost(errors: dict[str, tuple[int, int]]) -> int:
    accepted, refused = errors["all"]
    return accepted + REFUSAL_COST * refused


def _row(name: str, errors: dict[str, tuple[int, int]]) -> str:
    accepted, refused = errors["all"]
    by_source = "  ".join(f"{source} {a}/{r}" for source, (a, r) in errors.items() if source != "all")
    return f"{name:<22} {accepted:>22} {refused:>17}   {by_source}"
