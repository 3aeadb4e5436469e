"""One LLM call of the hallucination measurement; a failed or malformed reply becomes a StageFailure."""

from __future__ import annotations

import openai

from foundation.settings import LLMSettings
from query_understanding.llm import EndpointFault, UnusableAnswer, ask, open_client, read_json

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
    """The configured endpoint, asked deterministically; each question gets the settings' deadline afresh."""

    def __init__(self, settings: LLMSettings):
        self.settings = settings
        self.model = settings.model

    def ask(self, stage: str, system: str, user: str, max_tokens: int = 1200) -> str:
        try:
            with open_client(self.settings) as client:
                reply = ask(client, self.model, system, user, max_tokens)
        except (openai.APIError, EndpointFault) as error:
            raise StageFailure(stage, f"endpoint error: {error}") from error
        if not reply.text:
            raise StageFailure(stage, "empty reply")
        if reply.cut_off:
            raise StageFailure(stage, "reply cut off at the token limit")
        return reply.text

    def ask_json(self, stage: str, system: str, user: str, max_tokens: int = 1200) -> dict:
        text = self.ask(stage, system, user, max_tokens)
        try:
            value = read_json(text)
        except UnusableAnswer as error:
            raise StageFailure(stage, f"{error}: {text[:80]!r}") from error
        if not isinstance(value, dict):
            raise StageFailure(stage, f"JSON is not an object: {text[:80]!r}")
        return value
