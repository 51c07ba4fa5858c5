"""Chat with any GGUF model through llama-cpp-python (CPU, or GPU offload when built for it)."""

from __future__ import annotations

import ctypes
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.backends.base import ChatBackend, Message, Progress
from engine.backends.fit import _cut_middle, fit_to_budget
from engine.errors import BackendError, ModelLoadError
from engine.gguf import GGUFInfo, info_from_header, kv_cache_bytes, read_header

# Below this size a model's extracted facts and summaries are not trusted (SmolLM2-135M writes
# fluent nonsense); ~1.5B models (Qwen2.5-1.5B has 1.54B parameters) are the smallest useful.
EXTRACTION_MIN_PARAMETERS = 1_400_000_000
# Grammar caps added where a schema sets none: a small model otherwise never closes a string
# or an array before max_tokens, which leaves truncated JSON.
MAX_STRING_CHARS = 300
MAX_ITEM_CHARS = 60
MAX_ARRAY_ITEMS = 12

# The llama.cpp log callback and the model-params hook are process-wide: one load at a time.
_LOAD_LOCK = threading.Lock()
_STRICT_CHAR = (
    r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] '
    r"[0-9a-fA-F] [0-9a-fA-F])"
)


REPEAT_PENALTY = 1.1
# Prompt speed before any answer measured it: tokens/s for a model of P parameters on one
# laptop CPU core is about 2e10 / P (SmolLM2-135M: ~130 tokens/s measured on these machines).
# The first answer measures the real speed and replaces the guess.
GUESSED_SPEED_PARAMETERS = 2e10
FEW_TOKENS = 8  # a prompt with this few new tokens times the fixed part of the first token
MANY_TOKENS = 32  # one with at least this many times the speed of prompt processing
# Reading slows as the prompt grows: each token attends to every token before it. A fresh
# prompt of n tokens takes about n / s x (1 + n / (2 H)): SmolLM2-135M on one core of a 2-core
# machine (no flash attention) read 256 tokens in 1.9 s, 1,024 in 9.7 s, 2,048 in 22.8 s and
# 3,936 in 57 s: s = 143 tokens/s, H = 1,800 tokens. H grows with a token's other work against
# its attention's: about ATTENTION_SCALE x parameters / (embedding length x layers).
ATTENTION_SCALE = 0.23
ATTENTION_TOKENS_UNKNOWN = 1800  # a model whose shape the file does not say: the smallest's
# More characters than a token of ordinary text ever averages (English ~4, code ~3): a message
# longer than the context in tokens times this is cut to that before fitting (fit_messages).
CHARS_PER_TOKEN_MOST = 8


def _average(old: float | None, new: float, weight: float = 0.3) -> float:
    return new if not old else (1 - weight) * old + weight * new


def _common_prefix(a: list[int], b: list[int]) -> int:
    same = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        same += 1
    return same


class LlamaChat(ChatBackend):
    """A GGUF model run in-process by llama.cpp. Loads lazily; one inference at a time."""

    def __init__(
        self,
        model_path: str | os.PathLike,
        *,
        n_gpu_layers: int = 0,
        n_ctx: int = 4096,
        n_threads: int = 0,
        model_id: str | None = None,
    ) -> None:
        path = Path(model_path).expanduser()
        super().__init__(model_id=model_id or path.stem, context_window=max(64, n_ctx))
        self.model_path = path
        self.n_gpu_layers = n_gpu_layers
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.info: GGUFInfo | None = None
        self._metadata: dict[str, Any] = {}
        self._llama: Any = None
        self._formatter: Any = None
        self._grammars: dict[str, Any] = {}
        self._load_lock = threading.Lock()
        # What time to first token costs (engine.prompt_memories.memory_budget reads these).
        self.prompt_tokens_per_second: float | None = None
        self.first_token_seconds = 0.05
        self.last_new_tokens = 0  # prompt tokens the last answer processed (not from the cache)
        self._cached_tokens = 0  # those the last answer found in the cache
        # Tokens/s at a prompt's start (reading_seconds): measured speeds with the slowdown of
        # their prompts' length taken out (prompt_tokens_per_second keeps it, as measured).
        self._reading_speed: float | None = None
        self._prefix_formatter: Any = None
        self._warming: threading.Thread | None = None
        try:
            self._read_info()
        except ModelLoadError:
            pass  # load() reads the file again and raises, where the caller expects errors

    # -- loading ---------------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        return self._llama is not None

    def _read_info(self) -> None:
        metadata, parameters = read_header(self.model_path)
        self.info = info_from_header(self.model_path, metadata, parameters)
        self._metadata = metadata
        if self.info.context_length:
            # Past its training context a model degrades into noise: never go beyond it.
            self.context_window = max(64, min(self.n_ctx, self.info.context_length))
        self.extraction_capable = self.info.parameters >= EXTRACTION_MIN_PARAMETERS
        if self.info.parameters and self.prompt_tokens_per_second is None:
            self.prompt_tokens_per_second = GUESSED_SPEED_PARAMETERS / self.info.parameters

    def load(self, progress: Progress | None = None) -> None:
        with self._load_lock:
            if self._llama is not None:
                return
            report = progress or (lambda fraction, label: None)
            report(0.0, "reading model file")
            self._read_info()  # raises ModelLoadError: missing, not a GGUF, damaged
            assert self.info is not None
            self._check_memory()
            try:
                import llama_cpp
            except ImportError as exc:
                raise ModelLoadError(
                    "llama-cpp-python is not installed: pip install llama-cpp-python"
                ) from exc
            report(0.05, "loading weights")
            with _LOAD_LOCK, _captured_log(llama_cpp) as log, _progress_hook(llama_cpp, report):
                try:
                    llama = llama_cpp.Llama(
                        str(self.model_path),
                        n_gpu_layers=self.n_gpu_layers,
                        n_ctx=self.context_window,
                        n_threads=self.n_threads or None,
                        n_threads_batch=self.n_threads or batch_threads(),
                        chat_format="chat_template.default" if self.info.chat_template else None,
                        verbose=False,
                    )
                except (ValueError, RuntimeError, OSError, MemoryError) as exc:
                    raise self._load_error("".join(log)) from exc
            self._formatter = _formatter(llama, self.info.chat_template)
            self._prefix_formatter = _formatter(
                llama, self.info.chat_template, add_generation_prompt=False
            )
            self._llama = llama
            report(1.0, "ready")

    def close(self) -> None:
        # Never free the weights under a running generation: wait for it (bounded).
        if not self._lock.acquire(timeout=60):
            return  # a stream was abandoned mid-way; the model is freed with this object
        try:
            with self._load_lock:
                if self._llama is not None:
                    self._llama.close()
                self._llama = None
                self._formatter = self._prefix_formatter = None
        finally:
            self._lock.release()

    def _check_memory(self) -> None:
        """Refuse early (instead of swapping the laptop to death) when it cannot fit in RAM."""
        assert self.info is not None
        total = physical_memory()
        if not total or self.n_gpu_layers:
            return
        needed = self.info.size_bytes + kv_cache_bytes(self._metadata, self.context_window)
        if needed > total:
            raise ModelLoadError(self._out_of_memory_text(needed))

    def _out_of_memory_text(self, needed: int | None = None) -> str:
        assert self.info is not None
        need = f" (needs about {needed / 2**30:.1f} GiB)" if needed else ""
        return (
            f"Not enough memory to load {self.model_path.name} with a {self.context_window}-token "
            f"context{need}: lower the context size or the GPU layers, or pick a smaller "
            "quantisation of the model."
        )

    def _load_error(self, log: str) -> ModelLoadError:
        assert self.info is not None
        if "unknown model architecture" in log:
            return ModelLoadError(
                f"{self.model_path.name}: this llama.cpp build does not support the model "
                f"architecture '{self.info.architecture}'. Update llama-cpp-python or pick "
                "another model."
            )
        if re.search(r"insufficient memory|failed to allocate|out of memory|unable to alloc", log):
            return ModelLoadError(self._out_of_memory_text())
        errors = [line.strip() for line in log.splitlines() if "error" in line.lower()]
        detail = errors[-1] if errors else "no details from llama.cpp"
        return ModelLoadError(f"llama.cpp could not load {self.model_path.name}: {detail}")

    # -- tokens and the context window ---------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        if self._llama is None:
            return super().count_tokens(text)
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def prompt_tokens(self, messages: list[Message]) -> int:
        """Tokens of the whole formatted prompt (chat template included)."""
        if self._llama is None or self._formatter is None:
            return sum(self.count_tokens(m.get("content") or "") + 8 for m in messages) + 4
        result = self._formatter(messages=messages)
        return len(
            self._llama.tokenize(
                result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
            )
        )

    def fit_messages(self, messages: list[Message], max_tokens: int) -> list[Message]:
        """Cut the middle of the prompt so prompt + max_tokens fits the context window.

        A message far longer than the window (a 356 KB paste) first loses its middle down to
        CHARS_PER_TOKEN_MOST characters a token: fitting counts the whole prompt's tokens some
        40 times, and with the whole paste in it that took 5.6 s before each answer (and 4 s
        more warming the next prompt) on a 2-core laptop. The result is the same: a message so
        cut that fitting then cut further would have been cut as far from the whole text; one
        that fitting left as it was is fitted again from the whole text."""
        budget = self.context_window - max_tokens
        most = budget * CHARS_PER_TOKEN_MOST
        clipped = [
            dict(message, content=_cut_middle(message["content"], most))
            if len(message.get("content") or "") > most else message
            for message in messages
        ]
        cut = [m["content"] for m, o in zip(clipped, messages, strict=True) if m is not o]
        if cut:
            fitted = fit_to_budget(clipped, budget, self.prompt_tokens)
            if not {m.get("content") for m in fitted} & set(cut):
                return fitted
        return fit_to_budget(messages, budget, self.prompt_tokens)

    def _prepare(self, messages: list[Message], max_tokens: int) -> tuple[list[Message], int]:
        max_tokens = max(1, min(max_tokens, self.context_window // 2))
        fitted = self.fit_messages(messages, max_tokens)
        prompt = self.prompt_tokens(fitted)
        self.usage.last_prompt_tokens = prompt
        self.usage.prompt_tokens += prompt
        self.usage.last_completion_tokens = 0
        return fitted, max(1, min(max_tokens, self.context_window - prompt))

    # -- generation ------------------------------------------------------------------------

    def _stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float
    ) -> Iterator[str]:
        fitted, max_tokens = self._prepare(messages, max_tokens)
        parts: list[str] = []
        new_tokens = self.last_new_tokens = self._uncached_tokens(fitted)
        started = time.perf_counter()
        try:
            # a mild repeat penalty: small models otherwise loop on one sentence
            chunks = self._llama.create_chat_completion(
                fitted,
                max_tokens=max_tokens,
                temperature=temperature,
                stream=True,
                repeat_penalty=REPEAT_PENALTY,
            )
            for chunk in chunks:
                reason = chunk["choices"][0].get("finish_reason")
                if reason:  # on the last chunk: "stop", or "length" when max_tokens cut it
                    self.last_finish_reason = reason
                text = chunk["choices"][0]["delta"].get("content")
                if text:
                    if not parts:
                        self._measured(new_tokens, time.perf_counter() - started)
                    parts.append(text)
                    yield text
        except (ValueError, RuntimeError) as exc:
            raise BackendError(f"llama.cpp failed while generating: {exc}") from exc
        finally:
            done = self.count_tokens("".join(parts)) if parts else 0
            self.usage.last_completion_tokens = done
            self.usage.completion_tokens += done

    # -- prompt speed (for the memory budget) and the prompt cache ---------------------------

    def _prompt_ids(self, messages: list[Message]) -> list[int]:
        result = self._formatter(messages=messages)
        return self._llama.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )

    def _uncached_tokens(self, messages: list[Message]) -> int:
        """Tokens of this prompt that llama.cpp must process: those after the longest common
        prefix with what it evaluated last (llama-cpp-python reuses that part of its cache)."""
        if self._formatter is None:
            return self.usage.last_prompt_tokens
        ids = self._prompt_ids(messages)
        same = _common_prefix(self._llama._input_ids.tolist(), ids)  # what its KV cache holds
        self._cached_tokens = same
        return max(1, len(ids) - same)

    def _attention_tokens(self) -> float:
        """H in the slowdown of long prompts (ATTENTION_SCALE), from the model's shape."""
        arch = self.info.architecture if self.info is not None else ""
        width = self._metadata.get(f"{arch}.embedding_length")
        layers = self._metadata.get(f"{arch}.block_count")
        if not (self.info and self.info.parameters and width and layers):
            return ATTENTION_TOKENS_UNKNOWN
        return ATTENTION_SCALE * self.info.parameters / (int(width) * int(layers))

    def _slowdown(self, cached: int, tokens: int) -> float:
        """How much slower than at a prompt's start `tokens` tokens after `cached` are read."""
        return 1 + (2 * cached + tokens) / (2 * self._attention_tokens())

    def reading_seconds(self, tokens: int, cached: int = 0) -> float:
        """About how long the model reads `tokens` new prompt tokens (after `cached` already in
        its cache) before its first word: from the speed measured on earlier answers (a guess
        from its size before any), slower the longer the prompt."""
        speed = self._reading_speed or self.prompt_tokens_per_second
        if not speed or tokens <= 0:
            return 0.0
        return self.first_token_seconds + tokens / speed * self._slowdown(cached, tokens)

    def _measured(self, new_tokens: int, seconds: float) -> None:
        """Learn the time to a first token: a fixed part (one decode step, sampling) and a part
        per new prompt token. Moving averages, so one slow moment does not set the budget."""
        if new_tokens <= FEW_TOKENS:
            self.first_token_seconds = _average(self.first_token_seconds, seconds)
        elif new_tokens >= MANY_TOKENS:
            prefill = max(seconds - self.first_token_seconds, 1e-3)
            self.prompt_tokens_per_second = _average(
                self.prompt_tokens_per_second, new_tokens / prefill
            )
            start = new_tokens * self._slowdown(self._cached_tokens, new_tokens) / prefill
            self._reading_speed = _average(self._reading_speed, start)

    def warm(self, messages: list[Message]) -> None:
        """Process `messages`, the start of the next prompt (instructions and the conversation
        so far), in a background thread while the person reads and types: the next answer then
        finds them in llama.cpp's cache and processes only its new text. Best effort: a
        generation that starts first simply waits for it (one inference at a time)."""
        if self._llama is None or self._formatter is None:
            return
        thread = threading.Thread(
            target=self._warm, args=(messages,), name="prompt-warm", daemon=True
        )
        self._warming = thread
        thread.start()

    def wait_warm(self, timeout: float | None = None) -> None:
        """Wait until the last `warm` finished (benchmarks time nothing else meanwhile)."""
        if self._warming is not None:
            self._warming.join(timeout)

    def _warm(self, messages: list[Message]) -> None:
        with self._lock:
            llama = self._llama
            if llama is None or self._formatter is None:
                return
            fitted = self.fit_messages(messages, 1)
            result = self._prefix_formatter(messages=fitted)
            ids = llama.tokenize(
                result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
            )
            same = _common_prefix(llama._input_ids.tolist(), ids)
            if same >= len(ids) or len(ids) >= self.context_window:
                return
            try:
                llama.n_tokens = same  # keep the part already cached, drop the rest
                llama.eval(ids[same:])
            except (ValueError, RuntimeError):
                llama.reset()  # a failed warm-up costs the cache, never an answer

    def _complete_json(self, messages: list[Message], schema: dict, *, max_tokens: int) -> str:
        fitted, max_tokens = self._prepare(messages, max_tokens)
        try:
            result = self._llama.create_chat_completion(
                fitted, max_tokens=max_tokens, temperature=0.0, grammar=self._grammar(schema)
            )
        except (ValueError, RuntimeError) as exc:
            raise BackendError(f"llama.cpp failed while generating: {exc}") from exc
        done = int(result.get("usage", {}).get("completion_tokens", 0))
        self.usage.last_completion_tokens = done
        self.usage.completion_tokens += done
        return result["choices"][0]["message"].get("content") or ""

    def _grammar(self, schema: dict) -> Any:
        """A llama.cpp grammar for `schema` (cached), with length caps and JSON-strict strings."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

            try:
                text = json_schema_to_gbnf(json.dumps(bounded_schema(schema)))
            except Exception:  # a schema feature the converter lacks: plain JSON grammar
                from llama_cpp.llama_grammar import JSON_GBNF

                text = JSON_GBNF
            text = re.sub(r"^char ::= .*$", lambda _: _STRICT_CHAR, text, flags=re.M)
            self._grammars[key] = LlamaGrammar.from_string(text)
        return self._grammars[key]


def bounded_schema(schema: Any, *, item: bool = False) -> Any:
    """A copy of `schema` with maxLength / maxItems caps wherever it sets none.

    Strings that are array items (keywords, tags) get a shorter cap than free text.
    """
    if isinstance(schema, list):
        return [bounded_schema(value) for value in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: bounded_schema(value, item=key == "items" and schema.get("type") == "array")
        for key, value in schema.items()
    }
    kind = out.get("type")
    if kind == "string" and not {"maxLength", "enum", "pattern", "const"} & out.keys():
        out["maxLength"] = MAX_ITEM_CHARS if item else MAX_STRING_CHARS
    if kind == "array" and "maxItems" not in out:
        out["maxItems"] = MAX_ARRAY_ITEMS
    return out


def batch_threads() -> int:
    """Threads for prompt processing when the person set none: all cores but one. The spare core
    keeps the window responsive, and on a busy 2-core machine one thread processed prompts 2-3x
    faster than two (SmolLM2-135M, 301 tokens: 101-130 against 31-57 tokens/s at load 3, 17-19
    against 8-10 at load 12): llama.cpp's threads wait for each other at every layer, so one
    thread delayed by another program holds up all of them."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) - 1)


def physical_memory() -> int:
    """Total RAM in bytes, 0 when unknown."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 0


def _formatter(llama: Any, template: str | None, add_generation_prompt: bool = True) -> Any:
    """The same Jinja2 formatter llama-cpp-python builds from the GGUF template, to count
    (without the assistant's opening: the start of a later prompt, to warm the cache)."""
    if not template:
        return None
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos_id, bos_id = llama.token_eos(), llama.token_bos()
    eos = llama._model.token_get_text(eos_id) if eos_id != -1 else ""
    bos = llama._model.token_get_text(bos_id) if bos_id != -1 else ""
    return Jinja2ChatFormatter(
        template=template,
        eos_token=eos,
        bos_token=bos,
        add_generation_prompt=add_generation_prompt,
    )


@contextmanager
def _captured_log(llama_cpp: Any) -> Iterator[list[str]]:
    """Collect llama.cpp's log lines (the only place it says *why* a load failed)."""
    lines: list[str] = []

    @llama_cpp.llama_log_callback
    def collect(level: int, text: bytes, user_data: Any) -> None:
        if len(lines) < 20_000:
            lines.append(text.decode("utf-8", errors="replace"))

    llama_cpp.llama_log_set(collect, ctypes.c_void_p(0))
    try:
        yield lines
    finally:
        from llama_cpp import _logger

        llama_cpp.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))


@contextmanager
def _progress_hook(llama_cpp: Any, report: Progress) -> Iterator[None]:
    """Route llama.cpp's load progress to `report`.

    `Llama` takes no progress callback, so its model parameters are given one by wrapping
    `llama_model_default_params` for the duration of the load (under _LOAD_LOCK).
    """
    low = getattr(llama_cpp, "llama_cpp", None)
    original = getattr(low, "llama_model_default_params", None)
    if original is None or not hasattr(low, "llama_progress_callback"):
        yield
        return

    @low.llama_progress_callback
    def on_progress(fraction: float, user_data: Any) -> bool:
        try:
            report(0.05 + 0.9 * float(fraction), "loading weights")
        except Exception:  # a progress bar must never abort a load
            pass
        return True

    def params() -> Any:
        value = original()
        value.progress_callback = on_progress
        return value

    low.llama_model_default_params = params
    try:
        yield
    finally:
        low.llama_model_default_params = original
