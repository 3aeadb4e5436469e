"""How the product reaches an OpenAI-compatible endpoint, configured by environment only."""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx
from openai import OpenAI

DEFAULT_MODEL = "gpt-4o-mini"


@dataclass(frozen=True)
class LLMConfig:
    """OPENAI_API_KEY and/or OPENAI_BASE_URL switch the LLM path on; PASSENGER_LLM_MODEL names the model."""

    api_key: str
    base_url: str | None
    model: str
    timeout: float
    max_retries: int

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> LLMConfig | None:
        env = os.environ if environ is None else environ
        api_key = env.get("OPENAI_API_KEY", "").strip()
        base_url = env.get("OPENAI_BASE_URL", "").strip() or None
        if not api_key and not base_url:
            return None
        return cls(
            api_key=api_key or "not-needed",  # local servers accept any key
            base_url=base_url,
            model=env.get("PASSENGER_LLM_MODEL", "").strip() or DEFAULT_MODEL,
            timeout=float(env.get("PASSENGER_LLM_TIMEOUT", "15")),
            max_retries=int(env.get("PASSENGER_LLM_RETRIES", "1")),
        )

    def client(self, http_client: httpx.Client | None = None) -> OpenAI:
        """A client with this configuration; tests hand in an httpx client bound to a local stub."""
        return OpenAI(
            api_key=self.api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=self.max_retries,
            http_client=http_client,
        )
