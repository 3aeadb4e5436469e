"""The one client of an OpenAI-compatible endpoint, and how it stays fast when that endpoint is slow, broken or
hostile. Query understanding and the evaluator's judge both ask through `ask` and read JSON with `read_json`.

Every message gets one overall deadline (LLMSettings.timeout), whatever the endpoint does: hang, send one
byte at a time, or send megabytes. An endpoint that failed is skipped for a cool-down (LLMSettings.cooldown),
so that the passengers after the first one get the built-in method at once instead of waiting in turn.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import httpx

from foundation.settings import LLMSettings

if TYPE_CHECKING:  # the openai package takes half a second to import: a page without an endpoint never does
    from openai import OpenAI

# A chat completion with at most a few hundred tokens is a few kB; anything far larger is not worth reading.
MAX_ANSWER_BYTES = 64 * 1024

T = TypeVar("T")
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class EndpointFault(Exception):
    """The endpoint misbehaved in a way the openai client does not report by itself."""


class AnswerTooLarge(EndpointFault):
    pass


class DeadlinePassed(EndpointFault):
    pass


class NotAChatCompletion(EndpointFault):
    """The endpoint answered, but not with a chat completion: it is broken, not merely the model's words."""


class UnusableAnswer(Exception):
    """The model answered, but nothing in the answer can be used; the message says why in plain words."""


@dataclass(frozen=True)
class Reply:
    """What the model wrote ("" when nothing), and whether it stopped at the token limit."""

    text: str
    cut_off: bool


def open_client(
    settings: LLMSettings, http_client: httpx.Client | None = None, deadline: float | None = None
) -> OpenAI:
    """A client for `settings`. Without `http_client`, its transport stops reading at `deadline` (a
    time.monotonic() value, default: the settings' timeout from now) and after MAX_ANSWER_BYTES; tests may hand
    in an httpx client of their own."""
    if http_client is None:
        deadline = deadline if deadline is not None else time.monotonic() + settings.timeout
        http_client = httpx.Client(transport=GuardedTransport(deadline), timeout=settings.timeout)
    from openai import OpenAI

    return OpenAI(
        api_key=settings.api_key,
        base_url=settings.base_url,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
        http_client=http_client,
    )


def ask(client: OpenAI, model: str, system: str, user: str, max_tokens: int, json_mode: bool = False) -> Reply:
    """The model's reply to one system prompt and one user message, at temperature 0. `json_mode` asks the
    endpoint for a JSON object (response_format json_object)."""
    from openai.types.chat import ChatCompletion

    response = client.chat.completions.create(
        model=model,
        temperature=0,
        max_tokens=max_tokens,
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        **({"response_format": {"type": "json_object"}} if json_mode else {}),
    )
    if not isinstance(response, ChatCompletion) or not isinstance(response.choices, list):
        raise NotAChatCompletion(f"the endpoint answered with {type(response).__name__}, not a chat completion")
    if not response.choices:
        return Reply("", False)
    choice = response.choices[0]
    content = getattr(getattr(choice, "message", None), "content", None)
    return Reply(content.strip() if isinstance(content, str) else "", choice.finish_reason == "length")


def read_json(text: str) -> object:
    """The JSON value in a reply, tolerating code fences, and prose around one object."""
    text = _FENCE.sub("", text.strip())
    if not text:
        raise UnusableAnswer("the answer was empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    start = text.find("{")
    if start >= 0:
        try:
            return json.JSONDecoder().raw_decode(text[start:])[0]
        except json.JSONDecodeError:
            pass
    raise UnusableAnswer("the answer was not valid JSON")


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
    def _key(settings: LLMSettings) -> tuple[str, str]:
        return (settings.base_url or "", settings.model)

    def allows(self, settings: LLMSettings) -> bool:
        with self._lock:
            return time.monotonic() >= self._open_until.get(self._key(settings), 0.0)

    def failed(self, settings: LLMSettings) -> None:
        with self._lock:
            self._open_until[self._key(settings)] = time.monotonic() + settings.cooldown

    def succeeded(self, settings: LLMSettings) -> None:
        with self._lock:
            self._open_until.pop(self._key(settings), None)


SHARED_BREAKER = CircuitBreaker()
