"""The language-model path: rewrite the last message with its history, then split it, through the openai client."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from foundation.redact import Pseudonyms
from query_understanding.llm import AnswerTooLarge, DeadlinePassed, NotAChatCompletion, UnusableAnswer, ask, read_json
from query_understanding.llm_answers import questions_from, standalone_from
from query_understanding.prompts import DECOMPOSE_PROMPT, DECONTEXTUALISE_PROMPT
from query_understanding.understanding import Understanding

if TYPE_CHECKING:  # imported where an endpoint is used: a page without one never pays for the openai package
    from openai import OpenAI

DECONTEXTUALISE_MAX_TOKENS = 400
DECOMPOSE_MAX_TOKENS = 400
_BUILT_IN = "the questions below come from the built-in method."
SKIPPED_NOTE = f"The language model failed a moment ago and is not asked again for now; {_BUILT_IN}"


def understand_with_llm(history: list[str], message: str, client: OpenAI, model: str) -> Understanding:
    """One call to split a single message; two (rewrite, then split) when there is a history.

    The model reads the conversation with what identifies the passenger replaced by placeholders ("[name]",
    "[phone]"); its answer is read with the passenger's own words put back, then checked like any other.
    """
    conversation = " ".join([*history, message])
    pseudonyms = Pseudonyms()
    *hidden_history, hidden_message = pseudonyms.hide([*history, message])
    standalone = message
    if history:
        answer = _ask(client, model, DECONTEXTUALISE_PROMPT, {"history": hidden_history, "message": hidden_message})
        standalone = standalone_from(_restored(answer, pseudonyms), conversation)
    (hidden_standalone,) = pseudonyms.hide([standalone])
    answer = _ask(client, model, DECOMPOSE_PROMPT, {"message": hidden_standalone}, DECOMPOSE_MAX_TOKENS)
    questions = questions_from(_restored(answer, pseudonyms), f"{conversation} {standalone}", conversation)
    return Understanding(standalone, questions, "llm")


def _restored(answer: object, pseudonyms: Pseudonyms) -> object:
    """The model's JSON answer with the passenger's words in place of the placeholders, at any depth."""
    if isinstance(answer, str):
        return pseudonyms.restore(answer)
    if isinstance(answer, list):
        return [_restored(value, pseudonyms) for value in answer]
    if isinstance(answer, dict):
        return {key: _restored(value, pseudonyms) for key, value in answer.items()}
    return answer


def fallback_note(error: BaseException) -> str:
    """Why the built-in method answered instead, in words a passenger can read."""
    import openai

    if isinstance(error, openai.APITimeoutError | DeadlinePassed):
        reason = "The language model did not answer in time"
    elif isinstance(error, AnswerTooLarge):
        reason = "The language model's answer was too long to read"
    elif isinstance(error, openai.APIConnectionError):
        reason = "The language model could not be reached"
    elif isinstance(error, openai.APIStatusError):
        reason = f"The language model returned an error (HTTP {error.status_code})"
    elif isinstance(error, UnusableAnswer):
        reason = f"The language model's answer could not be used ({error})"
    elif isinstance(error, NotAChatCompletion | openai.APIResponseValidationError | ValueError):
        reason = "The language model's endpoint sent something that is not an answer"
    else:
        reason = "The language model failed"
    return f"{reason}; {_BUILT_IN}"


def _ask(
    client: OpenAI, model: str, prompt: str, payload: dict, max_tokens: int = DECONTEXTUALISE_MAX_TOKENS
) -> object:
    reply = ask(client, model, prompt, json.dumps(payload, ensure_ascii=False), max_tokens, json_mode=True)
    return read_json(reply.text)
