"""One LLM call of the hallucination measurement; a failed or malformed reply becomes a StageFailure."""

from __future__ import annotations

import json

import openai
from openai import OpenAI

ENDPOINT_HOWTO = """\
To run them, set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL=http://127.0.0.1:11434/v1 for a local
OpenAI-compatible server such as Ollama, and PASSENGER_LLM_MODEL to the model's name."""


class StageFailure(Exception):
    """A stage that could not produce a usable result: recorded in the report, never counted as a finding."""

    def __init__(self, stage: str, reason: str):
        super().__init__(f"{stage}: {reason}")
        self.stage = stage
        self.reason = reason


class Chat:
    """A client and a model, asked deterministically (temperature 0)."""

    def __init__(self, client: OpenAI, model: str):
        self.client = client
        self.model = model

    def ask(self, stage: str, system: str, user: str, max_tokens: int = 1200) -> str:
        try:
            response = self.client.chat.completions.create(
                model=self.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                temperature=0,
                max_tokens=max_tokens,
            )
        except openai.APIError as error:
            raise StageFailure(stage, f"endpoint error: {error}") from error
        if not response.choices:
            raise StageFailure(stage, "no choices in the reply")
        choice = response.choices[0]
        text = (choice.message.content or "").strip()
        if not text:
            raise StageFailure(stage, "empty reply")
        if choice.finish_reason == "length":
            raise StageFailure(stage, "reply cut off at the token limit")
        return text

    def ask_json(self, stage: str, system: str, user: str, max_tokens: int = 1200) -> dict:
        return parse_json_object(stage, self.ask(stage, system, user, max_tokens))


def parse_json_object(stage: str, text: str) -> dict:
    """The first JSON object in a reply, tolerating code fences and prose around it."""
    start = text.find("{")
    if start < 0:
        raise StageFailure(stage, f"not JSON: {_excerpt(text)}")
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as error:
        raise StageFailure(stage, f"malformed or truncated JSON ({error.msg}): {_excerpt(text)}") from error
    if not isinstance(value, dict):
        raise StageFailure(stage, f"JSON is not an object: {_excerpt(text)}")
    return value


def _excerpt(text: str) -> str:
    return repr(text[:80])
