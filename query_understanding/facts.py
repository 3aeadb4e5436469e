"""The facts the law turns on, picked out of a passenger's words: carrier, places, durations, ages, cause, amounts.

They travel with a question when it is lifted out of its message or out of the conversation, so that a short
"who pays for it?" still says which carrier, which route and what happened.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from query_understanding.lexicon import CANADIAN_AIRPORT_CODE, CARRIER, DISRUPTION_CAUSE, NOT_PLACES

_NAME = r"(?:St\.|Ste\.|[A-ZÀ-Ý][\w'’]*)(?:[ -][A-ZÀ-Ý][\w'’]*){0,2}"
_ROUTE = re.compile(r"\b[A-ZÀ-Ý][\w'’]+\s*(?:→|->|–|-|/|>)\s*[A-ZÀ-Ý][\w'’]+\b")
# "Hamilton to Winnipeg" inside a sentence; a capitalised word opening a sentence is too often a verb ("Flew").
_NAMED_ROUTE = re.compile(rf"(?<=[a-z,] )((?:St\.|Ste\.)?\s?[A-ZÀ-Ý][\w'’]*)\s+(?:to|à)\s+{_NAME}")
_PLACE_AFTER_PREPOSITION = re.compile(
    rf"\b(?:from|to|in|at|via|through|into|out of|de|d'|à|vers|depuis|pour)\s*({_NAME})"
)
_AGE = re.compile(r"\b\d{1,2}[- ]?(?:year|yr)s?[- ]old\b|\b\d{1,2} ans\b|\(\d{1,2} (?:and|et) \d{1,2}\)", re.IGNORECASE)
_AMOUNT = re.compile(r"\$\s?\d[\d,]*(?:\.\d\d)?|\b\d[\d,]*(?:\.\d\d)?\s?(?:\$|€|euros?|dollars?)", re.IGNORECASE)
_DURATION = re.compile(
    r"\b\d+(?:[.,]\d+)?\+?\s*(?:hours?|hrs?|minutes?|mins?|days?|weeks?|months?|heures?|jours?|semaines?|mois)\b"
    r"|\b\d{1,2}h\d{0,2}\b|\b(?:an|one|two|three|four|five|six|seven|eight|nine|ten|twelve) (?:hours?|days?|weeks?)\b"
    r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\bovernight\b|\bla veille\b|\ball day\b",
    re.IGNORECASE,
)


def carriers(text: str) -> list[str]:
    return _unique(match.group(0) for match in CARRIER.finditer(text))


def places(text: str) -> list[str]:
    found = [match.group(0) for match in _ROUTE.finditer(text)]
    found += [match.group(0) for match in _NAMED_ROUTE.finditer(text) if _is_place(match.group(1))]
    found += [match.group(0) for match in CANADIAN_AIRPORT_CODE.finditer(text)]
    for match in _PLACE_AFTER_PREPOSITION.finditer(text):
        if _is_place(match.group(1)):
            found.append(match.group(1))
    return [place for place in _unique(found) if not any(place != other and place in other for other in found)]


def _is_place(name: str) -> bool:
    return name.split()[0].split("-")[0] not in NOT_PLACES and not CARRIER.match(name)


def durations(text: str) -> list[str]:
    """How long, and at what time ("7 hours", "3 days", "9 pm"), as written."""
    return _unique(match.group(0) for match in _DURATION.finditer(text))


def fact_phrases(text: str) -> list[str]:
    """Carrier, places, durations and times, ages, cause and amounts, in that order, each once."""
    found = carriers(text) + places(text)
    for pattern in (_DURATION, _AGE, DISRUPTION_CAUSE, _AMOUNT):
        found += [match.group(0) for match in pattern.finditer(text)]
    return _unique(found)


def missing_from(text: str, phrases: list[str]) -> list[str]:
    lowered = text.lower()
    return [phrase for phrase in phrases if phrase.lower() not in lowered]


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(item.strip().lower(), item.strip())
    return [item for item in seen.values() if item]
