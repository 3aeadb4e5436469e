"""The conversation as query understanding reads it: every turn cleaned as searched, the history bounded."""

from __future__ import annotations

from foundation.text import clean_text, has_words

MAX_HISTORY_CHARS = 1500
MAX_HISTORY_TURNS = 6


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
