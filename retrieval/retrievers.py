"""One retriever per kind of evidence, each scoring units of law on its own scale: a unit scores its best text.

- `DenseRetriever`: cosine similarity in a Chroma collection (the passages, or the question bank), bge-small-en;
- `SparseRetriever`: BM25 over texts in one language, scaled so the best unit is 1;
- `MultilingualRetriever`: cosine through the multilingual encoder over every bank entry, English or French, so a
  French question finds units whose entries are in English;
- `LinearRetriever`: every unit scored by a linear map fitted on the bank, from each entry's vector to its unit.

`retrieval/fusion.py` combines what they find.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from rank_bm25 import BM25Okapi

from kb.embeddings import Encoder
from kb.passage import UnitId
from retrieval.terms import terms

# the ridge penalty: 0.3 of 0.1, 0.3, 1, 3, 10 and 30, both on the bank alone (`python -m eval linear`: entries
# held out five ways, searched one to three at a time) and with each story set held out from the ranker's fit
LINEAR_PENALTY = 0.3


class DenseRetriever:
    """The units of the texts in a Chroma collection nearest to a question's vector.

    Each record's unit is known from its id (`units`), so a query asks Chroma for distances only: reading the
    metadata of 150 records took two thirds of a query's time.
    """

    def __init__(self, collection, candidates: int, units: dict[str, UnitId]):
        self.collection = collection
        self.candidates = candidates
        self.units = units
        self.count = collection.count()  # a generation's collections never change once built

    def scores(self, vector) -> dict[UnitId, float]:
        count = self.count
        if not count:
            return {}
        result = self.collection.query(
            query_embeddings=[vector], n_results=min(self.candidates, count), include=["distances"]
        )
        best: dict[UnitId, float] = {}
        for record, distance in zip(result["ids"][0], result["distances"][0], strict=True):
            unit = self.units[record]
            best[unit] = max(best.get(unit, -1.0), 1.0 - float(distance))
        return best


class SparseRetriever:
    """BM25 over texts that each belong to a unit; a unit scores its best text, scaled so the best unit is 1.

    Each term's BM25 weight in every text that holds it is worked out once, when the engine starts (rank-bm25's
    Okapi formula and parameters, the same arithmetic): a long story has a hundred terms, and rank-bm25 walks
    every text for each of them at every search.
    """

    def __init__(self, texts: list[str], units: list[UnitId], lang: str):
        self.lang = lang
        self.units = units
        self.postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if texts:
            index = BM25Okapi([terms(text, lang) for text in texts])
            lengths = np.array(index.doc_len)
            held: dict[str, list[tuple[int, int]]] = defaultdict(list)
            for position, freqs in enumerate(index.doc_freqs):
                for term, freq in freqs.items():
                    held[term].append((position, freq))
            for term, pairs in held.items():
                holders, freq = (np.array(column) for column in zip(*pairs, strict=True))
                norm = index.k1 * (1 - index.b + index.b * lengths[holders] / index.avgdl)
                self.postings[term] = (holders, index.idf[term] * (freq * (index.k1 + 1) / (freq + norm)))

    def scores(self, query: str) -> dict[UnitId, float]:
        query_terms = terms(query, self.lang)
        if not self.postings or not query_terms:
            return {}
        totals = np.zeros(len(self.units))
        for term in query_terms:  # a term said twice counts twice, as in rank-bm25
            if term in self.postings:
                holders, weights = self.postings[term]
                totals[holders] += weights
        best: dict[UnitId, float] = {}
        for position in np.flatnonzero(totals > 0):
            unit, score = self.units[position], float(totals[position])
            if score > best.get(unit, 0.0):
                best[unit] = score
        top = max(best.values(), default=0.0)
        return {unit: score / top for unit, score in best.items()} if top > 0 else {}


class MultilingualRetriever:
    """The units of the texts nearest to a question in any language; the texts' vectors (`embed_multilingual`)
    are computed when the knowledge base is built."""

    def __init__(self, vectors: np.ndarray, units: list[UnitId], candidates: int, encoder: Encoder):
        """`vectors`: the texts as `encoder` made them when the knowledge base was built."""
        self.vectors = vectors
        self.encoder = encoder
        self.units = units
        self.candidates = candidates

    def query_vector(self, question: str) -> np.ndarray:
        return self.encoder.queries([question])[0]

    def scores(self, vector: np.ndarray) -> dict[UnitId, float]:
        """`vector`: the question as `query_vector` encodes it."""
        similarities = self.vectors @ vector
        best: dict[UnitId, float] = {}
        for index in np.argsort(-similarities)[: self.candidates]:
            unit = self.units[index]
            best[unit] = max(best.get(unit, -1.0), float(similarities[index]))
        return best


class LinearRetriever:
    """Every unit scored by a linear map from a question's vector to the units, fitted on the bank's entries.

    The dense retriever scores a unit by its one nearest entry, and a long story that mixes two or three matters
    is near none of them. A least-squares map from each entry's vector to its unit (ridge, closed form, fitted
    when the engine starts) reads instead what all of a unit's entries share, so each matter of the story still
    points at its unit: bank entries held out and searched one to three at a time had 0.51 of their units in its
    first five, against 0.45 by the nearest entry (`python -m eval linear`). The ranker reads its score
    (`retrieval/ranker.py`).
    """

    def __init__(self, vectors: np.ndarray, units: list[UnitId], penalty: float = LINEAR_PENALTY):
        self.units = sorted(set(units))
        place = {unit: index for index, unit in enumerate(self.units)}
        x = np.asarray(vectors, dtype=np.float64)
        targets = np.zeros((len(units), len(self.units)))
        targets[np.arange(len(units)), [place[unit] for unit in units]] = 1.0
        gram = x.T @ x + penalty * np.eye(x.shape[1])
        self.map = np.linalg.solve(gram, x.T @ targets).astype(np.float32)

    def scores(self, vector: np.ndarray) -> dict[UnitId, float]:
        if not self.units:
            return {}
        return dict(zip(self.units, (vector @ self.map).tolist(), strict=True))
