"""Make the last message stand alone by carrying forward, from earlier turns, the facts it leans on.

The last message stays first and unchanged (but for a leading "and"/"also"); after it come the earlier
statements that describe the situation (carrier, route, what happened, how long, why) and the facts named in
earlier questions. A message that names its own carrier and what happened, or says it is about something else
("separate question"), is left alone, so an unrelated history is not dragged in.
"""

from __future__ import annotations

import re

from query_understanding.facts import carriers, fact_phrases, missing_from
from query_understanding.lexicon import GENERIC_FAMILIES, SITUATION_TOPICS, cue_words, families
from query_understanding.segments import segments, strip_lead_in

MAX_CARRIED_CHARS = 700
_SHORT_FOLLOW_UP_WORDS = 8
_POINTS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|that|this|those|these|she|he|her|him|his|il|elle|ils|elles|ça|cela|ceci)\b"
    r"|\b(?:the|that|this|my|our|le|la|les|ce|cette|mon|ma|mes|notre|nos)\s+(?:bags?|suitcase|luggage|flight|claim"
    r"|delay|cancellation|airline|carrier|refund|voucher|hotel|stroller|wheelchair|instrument|booking|ticket|valise"
    r"|vol|réclamation|compagnie|transporteur)\b",
    re.IGNORECASE,
)
# "KLM says it's too late": a claim's timing, no delay of a flight told in the message itself.
_TOO_LATE = re.compile(r"\btoo late\b", re.IGNORECASE)
# "Separate question:", "another trip": the passenger says the history does not apply.
_NEW_SUBJECT = re.compile(
    r"\b(?:separate|different|unrelated|new|other|another) (?:question|topic|trip|issue)\b"
    r"|\b(?:autre|nouvelle) (?:question|sujet|voyage)\b|\bsans rapport\b",
    re.IGNORECASE,
)


def make_standalone(history: list[str], message: str) -> str:
    if not history or not leans_on_history(message):
        return message
    carried = _carried(history, message)
    return f"{strip_lead_in(message)} {carried}".strip()


def leans_on_history(message: str) -> bool:
    if _NEW_SUBJECT.search(message):
        return False
    if strip_lead_in(message) != message or len(message.split()) <= _SHORT_FOLLOW_UP_WORDS:
        return True
    names_an_issue = bool(families(_TOO_LATE.sub(" ", message)) - GENERIC_FAMILIES)
    if carriers(message) and names_an_issue:
        return False
    return bool(_POINTS_BACK.search(message)) or not names_an_issue


def _carried(history: list[str], message: str) -> str:
    """Earlier statements, the most recent turns first until the budget runs out, then facts of earlier questions."""
    statements: list[list[str]] = []
    text, used = message, 0
    for turn in reversed(history):
        kept = []
        for part in segments(turn):
            describes = families(part.text) or fact_phrases(part.text)
            fits = used + len(part.text) <= MAX_CARRIED_CHARS
            if not part.asks and describes and fits and part.text.lower() not in text.lower():
                kept.append(part.text)
                text, used = f"{text} {part.text}", used + len(part.text) + 1
        statements.insert(0, kept)
    asked = [fact for turn in history for part in segments(turn) if part.asks for fact in _facts_of(part.text)]
    facts = missing_from(text, list(dict.fromkeys(asked)))
    carried = [piece for kept in statements for piece in kept]
    return " ".join(carried + ([f"({', '.join(facts)})"] if facts else []))


def _facts_of(question: str) -> list[str]:
    return fact_phrases(question) + cue_words(question, SITUATION_TOPICS)
