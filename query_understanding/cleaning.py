"""Turn whatever the passenger typed into one bounded line of plain text, so no later step can choke on it."""

from __future__ import annotations

import re
import unicodedata

MAX_MESSAGE_CHARS = 4000
MAX_HISTORY_CHARS = 1500
MAX_HISTORY_TURNS = 6

# Control, format, private-use and unassigned characters, and pictographs (emoji): none carry meaning for the law.
_DROPPED_CATEGORIES = {"Cc", "Cf", "Co", "Cn", "Cs", "So"}
_SPACES = re.compile(r"\s+")
_TERMINAL_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def clean_text(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Normalised text on one line, cut at a word boundary after `limit` characters."""
    text = unicodedata.normalize("NFKC", text if isinstance(text, str) else str(text))
    text = _TERMINAL_ESCAPE.sub(" ", text)
    kept = "".join(" " if unicodedata.category(ch) in _DROPPED_CATEGORIES else ch for ch in text)
    line = _SPACES.sub(" ", kept).strip()
    if len(line) <= limit:
        return line
    cut = line[:limit]
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


def has_words(text: str) -> bool:
    """Punctuation, digits or emoji alone give retrieval nothing to look up."""
    return any(ch.isalpha() for ch in text)


def split_turns(turns: object) -> tuple[list[str], str]:
    """(cleaned history, cleaned last message); a bare string counts as one turn, empty turns are dropped."""
    if isinstance(turns, str):
        turns = [turns]
    try:
        raw = list(turns)
    except TypeError:
        raw = []
    if not raw:
        return [], ""
    history = [clean_text(turn, MAX_HISTORY_CHARS) for turn in raw[:-1][-MAX_HISTORY_TURNS:]]
    return [turn for turn in history if has_words(turn)], clean_text(raw[-1])
