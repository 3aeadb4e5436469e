"""A local OpenAI-compatible chat endpoint for tests: the real `openai` client talks to it over 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kb.settings import LLMSettings

# reply(system, user) -> content, or (content, finish_reason)
Reply = Callable[[str, str], "str | tuple[str, str]"]


class StubEndpoint:
    """Answers POST /v1/chat/completions with `reply`; keeps every (system, user) pair it was sent."""

    def __init__(self, reply: Reply):
        self.reply = reply
        self.requests: list[tuple[str, str]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                messages = {message["role"]: message["content"] for message in body["messages"]}
                stub.requests.append((messages.get("system", ""), messages.get("user", "")))
                reply = stub.reply(messages.get("system", ""), messages.get("user", ""))
                content, finish_reason = reply if isinstance(reply, tuple) else (reply, "stop")
                payload = json.dumps(
                    {
                        "id": "stub",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": finish_reason,
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    def __enter__(self) -> StubEndpoint:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def config(self) -> LLMSettings:
        port = self.server.server_address[1]
        environ = {"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "PASSENGER_LLM_MODEL": "stub-model"}
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
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                endpoint.requests += 1
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client stopped reading
                    endpoint.misbehave(self)

            def log_message(self, *args):
                pass

        self.drip_seconds = drip_seconds
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        if fault == "refused":
            self.server.server_close()  # the port was just free, and nothing listens on it now

    def misbehave(self, handler: BaseHTTPRequestHandler) -> None:
        if self.fault == "hanging":
            self.stopping.wait()
            return
        if self.fault == "500":
            body = b'{"error": {"message": "server trouble", "type": "server_error"}}'
            handler.send_response(500)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if self.fault == "garbage":
            body = os.urandom(2048)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        elif self.fault == "oversized":
            handler.end_headers()  # no length: the client can only find out by reading
            piece = b'{"questions": ["' + b"How much is owed? " * 4000 + b'"]}\n'
            for _ in range(19 * 1024 * 1024 // len(piece)):
                handler.wfile.write(piece)
        elif self.fault == "dripping":
            body = b'{"id": "drip", "object": "chat.completion", "choices": []}'
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            for byte in body:
                if self.stopping.wait(self.drip_seconds):
                    return
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()

    def __enter__(self) -> FaultyEndpoint:
        if self.fault != "refused":
            threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        if self.fault != "refused":
            self.server.shutdown()
            self.server.server_close()

    def config(self, timeout: float = 2.0, retries: int = 1, cooldown: float = 60.0) -> LLMSettings:
        return LLMSettings("test-key", f"http://127.0.0.1:{self.port}/v1", "stub-model", timeout, retries, cooldown)
