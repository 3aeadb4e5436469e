"""Cut a message into sentences, enumerated items and question clauses, and tell which of them ask something."""

from __future__ import annotations

import re
from dataclasses import dataclass

_LEAD_IN = re.compile(
    r"^(?:(?:and|also|so|but|then|plus|ok(?:ay)?|well|oh|update|et|aussi|mais|alors|puis|pis|faque|donc|bon)\b(?!-)[,:]?\s*)+",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:how|what|what's|whats|when|where|who|whom|whose|why|which"
    r"|(?:is|are|am|was|were|do|does|did|can|could|should|shall|will|would|may|might|must|have|has"
    r"|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|can't|cannot|couldn't|shouldn't|won't|wouldn't|haven't|hasn't)"
    r"\s+(?:i|we|you|they|he|she|it|there|that|this|these|those|my|our|your|their|his|her|the|a|an|any|airlines?)"
    r"|comment|quel(?:le)?s?|quand|où|qui|pourquoi|combien|est-ce|qu'est-ce|que|à quel(?:le)?s?|jusqu'à quand"
    r"|\w+-t?-?(?:je|tu|il|elle|on|nous|vous|ils|elles))\b"
    r"|^(?:i|we)(?:'d| would)? (?:like|want|need) to know\b|^(?:i'm |i am |just )?wondering\b"
    r"|^(?:please )?(?:tell|explain)\b|^(?:j'aimerais|je voudrais|je veux|on veut|nous voulons) savoir\b"
    r"|^je me demande\b",
    re.IGNORECASE,
)
# "When we landed, ...", "Where we sat ...": a clause of time or place that tells, unless it ends with "?".
_TELLS_WHEN = re.compile(
    r"^(?:(?:when|where|while|once|quand|lorsque)\s+(?:we|i|they|he|she|it|my|our|the|on|nous|je|ils|elle|y)\b"
    r"|(?:quand|lorsque)\s+j'|lorsqu'(?:on|il|elle|ils)\b)",
    re.I,
)
_REFERS_BACK = re.compile(
    r"\b(?:it|that|this|those|these|them|ça|cela|ceci)\b|\b(?:la|le|les|y|en)\s+\w+(?:er|ir|re)\b|\bl'\w+(?:er|ir)\b",
    re.IGNORECASE,
)
# "My questions: is it on me to prove it?": a label before the asks, which says nothing itself
_ASK_LABEL = re.compile(
    r"^(?:(?:so|anyway|bref|donc|bon|ok(?:ay)?)\W+)?"
    r"(?:(?:my|mes|ma|our|nos|a few|few|quick|two|three|deux|trois|[23])\s+)*"
    r"questions?\s*(?:(?:is|are)\s*)?:\s*(?=\S)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?…])(?:\s?[\"'”»)])*\s+|\s*\n+\s*")  # "pas nous. » Un" ends at the guillemet
_BULLET = re.compile(r"^[-–—•*·]\s+(?=\S)")  # "- Est-ce que ...?": a list's bullet, which is not the passenger's words
_ABBREVIATION = re.compile(r"\b(?:St|Ste|Mr|Mrs|Ms|Dr|vs|etc|approx|e\.g|i\.e|No)\.$", re.IGNORECASE)
_ENUMERATION = re.compile(r"(?:^|(?<=[\s:;,.!?]))\(?([1-9])[).]\s+(?=\S)")
_CONJUNCTION = r"(?:and|or|also|plus|but|et|ou|mais|aussi)"
_CLAUSE_JOIN = re.compile(rf",\s*(?:{_CONJUNCTION}\s+)?|\s+{_CONJUNCTION}\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Segment:
    """A sentence, an enumerated item or a question clause of `sentence` (the whole sentence it came from)."""

    text: str
    sentence: str
    asks: bool
    enumerated: bool = False


def strip_lead_in(text: str) -> str:
    """Drop a leading "and", "also", "so"...: "and if the refund never comes" becomes "If the refund never comes"."""
    stripped = _LEAD_IN.sub("", text).strip()
    return stripped[:1].upper() + stripped[1:] if stripped else text


def looks_like_question(text: str) -> bool:
    text = text.strip()
    if text.endswith("?"):
        return True
    return bool(_QUESTION_START.match(strip_lead_in(text))) and not _TELLS_WHEN.match(strip_lead_in(text))


def refers_back(text: str) -> bool:
    """Whether the text points at something said before it ("those fees", "claim it", "la réclamer")."""
    return bool(_REFERS_BACK.search(text))


def segments(text: str) -> list[Segment]:
    found: list[Segment] = []
    for enumerated, chunk in _enumerated_chunks(text):
        for position, sentence in enumerate(_ASK_LABEL.sub("", s) for s in sentences(chunk)):
            if enumerated and position == 0:
                found.append(Segment(sentence, sentence, asks=True, enumerated=True))
            else:
                found += [Segment(clause, sentence, looks_like_question(clause)) for clause in _clauses(sentence)]
    return found


def _enumerated_chunks(text: str) -> list[tuple[bool, str]]:
    """Split on "1) ... 2) ..." when the numbers run from 1 without a gap; the text before item 1 is not an item."""
    markers = list(_ENUMERATION.finditer(text))
    start = next((i for i, marker in enumerate(markers) if marker.group(1) == "1"), None)
    run = []
    for marker in markers[start:] if start is not None else []:
        if int(marker.group(1)) == len(run) + 1:
            run.append(marker)
    if len(run) < 2:
        return [(False, text)]
    chunks = [(False, text[: run[0].start()])]
    for marker, following in zip(run, run[1:] + [None], strict=True):
        chunks.append((True, text[marker.end() : following.start() if following else len(text)]))
    return [(enumerated, chunk.strip()) for enumerated, chunk in chunks if chunk.strip()]


def sentences(text: str) -> list[str]:
    """The text's sentences without a list's bullet, an abbreviation's full stop ("St.", "approx.") ending none."""
    pieces: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = _BULLET.sub("", piece.strip())
        if pieces and _ABBREVIATION.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        elif piece:
            pieces.append(piece)
    return pieces


def _clauses(sentence: str) -> list[str]:
    """A question joining two questions ("How much do I get, and is there a deadline?") gives two clauses."""
    if not looks_like_question(sentence):
        return [sentence]
    clauses, start = [], 0
    for join in _CLAUSE_JOIN.finditer(sentence):
        left, right = sentence[start : join.start()], sentence[join.end() :]
        if left.strip() and _QUESTION_START.match(right) and _QUESTION_START.match(strip_lead_in(left)):
            clauses.append(left.strip(" ,;"))
            start = join.end()
    clauses.append(sentence[start:].strip())
    return clauses
