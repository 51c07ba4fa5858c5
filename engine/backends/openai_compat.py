"""Chat with any OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp, cloud APIs)."""

from __future__ import annotations

import http.client
import json
import re
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from engine.api_keys import API_KEY_ENV
from engine.backends.base import ChatBackend, Message, Progress
from engine.backends.fit import fit_to_budget
from engine.errors import ModelLoadError, ServerError, ServerNotAnsweringError
from engine.network import check_url, is_loopback, normalise_url
from engine.network import destination as _destination

_RETRY_STATUS = {429, 500, 502, 503, 504}
_MAX_WAIT = 10.0  # seconds: the longest single back-off, whatever Retry-After says
_MAX_BODY = 65_536  # bytes of an error body we read
# Structured-output request styles, most precise first; the first one a server accepts sticks.
_MODES = ("json_schema", "json_object_schema", "json_object", "plain")
# The style each server (base URL) was last seen to accept, for this run of the program: a
# backend made again for the same server (a new session, the model chosen again) does not
# send the styles it refused once more. A style refused later moves on down _MODES.
_SERVER_MODES: dict[str, str] = {}


class _HTTPError(Exception):
    def __init__(
        self, status: int, message: str, retry_after: float | None, context: int | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after
        self.context = context  # the context size the server named in its refusal, if any


class OpenAIChat(ChatBackend):
    """A model behind an OpenAI-compatible /v1/chat/completions endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 120.0,
        connect_timeout: float = 5.0,
        retries: int = 2,
        backoff: float = 0.5,
        context_window: int = 8192,
        extraction_capable: bool = True,
        model_id: str | None = None,
        allow_plain_http: bool = False,
    ) -> None:
        super().__init__(
            model_id=model_id or model,
            context_window=context_window,
            extraction_capable=extraction_capable,
        )
        self.base_url = normalise_url(base_url)
        check_url(self.base_url, allow_plain_http=allow_plain_http)
        self.model = model
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.retries = max(0, retries)
        self.backoff = backoff
        self.available_models: list[str] = []
        self.info = None  # the served GGUF's header, when the server names a file here
        self._api_key = api_key or None  # never logged, never in an error message
        self._checked = False
        self._stream_usage = True

    @property
    def remote(self) -> bool:
        """Not on this computer: what is sent here leaves the machine."""
        return not is_loopback(self.base_url)

    @property
    def destination(self) -> str:
        return _destination(self.base_url)

    @property
    def format_mode(self) -> str | None:
        """The structured-output style this server accepts (None until one was tried)."""
        return _SERVER_MODES.get(self.base_url)

    # -- checks ----------------------------------------------------------------------------

    def load(self, progress: Progress | None = None) -> None:
        """Check the server answers and accepts the key (GET /models); idempotent."""
        if self._checked:
            return
        report = progress or (lambda fraction, label: None)
        report(0.0, "contacting the server")
        try:
            listing = self._call("GET", "/models", None)
        except _HTTPError as exc:
            if exc.status in (401, 403):
                raise self._error(exc) from None
            listing = {}  # no model list here: the first chat request will tell
        self.available_models = [
            str(item.get("id")) for item in listing.get("data") or [] if isinstance(item, dict)
        ]
        self._judge_served_file()
        self._checked = True
        report(1.0, "ready")

    def _judge_served_file(self) -> None:
        """A server on this computer that names its model by a GGUF file's path (llama-cpp-
        python's server does, and serves its one model whatever name is asked) runs that file:
        trust it with background consolidation as LlamaChat trusts the same file, by its size.
        SmolLM2-135M behind such a server took about a minute per consolidation call, and its
        answers were cut off mid-object or named places the conversation never mentioned. The
        file's header is kept as `info`: a tiny model served so gets the same short prompt and
        answer cap as in process (it rambled to 214 tokens where the bundled one stops at 160)."""
        if self.remote:
            return
        from engine.backends.llama import EXTRACTION_MIN_PARAMETERS
        from engine.gguf import info_from_header, read_header

        served = self.available_models if len(self.available_models) == 1 else []
        for name in [self.model, *served]:
            if not name.lower().endswith(".gguf"):
                continue
            try:
                file = Path(name).expanduser()
                if not file.is_file():
                    continue
                metadata, parameters = read_header(file)
            except (ModelLoadError, OSError, ValueError, RuntimeError):
                return  # the server loaded it; what it is stays unknown
            self.info = info_from_header(file, metadata, parameters)
            self.extraction_capable = parameters >= EXTRACTION_MIN_PARAMETERS
            return

    def close(self) -> None:
        self._checked = False

    # -- generation ------------------------------------------------------------------------

    def _stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float
    ) -> Iterator[str]:
        fitted, max_tokens = self._prepare(messages, max_tokens)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": fitted,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": True,
        }
        if self._stream_usage:
            body["stream_options"] = {"include_usage": True}
        try:
            connection, response = self._open("POST", "/chat/completions", body)
        except _HTTPError as exc:
            if not (
                self._stream_usage and exc.status in (400, 422) and "stream_options" in exc.message
            ):
                raise self._error(exc) from None
            self._stream_usage = False  # an older server: count tokens ourselves
            body.pop("stream_options")
            try:
                connection, response = self._open("POST", "/chat/completions", body)
            except _HTTPError as retry_exc:
                raise self._error(retry_exc) from None
        parts: list[str] = []
        usage: dict = {}
        estimated = 0  # a whole answer's completion tokens, for a server that does not count
        finished = False
        try:
            for kind, data in _sse_events(response):
                if kind == "error":  # llama.cpp's server, e.g. on a prompt over its context
                    raise self._stream_error(data.encode("utf-8"))
                if data == "[DONE]":
                    finished = True
                    break
                event = json.loads(data)
                if isinstance(event.get("error"), dict | str):
                    raise self._stream_error(event, whole=kind == "whole")
                usage = event.get("usage") or usage
                for choice in event.get("choices") or []:
                    # "message": the whole answer of a server that ignored "stream": true. Its
                    # reasoning_content is left out as a streamed delta's is.
                    text = (choice.get("delta") or choice.get("message") or {}).get("content")
                    if text:
                        parts.append(text)
                        yield text
                    if choice.get("finish_reason"):  # "stop", or "length" when cut off
                        finished = True
                        self.last_finish_reason = str(choice["finish_reason"])
                if kind == "whole":  # the body was read to its end: nothing more will come
                    if not parts:
                        raise ServerError(self._ended_text())
                    finished = True
                    estimated = max(1, len("".join(parts)) // 4)  # as _complete_json does
            if not finished and (parts or not _framed(response)):
                # Without Content-Length or chunks, the end of the body is the socket closing:
                # a server stopped right after its headers reads so, as one that ended the
                # stream on purpose would. Without the stream's own end, it broke.
                raise ServerNotAnsweringError(self._broken_text(wrote=bool(parts)))
            if not finished:  # the body ended as its framing says, with no word in it
                raise ServerError(self._ended_text())
        except TimeoutError:
            raise ServerNotAnsweringError(self._timeout_text()) from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            # reset, a chunked body without its last chunk, fewer bytes than Content-Length
            raise ServerNotAnsweringError(self._broken_text(wrote=bool(parts))) from exc
        finally:
            response.close()  # a response that ends the connection holds its socket
            connection.close()
            self._record(usage, estimated or len(parts))  # streamed: a chunk is about a token

    def _complete_json(self, messages: list[Message], schema: dict, *, max_tokens: int) -> str:
        fitted, max_tokens = self._prepare(messages, max_tokens)
        modes = _MODES[_MODES.index(self.format_mode or _MODES[0]) :]
        for mode in modes:
            body: dict[str, Any] = {
                "model": self.model,
                "messages": fitted if mode == "json_schema" else _with_schema_hint(fitted, schema),
                "max_tokens": max_tokens,
                "temperature": 0.0,
            }
            if mode == "json_schema":
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": schema},
                }
            elif mode == "json_object_schema":
                body["response_format"] = {"type": "json_object", "schema": schema}
            elif mode == "json_object":
                body["response_format"] = {"type": "json_object"}
            try:
                result = self._call("POST", "/chat/completions", body)
            except _HTTPError as exc:
                if _rejects_format(exc) and mode != modes[-1]:
                    # this server does not take that response_format: the next style, now and
                    # from the next call on (even if this one fails for another reason)
                    _SERVER_MODES[self.base_url] = _MODES[_MODES.index(mode) + 1]
                    continue
                raise self._error(exc) from None
            _SERVER_MODES[self.base_url] = mode
            choices = result.get("choices") or [{}]
            text = str((choices[0].get("message") or {}).get("content") or "")
            self._record(result.get("usage") or {}, max(1, len(text) // 4) if text else 0)
            return text
        return ""

    def _record(self, usage: dict, estimated_completion: int) -> None:
        """Use the server's token counts when it sends them, else our estimates."""
        prompt = int(usage.get("prompt_tokens") or 0)
        if prompt:  # replace the estimate _prepare() recorded
            self.usage.prompt_tokens += prompt - self.usage.last_prompt_tokens
            self.usage.last_prompt_tokens = prompt
        done = int(usage.get("completion_tokens") or estimated_completion)
        self.usage.last_completion_tokens = done
        self.usage.completion_tokens += done

    def _prepare(self, messages: list[Message], max_tokens: int) -> tuple[list[Message], int]:
        max_tokens = max(1, min(max_tokens, self.context_window // 2))
        fitted = fit_to_budget(messages, self.context_window - max_tokens, _estimate)
        prompt = _estimate(fitted)
        self.usage.last_prompt_tokens = prompt
        self.usage.prompt_tokens += prompt
        self.usage.last_completion_tokens = 0
        return fitted, max_tokens

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
            except _HTTPError as exc:
                if exc.status not in _RETRY_STATUS or last or _rejects_format(exc):
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
            raise _HTTPError(
                response.status,
                self._scrub(_error_text(raw)),
                _retry_after(response),
                _server_context(raw),
            )
        return connection, response

    # -- messages --------------------------------------------------------------------------

    def _error(self, exc: _HTTPError) -> ServerError:
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


def _sse_events(response: http.client.HTTPResponse) -> Iterator[tuple[str, str]]:
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


def _framed(response: http.client.HTTPResponse) -> bool:
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


def _rejects_format(exc: _HTTPError) -> bool:
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


def _with_schema_hint(messages: list[Message], schema: dict) -> list[Message]:
    """Tell the model the schema in words (JSON mode needs the word JSON in the prompt)."""
    hint = "Answer with only one JSON object matching this JSON schema:\n" + json.dumps(schema)
    out = [dict(message) for message in messages]
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{out[0].get('content') or ''}\n\n{hint}".strip()
    else:
        out.insert(0, {"role": "system", "content": hint})
    return out


def _estimate(messages: list[Message]) -> int:
    """Prompt tokens without the server's tokenizer: a generous 3 characters a token."""
    return sum(len(message.get("content") or "") // 3 + 6 for message in messages) + 3
