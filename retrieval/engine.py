"""Hybrid search over the knowledge base, fused per unit of law, thresholded, one passage per unit.

Six kinds of evidence, each a score per unit, each from its own retriever (`retrieval/retrievers.py`):
- passage dense: cosine between the question and the unit's text (Chroma, bge-small-en);
- bank dense: cosine between the question and the question bank's entries for the unit, that is how
  passengers talk about what the unit governs (written from the law, never from evaluation items);
- bank sparse: BM25 over the same entries, in the question's language;
- for a French question, bank multilingual: cosine between the question and every entry, English or
  French, through a multilingual encoder, so a French question finds units whose entries are in English;
- bank linear: what a map fitted on the bank's entries, from an entry's vector to its unit, says of the question
  (bge-small-en's vectors of the English entries; for a French question, also the multilingual vectors of all);
- story words: what a map from a text's words to its units, fitted on the bank and on stories written from the
  law, says of the question (`retrieval/story_words.py`); read by the ranker only, like bank linear.

The situations the question describes (`kb/situations.py`, `retrieval/situations.py`) then lift the units they
engage, in the order the ask needs, above their neighbours. What passes the cuts is shown in the order of a model
fitted to that evidence (`retrieval/ranker.py`).

Scores are fused per unit (`retrieval/fusion.py`; a section, a treaty article) because a unit is what a
passenger reads and what a volunteer judges; the passage shown is the whole unit, in the question's language
when the knowledge base has it.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from kb.embeddings import MAX_QUERY_TOKENS
from kb.passage import Passage, UnitId, whole_unit
from kb.situations import load_situations
from kb.store import KnowledgeBase
from query_understanding.flight_scope import flight_reach
from retrieval.coverage_words import load_coverage_words
from retrieval.fusion import Evidence, Weights, cross_references, with_situations
from retrieval.pinpoint import Pinpointer
from retrieval.ranker import CANDIDATES, Ranker, load_ranker, unit_features
from retrieval.results import Hit
from retrieval.retrievers import DenseRetriever, LinearRetriever, MultilingualRetriever, SparseRetriever
from retrieval.situations import engagements
from retrieval.story_words import StoryWords, load_story_words
from retrieval.terms import terms

PASSAGE_CANDIDATES = 60
# bge-small-en reads French poorly (the multilingual retriever carries a French question's meaning) and French
# runs to about 1.6 times the tokens of English: cut at half, a French story's question costs 24 ms, not 40,
# and recall@5 and MAP@5 moved by at most 0.016 on any of eight sets, both ways
FRENCH_QUERY_TOKENS = 128
BANK_CANDIDATES = 150
STORY_WORDS = 60  # a question searched with more words than this carries a story, a trip report's sights too


def english_bank_vectors(knowledge_base: KnowledgeBase) -> tuple[np.ndarray, list[UnitId]]:
    """The English bank entries' bge-small-en vectors, as the store holds them, and each entry's unit: what the
    linear map is fitted on (bge-small-en reads French entries poorly; the multilingual map has them)."""
    english = [entry for entry in knowledge_base.bank if entry.lang == "en"]
    if not english:
        return np.zeros((0, 0)), []
    stored = knowledge_base.bank_collection.get(ids=[entry.id for entry in english], include=["embeddings"])
    by_id = dict(zip(stored["ids"], stored["embeddings"], strict=True))
    return np.array([by_id[entry.id] for entry in english]), [UnitId(entry.doc, entry.unit) for entry in english]


class SearchEngine:
    """Everything a search needs, loaded once per process and shared by every session; read-only after init but for
    the last vector's dense scores (`dense`)."""

    def __init__(
        self,
        knowledge_base: KnowledgeBase,
        weights: Weights | None = None,
        ranker: Ranker | None = None,
        story_words: StoryWords | None = None,
    ):
        """Questions are encoded by the models the knowledge base was built with (`KnowledgeBase.encoders`); what
        is shown is ordered by the shipped ranker and map of stories' words unless the evaluator fits others (and
        then starts without the shipped files, so that their fit rewrites a damaged one)."""
        self.knowledge_base = knowledge_base
        self.encoder = knowledge_base.encoders.english
        self.weights = weights or Weights()
        self.ranker = ranker or load_ranker()
        self.coverage_words = load_coverage_words()  # read at start, like the ranker: a damaged file names its fix
        self.story_words = story_words if story_words is not None else load_story_words()
        self.units: dict[UnitId, dict[str, list[Passage]]] = defaultdict(lambda: defaultdict(list))
        for passage in knowledge_base.passages:
            self.units[passage.unit_id][passage.lang].append(passage)
        self.references = cross_references(knowledge_base.passages)
        passage_units = {p.id: p.unit_id for p in knowledge_base.passages}
        self.passage_dense = DenseRetriever(knowledge_base.collection, PASSAGE_CANDIDATES, passage_units)
        bank = knowledge_base.bank
        entry_units = [UnitId(e.doc, e.unit) for e in bank]  # the unit of each bank entry, in the bank's order
        bank_units = {e.id: unit for e, unit in zip(bank, entry_units, strict=True)}
        self.bank_dense = DenseRetriever(knowledge_base.bank_collection, BANK_CANDIDATES, bank_units)
        self.bank_sparse: dict[str, SparseRetriever] = {}
        for lang in {e.lang for e in bank}:
            entries = [e for e in bank if e.lang == lang]
            units = [bank_units[e.id] for e in entries]
            self.bank_sparse[lang] = SparseRetriever([e.text for e in entries], units, lang)
        self.bank_multilingual = MultilingualRetriever(
            knowledge_base.bank_multilingual, entry_units, BANK_CANDIDATES, knowledge_base.encoders.multilingual
        )
        self.bank_linear = LinearRetriever(*english_bank_vectors(knowledge_base))
        self.bank_linear_multilingual = LinearRetriever(knowledge_base.bank_multilingual, entry_units)
        self.outside = knowledge_base.outside
        self.pinpointer = Pinpointer(knowledge_base.passages, knowledge_base.bank)
        self.situations = load_situations()
        self._last_dense: tuple[bytes, tuple[dict, dict, dict]] | None = None  # see `dense`

    def query_vector(self, text: str, lang: str) -> np.ndarray:
        """The dense vector `text` is searched with, cut where a longer story no longer pays for its time."""
        cut = FRENCH_QUERY_TOKENS if lang == "fr" else MAX_QUERY_TOKENS
        return self.encoder.queries([text], max_tokens=cut)[0]

    def evidence(self, question: str, lang: str, vector: np.ndarray | None = None, ask: str | None = None) -> Evidence:
        """Everything each retriever found for `question`, before any weighing: the engine's one measured value.

        `vector`, when given, is what the dense retrievers search with instead of the question's own vector (a
        message's questions share one: `retrieval.search.shared_vector`). That vector carries the whole story, a trip
        report's sights and restaurants too, and so does a one-question story's own; so when it would have the
        question refused as one the law does not answer (`Weights.outside_margin`), whether the passenger's `ask` is
        one is read from the ask as the page shows it, at one more encoding: one ask of the story may be about a
        stroller broken in the hold and another about a museum."""
        shared = vector is not None
        if vector is None:
            vector = self.query_vector(question, lang)
        passage_dense, bank_dense, bank_linear = self.dense(vector)
        outside_lead = self.outside_lead(vector, bank_dense)
        if ask and outside_lead > self.weights.outside_margin and (shared or len(question.split()) > STORY_WORDS):
            own = self.query_vector(ask, lang)
            outside_lead = self.outside_lead(own, self.bank_dense.scores(own))
        bank_sparse = self.bank_sparse.get(lang) or self.bank_sparse.get("en")
        multilingual = self.bank_multilingual.query_vector(question) if lang == "fr" else None
        return Evidence(
            passage_dense=passage_dense,
            bank_dense=bank_dense,
            bank_sparse=bank_sparse.scores(question) if bank_sparse else {},
            bank_multilingual=self.bank_multilingual.scores(multilingual) if multilingual is not None else {},
            outside_lead=outside_lead,
            bank_linear=bank_linear,
            bank_linear_multilingual=(
                self.bank_linear_multilingual.scores(multilingual) if multilingual is not None else {}
            ),
            story_words=self.story_words.scores(question, lang),
        )

    def dense(self, vector: np.ndarray) -> tuple[dict[UnitId, float], dict[UnitId, float], dict[UnitId, float]]:
        """The passage dense, bank dense and bank linear scores of `vector`, which depend on it alone.

        A message's questions share one vector (`retrieval.search.shared_vector`), so the last vector's scores are
        kept: its second and third questions query Chroma no more (about 8 ms each on two cores). The scores are
        read-only values, and the kept pair is replaced whole, so sessions searching at once see one or the other."""
        key = vector.tobytes()
        kept = self._last_dense
        if kept is not None and kept[0] == key:
            return kept[1]
        scores = (self.passage_dense.scores(vector), self.bank_dense.scores(vector), self.bank_linear.scores(vector))
        self._last_dense = (key, scores)
        return scores

    def outside_lead(self, vector: np.ndarray, bank_dense: dict[UnitId, float]) -> float:
        """How much closer `vector` is to the nearest question about flying that no unit answers than to the nearest
        bank entry: above the margin, the question is refused (`candidates`)."""
        if not len(self.outside):
            return -1.0
        return float((self.outside @ vector).max()) - max(bank_dense.values(), default=0.0)

    def search(
        self,
        question: str,
        lang: str = "en",
        k: int = 5,
        ask: str | None = None,
        dialogue: tuple[str, ...] = (),
        vector: np.ndarray | None = None,
    ) -> list[Hit]:
        """At most k passages, one per unit, best first; nothing when the question is like no bank entry and tells no
        situation the law distinguishes, and no unit far below the best one, so possibly nothing at all.

        `question` is what is searched; `ask`, the question as the passenger reads it (default: the same), says
        what is asked for, so that the units of the situations `question` describes come in the order it needs.
        """
        if not terms(question, lang):
            return []
        return self.rank(self.evidence(question, lang, vector, ask), question, lang, k, ask, dialogue=dialogue)

    def rank(
        self,
        evidence: Evidence,
        question: str,
        lang: str = "en",
        k: int = 5,
        ask: str | None = None,
        weights: Weights | None = None,
        dialogue: tuple[str, ...] = (),
    ) -> list[Hit]:
        """The hits `search` shows for the question whose `evidence` was gathered, under `weights` (the engine's
        own unless the evaluator tries others): the `candidates`, in the ranker's order, each scored by it, and
        after the first none the ranker thinks unlikely to be the law a volunteer would show."""
        weights = weights or self.weights
        found = self.candidates(evidence, question, ask, weights, dialogue)
        likelihoods = [self.ranker.score(features) for _, features in found]
        hits = []
        for place in sorted(range(len(found)), key=lambda i: -likelihoods[i]):  # stable: ties keep the fused order
            if hits and likelihoods[place] < weights.min_likelihood:
                break
            passage = self.unit_passage(found[place][0], lang)
            if passage is not None:
                hits.append(Hit(passage, likelihoods[place]))
            if len(hits) == k:
                break
        return hits

    def candidates(
        self,
        evidence: Evidence,
        question: str,
        ask: str | None = None,
        weights: Weights | None = None,
        dialogue: tuple[str, ...] = (),
    ) -> list[tuple[UnitId, dict[str, float]]]:
        """The units that may be shown, in the fused order, each with what the ranker reads of it
        (`retrieval/ranker.py`); none when the question is like no bank entry and tells no situation.

        A unit far below the best is not a candidate, unless a situation the question tells engages it as one of
        its first units or in the role the ask asks for: the law puts it beside the best one (the liability limit
        beside the liability article), however unlike the passenger's words its text is."""
        weights = weights or self.weights
        reach = flight_reach("\n".join(dialogue) or question)
        engaged = engagements(
            self.situations, question, ask or question, dialogue, weights.earlier_turns, weights.other_roles, reach
        )
        shares = {unit: engagement.share for unit, engagement in engaged.items()}
        if evidence.closest_bank_entry < weights.min_similarity and not shares:
            # like no way a passenger asks about the law, and telling no situation the law distinguishes: on every
            # set, the questions this gate stopped that told a situation were answerable, and none of the others
            return []
        story_told = shares and len(question.split()) > STORY_WORDS  # a story telling a situation the law distinguishes
        if evidence.outside_lead > weights.outside_margin and not story_told:
            return []  # more like a question about flying that the law does not answer
        ranked = with_situations(evidence.fuse(weights, self.references), shares, weights.situation)
        best, roles = (ranked[0][1] if ranked else 0.0), self.situations.roles
        found = []
        for position, (unit, score) in enumerate(ranked[:CANDIDATES]):
            if score <= 0:
                break
            if score < weights.relative_cut * best and shares.get(unit, 0.0) < weights.kept_share:
                continue  # nothing weak is shown, not to fill up to k, unless a told situation engages it
            found.append((unit, unit_features(position, score / best, evidence, unit, engaged.get(unit), roles)))
        return found

    def unit_passage(self, unit: UnitId, lang: str) -> Passage | None:
        """The whole unit as one passage, in `lang` if the knowledge base has it, else in English."""
        by_lang = self.units.get(unit)
        if not by_lang:
            return None
        return whole_unit(by_lang.get(lang) or by_lang.get("en") or next(iter(by_lang.values())))
