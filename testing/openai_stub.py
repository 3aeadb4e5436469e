"""A local OpenAI-compatible chat endpoint for tests: the real `openai` client talks to it over 127.0.0.1."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from foundation.settings import LLMSettings
from testing.local_server import LocalServer, free_port, send

# reply(system, user) -> content, or (content, finish_reason)
Reply = Callable[[str, str], "str | tuple[str, str]"]


class StubEndpoint(LocalServer):
    """Answers POST /v1/chat/completions with `reply`; keeps every (system, user) pair it was sent, and the
    model each request named."""

    def __init__(self, reply: Reply):
        super().__init__(self.answer)
        self.reply = reply
        self.requests: list[tuple[str, str]] = []
        self.models: list[str] = []

    def answer(self, request: BaseHTTPRequestHandler) -> None:
        body = json.loads(request.rfile.read(int(request.headers["Content-Length"])))
        messages = {message["role"]: message["content"] for message in body["messages"]}
        system, user = messages.get("system", ""), messages.get("user", "")
        self.requests.append((system, user))
        self.models.append(body["model"])
        reply = self.reply(system, user)
        content, finish_reason = reply if isinstance(reply, tuple) else (reply, "stop")
        choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}
        payload = {
            "id": "stub",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [choice],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        send(request, 200, json.dumps(payload).encode(), "application/json")

    @property
    def config(self) -> LLMSettings:
        environ = {"OPENAI_BASE_URL": self.url("/v1"), "PASSENGER_LLM_MODEL": "stub-model"}
        return LLMSettings.from_environment({**environ, "PASSENGER_LLM_RETRIES": "0", "PASSENGER_LLM_TIMEOUT": "10"})


FAULTS = ("hanging", "dripping", "500", "garbage", "oversized", "refused")


class FaultyEndpoint:
    """A chat endpoint on 127.0.0.1 that misbehaves in one way, for every request:

    hanging: reads the request and never answers; dripping: answers one byte every `drip_seconds`;
    500: a server error; garbage: status 200 with random bytes; oversized: status 200 and 19 MB of JSON with
    no length announced; refused: nothing listens on the port. `requests` counts the requests that arrived.
    """

    def __init__(self, fault: str, drip_seconds: float = 5.0):
        if fault not in FAULTS:
            raise ValueError(f"fault must be one of {FAULTS}")
        self.fault = fault
        self.requests = 0
        self.stopping = threading.Event()
        self.drip_seconds = drip_seconds
        self.server = None if fault == "refused" else LocalServer(self.misbehave)
        self.port = free_port() if self.server is None else self.server.port

    def misbehave(self, request: BaseHTTPRequestHandler) -> None:
        request.rfile.read(int(request.headers.get("Content-Length", 0)))
        self.requests += 1
        if self.fault == "hanging":
            self.stopping.wait()
        elif self.fault == "500":
            body = b'{"error": {"message": "server trouble", "type": "server_error"}}'
            send(request, 500, body, "application/json")
        elif self.fault == "garbage":
            send(request, 200, os.urandom(2048), "application/json")
        elif self.fault == "oversized":
            request.send_response(200)
            request.send_header("Content-Type", "application/json")
            request.end_headers()  # no length: the client can only find out by reading
            piece = b'{"questions": ["' + b"How much is owed? " * 4000 + b'"]}\n'
            for _ in range(19 * 1024 * 1024 // len(piece)):
                request.wfile.write(piece)
        elif self.fault == "dripping":
            body = b'{"id": "drip", "object": "chat.completion", "choices": []}'
            request.send_response(200)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            for byte in body:
                if self.stopping.wait(self.drip_seconds):
                    return
                request.wfile.write(bytes([byte]))
                request.wfile.flush()

    def __enter__(self) -> FaultyEndpoint:
        if self.server is not None:
            self.server.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        if self.server is not None:
            self.server.__exit__(*exc)

    def config(self, timeout: float = 2.0, retries: int = 1, cooldown: float = 60.0) -> LLMSettings:
        return LLMSettings("test-key", f"http://127.0.0.1:{self.port}/v1", "stub-model", timeout, retries, cooldown)
