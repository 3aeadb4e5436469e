"""The result of query understanding, the same whichever path produced it."""

from __future__ import annotations

from dataclasses import dataclass

MAX_QUESTIONS = 3


@dataclass(frozen=True)
class Understanding:
    """The last message made standalone, split into at most three questions.

    `searches` holds, for each question, what is searched for it: the question with the statements of the
    message that describe its situation, so a short question a passenger can read still searches with the facts
    it needs. Empty means each question is searched as written.

    `path` is "llm" or "offline"; `note` says, in plain words, why the offline path answered
    when an LLM endpoint was configured (timeout, malformed answer...), or that the message had
    no words to look up (then `questions` is empty), and is empty otherwise.
    """

    standalone: str
    questions: tuple[str, ...]
    path: str
    note: str = ""
    searches: tuple[str, ...] = ()

    def searched(self, index: int) -> str:
        """What is searched for the question at `index`."""
        if len(self.searches) == len(self.questions):
            return self.searches[index]
        return self.questions[index]
