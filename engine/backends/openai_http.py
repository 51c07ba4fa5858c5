"""OpenAIChat's requests (openai_compat.py): sending, retrying, the event stream, the errors."""

from __future__ import annotations

import http.client
import json
import re
import socket
import ssl
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from engine.api_keys import API_KEY_ENV
from engine.errors import ServerError, ServerNotAnsweringError

_RETRY_STATUS = {429, 500, 502, 503, 504}
_MAX_WAIT = 10.0  # seconds: the longest single back-off, whatever Retry-After says
_MAX_BODY = 65_536  # bytes of an error body we read


class HTTPError(Exception):
    def __init__(
        self, status: int, message: str, retry_after: float | None, context: int | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after
        self.context = context  # the context size the server named in its refusal, if any


class HTTPMixin:
    """Methods expect to run inside OpenAIChat (openai_compat.py: self.base_url, self.usage)."""

    # -- HTTP ------------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: dict | None) -> dict:
        """One request with a JSON answer (retried like `_open`)."""
        connection, response = self._open(method, path, body)
        try:
            raw = response.read()
        except TimeoutError:
            raise ServerNotAnsweringError(self._timeout_text()) from None
        except (OSError, http.client.HTTPException) as exc:
            raise ServerNotAnsweringError(self._broken_text()) from exc
        finally:
            connection.close()
        try:
            value = json.loads(raw or b"{}")
        except ValueError:
            raise ServerError(
                f"The server at {self.base_url} did not answer with JSON: is this an "
                "OpenAI-compatible URL?"
            ) from None
        return value if isinstance(value, dict) else {}

    def _open(
        self, method: str, path: str, body: dict | None
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send a request; retry connection failures, 429 and 5xx with back-off (bounded)."""
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                return self._send(method, path, body)
            except HTTPError as exc:
                if exc.status not in _RETRY_STATUS or last or rejects_format(exc):
                    raise
                wait = exc.retry_after if exc.retry_after is not None else self._delay(attempt)
            except TimeoutError:
                raise ServerNotAnsweringError(self._timeout_text()) from None
            except (OSError, http.client.HTTPException) as exc:
                if last:
                    raise ServerNotAnsweringError(self._unreachable_text(exc)) from None
                wait = self._delay(attempt)
            time.sleep(min(wait, _MAX_WAIT))
        raise AssertionError("unreachable")

    def _delay(self, attempt: int) -> float:
        return self.backoff * (2**attempt)

    def _send(
        self, method: str, path: str, body: dict | None
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        parts = urlsplit(self.base_url)
        if parts.scheme == "https":
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                parts.netloc, timeout=self.connect_timeout, context=ssl.create_default_context()
            )
        else:
            connection = http.client.HTTPConnection(parts.netloc, timeout=self.connect_timeout)
        headers = {"Accept": "application/json, text/event-stream", "User-Agent": "MemoryOS"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        try:
            try:
                connection.connect()
            except TimeoutError:
                raise ConnectionError(f"no answer within {self.connect_timeout:g} s") from None
            connection.sock.settimeout(self.timeout)  # from now on: the wait between chunks
            connection.request(method, parts.path + path, body=data, headers=headers)
            response = connection.getresponse()
        except BaseException:
            connection.close()
            raise
        if response.status >= 400:
            try:
                raw = response.read(_MAX_BODY)
            except (OSError, http.client.HTTPException):
                raw = b""
            finally:
                connection.close()
            raise HTTPError(
                response.status,
                self._scrub(_error_text(raw)),
                _retry_after(response),
                _server_context(raw),
            )
        return connection, response

    # -- messages --------------------------------------------------------------------------

    def _error(self, exc: HTTPError) -> ServerError:
        url, status, detail = self.base_url, exc.status, exc.message
        # A terminal has no model settings: it takes the key the app saved in the keyring, else
        # the one in $MEMORYOS_API_KEY.
        saved = "the app's Settings (where this computer has a keyring)"
        if status in (401, 403) and not self._api_key:
            return ServerError(
                f"The server at {url} needs an API key (HTTP {status})",
                fix="set it in the model settings.",
                terminal_fix=f"set {API_KEY_ENV} to the server's key, or save it in {saved}.",
            )
        if status in (401, 403):
            return ServerError(
                f"The server at {url} refused the API key (HTTP {status})",
                fix="check the key in the model settings.",
                terminal_fix=f"check the key saved in {saved}, else the one in {API_KEY_ENV}.",
            )
        lowered = detail.lower()
        unknown_model = "model" in lowered and (
            status == 404 or "not found" in lowered or "does not exist" in lowered
        )
        if status in (400, 404) and unknown_model:
            known = ", ".join(self.available_models[:8])
            offer = f" It offers: {known}." if known else ""
            return ServerError(f"The server at {url} has no model '{self.model}'.{offer}")
        if status == 404:
            return ServerError(
                f"Nothing found at {url}/chat/completions (HTTP 404): check the server URL "
                "(it usually ends in /v1)."
            )
        if status == 429:
            return ServerError(
                f"The server at {url} is rate-limiting requests (HTTP 429), still after "
                f"{self.retries} retries: wait a little and try again."
            )
        if _context_exceeded(detail):
            return ServerError(
                f"The server at {url} refused the prompt as longer than its context "
                f"(HTTP {status}): {detail.rstrip('.')}. "
                f"{self._context_advice(exc.context, said=True)}"
            )
        if status >= 500:
            return ServerError(f"The server at {url} failed (HTTP {status}): {detail}")
        return ServerError(f"The server at {url} refused the request (HTTP {status}): {detail}")

    def _unreachable_text(self, exc: BaseException) -> str:
        reason = "connection refused" if isinstance(exc, ConnectionRefusedError) else str(exc)
        if isinstance(exc, socket.gaierror):
            reason = "unknown host name"
        return f"Cannot reach the server at {self.base_url} ({reason}): is it running?"

    def _timeout_text(self) -> str:
        return (
            f"The server at {self.base_url} sent nothing for {self.timeout:g} s: it may be "
            "overloaded or stuck. Try again, or raise the timeout."
        )

    def _broken_text(self, wrote: bool = True) -> str:
        if not wrote:  # a server stopped or killed after its reply's headers
            return (
                f"The connection to {self.base_url} broke before the answer began: the server "
                "may have stopped. Check that it is running, then send the message again."
            )
        return f"The connection to {self.base_url} broke in the middle of the answer."

    def _ended_text(self) -> str:
        """The server ended the stream properly, with no word and no reason in it."""
        text = f"The server at {self.base_url} ended the answer without writing anything."
        if self._may_overflow():  # some servers say so only in their log
            return f"{text} {self._context_advice(None, said=False)}"
        return f"{text} Its log may say why; send the message again to retry."

    def _stream_error(self, body: bytes | dict, whole: bool = False) -> ServerError:
        """An error the server sent inside the stream, or as its whole answer (`whole`)."""
        detail = self._scrub(_error_text(body))
        if _context_exceeded(detail):
            advice = self._context_advice(_server_context(body), said=True)
            return ServerError(
                f"The server at {self.base_url} refused the prompt as longer than its "
                f"context: {detail.rstrip('.')}. {advice}"
            )
        when = "" if whole else " mid-answer"
        return ServerError(f"The server at {self.base_url} failed{when}: {detail}")

    def _may_overflow(self) -> bool:
        """The prompt could be over the server's context: it fills half the context size set
        here or more (a server started with a smaller one than set here fails on such prompts;
        a prompt of 226 tokens of 8,192 was not the cause, and the advice misled)."""
        return self.usage.last_prompt_tokens * 2 >= self.context_window

    def _context_advice(self, limit: int | None, said: bool) -> str:
        if limit:  # our estimate of the prompt is left out: the server counted it itself
            return (
                f"The server's context is {limit:,} tokens: set the context size in the model "
                f"settings to {limit:,}, or start the server with a larger context."
            )
        prompt = f"This prompt was about {self.usage.last_prompt_tokens:,} tokens"
        lead = "" if said else "If the server's log says the prompt is longer than its context, "
        what = "set" if lead else "Set"
        return (
            f"{prompt}, fitted to a context size of {self.context_window:,}. {lead}{what} the "
            "context size in the model settings to the server's, or start the server with a "
            "larger context."
        )

    def _scrub(self, text: str) -> str:
        if self._api_key and self._api_key in text:
            text = text.replace(self._api_key, "***")
        return text[:300]


def sse_events(response: http.client.HTTPResponse) -> Iterator[tuple[str, str]]:
    """The events of a server-sent event stream: ("data", payload), or ("error", payload) for
    an `error:` field (llama.cpp's server sends its failures so) or an `event: error`. A body
    that is one JSON object is one ("whole", body): some servers ignore "stream": true and
    answer as to a request without it (a line of an event stream never begins with "{")."""
    data: list[str] = []
    kind = "data"
    lines = _lines(response)
    began = False
    for raw in lines:
        line = raw.decode("utf-8", errors="replace").removesuffix("\n").rstrip("\r")
        if not began and line.strip():
            began = True
            if line.lstrip().startswith("{"):
                yield "whole", b"".join([raw, *lines]).decode("utf-8", errors="replace")
                return
        if not line:
            if data:
                yield kind, "\n".join(data)
            data, kind = [], "data"
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
        elif line.startswith("error:"):
            data.append(line[6:].lstrip(" "))
            kind = "error"
        elif line.startswith("event:") and line[6:].strip() == "error":
            kind = "error"
        # other fields ("id:", ": ping" comments) carry nothing we use
    if data:
        yield kind, "\n".join(data)


def _lines(response: http.client.HTTPResponse) -> Iterator[bytes]:
    """The body's lines, each with its newline (joined, they are the body as sent). read1, not
    readline: readline takes a chunked body cut off without its last chunk for a whole one,
    where read1 raises IncompleteRead (a broken connection)."""
    pending = b""
    while True:
        block = response.read1(_MAX_BODY)
        if not block:
            if response.length:  # fewer bytes than its Content-Length promised
                raise http.client.IncompleteRead(pending, response.length)
            if pending:
                yield pending
            return
        *lines, pending = (pending + block).split(b"\n")
        yield from (line + b"\n" for line in lines)
        if len(pending) > _MAX_BODY:  # no event of ours is this long: pass it on in parts
            yield pending
            pending = b""


def framed(response: http.client.HTTPResponse) -> bool:
    """The body's end is marked (chunked, or Content-Length), not just the socket closing."""
    return bool(response.chunked) or response.length is not None


def _error_text(raw: bytes | dict) -> str:
    """The human part of an error body: {"error": {"message": ...}}, {"detail": ...}, text."""
    value: Any = raw
    if isinstance(raw, bytes):
        try:
            value = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            return raw.decode("utf-8", errors="replace").strip()[:300] or "no details"
    if isinstance(value, dict):
        error = value.get("error", value.get("detail", value.get("message")))
        if isinstance(error, dict):
            error = error.get("message") or error.get("msg") or json.dumps(error)
        if isinstance(error, list) and error:
            error = "; ".join(
                str(item.get("msg", item)) for item in error if isinstance(item, dict)
            )
        return str(error or value)[:300]
    return str(value)[:300]


def rejects_format(exc: HTTPError) -> bool:
    """The server refused our response_format (some answer 500 to a request they cannot parse);
    a prompt over its context is refused whatever the format."""
    if _context_exceeded(exc.message):
        return False
    return exc.status in (400, 422) or "response_format" in exc.message


def _context_exceeded(detail: str) -> bool:
    """The server's error says the prompt is longer than its context (llama.cpp: "the request
    exceeds the available context size"; OpenAI and vLLM: "maximum context length is N")."""
    lowered = detail.lower()
    if "context" not in lowered:
        return False
    words = ("exceed", "maximum context", "too long", "too large", "larger than", "longer than",
             "overflow", "context length of only")  # fmt: skip
    return any(word in lowered for word in words)


def _server_context(raw: bytes | dict) -> int | None:
    """The context size a server names in an error body (llama.cpp sends n_ctx), if any."""
    value: Any = raw
    if isinstance(raw, bytes):
        try:
            value = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            value = raw.decode("utf-8", errors="replace")
    if isinstance(value, dict):
        inner = value.get("error")
        for where in (inner if isinstance(inner, dict) else {}, value):
            size = where.get("n_ctx")
            if isinstance(size, int) and not isinstance(size, bool) and size > 0:
                return size
        value = json.dumps(value)
    found = re.search(r"(?:maximum context length is|context length of only) (\d[\d,]*)", value)
    return int(found.group(1).replace(",", "")) if found else None


def _retry_after(response: http.client.HTTPResponse) -> float | None:
    value = response.getheader("Retry-After")
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None
