"""The MCP tools: one vault's memory exposed to other agents, with JSON results and clear errors."""

import inspect
import json
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from engine.errors import MemoryOSError, NotFoundError
from engine.mcp.convert import (
    fact_ref,
    memory_used_json,
    page_json,
    retrieved_page_json,
    scored_fact_json,
    slot_json,
    slot_ref,
)
from engine.mcp.external_ids import add_once, differs, given_ids
from engine.mcp.fit import PREVIEW_CHARS, TooLarge, fit
from engine.mcp.out_of_date import replacements
from engine.mcp.strict import Refused, StrictServer
from engine.mcp.warm import EmbedderLoad
from engine.mcp.wording import GENERAL, Advice, for_agents
from engine.records import Page
from engine.validation import MAX_META_BYTES

# Limits on what a caller may send: generous for real use, small enough to refuse a runaway.
MAX_TEXT_CHARS = 1_000_000
MAX_QUERY_CHARS = 10_000
MAX_RESULTS = 100
PAGE_PART_CHARS = 100_000  # get_page: characters of each text per call unless told

Text = Annotated[str, Field(max_length=MAX_TEXT_CHARS)]
Id = Annotated[int, Field(ge=1, description="An id returned by another tool.")]
TOO_LARGE = "the result would be too large to send: ask for fewer"

INSTRUCTIONS = """\
Long-term memory of one person (a MemoryOS vault), shared with their desktop assistant.
Call retrieve_memory before answering anything that may depend on what the person said or
did before; call add_memory after each exchange worth remembering (no model runs on the
write path; summaries, topics and facts are consolidated in the background). Everything
you read or write stays in the person's encrypted vault."""

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DELETE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

T = TypeVar("T")


def build_server(
    memory: Any,
    *,
    session_conversation: str | None = None,
    model_problem: Callable[[], str | None] = lambda: None,
    advice: Callable[[], Advice] = lambda: GENERAL,
    embedder_load: EmbedderLoad | None = None,
) -> MCPServer:
    """An MCPServer whose tools read and write `memory` (an open engine.api.MemoryOS);
    memory_status says `model_problem()`: why the chat model cannot be used, and what to do.
    Engine messages written for the desktop app ("in the model settings") reach a client with
    `advice()` in the place of the app's directions (engine.mcp.wording). memory_status says
    how far `embedder_load` (started by the caller) has got; without it, the embedding model
    loads at the first call that embeds."""
    embedder_load = embedder_load or EmbedderLoad(memory.embedder)
    server = StrictServer(
        "memoryos", instructions=INSTRUCTIONS, log_level="WARNING", strict_types=True
    )
    lock = threading.Lock()  # one engine call at a time: tools run on worker threads

    def engine_call(fn: Callable[[], T], *, embeds: bool = False) -> T:
        """Run one facade call, turning the engine's typed errors into tool errors, each read
        as "<tool>: <what was wrong>" (engine.mcp.strict.Refused). A call that embeds text
        first waits for the embedding model to load (10-30 s after start) without the lock:
        holding it, a retrieve_memory sent first kept every other tool waiting as long."""
        try:
            if embeds:
                memory.embedder.load()
            with lock:
                return fn()
        except NotFoundError as exc:
            raise Refused(f"not found: {exc}") from exc
        except MemoryOSError as exc:  # InvalidInputError included: its text says it all
            raise Refused(for_agents(str(exc), advice)) from exc

    def shaped(build: Callable[[int], dict[str, Any]]) -> dict[str, Any]:
        """build(limit) with long texts cut to `limit` characters, the largest that keeps the
        result small enough for any client (engine.mcp.fit)."""
        try:
            return fit(build)
        except TooLarge:
            raise Refused(TOO_LARGE) from None

    @_tool(server, WRITE)
    def add_memory(
        user_input: Annotated[Text, Field(description="What the person (or first speaker) said.")],
        agent_response: Annotated[
            Text, Field(description="What the agent (or second speaker) answered; may be empty.")
        ] = "",
        timestamp: Annotated[
            float | str | None,
            Field(
                description="When it happened: epoch seconds, ISO 8601, '2025-05-01 12:00:00' or "
                "'1:56 pm on 8 May, 2023' (local time without a zone). Default: now."
            ),
        ] = None,
        metadata: Annotated[
            dict[str, Any] | None,
            Field(
                description="Optional JSON object kept with the page. Recognised keys: "
                "external_id (text) / external_ids (a list of texts): your ids for this "
                "exchange, returned on retrieval; adding one the vault already holds stores "
                "nothing and returns that page; "
                "user_speaker / agent_speaker (names, for transcripts between two people)."
            ),
        ] = None,
        conversation_id: Annotated[
            str | None,
            Field(
                max_length=200,
                description="Group pages into a conversation; default: "
                "this server session's conversation.",
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Store one exchange (a page) in the person's memory and return it with its id.

        Fast: no model runs here. The page enters short-term memory at once; topic segments,
        the profile and facts are updated by background consolidation. Safe to retry with
        metadata.external_id or metadata.external_ids: if the vault already holds a page with
        any of those ids, nothing is stored and that page is returned with `already_stored`
        true; if that page's text is not the text given, `differs` is true too and `note` says
        the new text was not stored. Long texts in the returned page are shortened as in
        retrieve_memory (`shortened`; get_page returns them whole).
        """
        check_add(user_input, agent_response, metadata)

        def store(check: Callable[[], None] | None = None) -> Page:
            # the engine checks size and emptiness, and refuses reserved keys such as "source"
            return memory.add_memory(
                user_input,
                agent_response,
                timestamp,
                metadata,
                conversation_id=conversation_id or session_conversation,
                source="mcp",
                _also=check,
            )

        def add() -> tuple[Page, bool]:
            keys = given_ids(metadata)
            return add_once(memory, keys, store) if keys else (store(), False)

        page, already = engine_call(add, embeds=True)
        other_text = already and differs(page, user_input, agent_response)

        def build(limit: int) -> dict[str, Any]:
            result = {"page": page_json(page, limit), "already_stored": already}
            if other_text:
                result["differs"] = True
                result["note"] = (
                    "a page with this external id was stored before with other text: the new "
                    "text was not stored (give a new id, or forget_page that page first)"
                )
            return result

        return shaped(build)

    @_tool(server, READ)
    def retrieve_memory(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_QUERY_CHARS,
                description="What to look for, in plain words.",
            ),
        ],
        max_results: Annotated[
            int | None,
            Field(
                ge=1,
                le=MAX_RESULTS,
                description="Most older pages to return in `pages` (default set by the "
                "person's settings, 10); recent pages, profile, facts and knowledge are not "
                "limited by it.",
            ),
        ] = None,
        max_recent: Annotated[
            int | None,
            Field(
                ge=0,
                le=MAX_RESULTS,
                description="Most recent pages to return in `recent`, newest first "
                "(default: the whole short-term queue).",
            ),
        ] = None,
        max_facts: Annotated[
            int | None,
            Field(
                ge=0,
                le=1000,
                description="Most user facts, and most assistant knowledge, to return, best "
                "first (default: all that were found).",
            ),
        ] = None,
        include_memories_used: Annotated[
            bool,
            Field(description="Return `memories_used` (previews of the items above)."),
        ] = True,
    ) -> dict[str, Any]:
        """Find what the person's memory holds about `query`, from all three tiers.

        Returns `pages` (older exchanges, best first, with score and how they were found),
        `recent` (the short-term queue, newest first; a recent page the query also found has
        its score and found_by there, and is not repeated in `pages`), `profile` slots, user
        `facts` and assistant `knowledge` (each with ids, dates, status and the page ids they
        came from), and `chain_summaries`. Every page in `pages` and `recent` has
        `out_of_date`: true when every fact learned from it was replaced since ("I live in
        Chorlton" after "I moved to Lisbon"): what it says no longer holds, and its
        `replaced_by` lists the facts current in its place (each with `id`, `ref` as
        delete_fact takes it, and `text`; empty when none is current); false otherwise, with
        no `replaced_by`. Dates are ISO 8601 UTC; `external_ids` are the
        ids given at add time. `memories_used` lists, in rank order, each item returned above
        that an answer's prompt would hold (kind, id, tier, text, date, score): what to show a
        person as "remembered"; its `text` is a preview of at most 300 characters, the item
        being in full in the lists above. For a smaller result, give max_recent, max_facts or
        include_memories_used false. Long texts are shortened to a few thousand characters
        (fewer when the result would be too large to send): an item with a `shortened` object
        names the fields cut and their full length in characters; get_page(id) returns a page
        whole.
        """
        from engine.remembered import memories_used

        if not query.strip():  # "" is refused by the schema; spaces alone would match anything
            raise Refused("query must be non-empty text, not only spaces")
        most = max_results or memory.settings.top_pages
        # room for `most` older pages once those in the recent queue are left out of `pages`
        wider = most + memory.settings.stm_capacity
        found = engine_call(lambda: memory.retrieve(query, max_pages=wider), embeds=True)
        short = found.short_term
        if max_recent is not None:
            short = short[max(len(short) - max_recent, 0) :]
        # A page in the recent queue is listed once, as recent (as the app's prompt and its
        # Remembered list show it), with the score the query gave it.
        recent_ids = {p.id for p in short}
        matched = {item.page.id: item for item in found.pages if item.page.id in recent_ids}
        older = tuple(item for item in found.pages if item.page.id not in recent_ids)
        found = replace(
            found,
            pages=older,
            short_term=short,
            facts=found.facts[:max_facts],
            knowledge=found.knowledge[:max_facts],
        ).first_pages(most)
        used = memories_used(found) if include_memories_used else []
        shown = {p.page.id for p in found.pages} | {p.id for p in found.short_term}
        replaced = engine_call(lambda: replacements(memory, shown & found.changed))

        def build(limit: int) -> dict[str, Any]:
            result = {
                "query": found.query,
                "pages": [retrieved_page_json(p.page, replaced, limit, p) for p in found.pages],
                "recent": [
                    retrieved_page_json(p, replaced, limit, matched.get(p.id))
                    for p in reversed(found.short_term)
                ],
                "profile": [slot_json(s, limit) for s in found.profile],
                "facts": [scored_fact_json(f, limit) for f in found.facts],
                "knowledge": [scored_fact_json(f, limit) for f in found.knowledge],
                "chain_summaries": [text[:limit] for text in found.chain_summaries],
                "memories_used": [memory_used_json(m, min(PREVIEW_CHARS, limit)) for m in used],
                "elapsed_ms": round(found.elapsed_ms, 2),
            }
            if not include_memories_used:
                del result["memories_used"]
            return result

        return shaped(build)

    # imported here, not at the top: engine.mcp.fact_tools imports this module's _tool
    from engine.mcp.fact_tools import register_fact_tools

    register_fact_tools(server, memory, engine_call, shaped)

    @_tool(server, READ)
    def get_page(
        id: Id,
        offset: Annotated[
            int, Field(ge=0, description="Skip this many characters of each text (paging).")
        ] = 0,
        limit: Annotated[
            int,
            Field(
                ge=1,
                le=MAX_TEXT_CHARS,
                description="Most characters of each text to return "
                f"(default {PAGE_PART_CHARS:,}).",
            ),
        ] = PAGE_PART_CHARS,
    ) -> dict[str, Any]:
        """One stored exchange by id, in full (e.g. a page a fact came from, or one shortened in
        retrieve_memory). A long page comes in parts: its texts (user_input, agent_response,
        chain_summary) from character `offset`, at most `limit` characters each (fewer if the
        part would be too large to send). `shortened` gives the full length of each text not
        returned whole; `next_offset` is the offset of the next part, null once this part
        reaches the end of every text: call again with offset=next_offset and append.
        """
        page = engine_call(lambda: memory.page(id))
        longest = max(len(page.user_input), len(page.agent_response), len(page.chain_summary))

        def build(part: int) -> dict[str, Any]:
            more = longest > offset + part
            return {
                "page": page_json(page, part, offset=offset, paged=True),
                "next_offset": offset + part if more else None,
            }

        parts = tuple(dict.fromkeys(max(1, limit >> halving) for halving in range(20)))
        try:
            return fit(build, parts)
        except TooLarge:
            raise Refused(TOO_LARGE) from None

    @_tool(server, DELETE)
    def forget_page(id: Id) -> dict[str, Any]:
        """Forget one exchange by id, with the facts and profile entries derived only from it.

        Returns what went with it, to tell the person: `deleted_facts` (each id with its `ref`,
        the id `memoryos facts list` shows) and `deleted_profile_entries` (each id, which is its
        ref: p3), and `summary`, one line per kind of thing removed or rewritten.
        """
        done = engine_call(lambda: memory.forget_page(id))
        return {
            "forgotten_page_id": id,
            "deleted_facts": [{"id": i, "ref": fact_ref(i)} for i in done.facts],
            "deleted_profile_entries": [
                {"id": slot_ref(i), "ref": slot_ref(i)} for i in done.slots
            ],
            "summary": done.lines(),
        }

    @_tool(server, READ)
    def memory_status() -> dict[str, Any]:
        """Vault and consolidation state: page counts per tier, segments, facts, pending jobs,
        `last_error` (the last consolidation failure, with what to do for this server; null
        when none), `model_problem`: why the consolidation model cannot be used (null when it can), and
        `embedding_model.state`: "loading" (calls that embed text, retrieve_memory,
        add_memory and add_fact, wait for it), "loaded", "failed" (with `problem`), or "not
        loaded" (it loads at the first such call)."""

        def read() -> dict[str, Any]:
            info, status = memory.info(), memory.consolidation_status()
            return {
                "vault": {
                    "path": info.path,
                    "schema_version": info.schema_version,
                    "embedder": info.embedder_id,
                    "embedder_dimension": info.embedder_dimension,
                    "key_location": info.key_location,
                    "pages": info.pages,
                    "size_bytes": info.size_bytes,
                },
                "consolidation": {
                    "pending_jobs": status.pending_jobs,
                    "running": status.running,
                    "failed_jobs": status.failed_jobs,
                    "last_error": for_agents(status.last_error, advice),
                    "model": memory.chat.model_id if memory.chat is not None else None,
                    "model_problem": for_agents(model_problem(), advice),
                },
                "short_term_pages": status.short_term_pages,
                "mid_term_pages": status.mid_term_pages,
                "segments": status.segments,
                "facts": status.facts,
                "embedding_model": embedder_load.state(),
            }

        return engine_call(read)

    return server


def check_add(user_input: str, agent_response: str, metadata: dict[str, Any] | None) -> None:
    """What add_memory refuses before the engine sees it, in the words of its arguments."""
    if not user_input.strip() and not agent_response.strip():
        raise Refused("user_input and agent_response must not both be empty")
    if metadata is None:
        return
    size = len(json.dumps(metadata, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if size > MAX_META_BYTES:
        raise Refused(
            f"metadata must be a JSON object of at most {MAX_META_BYTES // 1024} KiB "
            f"(this one is {size / 1024:,.0f} KiB)"
        )
    one, many = metadata.get("external_id"), metadata.get("external_ids")
    if one is not None and not (isinstance(one, str) and one.strip()):
        raise Refused("metadata.external_id must be non-empty text")
    if many is not None and not (
        isinstance(many, list) and all(isinstance(key, str) and key.strip() for key in many)
    ):
        raise Refused("metadata.external_ids must be a list of non-empty texts")


def _tool(
    server: MCPServer, annotations: ToolAnnotations
) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Register a function as a tool with JSON output; its docstring is the description."""

    def register(fn: Callable[..., T]) -> Callable[..., T]:
        description = inspect.cleandoc(fn.__doc__ or "")
        server.add_tool(
            fn, description=description, annotations=annotations, structured_output=True
        )
        return fn

    return register
