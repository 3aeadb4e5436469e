"""Query understanding: a passenger's conversation becomes at most three standalone questions for retrieval.

`understand(turns)` never raises. Input with no words at all (empty, blanks, punctuation, digits, emoji or
control characters only) gives no questions: Understanding(standalone="", questions=(), path="offline",
note=NO_WORDS_NOTE). Otherwise the language model answers when an endpoint is configured, and the built-in
rules answer when none is, or when the model fails or its answer is unusable (then `note` says why).
"""

from __future__ import annotations

from typing import Literal

import httpx
import openai

from query_understanding.cache import SHARED_CACHE, CacheKey, UnderstandingCache
from query_understanding.cleaning import has_words, split_turns
from query_understanding.llm import LLMConfig
from query_understanding.llm_answers import UnusableAnswer
from query_understanding.llm_path import fallback_note, understand_with_llm
from query_understanding.offline import understand_offline
from query_understanding.prompts import PROMPT_VERSION
from query_understanding.understanding import MAX_QUESTIONS, Understanding

__all__ = [
    "FROM_ENV",
    "MAX_QUESTIONS",
    "NO_WORDS_NOTE",
    "LLMConfig",
    "Understanding",
    "UnderstandingCache",
    "understand",
]

FROM_ENV = "env"
NO_WORDS_NOTE = "The message has no words to look up."


def understand(
    turns: list[str],
    *,
    config: LLMConfig | None | Literal["env"] = FROM_ENV,
    http_client: httpx.Client | None = None,
    cache: UnderstandingCache | None = SHARED_CACHE,
) -> Understanding:
    """The last of `turns` made standalone with the earlier ones, split into at most three questions.

    `config` "env" reads LLMConfig.from_env(); None uses the built-in rules only. `http_client` reaches the
    endpoint (tests hand in one bound to a local stub). `cache` keeps language-model answers; None disables it.
    """
    history, message = split_turns(turns)
    if not has_words(message):
        return Understanding("", (), "offline", NO_WORDS_NOTE)
    if config == FROM_ENV:
        config = LLMConfig.from_env()
    if config is None:
        return understand_offline(history, message)
    key: CacheKey = (tuple(history), message, config.model, config.base_url or "", PROMPT_VERSION)
    if cache is not None and (cached := cache.get(key)) is not None:
        return cached
    client = config.client(http_client)
    try:
        understanding = understand_with_llm(history, message, client, config.model)
    except (openai.OpenAIError, UnusableAnswer) as error:
        return understand_offline(history, message, fallback_note(error))
    finally:
        if http_client is None:
            client.close()
    if cache is not None:
        cache.put(key, understanding)
    return understanding
