"""A local OpenAI-compatible chat endpoint for tests: the real `openai` client talks to it over 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from query_understanding.llm import LLMConfig

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
    def config(self) -> LLMConfig:
        port = self.server.server_address[1]
        environ = {"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "PASSENGER_LLM_MODEL": "stub-model"}
        return LLMConfig.from_env({**environ, "PASSENGER_LLM_RETRIES": "0", "PASSENGER_LLM_TIMEOUT": "10"})
