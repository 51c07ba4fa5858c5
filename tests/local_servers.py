"""Real HTTP servers on 127.0.0.1 for tests: a Hugging-Face-like file host and an OpenAI-like API."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing: a test's output stays its own."""

    def log_message(self, *args: object) -> None:
        pass


class LocalServer:
    """A real HTTP server on 127.0.0.1 (`port`, 0: a free one) answering with `handler` on a
    thread of its own while in a `with` block. Leaving the block sets `release` first, so a
    request held on it ends before the server stops."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], port: int = 0) -> None:
        self.release = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.endpoint}/v1"  # the base URL of an OpenAI-like API served here
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class FileHost(LocalServer):
    """Serves one file like the hub: /<repo>/resolve/main/<name> redirects (302) to /cdn/<name>
    with X-Linked-Etag (SHA-256) and X-Linked-Size; /cdn/ honours Range. `drop_after` makes the
    next GET close the connection after that many bytes (a forced interruption)."""

    def __init__(self, file: Path, repo: str = "org/model-GGUF", sha256: str | None = None) -> None:
        self.file = Path(file)
        self.repo = repo
        self.size = self.file.stat().st_size
        self.sha256 = sha256 or _sha256(self.file)
        self.drop_after: int | None = None
        self.honour_range = True  # False: a server that always sends the whole file
        self.block_delay = 0.0  # seconds between 1 MiB blocks: a slow link, so people can click
        self.refuse: int | None = None  # an HTTP status every request gets (403: a gated model)
        self.ranges: list[str | None] = []  # the Range header of each GET of the file
        host = self

        class Handler(QuietHandler):
            def do_HEAD(self) -> None:  # noqa: N802
                host._answer(self, body=False)

            def do_GET(self) -> None:  # noqa: N802
                host._answer(self, body=True)

        super().__init__(Handler)

    def _answer(self, handler: BaseHTTPRequestHandler, body: bool) -> None:
        name = self.file.name
        if self.refuse is not None:
            handler.send_error(self.refuse)
            return
        if handler.path == f"/{self.repo}/resolve/main/{name}":
            handler.send_response(302)
            handler.send_header("Location", f"/cdn/{name}")
            handler.send_header("X-Linked-Etag", f'"{self.sha256}"')
            handler.send_header("X-Linked-Size", str(self.size))
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        if handler.path != f"/cdn/{name}":
            handler.send_error(404)
            return
        start = 0
        wanted = handler.headers.get("Range")
        if body:
            self.ranges.append(wanted)
        if wanted and wanted.startswith("bytes=") and self.honour_range:
            start = int(wanted[6:].split("-")[0])
            if start >= self.size:
                handler.send_error(416)
                return
            handler.send_response(206)
            handler.send_header("Content-Range", f"bytes {start}-{self.size - 1}/{self.size}")
        else:
            handler.send_response(200)
        handler.send_header("Content-Length", str(self.size - start))
        handler.send_header("Accept-Ranges", "bytes")
        handler.end_headers()
        if not body:
            return
        limit, self.drop_after = self.drop_after, None
        sent = 0
        with open(self.file, "rb") as data:
            data.seek(start)
            while block := data.read(1 << 20):
                if limit is not None and sent + len(block) > limit:
                    handler.wfile.write(block[: limit - sent])
                    handler.wfile.flush()
                    handler.close_connection = True
                    handler.connection.shutdown(2)  # the interruption: mid-file, no warning
                    return
                try:
                    handler.wfile.write(block)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client paused or cancelled
                sent += len(block)
                if self.block_delay:
                    time.sleep(self.block_delay)


class ChatServer(LocalServer):
    """A minimal OpenAI-compatible server: /v1/models and a streaming /v1/chat/completions.

    `formats`: the response_format types it accepts (None: any). A request with another type
    is answered as llama-cpp-python's server (0.3.x) answers it: HTTP 500 with its validation
    error as the message (llama_cpp/server/errors.py wraps the request's validation error).
    `api_key`: every request without "Authorization: Bearer <api_key>" gets HTTP 401, as a
    cloud API answers (`refused` counts them)."""

    def __init__(
        self, models: list[str], reply: list[str], port: int = 0,
        formats: tuple[str, ...] | None = None, finish_reason: str | None = "stop",
        api_key: str | None = None,
    ) -> None:  # fmt: skip
        self.models = models
        self.api_key = api_key
        self.refused = 0
        self.reply = reply
        self.finish_reason = finish_reason  # "length": the reply reached max_tokens
        self.formats = formats
        self.requests: list[dict] = []
        host = self

        class Handler(QuietHandler):
            def _refused(self) -> bool:
                wanted = f"Bearer {host.api_key}"
                if host.api_key is None or self.headers.get("Authorization") == wanted:
                    return False
                host.refused += 1
                send_json(self, {"error": {"message": "Incorrect API key provided",
                                           "type": "invalid_request_error"}}, status=401)
                return True

            def do_GET(self) -> None:  # noqa: N802
                if self._refused():
                    return
                if self.path != "/v1/models":
                    self.send_error(404)
                    return
                data = {
                    "object": "list",
                    "data": [{"id": m, "object": "model"} for m in host.models],
                }
                send_json(self, data)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                if self._refused():
                    return
                host.requests.append(request)
                if self.path != "/v1/chat/completions":
                    self.send_error(404)
                    return
                kind = (request.get("response_format") or {}).get("type")
                if host.formats is not None and kind is not None and kind not in host.formats:
                    send_json(self, _llama_cpp_format_error(kind, host.formats), status=500)
                    return
                if not request.get("stream"):
                    text = "".join(host.reply)
                    send_json(
                        self,
                        {
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                        },
                    )
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for piece in host.reply:
                    chunk = {
                        "choices": [
                            {"index": 0, "delta": {"content": piece}, "finish_reason": None}
                        ]
                    }
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                if host.finish_reason is None:  # closed unfinished, as llama.cpp's server
                    return  # does on a prompt over its context (it logs the reason only)
                end = {"choices": [{"index": 0, "delta": {}, "finish_reason": host.finish_reason}]}
                self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
                self.wfile.flush()

        super().__init__(Handler, port)


def _llama_cpp_format_error(kind: str, formats: tuple[str, ...]) -> dict:
    """The body llama_cpp.server 0.3.x sends for a response_format type it does not take
    (copied from its answer to {"type": "json_schema"}, which accepts 'text' or 'json_object')."""
    expected = " or ".join(f"'{name}'" for name in formats)
    detail = {
        "type": "literal_error", "loc": ("body", "response_format", "type"),
        "msg": f"Input should be {expected}", "input": kind, "ctx": {"expected": expected},
    }  # fmt: skip
    message = (
        f"1 validation error:\n  {detail}\n\n  File \"/usr/lib/python3/site-packages/llama_cpp/"
        'server/app.py", line 376, in create_chat_completion\n    POST /v1/chat/completions'
    )
    return {
        "error": {"message": message, "type": "internal_server_error", "param": None, "code": None}
    }


def send_json(handler: BaseHTTPRequestHandler, data: object, status: int = 200) -> None:
    """Answer the request `handler` holds with `data` as JSON and HTTP `status`."""
    body = json.dumps(data).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as data:
        while block := data.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()
