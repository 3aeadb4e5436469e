"""`python -m eval ranker`: fit the ranker (`retrieval/ranker.py`) and the map of stories' words it reads
(`retrieval/story_words.py`) on story sets, and measure both on each set held out.

Every question the product searches for an item gives its candidates (`SearchEngine.candidates`), each labelled by
whether the item's gold holds it. A logistic model (L2-penalised, Newton's method) is fitted on every set but one
and measured on that one through the product's own search (`search_dialogue`), beside the fused order it replaces;
the figures printed are the held-out sets'. The map of stories' words is fitted on the bank and the story sets; each
set's candidates read the map fitted without that set, so the ranker learns how far to trust the map on stories it
never saw, and the held-out set is searched with that same map. `--write` fits both on all the sets given and
writes the shipped files. The dev set's items never go in (the issue's rule for every ranker): a file named
dev.jsonl is refused.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import statistics
from pathlib import Path

import numpy as np

from eval.retrieval_eval import GoldItem, load_gold
from eval.story_words_fit import fit_story_words, training_texts
from eval.tune import EvidenceReplay, item_scores, summary
from foundation.settings import Settings
from foundation.text import detect_language
from kb.store import KnowledgeBase
from query_understanding import understand
from retrieval.coverage import outside_coverage
from retrieval.engine import SearchEngine
from retrieval.ranker import RANKER_FILE, Ranker
from retrieval.story_words import NO_STORY_WORDS, STORY_WORDS_FILE, StoryWords
from retrieval.terms import terms

PENALTY = 1.0  # the L2 penalty on standardised weights; 0.1, 10 and 100 gave the same held-out means within 0.002
FUSED_ORDER = Ranker(("rank",), (0.0,), (1.0,), (-1.0,), 0.0)  # the order before the ranker: fused, then lifted


def labelled_candidates(engine: SearchEngine, items: list[GoldItem]) -> list[tuple[dict[str, float], bool]]:
    """(features, whether the gold holds the unit) for every candidate of every question the product searches."""
    rows = []
    for item in items:
        if not item.gold or outside_coverage("\n".join(item.turns)):
            continue
        understanding = understand(item.turns, config=None)
        lang = detect_language(item.turns[-1])
        for index, question in enumerate(understanding.questions):
            searched = understanding.searched(index)
            if not terms(searched, lang):
                continue
            # each question's own vector, though the product shares one among a message's questions
            # (`retrieval.search.shared_vector`): measured through the product, a fit on these held out better
            evidence = engine.evidence(searched, lang)
            for unit, features in engine.candidates(evidence, searched, question, dialogue=tuple(item.turns)):
                rows.append((features, unit in item.gold))
    return rows


def fit(rows: list[tuple[dict[str, float], bool]], penalty: float = PENALTY) -> Ranker:
    """The logistic model of the labelled candidates, its features standardised."""
    names = sorted({name for features, _ in rows for name in features})
    x = np.array([[features.get(n, 0.0) for n in names] for features, _ in rows])
    y = np.array([float(label) for _, label in rows])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    a = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(a.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-a @ w))
        hessian = a.T @ (a * (p * (1 - p))[:, None]) + penalty * np.eye(a.shape[1])
        step = np.linalg.solve(hessian, a.T @ (p - y) + penalty * w)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return Ranker(tuple(names), tuple(mean.round(6)), tuple(scale.round(6)), tuple(w[:-1].round(6)), round(w[-1], 6))


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", type=Path, nargs="+", required=True, help="story sets, one fold each")
    parser.add_argument("--write", action="store_true", help=f"fit on every set, write {RANKER_FILE.name} and "
                        f"{STORY_WORDS_FILE.name}")  # fmt: skip
    parser.add_argument("--store", type=Path, help="knowledge base to search (default: the app's)")


def main(args: argparse.Namespace) -> int:
    if any(path.name == "dev.jsonl" for path in args.gold):
        raise SystemExit("the dev set's items never train the ranker: leave dev.jsonl out")
    settings = Settings.from_environment()
    knowledge_base = KnowledgeBase.open(args.store or settings.store_dir, settings.chroma_url)
    engine = SearchEngine(knowledge_base, ranker=FUSED_ORDER, story_words=NO_STORY_WORDS)  # not the files it rewrites
    sets = {path.stem: load_gold(path) for path in args.gold}
    bank = training_texts(engine.knowledge_base.bank, [])
    stories = {name: training_texts([], items) for name, items in sets.items()}
    maps = {name: fit_story_words(bank + [t for other, texts in stories.items() if other != name for t in texts])
            for name in sets}  # fmt: skip
    rows = {name: labelled_candidates(with_map(engine, maps[name]), items) for name, items in sets.items()}
    print("each set held out: the fused order | the ranker fitted on the other sets (R@5 / MAP@5 / wrong law)")
    means = {"fused": [], "ranker": []}
    for name, items in sets.items():
        figures = []
        others = fit([row for other, labelled in rows.items() if other != name for row in labelled])
        for label, ranker in (("fused", FUSED_ORDER), ("ranker", others)):
            held_out = with_map(engine, maps[name])  # shares the loaded knowledge base; the order and map differ
            held_out.ranker = ranker
            row = summary(items, item_scores(EvidenceReplay(held_out), items, 5))
            cells = (row.get("recall@5", math.nan), row.get("map@5", math.nan), row.get("wrong law", math.nan))
            means[label].append(cells)
            figures.append(" / ".join(f"{v:.3f}" for v in cells))
        print(f"{name:14} {figures[0]} | {figures[1]}")
    for label, cells in means.items():
        print(f"{'mean ' + label:14} " + " / ".join(f"{statistics.fmean(c[i] for c in cells):.3f}" for i in range(3)))
    if args.write:
        fit_story_words(bank + [t for texts in stories.values() for t in texts]).save(STORY_WORDS_FILE)
        ranker = fit([row for labelled in rows.values() for row in labelled])
        RANKER_FILE.write_text(json.dumps(ranker.to_record(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {STORY_WORDS_FILE} and {RANKER_FILE}: fitted on {sum(map(len, rows.values()))} candidates of "
              f"{len(sets)} sets")  # fmt: skip
    return 0


def with_map(engine: SearchEngine, story_words: StoryWords) -> SearchEngine:
    """The engine searching with another map of stories' words, its loaded knowledge base shared."""
    engine = copy.copy(engine)
    engine.story_words = story_words
    return engine
