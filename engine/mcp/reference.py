"""`memoryos mcp --compat reference`: exactly the reference MemoryOS-MCP's three tools and results.

Names, argument names, defaults and result keys follow BAI-LAB/MemoryOS `memoryos-mcp/server_new.py`:
every result has a `status`; failures are `{"status": "error", "message": ...}`. Unlike the
reference, an unknown argument is an error too (same shape), texts are limited as in our own
tools (engine.mcp.tools), and the data is our encrypted vault. A result that would be too large
for a client to read (engine.mcp.fit: half the SDK client's 1 MiB) has its long texts shortened,
each entry saying so under "shortened" with its full length; a result that fits is the
reference's, whole. Every failure is an error result
(`isError` true): the reference returns its own failures as plain results and only argument
errors (FastMCP's) as errors, but its clients (its test_simple.py) read the status in the JSON
text either way, which is the same here, so a client can tell a failure without parsing it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from engine.compat import Memoryos, reference_time
from engine.errors import InvalidInputError
from engine.mcp.fit import TEXT_LIMITS, TooLarge, cut, fit
from engine.mcp.strict import Refused, StrictServer
from engine.mcp.tools import MAX_QUERY_CHARS, MAX_TEXT_CHARS

NOT_READY = "MemoryOS is not initialized. Please check the configuration file."
NO_PROFILE = "No detailed user profile"


def build_reference_server(memo: Memoryos) -> StrictServer:
    """An MCP server named "MemoryOS" with add_memory, retrieve_memory and get_user_profile."""
    server = StrictServer("MemoryOS", log_level="WARNING", status_errors=True)
    lock = threading.Lock()

    def guarded(
        prefix: str, fn: Callable[[], dict[str, Any]], *, embeds: bool = False
    ) -> dict[str, Any]:
        """Any failure is reported as the reference words it, as a status (StrictServer); a
        result too large for a client is shortened (fitted). A call that embeds waits for the
        embedding model to load without the lock, so get_user_profile is answered meanwhile."""
        try:
            if embeds:
                memo.memory.embedder.load()
            with lock:
                return fitted(fn())
        except Exception as exc:
            raise Refused(f"{prefix}: {exc}") from exc

    def profile_text() -> str:
        text = memo.get_user_profile_summary()
        return text if text and text.lower() != "none" else NO_PROFILE

    def add_memory(
        user_input: Annotated[str, Field(max_length=MAX_TEXT_CHARS)],
        agent_response: Annotated[str, Field(max_length=MAX_TEXT_CHARS)],
        timestamp: str | None = None,
        meta_data: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Add new memory to the MemoryOS system (a user input and assistant response pair).

        Args: user_input (the user's input or question), agent_response (the assistant's
        answer), timestamp (optional, e.g. "2025-05-01 12:00:00"; ISO 8601 and "1:56 pm on
        8 May, 2023" work too; default now), meta_data (optional JSON object kept with it).
        """
        if not user_input or not agent_response:
            raise Refused("user_input and agent_response are required")

        def add() -> dict[str, Any]:
            meta: dict[str, Any] = {"meta_data": meta_data} if meta_data else {}
            memo.memory.add_memory(
                user_input, agent_response, timestamp or None, meta, source="mcp"
            )
            return {
                "status": "success",
                "message": "Memory has been successfully added to MemoryOS",
                "timestamp": timestamp or reference_time(time.time()),
                "details": {
                    "user_input_length": len(user_input),
                    "agent_response_length": len(agent_response),
                    "has_meta_data": meta_data is not None,
                },
            }

        return guarded("Error adding memory", add, embeds=True)

    def retrieve_memory(
        query: Annotated[str, Field(max_length=MAX_QUERY_CHARS)],
        relationship_with_user: str = "friend",
        style_hint: str = "",
        max_results: int = 10,
    ) -> dict[str, Any]:
        """Retrieve related memories and context from MemoryOS for a query: the short-term
        memory, relevant mid-term pages, user knowledge and assistant knowledge, and the
        user profile. relationship_with_user and style_hint are accepted as in the reference
        (they shape answers, not retrieval); max_results caps each list.
        """
        if not query:
            raise Refused("query parameter is required")

        def retrieve() -> dict[str, Any]:
            found = memo.retrieve_context(query)
            short = memo.short_term_entries()
            pages = found["retrieved_pages"]
            user = found["retrieved_user_knowledge"]
            assistant = found["retrieved_assistant_knowledge"]
            return {
                "status": "success",
                "query": query,
                "timestamp": reference_time(time.time()),
                "user_profile": profile_text(),
                "short_term_memory": short,
                "short_term_count": len(short),
                "retrieved_pages": pages[:max_results],
                "retrieved_user_knowledge": user[:max_results],
                "retrieved_assistant_knowledge": assistant[:max_results],
                "total_pages_found": len(pages),
                "total_user_knowledge_found": len(user),
                "total_assistant_knowledge_found": len(assistant),
            }

        return guarded("Error retrieving memory", retrieve, embeds=True)

    def get_user_profile(
        include_knowledge: bool = True, include_assistant_knowledge: bool = False
    ) -> dict[str, Any]:
        """Get the user profile (personality traits, preferences) and, with include_knowledge,
        the user knowledge entries; with include_assistant_knowledge, the assistant's."""

        def read() -> dict[str, Any]:
            result: dict[str, Any] = {
                "status": "success",
                "timestamp": reference_time(time.time()),
                "user_id": memo.user_id,
                "assistant_id": memo.assistant_id,
                "user_profile": profile_text(),
            }
            if include_knowledge:
                knowledge = memo.user_knowledge()
                result["user_knowledge"] = knowledge
                result["user_knowledge_count"] = len(knowledge)
            if include_assistant_knowledge:
                knowledge = memo.get_assistant_knowledge_summary()
                result["assistant_knowledge"] = knowledge
                result["assistant_knowledge_count"] = len(knowledge)
            return result

        return guarded("Error getting user profile", read)

    for fn in (add_memory, retrieve_memory, get_user_profile):
        server.add_tool(fn, structured_output=True)
    return server


# The reference's result lists whose entries hold stored texts (pages, knowledge).
LISTS = (
    "short_term_memory",
    "retrieved_pages",
    "retrieved_user_knowledge",
    "retrieved_assistant_knowledge",
    "user_knowledge",
    "assistant_knowledge",
)


def fitted(result: dict[str, Any]) -> dict[str, Any]:
    """`result` whole when it fits a client's message (engine.mcp.fit.BUDGET). Else the texts
    of its entries and its profile, cut to the most characters that fit (TEXT_LIMITS), each
    entry cut saying so under "shortened" with its full length, as our own tools do (a
    200,000-character page had made every retrieve_memory that returned it unreadable over
    HTTP); with too many entries even then, the lists keep their first entries, and
    "shortened" at the top gives each list's full length. The counts stay the totals."""

    def build(limit: int | None, keep: int | None = None) -> dict[str, Any]:
        out = cut(dict(result), ("user_profile",) if "user_profile" in result else (), limit)
        for name in LISTS:
            if isinstance(result.get(name), list):
                out[name] = [_cut_entry(e, limit) for e in result[name][:keep]]
        return out

    try:
        return fit(build, (None, *TEXT_LIMITS))
    except TooLarge:
        pass
    lengths = {n: len(result[n]) for n in LISTS if isinstance(result.get(n), list)}
    keep = max(lengths.values(), default=0)
    while keep > 0:
        keep //= 2
        try:
            out = fit(lambda limit, k=keep: build(limit, k), TEXT_LIMITS[-1:])
        except TooLarge:
            continue
        out["shortened"] = {**out.get("shortened", {}),
                            **{n: size for n, size in lengths.items() if size > keep}}
        return out
    raise TooLarge


def _cut_entry(entry: Any, limit: int | None) -> Any:
    if isinstance(entry, dict):
        texts = tuple(k for k, v in entry.items() if isinstance(v, str))
        return cut(dict(entry), texts, limit)
    return entry


REQUIRED_KEYS = ("user_id", "openai_api_key", "data_storage_path")
OPTIONAL_KEYS = (
    "openai_base_url",
    "assistant_id",
    "short_term_capacity",
    "mid_term_capacity",
    "long_term_knowledge_capacity",
    "retrieval_queue_capacity",
    "mid_term_heat_threshold",
    "mid_term_similarity_threshold",
    "llm_model",
    "embedding_model_name",
    "embedding_model_kwargs",
)


def read_config(path: str | os.PathLike) -> dict[str, Any]:
    """The reference's config.json, checked: required keys present, no unknown key (a typo
    would otherwise silently fall back to a default). A relative data_storage_path is taken
    from the config file's folder, so the vault does not depend on the client's working folder."""
    path = Path(path).expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInputError(f"cannot read the config file {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise InvalidInputError(f"the config file {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"the config file {path} must hold a JSON object")
    missing = [key for key in REQUIRED_KEYS if key not in data]
    if missing:
        raise InvalidInputError(f"the config file {path} lacks {', '.join(missing)}")
    unknown = sorted(set(data) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
    if unknown:
        raise InvalidInputError(
            f"the config file {path} has unknown keys {', '.join(unknown)}; known: "
            f"{', '.join(REQUIRED_KEYS + OPTIONAL_KEYS)}"
        )
    storage = Path(str(data["data_storage_path"])).expanduser()
    data["data_storage_path"] = str(storage if storage.is_absolute() else path.parent / storage)
    return data


def open_from_config(
    path: str | os.PathLike,
    *,
    chat: Any = None,
    embedder: Any = None,
    allow_plain_http: bool = False,
) -> Memoryos:
    """The Memoryos (and vault) a reference config.json describes; `chat` overrides its model;
    `allow_plain_http` (--allow-plain-http) lets its openai_base_url be plain http:// to
    another computer."""
    config = read_config(path)
    return Memoryos(**config, chat=chat, embedder=embedder, allow_plain_http=allow_plain_http)
