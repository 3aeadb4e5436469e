"""`python -m eval linear`: the linear map's ridge penalty (`retrieval/retrievers.py`), chosen on the bank alone.

The bank's entries are held out five ways. Each held-out fold is searched as passengers write, one to three
matters at a time: one to three of its entries of different units, joined into one query. The map is fitted on the
other four folds, and the figure is the share of the query's units in its first five. The same share for each
unit's nearest entry (what the dense retriever does) is printed beside it. No evaluation item is read: the penalty
is knowledge of the bank, and the story sets measure it afterwards (`python -m eval ranker`).
"""

from __future__ import annotations

import argparse
import random
import statistics
from pathlib import Path

import numpy as np

from foundation.settings import Settings
from kb.embeddings import Encoder
from kb.passage import UnitId
from retrieval.engine import english_bank_vectors
from retrieval.retrievers import LINEAR_PENALTY, LinearRetriever
from retrieval.search import load_engine

PENALTIES = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
FOLDS = 5
QUERIES_PER_FOLD = 300


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, help="knowledge base whose bank is read (default: the app's)")
    parser.add_argument("--seed", type=int, default=0)


def held_out_queries(
    texts: list[str], units: list[UnitId], held: list[int], rng: random.Random
) -> list[tuple[str, set[UnitId]]]:
    """Queries of one to three held-out entries, each of another unit, with the units they are about."""
    queries = []
    while len(queries) < QUERIES_PER_FOLD:
        picked = rng.sample(held, rng.choice((1, 2, 3)))
        if len({units[i] for i in picked}) == len(picked):
            queries.append((" ".join(texts[i] for i in picked), {units[i] for i in picked}))
    return queries


def first_five_share(ranked: list[UnitId], wanted: set[UnitId]) -> float:
    return len(set(ranked[:5]) & wanted) / len(wanted)


def measure(vectors: np.ndarray, texts: list[str], units: list[UnitId], encoder: Encoder, seed: int) -> dict:
    """Held-out share in the first five for each penalty, and for the nearest entry."""
    rng = random.Random(seed)
    folds = [rng.randrange(FOLDS) for _ in units]
    shares: dict[str, list[float]] = {}
    for fold in range(FOLDS):
        held = [i for i, f in enumerate(folds) if f == fold]
        kept = [i for i, f in enumerate(folds) if f != fold]
        queries = held_out_queries(texts, units, held, rng)
        query_vectors = encoder.queries([text for text, _ in queries])
        kept_units = [units[i] for i in kept]
        for penalty in PENALTIES:
            linear = LinearRetriever(vectors[kept], kept_units, penalty)
            for vector, (_, wanted) in zip(query_vectors, queries, strict=True):
                scores = linear.scores(vector)
                ranked = sorted(scores, key=lambda unit: -scores[unit])
                shares.setdefault(f"linear, penalty {penalty:g}", []).append(first_five_share(ranked, wanted))
        for vector, (_, wanted) in zip(query_vectors, queries, strict=True):
            nearest: dict[UnitId, float] = {}
            for similarity, unit in zip((vectors[kept] @ vector).tolist(), kept_units, strict=True):
                nearest[unit] = max(nearest.get(unit, -1.0), similarity)
            ranked = sorted(nearest, key=lambda unit: -nearest[unit])
            shares.setdefault("nearest entry", []).append(first_five_share(ranked, wanted))
    return {name: statistics.fmean(values) for name, values in shares.items()}


def main(args: argparse.Namespace) -> int:
    settings = Settings.from_environment()
    engine = load_engine(args.store or settings.store_dir, settings.chroma_url)
    knowledge_base = engine.knowledge_base
    english_vectors, english_units = english_bank_vectors(knowledge_base)
    english_texts = [entry.text for entry in knowledge_base.bank if entry.lang == "en"]
    maps = {
        "English entries, bge-small-en": (english_vectors, english_texts, english_units, engine.encoder),
        "all entries, multilingual": (
            knowledge_base.bank_multilingual,
            [entry.text for entry in knowledge_base.bank],
            [UnitId(entry.doc, entry.unit) for entry in knowledge_base.bank],
            knowledge_base.encoders.multilingual,
        ),
    }
    print(f"units of one to three held-out entries in the first five, {FOLDS} folds (shipped: {LINEAR_PENALTY:g})")
    for name, (vectors, texts, units, encoder) in maps.items():
        print(name)
        for label, share in measure(np.asarray(vectors), texts, units, encoder, args.seed).items():
            print(f"  {label:22} {share:.3f}")
    return 0
