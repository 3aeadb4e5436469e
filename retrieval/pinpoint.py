"""Which part of a shown unit answers the question: the subsection, paragraph or definition to show first.

Each part of the unit (`Passage.parts`, the law's own divisions) is weighed on evidence of three kinds:
- words: the question's terms found in the part or the parts it sits in, weighted by how rare each term is
  among all parts of the law (the same stemmed terms as BM25, `retrieval/terms.py`);
- the passenger's facts against the conditions a part states: hours late, days, a child's age or an amount
  against its ranges ("six hours or more, but less than nine hours" holds for 7 hours, not for 5), and the
  carrier's size against "large carrier" / "small carrier". A part whose condition the facts contradict is
  never chosen, nor is anything inside it;
- bank entries that name a part (`kb/bank/*.jsonl`, "part"), close in words to the question.

The most specific part with the best evidence wins; parts within a small margin of it are kept too, but two
or more tied parts of one parent give way to that parent, since nothing tells them apart, and so does a part
that adds little to its parent's evidence, or whose sibling holds words of the question that no other part has
(a question about several items of a list).
Below a minimum of evidence nothing is pinpointed and the page shows the unit as before.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from foundation.text import fold, words
from kb.bank import BankEntry
from kb.passage import LawPart, Passage, whole_unit
from query_understanding.lexicon import CARRIER
from retrieval.terms import terms

MIN_EVIDENCE = 0.2  # below this, the best part is no clearer than the unit: nothing is pinpointed
TIE_MARGIN = 0.01  # parts this close are told apart by nothing
CLEAR_GAIN = 0.2  # a part is shown rather than the part it sits in only when it adds at least this much
CONDITION_FITS = 1.0  # a number of the passenger's that a part's stated range holds
SIZE_FITS = 0.5
AMOUNT_NAMED = 0.5
BANK_ENTRY_NAMES_IT = 0.6  # scaled by how much of the question the entry shares

SMALL_CARRIERS = re.compile(
    r"\b(?:pascan|air inuit|central mountain air|harbour air|calm air|air creebec|canadian north|air north"
    r"|pal airlines|small (?:carrier|airline)s?|regional (?:carrier|airline)|petits? transporteurs?)\b"
)
LARGE_WORDS = re.compile(r"\b(?:large|major|big) (?:carrier|airline)s?\b|\bgros transporteurs?\b")
PART_LARGE = re.compile(r"\blarge carrier|\bgros transporteur")
PART_SMALL = re.compile(r"\bsmall carrier|\bpetit transporteur")

NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "twenty": 20, "twenty-one": 21,
    "thirty": 30, "forty-eight": 48, "a": 1, "an": 1,
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9,
    "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15, "vingt": 20,
    "vingt et un": 21, "trente": 30, "quarante-huit": 48,
}  # fmt: skip
_WORDS = "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
NUM = rf"(\d+(?:[.,]\d+)?|{_WORDS})"
UNIT = r"(hours?|hrs?|h|heures?|days?|jours?|years?|ans)"
QUANTITY = rf"{NUM}[ -]?{UNIT}\b"

# Conditions a part states, tried in this order; each match is taken out of the text before the next.
CONDITIONS: list[tuple[re.Pattern, str]] = [
    (re.compile(rf"\b{QUANTITY} or more,? but less than {QUANTITY}"), "between"),
    (re.compile(rf"\b(?:de|d'au moins) {QUANTITY} (?:ou plus,? )?mais de moins de {QUANTITY}"), "between"),
    (re.compile(rf"\b{NUM} to {NUM} (years) of age"), "span"),
    (re.compile(rf"\b{NUM} or {NUM} (years) of age"), "span"),
    (re.compile(rf"\bde {NUM} (?:a|et) {NUM} (ans)\b"), "span"),
    (re.compile(rf"\b{NUM} (years) of age or younger"), "at most"),
    (re.compile(rf"\bde {NUM} (ans) et moins"), "at most"),
    (re.compile(rf"\bunder the age of {NUM} (years)"), "under"),
    (re.compile(rf"\b(?:less than|moins de) {QUANTITY}"), "under"),
    (re.compile(rf"\b{QUANTITY} (?:or more|ou plus)"), "at least"),
    (re.compile(rf"\b(?:at least|au moins) {QUANTITY}"), "at least"),
    (re.compile(rf"\b(?:more than|plus de) {QUANTITY}"), "over"),
    (re.compile(rf"\b{QUANTITY} (?:or less|ou moins)"), "at most"),
]
# The passenger's numbers: "7 hours", "a 7-hour delay", "my 4-year-old", "$700", "700 $".
AGE = re.compile(rf"\b{NUM}[ -]?(?:years?|yrs?)[ -]?old\b|\baged? {NUM}\b|\b{NUM} ans\b")
DURATION = re.compile(rf"\b{NUM}[ -]?(hours?|hrs?|h|heures?|days?|jours?)\b")
AMOUNT = re.compile(r"\$ ?(\d[\d,  ]*)|(\d[\d,  ]*) ?\$")


@dataclass(frozen=True)
class Condition:
    """A range a part states: `dimension` is "hours", "days" or "age"; the bounds are in that dimension."""

    dimension: str
    low: float
    high: float
    low_included: bool = True
    high_included: bool = False

    def holds(self, value: float) -> bool:
        above = value >= self.low if self.low_included else value > self.low
        below = value <= self.high if self.high_included else value < self.high
        return above and below


@dataclass(frozen=True)
class Facts:
    """What the passenger said that a part's conditions can be checked against."""

    hours: tuple[float, ...] = ()
    days: tuple[float, ...] = ()
    ages: tuple[float, ...] = ()
    amounts: tuple[int, ...] = ()
    size: str = ""  # "large", "small" or unknown

    @classmethod
    def read(cls, text: str) -> Facts:
        folded = fold(text)
        ages = tuple(number(next(g for g in m.groups() if g)) for m in AGE.finditer(folded))
        without_ages = AGE.sub(" ", folded)
        hours, days = [], []
        for match in DURATION.finditer(without_ages):
            (hours if dimension(match.group(2)) == "hours" else days).append(number(match.group(1)))
        small = bool(SMALL_CARRIERS.search(folded))
        large = bool(LARGE_WORDS.search(folded)) or any(
            not SMALL_CARRIERS.search(fold(name)) for name in CARRIER.findall(text)
        )
        size = "small" if small and not large else "large" if large and not small else ""
        return cls(tuple(hours), tuple(days), ages, tuple(amounts(text)), size)

    def filled_from(self, context: Facts) -> Facts:
        """These facts, with the conversation's for those the question does not give."""
        return Facts(
            self.hours or (context.hours if not self.days else ()),
            self.days or (context.days if not self.hours else ()),
            self.ages or context.ages,
            self.amounts or context.amounts,
            self.size or context.size,
        )

    def values(self, dimension_: str) -> tuple[float, ...]:
        """The passenger's numbers in a dimension: a range in hours takes their days too, a range in days takes
        their hours only from a day up (7 hours late says nothing about a deadline of 30 days)."""
        if dimension_ == "hours":
            return self.hours + tuple(d * 24 for d in self.days)
        if dimension_ == "days":
            return self.days + tuple(h / 24 for h in self.hours if h >= 24)
        return self.ages


def number(token: str) -> float:
    token = token.strip()
    return float(NUMBER_WORDS[token]) if token in NUMBER_WORDS else float(token.replace(",", "."))


def dimension(unit: str) -> str:
    if unit.startswith(("h", "heure")):
        return "hours"
    if unit.startswith(("day", "jour")):
        return "days"
    return "age"


def conditions(text: str) -> list[Condition]:
    """The ranges a part's own text states."""
    rest = fold(text)
    if not re.search(rf"\b{UNIT}\b", rest):
        return []  # most parts state no duration or age: spare them the patterns
    found: list[Condition] = []
    for pattern, kind in CONDITIONS:
        for match in pattern.finditer(rest):
            groups = match.groups()
            if kind == "between":
                low, unit, high = number(groups[0]), groups[1], number(groups[2])
                found.append(Condition(dimension(unit), low, high))
            elif kind == "span":
                found.append(Condition("age", number(groups[0]), number(groups[1]), high_included=True))
            else:
                value, unit = number(groups[0]), groups[1]
                bounds = {
                    "under": (0, value, True, False),
                    "at most": (0, value, True, True),
                    "at least": (value, math.inf, True, False),
                    "over": (value, math.inf, False, False),
                }[kind]
                found.append(Condition(dimension(unit), *bounds))
        rest = pattern.sub(lambda m: " " * len(m.group(0)), rest)
    return found


def part_terms(text: str, lang: str) -> frozenset[str]:
    """The text's terms, elided articles apart ("qu'un" is "qu" and "un"), so that they go as stop words."""
    return frozenset(term for word in words(re.sub(r"['’]", " ", text)) if (term := word_term(word, lang)))


@lru_cache(maxsize=100_000)
def word_term(word: str, lang: str) -> str:
    """One word as BM25 compares it, or "" for a stop word; remembered, since stemming is most of the cost."""
    found = terms(word, lang)
    return found[0] if found else ""


def part_size(text: str) -> str:
    folded = fold(text)
    large, small = bool(PART_LARGE.search(folded)), bool(PART_SMALL.search(folded))
    return "large" if large and not small else "small" if small and not large else ""


def amounts(text: str) -> frozenset[int]:
    return frozenset(int(digits) for a, b in AMOUNT.findall(text) if (digits := re.sub(r"\D", "", a or b)))


@dataclass(frozen=True)
class PartEvidence:
    """What one part says of its own (its words without those of the parts inside it), read once per build."""

    part: LawPart
    parent: int | None  # index of the part it sits in
    terms: frozenset[str]
    conditions: tuple[Condition, ...]
    size: str
    amounts: frozenset[int]

    def against(self, facts: Facts) -> tuple[float, bool]:
        """(bonus, contradicted): how the passenger's facts meet this part's conditions, size and amounts."""
        bonus = 0.0
        for dimension_ in {c.dimension for c in self.conditions}:
            values = facts.values(dimension_)
            if not values:
                continue
            if not any(c.holds(v) for c in self.conditions if c.dimension == dimension_ for v in values):
                return 0.0, True
            bonus += CONDITION_FITS
        if self.size and facts.size:
            if self.size != facts.size:
                return 0.0, True
            bonus += SIZE_FITS
        if self.amounts & set(facts.amounts):
            bonus += AMOUNT_NAMED
        return bonus, False


def read_parts(parts: tuple[LawPart, ...], lang: str) -> list[PartEvidence]:
    """Each part's own evidence, with the index of the part it sits in (parts come parents first)."""
    read = []
    for index, part in enumerate(parts):
        parent = next((j for j in range(index - 1, -1, -1) if contains(parts[j], part)), None)
        own = own_text(part, parts)
        evidence = (part_terms(own, lang), tuple(conditions(own)), part_size(own), amounts(own))
        read.append(PartEvidence(part, parent, *evidence))
    return read


def contains(outer: LawPart, inner: LawPart) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def own_text(part: LawPart, parts: tuple[LawPart, ...]) -> str:
    """A part's words without those of the parts inside it."""
    text = part.text
    for inner in parts:
        if inner is not part and contains(part, inner):
            start, end = inner.start - part.start, inner.end - part.start
            text = text[:start] + " " * (end - start) + text[end:]
    return text


class Pinpointer:
    """Built once per knowledge base: each unit's parts read for evidence, the rarity of each term among all
    parts, and the bank entries that name a part. Read-only after init, shared by every session."""

    def __init__(self, passages: Iterable[Passage], bank: Iterable[BankEntry] = ()):
        pieces: dict[tuple[str, str, str], list[Passage]] = {}
        for passage in passages:
            if passage.parts:
                pieces.setdefault((passage.doc, passage.unit, passage.lang), []).append(passage)
        self.units = {key: read_parts(whole_unit(found).parts, key[2]) for key, found in pieces.items()}
        parts_seen: Counter = Counter()
        term_seen: dict[str, Counter] = {}
        for (_, _, lang), read in self.units.items():
            parts_seen[lang] += len(read)
            term_seen.setdefault(lang, Counter()).update(term for part in read for term in part.terms)
        self.idf = {
            lang: {term: math.log(1 + parts_seen[lang] / count) for term, count in counts.items()}
            for lang, counts in term_seen.items()
        }
        self.bank: dict[tuple[str, str, str], list[tuple[str, frozenset[str]]]] = {}
        for entry in bank:
            if entry.part:
                key = (entry.doc, entry.unit, entry.lang)
                self.bank.setdefault(key, []).append((entry.part, part_terms(entry.text, entry.lang)))

    def weight(self, term: str, lang: str) -> float:
        """How rare a term is among the parts; a term no part has tells no part from another."""
        return self.idf.get(lang, {}).get(term, 0.0)

    def pinpoint(self, question: str, passage: Passage, context: str = "") -> tuple[LawPart, ...]:
        """The parts of `passage` (a whole unit) that answer `question`, best first; `context` is the rest of the
        conversation, read for the facts the question leaves out (hours, the carrier). Empty when the evidence
        is not clear."""
        key = (passage.doc, passage.unit, passage.lang)
        read = self.units.get(key)
        if read is None or [p.part for p in read] != list(passage.parts):
            read = read_parts(passage.parts, passage.lang)
        asked = part_terms(question, passage.lang)
        total = sum(self.weight(t, passage.lang) for t in asked)
        if not read or not total:
            return ()
        facts = Facts.read(question)
        if context:
            facts = facts.filled_from(Facts.read(context))
        support = self.bank_support(asked, key, total)
        scores: list[float] = []
        reached: list[frozenset[str]] = []
        bonuses: list[float] = []
        contradicted: list[bool] = []
        for part in read:
            parent = part.parent
            bonus, against = part.against(facts)
            reached.append(part.terms | (reached[parent] if parent is not None else frozenset()))
            bonuses.append(bonus + support.get(part.part.label, 0.0) + (bonuses[parent] if parent is not None else 0))
            contradicted.append(against or (parent is not None and contradicted[parent]))
            shared = sum(self.weight(t, passage.lang) for t in asked & reached[-1])
            scores.append(shared / total + bonuses[-1])
        in_one_part = {t for t, n in Counter(t for part in read for t in part.terms & asked).items() if n == 1}
        only_here = [sum(self.weight(t, passage.lang) for t in part.terms & in_one_part) / total for part in read]
        return choose(read, scores, contradicted, only_here)

    def bank_support(self, asked: frozenset[str], key: tuple[str, str, str], total: float) -> dict[str, float]:
        """For each part a bank entry names, how much of the question the closest such entry shares."""
        support: dict[str, float] = {}
        for label, entry_terms in self.bank.get(key, []):
            shared = sum(self.weight(t, key[2]) for t in asked & entry_terms) / total
            support[label] = max(support.get(label, 0.0), BANK_ENTRY_NAMES_IT * shared)
        return support


def choose(
    read: list[PartEvidence], scores: list[float], contradicted: list[bool], only_here: list[float]
) -> tuple[LawPart, ...]:
    """The best parts: the outermost of those within a margin of the best, tied siblings giving way to their
    parent; nothing when the best is below the minimum of evidence."""
    candidates = [i for i in range(len(read)) if not contradicted[i]]
    if not candidates:
        return ()
    best = max(scores[i] for i in candidates)
    if best < MIN_EVIDENCE:
        return ()
    tied = outermost({i for i in candidates if scores[i] >= best - TIE_MARGIN}, read)
    while True:
        by_parent = Counter(read[i].parent for i in tied)
        crowded = {parent for parent, count in by_parent.items() if parent is not None and count > 1}
        if not crowded:
            break
        for parent in crowded:
            scores[parent] = max(scores[i] for i in tied if read[i].parent == parent)
        tied = outermost({i for i in tied if read[i].parent not in crowded} | crowded, read)
    tied = outermost({clear(i, read, scores, contradicted, only_here) for i in tied}, read)
    return tuple(read[i].part for i in sorted(tied, key=lambda i: (-scores[i], i)))


def clear(
    index: int, read: list[PartEvidence], scores: list[float], contradicted: list[bool], only_here: list[float]
) -> int:
    """The part itself when it adds clearly to the part it sits in and no sibling holds words of the question
    that only it has; else the part it sits in (a word that happens to be in a part, or a question about
    several items of a list). `only_here`: the share of the question in words no other part of the unit has."""
    parent = read[index].parent
    while parent is not None:
        siblings = [j for j, part in enumerate(read) if part.parent == parent and j != index and not contradicted[j]]
        gain = scores[index] - scores[parent]
        if gain >= CLEAR_GAIN and not any(only_here[j] >= CLEAR_GAIN for j in siblings):
            return index
        scores[parent] = max(scores[parent], scores[index])  # the parent is ranked by what it stands for
        index, parent = parent, read[parent].parent
    return index


def outermost(chosen: set[int], read: list[PartEvidence]) -> set[int]:
    """`chosen` without the parts that sit inside another chosen part: a part that adds nothing to its parent."""
    kept = set()
    for index in chosen:
        parent = read[index].parent
        while parent is not None and parent not in chosen:
            parent = read[parent].parent
        if parent is None:
            kept.add(index)
    return kept
