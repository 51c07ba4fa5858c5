"""Chat with any OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp, cloud APIs)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.backends.base import ChatBackend, Message, Progress
from engine.backends.fit import fit_to_budget
from engine.backends.openai_http import HTTPError, HTTPMixin, framed, rejects_format, sse_events
from engine.errors import ModelLoadError, ServerError, ServerNotAnsweringError
from engine.network import check_url, is_loopback, normalise_url
from engine.network import destination as _destination

# Structured-output request styles, most precise first; the first one a server accepts sticks.
_MODES = ("json_schema", "json_object_schema", "json_object", "plain")
# The style each server (base URL) was last seen to accept, for this run of the program: a
# backend made again for the same server (a new session, the model chosen again) does not
# send the styles it refused once more. A style refused later moves on down _MODES.
_SERVER_MODES: dict[str, str] = {}


# Sending requests and the messages of their failures are in openai_http.py.
class OpenAIChat(HTTPMixin, ChatBackend):
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
        except HTTPError as exc:
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
        except HTTPError as exc:
            if not (
                self._stream_usage and exc.status in (400, 422) and "stream_options" in exc.message
            ):
                raise self._error(exc) from None
            self._stream_usage = False  # an older server: count tokens ourselves
            body.pop("stream_options")
            try:
                connection, response = self._open("POST", "/chat/completions", body)
            except HTTPError as retry_exc:
                raise self._error(retry_exc) from None
        parts: list[str] = []
        usage: dict = {}
        estimated = 0  # a whole answer's completion tokens, for a server that does not count
        finished = False
        try:
            for kind, data in sse_events(response):
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
            if not finished and (parts or not framed(response)):
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
            except HTTPError as exc:
                if rejects_format(exc) and mode != modes[-1]:
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
