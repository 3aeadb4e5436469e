"""Whether a message is written in a language the product does not read (it reads English and French only).

The knowledge base holds the law in English and French, and the rules that read a message know those two
languages. A message in another language would otherwise be told it is "not about air travel"; it is better
to say which languages work. A message mostly in a script other than the Latin one is in another language;
a Latin-script message is when it uses another language's air-travel words and more of that language's
common words than English or French ones.
"""

from __future__ import annotations

import re
import unicodedata

from foundation.text import fold
from query_understanding.lexicon import ENGLISH_FRENCH_WORDS, OTHER_LANGUAGE_AIR_WORDS, OTHER_LANGUAGE_COMMON_WORDS

_WORD = re.compile(r"[^\W\d_]+")


def in_unsupported_language(text: str) -> bool:
    """True for a message in a language other than English or French (see the module's note)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return False
    latin = sum(unicodedata.name(ch, "").startswith("LATIN") for ch in letters)
    if latin < len(letters) / 2:
        return True
    tokens = _WORD.findall(_fold_letters(text))
    if not any(token in OTHER_LANGUAGE_AIR_WORDS for token in tokens):
        return False
    other = sum(token in OTHER_LANGUAGE_AIR_WORDS or token in OTHER_LANGUAGE_COMMON_WORDS for token in tokens)
    return other > sum(token in ENGLISH_FRENCH_WORDS for token in tokens)


def _fold_letters(text: str) -> str:
    """`fold`, with ł and ß (which have no accent to strip) written "l" and "ss", as the lexicon spells Polish and
    German words ("odwolany"); kept apart from `fold`, which search shares, so search words stay as they are."""
    return fold(text).replace("ł", "l").replace("ß", "ss")
