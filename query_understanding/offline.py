"""The built-in method: deterministic rules, no network, the same answer every time."""

from __future__ import annotations

from query_understanding.decompose_rules import decompose
from query_understanding.standalone_rules import make_standalone
from query_understanding.understanding import Understanding


def understand_offline(history: list[str], message: str, note: str = "") -> Understanding:
    standalone = make_standalone(history, message)
    asks = decompose(standalone)
    questions = tuple(ask.question for ask in asks)
    return Understanding(standalone, questions, "offline", note, tuple(ask.searched for ask in asks))
