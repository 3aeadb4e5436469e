"""Split a standalone message into at most three questions, one per distinct issue, each carrying its own facts.

The questions of a message are its asking sentences and clauses (and enumerated items). Asks about the same
issue family are one question; an ask that names no issue ("Is that legal?") takes the issue of the statement
just before it, or joins the question before it. Each question then gathers the statements that describe its
issue, the sentences about the flight event when it is a flight question, the sentence an ask points back to
("those fees"), and the carrier and places of the message; a statement no question claimed goes to the first
question asked after it.

A message with one issue is searched whole: the whole message is the best query for it. One ask about
situations of different kinds ("My flight was cancelled and they lost my bag, what can I get?") is one question
per kind. What the page shows for each is a short question (`readable.py`); what is searched carries the
statements describing its issue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from query_understanding.facts import carriers, fact_phrases, missing_from, places
from query_understanding.lexicon import EVENT_FAMILY, FLIGHT_FAMILIES, GENERIC_FAMILIES, families, topics
from query_understanding.readable import READABLE_WORDS, readable_question, word_count
from query_understanding.segments import Segment, refers_back, segments, strip_lead_in
from query_understanding.understanding import MAX_QUESTIONS

# The kinds of situation one ask may span, each told by the topics of a clause (lexicon.TOPICS): a clause about
# a bag belongs to the bag, whatever else it says; a seat counts only with a child.
_EVENT_TOPICS = frozenset({"delay", "cancellation", "denied_boarding", "tarmac", "schedule_change"})
_BAG_TOPICS = frozenset({"bag_lost", "bag_delayed", "damage"})
_DOMAIN_FAMILIES = {"flight": {EVENT_FAMILY}, "baggage": {"baggage"}, "instrument": {"instrument"},
                    "seating": {"children"}, "disability": {"disability"}}  # fmt: skip
_CLAUSE = re.compile(
    r"[,;]\s*(?:and\s+|et\s+|pis\s+)?|\s+(?:and|but|et|mais|plus|then|puis|pis)\s+|(?<=[.!?])\s+", re.I
)  # "pis": Québec's "puis"


@dataclass(frozen=True)
class Ask:
    """One ask of a message: the short question the page shows, and what is searched for it."""

    question: str
    searched: str


@dataclass
class _Issue:
    keys: set[str]
    asks: list[Segment] = field(default_factory=list)
    context: list[Segment] = field(default_factory=list)
    enumerated: bool = False

    @property
    def about_flight(self) -> bool:
        return bool(self.keys & FLIGHT_FAMILIES) or self.keys <= GENERIC_FAMILIES


def decompose(text: str) -> list[Ask]:
    parts = segments(text)
    asks = [part for part in parts if part.asks]
    issues = _issues_from_asks(asks, parts) if asks else _issues_from_statements(parts)
    shared = carriers(text) + places(text)
    if len(issues) <= 1:
        by_domain = _split_by_domain(issues[0] if issues else _Issue(set()), text)
        if len(by_domain) <= 1:
            return [Ask(_single_question(text, issues, parts, shared), text)]
        return _asks_of_domains(by_domain, parts, text, shared)
    if len(issues) > MAX_QUESTIONS:
        issues = issues[: MAX_QUESTIONS - 1] + [_merged(issues[MAX_QUESTIONS - 1 :])]
    _attach_context(issues, parts)
    found = [Ask(_shown(issue, parts, text, shared), _question(issue, parts, shared)) for issue in issues]
    return _unique(found)


def _unique(asks: list[Ask]) -> list[Ask]:
    seen: dict[str, Ask] = {}
    for ask in asks:
        seen.setdefault(ask.question, ask)
    return list(seen.values())


def _single_question(text: str, issues: list[_Issue], parts: list[Segment], shared: list[str]) -> str:
    """A message with one issue is its own question when it is short; a story gets a short question."""
    if word_count(text) <= READABLE_WORDS and "\n" not in text:
        return text
    issue = issues[0] if issues else _Issue(set())
    asks = _ask_texts(issue.asks, parts)
    # an ask pointing back ("has to pay for it?") asks about that statement, not the trip report's sights around it
    pointed = next((part for i, part in enumerate(parts) if not part.asks and _pointed_at(issue, parts, i)), None)
    if pointed is not None:
        about = frozenset(families(pointed.text) - GENERIC_FAMILIES)
        return readable_question(asks, [pointed.text], text, shared, about, pointed=True)
    context = [part.text for part in parts if not part.asks and (families(part.text) or fact_phrases(part.text))]
    return readable_question(asks, context, text, shared)


def _shown(issue: _Issue, parts: list[Segment], text: str, shared: list[str]) -> str:
    keys = frozenset(issue.keys - GENERIC_FAMILIES - {EVENT_FAMILY}) or frozenset(issue.keys)
    return readable_question(_ask_texts(issue.asks, parts), [part.text for part in issue.context], text, shared, keys)


def _domains_of(clause: str) -> list[str]:
    found = topics(clause)
    if found & _BAG_TOPICS and "baggage" in found:
        return ["baggage"]
    domains = []
    if found & _EVENT_TOPICS:
        domains.append("flight")
    if "instrument" in found:
        domains.append("instrument")
    if {"children", "seating"} <= found:
        domains.append("seating")
    if "disability" in found:
        domains.append("disability")
    return domains


def _split_by_domain(issue: _Issue, text: str) -> dict[str, list[str]]:
    """domain -> the clauses of the message telling of it, when the message's one ask spans several kinds."""
    clauses: dict[str, list[str]] = {}
    for clause in _CLAUSE.split(text):
        if clause and clause.strip():
            for domain in _domains_of(clause):
                clauses.setdefault(domain, []).append(clause.strip())
    return clauses if len(clauses) > 1 else {}


def _asks_of_domains(by_domain: dict[str, list[str]], parts: list[Segment], text: str, shared: list[str]) -> list[Ask]:
    asks = _ask_texts([part for part in parts if part.asks], parts)
    found = []
    for domain, clauses in list(by_domain.items())[:MAX_QUESTIONS]:
        issue = _Issue(set(_DOMAIN_FAMILIES[domain]))
        issue.context = [part for part in parts if not part.asks and _describes(issue, part)]
        context = clauses + [part.text for part in issue.context if part.text not in clauses]
        shown = readable_question(asks, clauses, text, shared)
        searched = " ".join(dict.fromkeys([shown, *context]))
        found.append(
            Ask(
                shown,
                f"{searched} ({', '.join(missing_from(searched, shared))})"
                if missing_from(searched, shared)
                else searched,
            )
        )
    return _unique(found)


def _ask_keys(text: str) -> set[str]:
    """The issue families an ask names; words about the flight event alone do not tell two issues apart."""
    found = families(text)
    return found - {EVENT_FAMILY} or found


def _issues_from_asks(asks: list[Segment], parts: list[Segment]) -> list[_Issue]:
    issues: list[_Issue] = []
    for ask in asks:
        keys = _ask_keys(ask.text) or _keys_of_statement_before(ask, parts)
        target = _same_issue(ask, keys, issues) or _aspect_of_previous_ask(ask, keys, issues)
        if target is None:
            target = _Issue(set(), enumerated=ask.enumerated)
            issues.append(target)
        target.asks.append(ask)
        target.keys |= keys
    return issues


def _same_issue(ask: Segment, keys: set[str], issues: list[_Issue]) -> _Issue | None:
    """The latest issue sharing a family with the ask; an ask naming none continues the last issue.

    Two enumerated items are never the same issue: the passenger numbered them apart.
    """
    joinable = [issue for issue in issues if not (ask.enumerated and issue.enumerated)]
    if not keys:
        return issues[-1] if joinable and joinable[-1] is issues[-1] else None
    return next((issue for issue in reversed(joinable) if not issue.keys or keys & issue.keys), None)


def _aspect_of_previous_ask(ask: Segment, keys: set[str], issues: list[_Issue]) -> _Issue | None:
    """ "Who pays for the broken stroller, and by when must I claim?": a deadline or complaint clause in the same
    sentence as an earlier ask is an aspect of that ask's issue, not an issue of its own."""
    if issues and issues[-1].asks and keys <= GENERIC_FAMILIES and issues[-1].asks[-1].sentence == ask.sentence:
        return issues[-1]
    return None


def _keys_of_statement_before(ask: Segment, parts: list[Segment]) -> set[str]:
    """A question such as "Is that legal?" asks about the statement just before it."""
    position = parts.index(ask)
    before = parts[position - 1] if position else None
    return _ask_keys(before.text) if before and not before.asks else set()


def _issues_from_statements(parts: list[Segment]) -> list[_Issue]:
    """A message that asks nothing explicitly still splits when its sentences describe problems of different kinds.

    One sentence spanning two kinds ("delayed and my bag came back torn") tells of one situation: no split.
    """
    by_domain: dict[str, _Issue] = {}
    for part in parts:
        found = families(part.text) - GENERIC_FAMILIES
        domains = {"flight" if family in FLIGHT_FAMILIES else family for family in found}
        if len(domains) > 1:
            return []
        for family in found:
            by_domain.setdefault(next(iter(domains)), _Issue(set())).keys.add(family)
    return list(by_domain.values())


def _merged(issues: list[_Issue]) -> _Issue:
    merged = _Issue(set())
    for issue in issues:
        merged.keys |= issue.keys
        merged.asks += issue.asks
    return merged


def _attach_context(issues: list[_Issue], parts: list[Segment]) -> None:
    for issue in issues:
        for index, part in enumerate(parts):
            if part not in issue.asks and (_describes(issue, part) or _pointed_at(issue, parts, index)):
                issue.context.append(part)
    for index, part in enumerate(parts):
        if not part.asks and families(part.text) and not any(part in issue.context for issue in issues):
            _issue_asking_next(issues, parts, index).context.append(part)


def _issue_asking_next(issues: list[_Issue], parts: list[Segment], index: int) -> _Issue:
    """A statement no question claimed belongs to the first question asked after it (or the last one)."""
    for part in parts[index + 1 :]:
        for issue in issues:
            if part in issue.asks:
                return issue
    return issues[-1]


def _describes(issue: _Issue, part: Segment) -> bool:
    if part.asks:
        return False
    found = families(part.text)
    if not found:
        return bool(fact_phrases(part.text))  # the setting: carrier, route, times
    if issue.keys <= GENERIC_FAMILIES:
        return True
    return bool((found - {EVENT_FAMILY}) & issue.keys) or (EVENT_FAMILY in found and issue.about_flight)


def _pointed_at(issue: _Issue, parts: list[Segment], index: int) -> bool:
    """The nearest statement with content, or an earlier clause of the same question, before an ask pointing back."""
    part = parts[index]
    for following in parts[index + 1 :]:
        if following in issue.asks and refers_back(following.text):
            return not part.asks or part.sentence == following.sentence
        if following.asks or families(following.text) or fact_phrases(following.text):
            return False
    return False


def _question(issue: _Issue, parts: list[Segment], shared_facts: list[str]) -> str:
    asks = _ask_texts(issue.asks, parts)
    context = [_as_question(part.text) if part.asks else part.text for part in issue.context]
    text = " ".join(dict.fromkeys(asks + context))
    missing = missing_from(text, shared_facts)
    return f"{text} ({', '.join(missing)})" if missing else text


def _ask_texts(asks: list[Segment], parts: list[Segment]) -> list[str]:
    """Each ask as a question; clauses that all went to the same question are given back as their sentence."""
    texts = []
    for ask in asks:
        siblings = [part for part in parts if part.sentence == ask.sentence]
        whole = len(siblings) > 1 and all(sibling in asks for sibling in siblings)
        texts.append(_as_question(ask.sentence if whole else ask.text))
    return list(dict.fromkeys(texts))  # the clauses of one sentence give it back once


def _as_question(text: str) -> str:
    text = strip_lead_in(text)
    return text if text.endswith("?") else f"{text.rstrip('.!,;: ')}?"
