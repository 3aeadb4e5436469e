"""The question a passenger reads for one ask: short, in the passenger's words, carrying the facts it needs.

What is searched for an ask may carry much of the story; what the page shows under "Questions searched" is one
plain question of at most about 25 words: the ask itself when it names what it is about, else the clause of
the story that says what happened followed by the ask ("My flight was cancelled, what can I get?"), then the
facts the law turns on (carrier, cause, how long, where) in brackets while they fit. Every word comes from the
passenger, and the question must pass the rule every machine-written question passes (`machine_text.py`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from foundation.text import detect_language
from query_understanding.facts import carriers, durations, missing_from, places
from query_understanding.lexicon import DISRUPTION_CAUSE, SITUATION_TOPICS, cue_words
from query_understanding.lexicon import families as _families
from query_understanding.lexicon import topics as _topics
from query_understanding.machine_text import MAX_WORDS, asks_by_form, rule_broken
from query_understanding.segments import strip_lead_in

READABLE_WORDS = 25  # what a question aims at; never more than machine_text.MAX_WORDS
CONTEXT_WORDS = 14  # a clause of the story longer than this is told by its facts instead
PREFIX_WORDS = 6  # a clause before the ask keeps the asking word among the first eight (machine_text.py)
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
MAX_FACTS = 5
_CLOCK = re.compile(r"\d\s*(?:am|pm)\b|^\d{1,2}h\d{2}$", re.IGNORECASE)
# The same short clauses and cue words are read many times while a question is composed.
topics = lru_cache(maxsize=4096)(_topics)
families = lru_cache(maxsize=4096)(_families)
_GENERIC_ASK = {"en": "What are my rights?", "fr": "Quels sont mes droits?"}
_AND = {"en": "and", "fr": "et"}
# "…, and is there a deadline?": a second ask joined to the one before it, which it does not replace
_JOIN = re.compile(r"(?:and|et|or|ou)\s+", re.IGNORECASE)


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def readable_question(
    asks: list[str],
    context: list[str],
    story: str,
    shared: list[str],
    about: frozenset[str] = frozenset(),
    pointed: bool = False,
) -> str:
    """One short question for an ask: `asks` (the passenger's asking sentences or clauses, first is kept),
    `context` (clauses of the story describing this ask's situation), `story` (the whole message, whose words
    bound what may be written), `shared` (facts of the whole message, such as the carrier), `about` (the issue
    families of the ask: a clause of the same family tells its situation best). `pointed`: the context is the one
    statement the ask points back to ("Is that allowed?"), told whole in brackets when no shorter clause tells it
    and it fits."""
    lang = detect_language(story)
    # a first ask the rule refuses ("Isn't it Air Canada's flight though??" reads as a statement) gives way
    clauses = [_asking_clause(text, story) for text in asks]
    while len(clauses) > 1 and rule_broken(clauses[0], story) is not None:
        clauses.pop(0)
    ask = clauses[0] if clauses else _GENERIC_ASK[lang]
    for more in clauses[1:]:  # asks about one issue, or the asks merged beyond the third question, read as one
        joined = f"{ask.rstrip('?').rstrip()}, {_AND[lang]} {_lower_first(more)}"
        if word_count(joined) <= READABLE_WORDS:
            ask = joined
    # asks joined into no question ("My roommate says two years, so maybe I'm fine, and is it too late?") give way to
    # each one shaped as a question; an ask no question can be made of ("And for the suitcase?") is asked in general,
    # with what was told of it
    for asked in dict.fromkeys((ask, *[clause for clause in clauses if asks_by_form(clause)])):
        question = _told(asked, context, story, shared, about, pointed)
        if question:
            return question
    return _told(_GENERIC_ASK[lang], context, story, shared, about, pointed)  # the general ask always passes the rule


def _told(ask: str, context: list[str], story: str, shared: list[str], about: frozenset[str], pointed: bool) -> str:
    """The ask with what happened and its facts, as the rule for machine-written text allows; "" when it does not."""
    told: list[str] = []
    clause = "" if cue_words(ask, SITUATION_TOPICS) else _telling_clause(context, about)
    base = ask
    if clause and word_count(clause) <= PREFIX_WORDS:
        base = f"{clause}, {_lower_first(ask)}"  # "My flight was cancelled, what can I get?"
    elif clause and word_count(clause) + word_count(ask) <= READABLE_WORDS:
        told = [clause]  # "What am I owed (Air Canada was 7 hours late getting us to Halifax)?"
    elif pointed and not clause and word_count(context[0]) + word_count(ask) <= READABLE_WORDS:
        told = [context[0].strip(" .!")]  # "Is that allowed (they made us pay $50 a seat to sit with our twins)?"
    for candidate in (_with_facts(base, context, shared, told), _with_facts(ask, context, shared), ask):
        if word_count(candidate) <= MAX_WORDS and rule_broken(candidate, story) is None:
            return candidate
    return ""


def _asking_clause(text: str, story: str) -> str:
    """The ask as a question that passes the rule: the whole sentence when it does and is short, else its last
    clauses ("So confused, what am I owed?" -> "What am I owed?"). A clause shaped as a question comes before one
    that passes only as the passenger's own words ("My flight was cancelled and they lost my bag, what can I
    get?" asks "What can I get?"; "Pis pour le retard, on a droit à quelque chose?" is kept as it is)."""
    whole = _as_question(text)
    pieces = re.split(r",\s*|\s*:\s+|\s+(?:so|donc|alors)\s+", text)
    starts = []
    for start in range(len(pieces) - 1, 0, -1):
        joined = _JOIN.match(pieces[start])
        if start > 1 and joined and asks_by_form(pieces[start][joined.end() :]):
            starts.append(start - 1)  # "y aura-t-il une médiation, et dans quels délais?" asks both
        starts.append(start)
    tails = [_as_question(", ".join(p for p in pieces[start:] if p.strip())) for start in dict.fromkeys(starts)]
    candidates = [whole] + [tail[:1].upper() + tail[1:] for tail in tails]  # the shortest tail first
    for shaped in (True, False):
        for candidate in candidates:
            if (
                word_count(candidate) <= READABLE_WORDS
                and rule_broken(candidate, story) is None
                and (asks_by_form(candidate) or not shaped)
            ):
                return candidate
    return whole


def _telling_clause(context: list[str], about: frozenset[str] = frozenset()) -> str:
    """The shortest clause of the story that says what happened (a disruption, a bag, a seat...), one about the
    ask's own issue first."""
    telling = [
        clause.strip(" ,;:.!")
        for text in context
        for clause in re.split(r"[,;()\[\]]\s*|\s+(?:but|mais)\s+|[.!]\s+", text)  # a clause never opens a bracket
        if (cue_words(clause, SITUATION_TOPICS) or families(clause) & about)
        and word_count(clause) <= CONTEXT_WORDS
        and "?" not in clause
    ]
    telling = [clause for clause in telling if clause]
    if not telling:
        return ""
    best = min(telling, key=lambda clause: (not families(clause) & about, word_count(clause)))
    return best[0].upper() + best[1:]


def _with_facts(question: str, context: list[str], shared: list[str], told_first: list[str] | None = None) -> str:
    """The question with the facts its situation turns on (carrier, what happened when the question does not
    say, cause, how long, where), in brackets before the question mark, while they fit."""
    told = " ".join(context)
    wanted = list(told_first or [])
    wanted += carriers(question) or carriers(told) or [s for s in shared if carriers(s)][:1]
    asked = topics(question)
    wanted += [cue for cue in cue_words(told, SITUATION_TOPICS) if topics(cue) - asked][:2]
    wanted += [m.group(0) for m in DISRUPTION_CAUSE.finditer(told)]
    wanted += [d for d in durations(told) if not _CLOCK.search(d)]
    wanted += places(told)[:2]
    wanted = [fact.strip() for fact in dict.fromkeys(wanted) if fact.strip()]
    wanted = [f for f in wanted if not any(f != g and f.lower() in g.lower() for g in wanted)]
    kept: list[str] = []
    for fact in missing_from(question, wanted)[:MAX_FACTS]:
        trial = _bracketed(question, [*kept, fact])
        if word_count(trial) > READABLE_WORDS:
            break
        kept.append(fact)
    return _bracketed(question, kept)


def _bracketed(question: str, facts: list[str]) -> str:
    if not facts:
        return question
    return f"{question.rstrip('?').rstrip()} ({', '.join(facts)})?"


def _as_question(text: str) -> str:
    text = strip_lead_in(text.strip())
    return text if text.endswith("?") else f"{text.rstrip('.!,;: ')}?"


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    if first in {"I", "I'm", "I've", "I'd"} or carriers(first) or (len(first) > 1 and first.isupper()):
        return text
    return text[:1].lower() + text[1:]
