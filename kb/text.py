"""Text as every part compares it: folded to plain lower case, cut into words, and told English from French."""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")

FRENCH_MARKERS = set(
    "le la les des du un une est et je j mon ma mes vol valise bagage bagages retard annule annulation avec "
    "pour dans pas ai ete etais suis quel quelle quand combien droit indemnite remboursement aeroport "
    "transporteur compagnie aerienne avion heures jours".split()
)
ENGLISH_MARKERS = set(
    "the and is my was i to of for with flight bag they have what how do does can it on at a an delayed "
    "cancelled luggage airline hours days".split()
)


def fold(text: str) -> str:
    """Lower case without accents, so that "réclamation" and "reclamation" are one word."""
    decomposed = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    return WORD.findall(fold(text))


def detect_language(text: str) -> str:
    """Which language a passenger writes in, so French questions get French passages where there are some:
    French ("fr") when French marker words outnumber English ones, else English ("en")."""
    tokens = words(text)
    french = sum(token in FRENCH_MARKERS for token in tokens)
    english = sum(token in ENGLISH_MARKERS for token in tokens)
    return "fr" if french > english else "en"
