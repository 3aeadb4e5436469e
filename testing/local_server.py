"""Real HTTP on 127.0.0.1, for tests and for `python -m eval reliability`: one server that answers every GET
and POST with a function, so the crawler's test site and the language-model stubs differ only in what they say."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

Respond = Callable[[BaseHTTPRequestHandler], None]


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def send(request: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str, **headers: str) -> None:
    """A whole answer with its length announced, and any extra `headers` (Location=...)."""
    request.send_response(status)
    request.send_header("Content-Type", content_type)
    request.send_header("Content-Length", str(len(body)))
    for name, value in headers.items():
        request.send_header(name, value)
    request.end_headers()
    request.wfile.write(body)


class LocalServer(ThreadingHTTPServer):
    """`respond(request)` answers each request, on a free port of 127.0.0.1, from a daemon thread while the
    server is open as a context manager. A client that hangs up first (a timeout, a fault scenario) is no error."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, respond: Respond):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    respond(self)

            do_POST = do_GET

            def log_message(self, *args) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> Self:
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()
