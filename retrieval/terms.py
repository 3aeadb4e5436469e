"""Words as the sparse index compares them: folded, stemmed, stop words gone (and, for the map of stories' words,
kept)."""

from __future__ import annotations

import threading
from functools import lru_cache

import snowballstemmer

from foundation.text import words

STOP_WORDS = {
    "en": set(
        "a about above after again against all am an and any are as at be because been before being below "
        "between both but by can could did do does doing down during each few for from further had has have "
        "having he her here hers herself him himself his how i if in into is it its itself just me more most "
        "my myself no nor not now of off on once only or other our ours ourselves out over own same she "
        "should so some such than that the their theirs them themselves then there these they this those "
        "through to too under until up very was we were what when where which while who whom why will with "
        "would you your yours yourself yourselves im ive dont didnt doesnt got get lol like really just also "
        "even still actually literally so anyway thing things us our we're they're i'm i've it's that's "
        "what's".split()
    ),
    "fr": set(
        "a au aux avec ce ces cette dans de des du elle en et eux il ils je la le les leur lui ma mais me "
        "meme mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton "
        "tu un une vos votre vous c d j l m n s t y ete etre avoir ai as avons avez ont est sont etait fait "
        "comme plus tres bien alors donc si quoi quand ca cela".split()
    ),
}
STEMMERS = {"en": "english", "fr": "french"}


_per_thread = threading.local()


def _stemmer(lang: str):
    """This thread's stemmer for `lang`: a snowball stemmer keeps the word it is working on in itself, so two
    threads sharing one corrupt each other's words (the page's sessions search on threads of one process)."""
    stemmers = _per_thread.__dict__.setdefault("stemmers", {})
    if lang not in stemmers:
        stemmers[lang] = snowballstemmer.stemmer(STEMMERS.get(lang, "english"))
    return stemmers[lang]


@lru_cache(maxsize=200_000)
def _stem(word: str, lang: str) -> str:
    """A word's stem, worked out once per process: the engine's indexes stem 136,000 words, most of them repeats,
    and stemming them all took most of a new process's start."""
    return _stemmer(lang).stemWord(word)


def terms(text: str, lang: str = "en") -> list[str]:
    stop = STOP_WORDS.get(lang, STOP_WORDS["en"])
    return [_stem(w, lang) for w in words(text) if w not in stop and len(w) > 1]


def stems(text: str, lang: str = "en") -> list[str]:
    """Every word's stem, stop words kept: "what can I get", "how much" and "not" tell what a story asks."""
    return [_stem(w, lang) for w in words(text)]
