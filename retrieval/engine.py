"""Hybrid search over the knowledge base, fused per unit of law, thresholded, one passage per unit.

Four kinds of evidence, each a score per unit:
- passage dense: cosine between the question and the unit's text (Chroma, bge-small-en);
- passage sparse: BM25 over the unit's text with its title and heading path;
- bank dense: cosine between the question and the question bank's entries for the unit, that is how
  passengers talk about what the unit governs (written from the law, never from evaluation items);
- bank sparse: BM25 over the same entries, in the question's language;
- for a French question, bank multilingual: cosine between the question and every entry, English or
  French, through a multilingual encoder, so a French question finds units whose entries are in English.

Scores are fused per unit (a section, a treaty article) because a unit is what a passenger reads and what a
volunteer judges; the passage shown is the whole unit, in the question's language when the knowledge base
has it. The weights and the threshold are chosen by cross-validation (`python -m eval tune`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace

import numpy as np
from rank_bm25 import BM25Okapi

from kb.bank import load_outside
from kb.embeddings import embed_queries
from kb.multilingual import embed_multilingual
from kb.passage import Passage, UnitId
from kb.store import KnowledgeBase
from retrieval.results import Hit
from retrieval.terms import terms

CITING_TOP = 3
REFERENCE = re.compile(
    r"\b(?:sections?|subsections?|paragraphs?|subparagraphs?)\s+(\d+(?:\.\d+)?)|\b(\d+(?:\.\d+)?)\(\d+\)"
)
PASSAGE_CANDIDATES = 60
BANK_CANDIDATES = 150


@dataclass(frozen=True)
class Weights:
    """How the kinds of evidence are combined, and when nothing is shown.

    Chosen by 5-fold cross-validation over the dev set and the tuning set (`python -m eval tune`), whose
    printed figures are the held-out folds'; see the README. The closeness gate stops at 0.70: 0.74 scored a
    little better there, but a fifth of those items are out-of-scope questions written for the purpose, and
    at 0.74 plain French questions about a schedule change were refused.
    """

    passage_dense: float = 0.5
    passage_sparse: float = 0.0
    bank_dense: float = 2.0
    bank_sparse: float = 0.3
    bank_multilingual: float = 2.0  # French questions only; chosen on the bank itself, see `kb.multilingual`
    cross_reference: float = 0.1  # share of a top unit's score given to the units it cites or is cited by
    outside_margin: float = 0.0  # refused when an outside-the-law question is this much closer (1.0: never)
    min_similarity: float = 0.7  # nothing is shown unless some bank entry is at least this close (cosine)
    relative_cut: float = 0.3  # a unit is shown only if it scores at least this share of the best unit


@dataclass(frozen=True)
class Evidence:
    """Each kind of evidence for one question: unit -> score, each kind on its own scale."""

    passage_dense: dict[UnitId, float]
    passage_sparse: dict[UnitId, float]
    bank_dense: dict[UnitId, float]
    bank_sparse: dict[UnitId, float]
    bank_multilingual: dict[UnitId, float] = field(default_factory=dict)
    closest_outside: float = 0.0  # the nearest question about flying that no unit answers

    @property
    def closest_bank_entry(self) -> float:
        """How close the nearest way a passenger asks about any unit is: whether the question is in scope at all."""
        return max(self.bank_dense.values(), default=0.0)

    def fuse(self, weights: Weights, references: dict[UnitId, set[UnitId]] | None = None) -> list[tuple[UnitId, float]]:
        """Units best first. A dense score counts above the weakest candidate's, so that a unit absent from
        the dense candidates is not punished more than the weakest one found. A unit that cites one of the
        best units, or is cited by one, gets a share of its score: the law's own structure (the
        compensation section cites the section on delays within the carrier's control, and back)."""
        passage_floor = min(self.passage_dense.values(), default=0.0)
        bank_floor = min(self.bank_dense.values(), default=0.0)
        multilingual_floor = min(self.bank_multilingual.values(), default=0.0)
        units = set(self.passage_dense) | set(self.passage_sparse) | set(self.bank_dense) | set(self.bank_sparse)
        fused = {
            unit: weights.passage_dense * (self.passage_dense.get(unit, passage_floor) - passage_floor)
            + weights.passage_sparse * self.passage_sparse.get(unit, 0.0)
            + weights.bank_dense * (self.bank_dense.get(unit, bank_floor) - bank_floor)
            + weights.bank_sparse * self.bank_sparse.get(unit, 0.0)
            + weights.bank_multilingual
            * (self.bank_multilingual.get(unit, multilingual_floor) - multilingual_floor)
            for unit in units | set(self.bank_multilingual)
        }
        if references and weights.cross_reference:
            top = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:CITING_TOP]
            bonus: dict[UnitId, float] = defaultdict(float)
            for unit, score in top:
                for neighbour in references.get(unit, ()):
                    bonus[neighbour] = max(bonus[neighbour], weights.cross_reference * score)
            for unit, extra in bonus.items():
                fused[unit] = fused.get(unit, 0.0) + extra
        return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


def cross_references(passages: list[Passage]) -> dict[UnitId, set[UnitId]]:
    """Which sections of the same instrument each section cites ("section 19", "12(2)"), both ways round."""
    sections = {p.unit_id for p in passages if p.kind == "law"}
    graph: dict[UnitId, set[UnitId]] = defaultdict(set)
    for passage in passages:
        if passage.kind != "law" or passage.lang != "en":
            continue
        for match in REFERENCE.finditer(passage.text):
            cited = UnitId(passage.doc, "s" + (match.group(1) or match.group(2)))
            if cited in sections and cited != passage.unit_id:
                graph[passage.unit_id].add(cited)
                graph[cited].add(passage.unit_id)
    return dict(graph)


class SparseIndex:
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


class SearchEngine:
    """Everything a search needs, loaded once per process and shared by every session; read-only after init."""

    def __init__(self, knowledge_base: KnowledgeBase, weights: Weights | None = None):
        self.knowledge_base = knowledge_base
        self.weights = weights or Weights()
        self.units: dict[UnitId, dict[str, list[Passage]]] = defaultdict(lambda: defaultdict(list))
        for passage in knowledge_base.passages:
            self.units[passage.unit_id][passage.lang].append(passage)
        self.passage_sparse: dict[str, SparseIndex] = {}
        for lang in {p.lang for p in knowledge_base.passages}:
            items = [item for item in knowledge_base.indexed if item.passage.lang == lang]
            self.passage_sparse[lang] = SparseIndex(
                [item.index_text for item in items], [item.passage.unit_id for item in items], lang
            )
        self.references = cross_references(knowledge_base.passages)
        self.bank_sparse: dict[str, SparseIndex] = {}
        for lang in {e.lang for e in knowledge_base.bank}:
            entries = [e for e in knowledge_base.bank if e.lang == lang]
            units = [UnitId(e.doc, e.unit) for e in entries]
            self.bank_sparse[lang] = SparseIndex([e.text for e in entries], units, lang)
        self.bank_units = [UnitId(e.doc, e.unit) for e in knowledge_base.bank]
        self.bank_multilingual = embed_multilingual([e.text for e in knowledge_base.bank])
        self.outside = embed_queries(load_outside())

    def evidence(self, question: str, lang: str) -> Evidence:
        vector = embed_queries([question])[0]
        passage_sparse = self.passage_sparse.get(lang) or self.passage_sparse["en"]
        bank_sparse = self.bank_sparse.get(lang) or self.bank_sparse.get("en")
        return Evidence(
            passage_dense=self._dense(self.knowledge_base.collection, vector, PASSAGE_CANDIDATES),
            passage_sparse=passage_sparse.scores(question),
            bank_dense=self._dense(self.knowledge_base.bank_collection, vector, BANK_CANDIDATES),
            bank_sparse=bank_sparse.scores(question) if bank_sparse else {},
            bank_multilingual=self._multilingual(question) if lang == "fr" else {},
            closest_outside=float((self.outside @ vector).max()) if len(self.outside) else 0.0,
        )

    def _multilingual(self, question: str) -> dict[UnitId, float]:
        """Cosine per unit (its best entry) among the entries nearest to the question, in any language."""
        similarities = self.bank_multilingual @ embed_multilingual([question])[0]
        best: dict[UnitId, float] = {}
        for index in np.argsort(-similarities)[:BANK_CANDIDATES]:
            unit = self.bank_units[index]
            best[unit] = max(best.get(unit, -1.0), float(similarities[index]))
        return best

    @staticmethod
    def _dense(collection, vector, candidates: int) -> dict[UnitId, float]:
        """Cosine similarity per unit (its best text) among the nearest texts in a Chroma collection."""
        count = collection.count()
        if not count:
            return {}
        result = collection.query(
            query_embeddings=[vector], n_results=min(candidates, count), include=["metadatas", "distances"]
        )
        best: dict[UnitId, float] = {}
        for meta, distance in zip(result["metadatas"][0], result["distances"][0], strict=True):
            unit = UnitId(meta["doc"], meta["unit"])
            best[unit] = max(best.get(unit, -1.0), 1.0 - float(distance))
        return best

    def search(self, question: str, lang: str = "en", k: int = 5) -> list[Hit]:
        """At most k passages, one per unit, best first; nothing when the question is like no bank entry, and no
        unit far below the best one, so possibly nothing at all."""
        if not terms(question, lang):
            return []
        evidence = self.evidence(question, lang)
        if evidence.closest_bank_entry < self.weights.min_similarity:
            return []
        if evidence.closest_outside - evidence.closest_bank_entry > self.weights.outside_margin:
            return []  # more like a question about flying that the law does not answer
        ranked = evidence.fuse(self.weights, self.references)
        best = ranked[0][1] if ranked else 0.0
        hits = []
        for unit, score in ranked:
            if score <= 0 or score < self.weights.relative_cut * best:
                break  # nothing weak is shown: not to fill up to k
            passage = self.unit_passage(unit, lang)
            if passage is not None:
                hits.append(Hit(passage, score))
            if len(hits) == k:
                break
        return hits

    def unit_passage(self, unit: UnitId, lang: str) -> Passage | None:
        """The whole unit as one passage, in `lang` if the knowledge base has it, else in English."""
        by_lang = self.units.get(unit)
        if not by_lang:
            return None
        parts = by_lang.get(lang) or by_lang.get("en") or next(iter(by_lang.values()))
        parts = sorted(parts, key=lambda p: p.part)
        if len(parts) == 1:
            return parts[0]
        return replace(parts[0], text="\n".join(p.text for p in parts), part=0)
