"""How the product reaches an OpenAI-compatible endpoint, configured by environment only, and how it stays fast
when that endpoint is slow, broken or hostile.

Every message gets one overall deadline (PASSENGER_LLM_TIMEOUT), whatever the endpoint does: hang, send one
byte at a time, or send megabytes. An endpoint that failed is skipped for a cool-down (PASSENGER_LLM_COOLDOWN),
so that the passengers after the first one get the built-in method at once instead of waiting in turn.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit

import httpx
from openai import OpenAI

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT = 15.0
DEFAULT_RETRIES = 1
DEFAULT_COOLDOWN = 60.0
MAX_TIMEOUT = 300.0
MAX_RETRIES = 5
MAX_COOLDOWN = 3600.0
# A chat completion with at most 400 tokens of JSON is a few kB; anything far larger is not worth reading.
MAX_ANSWER_BYTES = 64 * 1024

log = logging.getLogger(__name__)
T = TypeVar("T")


class LLMSettingsError(ValueError):
    """A language-model setting in the environment cannot be used; the message names the variable."""


class EndpointFault(Exception):
    """The endpoint misbehaved in a way the openai client does not report by itself."""


class AnswerTooLarge(EndpointFault):
    pass


class DeadlinePassed(EndpointFault):
    pass


def _number(env: Mapping[str, str], name: str, default: float, low: float, high: float, whole: bool = False):
    raw = env.get(name, "").strip()
    if not raw:
        return default
    kind = "a whole number" if whole else "a number of seconds"
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise LLMSettingsError(f"{name} must be {kind} from {low:g} to {high:g}, not {raw[:40]!r}.") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise LLMSettingsError(f"{name} must be {kind} from {low:g} to {high:g}, not {raw[:40]!r}.")
    return value


def _base_url(env: Mapping[str, str]) -> str | None:
    """The address, checked; a message about it never repeats it, since it may hold a password."""
    raw = env.get("OPENAI_BASE_URL", "").strip()
    if not raw:
        return None
    problem = "OPENAI_BASE_URL must be an address such as http://127.0.0.1:11434/v1"
    if any(ch.isspace() or ord(ch) < 32 for ch in raw):
        raise LLMSettingsError(f"{problem}; this one contains spaces or control characters.")
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - reading it checks it: a port that is not a number raises
        httpx.URL(raw)
    except (ValueError, httpx.InvalidURL):
        raise LLMSettingsError(f"{problem}; this one cannot be read as an address.") from None
    if parts.scheme not in ("http", "https"):
        raise LLMSettingsError(f"{problem}; this one does not start with http:// or https://.")
    if not parts.hostname:
        raise LLMSettingsError(f"{problem}; this one names no host.")
    return raw


def display_url(url: str) -> str:
    """The address without what may be a credential in it: no user or password, no query, no fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(an address that cannot be read)"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{parts.path}" if parts.scheme else "(an address that cannot be read)"


@dataclass(frozen=True, repr=False)
class LLMConfig:
    """OPENAI_API_KEY and/or OPENAI_BASE_URL switch the LLM path on; PASSENGER_LLM_MODEL names the model.

    `timeout` is the overall deadline for one message, retries included; `cooldown` how long an endpoint that
    failed is skipped.
    """

    api_key: str
    base_url: str | None
    model: str
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_RETRIES
    cooldown: float = DEFAULT_COOLDOWN

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LLMConfig | None:
        """None when no endpoint is configured; raises LLMSettingsError naming a setting that cannot be used."""
        env = os.environ if environ is None else environ
        api_key = env.get("OPENAI_API_KEY", "").strip()
        base_url = _base_url(env)
        timeout = _number(env, "PASSENGER_LLM_TIMEOUT", DEFAULT_TIMEOUT, 0.1, MAX_TIMEOUT)
        retries = _number(env, "PASSENGER_LLM_RETRIES", DEFAULT_RETRIES, 0, MAX_RETRIES, whole=True)
        cooldown = _number(env, "PASSENGER_LLM_COOLDOWN", DEFAULT_COOLDOWN, 0, MAX_COOLDOWN)
        if not api_key and not base_url:
            return None
        return cls(
            api_key=api_key or "not-needed",  # local servers accept any key
            base_url=base_url,
            model=env.get("PASSENGER_LLM_MODEL", "").strip() or DEFAULT_MODEL,
            timeout=timeout,
            max_retries=retries,
            cooldown=cooldown,
        )

    def __repr__(self) -> str:  # logs and tracebacks show settings, never the key or a credential in the address
        return (
            f"LLMConfig(model={self.model!r}, where={self.where!r}, timeout={self.timeout}, "
            f"max_retries={self.max_retries}, cooldown={self.cooldown})"
        )

    @property
    def where(self) -> str:
        """The endpoint as it may be shown or logged: never a credential."""
        return display_url(self.base_url) if self.base_url else "api.openai.com"

    def client(self, http_client: httpx.Client | None = None, deadline: float | None = None) -> OpenAI:
        """A client with this configuration. Without `http_client`, its transport stops reading at `deadline`
        (a time.monotonic() value) and after MAX_ANSWER_BYTES; tests may hand in an httpx client of their own."""
        if http_client is None:
            deadline = deadline if deadline is not None else time.monotonic() + self.timeout
            http_client = httpx.Client(transport=GuardedTransport(deadline), timeout=self.timeout)
        return OpenAI(
            api_key=self.api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=self.max_retries,
            http_client=http_client,
        )


def configured_llm(environ: Mapping[str, str] | None = None) -> tuple[LLMConfig | None, str]:
    """The configured endpoint, or None and why a setting cannot be used (then the built-in method answers)."""
    try:
        return LLMConfig.from_env(environ), ""
    except LLMSettingsError as error:
        _warn_once(str(error))
        return None, str(error)


_warned: set[str] = set()


def _warn_once(problem: str) -> None:
    if problem not in _warned:
        _warned.add(problem)
        log.warning("language model switched off: %s", problem)


class _GuardedStream(httpx.SyncByteStream):
    def __init__(self, stream: httpx.SyncByteStream, deadline: float, limit: int):
        self._stream, self._deadline, self._limit = stream, deadline, limit

    def __iter__(self) -> Iterator[bytes]:
        received = 0
        for chunk in self._stream:
            received += len(chunk)
            if received > self._limit:
                raise AnswerTooLarge(f"the answer was longer than {self._limit} bytes")
            if time.monotonic() > self._deadline:
                raise DeadlinePassed("the answer was still arriving at the deadline")
            yield chunk

    def close(self) -> None:
        self._stream.close()


class GuardedTransport(httpx.BaseTransport):
    """HTTP that refuses to start after the deadline, and stops reading an answer past the deadline or the size
    limit, so even a request the page has stopped waiting for ends soon."""

    def __init__(self, deadline: float, limit: int = MAX_ANSWER_BYTES):
        self._inner = httpx.HTTPTransport()
        self._deadline, self._limit = deadline, limit

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if time.monotonic() >= self._deadline:
            raise DeadlinePassed("the deadline passed before the request")
        request.headers["Accept-Encoding"] = "identity"  # a compressed answer could expand past the limit
        response = self._inner.handle_request(request)
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self._limit:
            response.close()
            raise AnswerTooLarge(f"the answer announced {declared} bytes, more than {self._limit}")
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_GuardedStream(response.stream, self._deadline, self._limit),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._inner.close()


def before_deadline(work: Callable[[], T], seconds: float) -> T:
    """`work()`'s result, or DeadlinePassed after `seconds` even if it is still waiting on the network.

    The work runs on a daemon thread that is left behind when late; its transport ends it soon after.
    """
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread as it is
            outcome["error"] = error

    worker = threading.Thread(target=run, name="language-model-request", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise DeadlinePassed(f"no answer within {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


class CircuitBreaker:
    """Endpoints that failed recently, shared by every session of the process: one is skipped until its
    cool-down is over, then tried again by the next message."""

    def __init__(self) -> None:
        self._open_until: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(config: LLMConfig) -> tuple[str, str]:
        return (config.base_url or "", config.model)

    def allows(self, config: LLMConfig) -> bool:
        with self._lock:
            return time.monotonic() >= self._open_until.get(self._key(config), 0.0)

    def failed(self, config: LLMConfig) -> None:
        with self._lock:
            self._open_until[self._key(config)] = time.monotonic() + config.cooldown

    def succeeded(self, config: LLMConfig) -> None:
        with self._lock:
            self._open_until.pop(self._key(config), None)


SHARED_BREAKER = CircuitBreaker()
