"""The result of query understanding, the same whichever path produced it."""

from __future__ import annotations

from dataclasses import dataclass

MAX_QUESTIONS = 3


@dataclass(frozen=True)
class Understanding:
    """The last message made standalone, split into at most three questions.

    `path` is "llm" or "offline"; `note` says, in plain words, why the offline path answered
    when an LLM endpoint was configured (timeout, malformed answer...), or that the message had
    no words to look up (then `questions` is empty), and is empty otherwise.
    """

    standalone: str
    questions: tuple[str, ...]
    path: str
    note: str = ""
