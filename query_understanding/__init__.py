"""Query understanding: a passenger's conversation becomes at most three standalone questions for retrieval.

`understand(turns)` never raises. Input with no words at all (empty, blanks, punctuation, digits, emoji or
control characters only) gives no questions: Understanding(standalone="", questions=(), path="offline",
note=NO_WORDS_NOTE). Otherwise the language model answers when the caller hands in its settings, and the
built-in rules answer when it hands in None, or when the model fails, is late or its answer is unusable (then
`note` says why). A message waits at most the configured deadline for the model, and an endpoint
that failed is skipped for a cool-down.
"""

from __future__ import annotations

import logging
import time

import httpx

from foundation.settings import LLMSettings
from foundation.text import has_words
from query_understanding.cache import SHARED_CACHE, CacheKey, UnderstandingCache
from query_understanding.llm import SHARED_BREAKER, CircuitBreaker, UnusableAnswer, before_deadline, open_client
from query_understanding.llm_path import SKIPPED_NOTE, fallback_note, understand_with_llm
from query_understanding.offline import understand_offline
from query_understanding.prompts import PROMPT_VERSION
from query_understanding.turns import split_turns
from query_understanding.understanding import MAX_QUESTIONS, Understanding

__all__ = [
    "CircuitBreaker",
    "MAX_QUESTIONS",
    "NO_WORDS_NOTE",
    "Understanding",
    "UnderstandingCache",
    "understand",
]

NO_WORDS_NOTE = "The message has no words to look up."
log = logging.getLogger(__name__)


def understand(
    turns: list[str],
    *,
    config: LLMSettings | None,
    http_client: httpx.Client | None = None,
    cache: UnderstandingCache | None = SHARED_CACHE,
    breaker: CircuitBreaker | None = SHARED_BREAKER,
) -> Understanding:
    """The last of `turns` made standalone with the earlier ones, split into at most three questions.

    `config` is the language model's settings (foundation.settings); None uses the built-in rules only. `http_client`
    reaches the endpoint (tests hand in one bound to a local stub).
    `cache` keeps language-model answers; `breaker` remembers failed endpoints; None disables either.
    """
    history, message = split_turns(turns)
    if not has_words(message):
        return Understanding("", (), "offline", NO_WORDS_NOTE)
    if config is None:
        return understand_offline(history, message)
    key: CacheKey = (tuple(history), message, config.model, config.base_url or "", PROMPT_VERSION)
    if cache is not None and (cached := cache.get(key)) is not None:
        return cached
    if breaker is not None and not breaker.allows(config):
        return understand_offline(history, message, SKIPPED_NOTE)
    try:
        understanding = before_deadline(lambda: _ask_model(history, message, config, http_client), config.timeout)
    except UnusableAnswer as error:  # the endpoint works; only this answer's words could not be used
        return understand_offline(history, message, fallback_note(error))
    except Exception as error:  # noqa: BLE001 - whatever the endpoint or the client does, the rules answer
        log.warning(
            "language model at %s failed (%s); skipped for %g s", config.where, type(error).__name__, config.cooldown
        )
        if breaker is not None:
            breaker.failed(config)
        return understand_offline(history, message, fallback_note(error))
    if breaker is not None:
        breaker.succeeded(config)
    if cache is not None:
        cache.put(key, understanding)
    return understanding


def _ask_model(history: list[str], message: str, config: LLMSettings, http_client: httpx.Client | None):
    client = open_client(config, http_client, deadline=time.monotonic() + config.timeout)
    try:
        return understand_with_llm(history, message, client, config.model)
    finally:
        if http_client is None:
            client.close()
