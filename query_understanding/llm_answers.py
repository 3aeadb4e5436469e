"""Read what the language model sent back, repair what can be repaired, and refuse the rest.

The model's text is never trusted. Each question it writes must pass the rule for machine-written text
(`machine_text.rule_broken`: one plain question, no figure the passenger did not give, no address, no
formatting); one question that breaks it means the whole answer is refused and the built-in rules write the
questions instead, because a model that plants a figure or a link in one question may have been steered. A
question that passes but relates neither to the conversation nor to an air passenger issue is left out.
"""

from __future__ import annotations

import re

from foundation.text import clean_text, has_words
from query_understanding.lexicon import TOO_COMMON_TO_RELATE, topics
from query_understanding.llm import UnusableAnswer
from query_understanding.machine_text import rule_broken
from query_understanding.understanding import MAX_QUESTIONS

MAX_STANDALONE_CHARS = 1500
MAX_QUESTION_CHARS = 300

_MARKUP = re.compile(r"(?is)<(script|style)\b[^>]{0,200}>.*?</\1\s*>|<[^>]{0,200}>|[*_`#>|]+|^\s*(?:[-•]|\d+[.)])\s+")
_WORD = re.compile(r"[^\W\d_]{4,}")


def standalone_from(answer: object, conversation: str) -> str:
    value = answer.get("standalone") if isinstance(answer, dict) else answer
    if not isinstance(value, str):
        raise UnusableAnswer("the answer had no rewritten message")
    text = _plain_line(value, MAX_STANDALONE_CHARS * 2)
    if not has_words(text):
        raise UnusableAnswer("the rewritten message was empty")
    if len(text) > MAX_STANDALONE_CHARS:
        raise UnusableAnswer("the rewritten message was too long")
    if not _related(text, conversation):
        raise UnusableAnswer("the rewritten message was unrelated to the conversation")
    return text


def questions_from(answer: object, source: str, passenger_text: str) -> tuple[str, ...]:
    """At most three distinct questions that relate to `source`, in the model's order.

    Refused when any question breaks the rule for machine-written text against `passenger_text` (the
    passenger's own messages), or when none is left.
    """
    values = answer.get("questions") if isinstance(answer, dict) else answer
    if not isinstance(values, list):
        raise UnusableAnswer("the answer had no list of questions")
    kept: dict[str, str] = {}
    for value in values:
        if not isinstance(value, str):
            continue
        question = clean_text(value, MAX_QUESTION_CHARS * 2)
        if len(question) > MAX_QUESTION_CHARS:
            raise UnusableAnswer("a question it wrote was too long")
        if broken := rule_broken(question, passenger_text):
            raise UnusableAnswer(f"a question it wrote broke the rule for machine-written text: {broken}")
        if _related(question, source):
            kept.setdefault(question.casefold().rstrip("?. "), question)
    if not kept:
        raise UnusableAnswer("the answer had no usable question")
    return tuple(kept.values())[:MAX_QUESTIONS]


def _plain_line(text: str, limit: int) -> str:
    return clean_text(_MARKUP.sub(" ", clean_text(text, limit)), limit)


def _related(text: str, source: str) -> bool:
    """Shares a meaningful word with the source, or names an air passenger issue."""
    return bool(topics(text)) or bool(_content_words(text) & _content_words(source))


def _content_words(text: str) -> set[str]:
    return {word for word in map(str.casefold, _WORD.findall(text)) if word not in TOO_COMMON_TO_RELATE}
