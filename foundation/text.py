"""Text as every part reads it: a passenger's message cleaned (as shown, as searched), spaces squashed, folded to
plain lower case, cut into words, and told English from French."""

from __future__ import annotations

import re
import unicodedata

LANGUAGES = ("en", "fr")  # the languages the loaders, the rules, the bank and the page read
MAX_MESSAGE_CHARS = 4000  # the longest message the page searches
WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
# Terminal escape sequences (colours "ESC[31m", titles "ESC]0;...BEL"), removed whole so no "[31m" is left.
TERMINAL_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|\x9b[0-?]*[ -/]*[@-~]"
)
# Control characters other than tab and newline, and the invisible ones that reorder or hide text (bidi
# overrides, zero-width spaces): never meaningful in a message, sometimes pasted by accident or to deceive.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
# Control, format, private-use and unassigned characters, and pictographs (emoji): none carry meaning for the law.
_DROPPED_FROM_SEARCH = {"Cc", "Cf", "Co", "Cn", "Cs", "So"}

FRENCH_MARKERS = set(
    "le la les des du un une est et je j mon ma mes vol valise bagage bagages retard annule annulation avec "
    "pour dans pas ai ete etais suis quel quelle quand combien droit indemnite remboursement aeroport "
    "transporteur compagnie aerienne avion heures jours".split()
)
ENGLISH_MARKERS = set(
    "the and is my was i to of for with flight bag they have what how do does can it on at a an delayed "
    "cancelled luggage airline hours days".split()
)


def clean_message(message: str) -> str:
    """The message as shown back to the passenger and handed to the search: without terminal escapes and control
    characters, but with its tabs, line breaks and emoji, since the passenger wrote them."""
    return _CONTROL.sub("", TERMINAL_ESCAPE.sub("", message)).strip()


def clean_text(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """The text as searched: NFKC-normalised, on one line, without characters that carry no meaning for the law
    (controls, invisible formatting, emoji), cut at a word boundary after `limit` characters; so no later step
    can choke on whatever was typed or written by a language model."""
    text = unicodedata.normalize("NFKC", text if isinstance(text, str) else str(text))
    text = TERMINAL_ESCAPE.sub(" ", text)
    line = squash_spaces("".join(" " if unicodedata.category(ch) in _DROPPED_FROM_SEARCH else ch for ch in text))
    if len(line) <= limit:
        return line
    cut = line[:limit]
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


def has_words(text: str) -> bool:
    """Punctuation, digits or emoji alone give retrieval nothing to look up."""
    return any(ch.isalpha() for ch in text)


def squash_spaces(text: str) -> str:
    """Every run of white space one space, none at the ends."""
    return " ".join(text.split())


class _WithoutAccents(dict):
    """A `str.translate` table that drops combining marks, filled in as characters are first seen: a new process
    folds every part of the law once, and a per-character Python loop took most of a second."""

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.combining(chr(code)) else code
        self[code] = kept
        return kept


_WITHOUT_ACCENTS = _WithoutAccents()


def fold(text: str) -> str:
    """Lower case without accents, so that "réclamation" and "reclamation" are one word."""
    decomposed = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    return decomposed if decomposed.isascii() else decomposed.translate(_WITHOUT_ACCENTS)


def words(text: str) -> list[str]:
    return WORD.findall(fold(text))


def detect_language(text: str) -> str:
    """Which language a passenger writes in, so French questions get French passages where there are some:
    French ("fr") when French marker words outnumber English ones, else English ("en")."""
    tokens = words(text)
    french = sum(token in FRENCH_MARKERS for token in tokens)
    english = sum(token in ENGLISH_MARKERS for token in tokens)
    return "fr" if french > english else "en"
