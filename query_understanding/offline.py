"""The built-in method: deterministic rules, no network, the same answer every time."""

from __future__ import annotations

from query_understanding.decompose_rules import decompose
from query_understanding.standalone_rules import make_standalone
from query_understanding.understanding import Understanding


def understand_offline(history: list[str], message: str, note: str = "") -> Understanding:
    standalone = make_standalone(history, message)
    return Understanding(standalone, tuple(decompose(standalone)), "offline", note)
