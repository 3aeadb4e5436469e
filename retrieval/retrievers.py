"""One retriever per kind of evidence, each scoring units of law on its own scale: a unit scores its best text.

- `DenseRetriever`: cosine similarity in a Chroma collection (the passages, or the question bank), bge-small-en;
- `SparseRetriever`: BM25 over texts in one language, scaled so the best unit is 1;
- `MultilingualRetriever`: cosine through the multilingual encoder over every bank entry, English or French, so a
  French question finds units whose entries are in English.

`retrieval/fusion.py` combines what they find.
"""

from __future__ import annotations

import numpy as np
from rank_bm25 import BM25Okapi

from kb.embeddings import Encoder
from kb.passage import UnitId
from retrieval.terms import terms


class DenseRetriever:
    """The units of the texts in a Chroma collection nearest to a question's vector."""

    def __init__(self, collection, candidates: int):
        self.collection = collection
        self.candidates = candidates

    def scores(self, vector) -> dict[UnitId, float]:
        count = self.collection.count()
        if not count:
            return {}
        result = self.collection.query(
            query_embeddings=[vector], n_results=min(self.candidates, count), include=["metadatas", "distances"]
        )
        best: dict[UnitId, float] = {}
        for meta, distance in zip(result["metadatas"][0], result["distances"][0], strict=True):
            unit = UnitId(meta["doc"], meta["unit"])
            best[unit] = max(best.get(unit, -1.0), 1.0 - float(distance))
        return best


class SparseRetriever:
    """BM25 over texts that each belong to a unit; a unit scores its best text, scaled so the best unit is 1."""

    def __init__(self, texts: list[str], units: list[UnitId], lang: str):
        self.lang = lang
        self.units = units
        self.index = BM25Okapi([terms(text, lang) for text in texts]) if texts else None

    def scores(self, query: str) -> dict[UnitId, float]:
        query_terms = terms(query, self.lang)
        if self.index is None or not query_terms:
            return {}
        best: dict[UnitId, float] = {}
        for unit, score in zip(self.units, self.index.get_scores(query_terms), strict=True):
            if score > best.get(unit, 0.0):
                best[unit] = float(score)
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

    def scores(self, question: str) -> dict[UnitId, float]:
        similarities = self.vectors @ self.encoder.queries([question])[0]
        best: dict[UnitId, float] = {}
        for index in np.argsort(-similarities)[: self.candidates]:
            unit = self.units[index]
            best[unit] = max(best.get(unit, -1.0), float(similarities[index]))
        return best
