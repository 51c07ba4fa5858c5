"""The MCP tools on facts and the profile: show, list, add and delete them by id or ref."""

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from engine.errors import InvalidInputError
from engine.mcp.convert import fact_json, fact_ref, slot_json, slot_ref
from engine.mcp.strict import Refused
from engine.mcp.tools import DELETE, MAX_QUERY_CHARS, READ, WRITE, _tool
from engine.records import ASSISTANT_KNOWLEDGE, USER_FACT
from engine.terminal.facts import FACT_PREFIX, PROFILE_PREFIX, parse_item_ids

# delete_fact: a fact's number, or a ref as `memoryos facts delete` takes it (f12, p3)
ItemId = Annotated[int, Field(ge=1)] | Annotated[str, Field(min_length=1, max_length=30)]
Kind = Literal["user_fact", "assistant_knowledge"]


def register_fact_tools(
    server: MCPServer,
    memory: Any,
    engine_call: Callable[..., Any],
    shaped: Callable[[Callable[[int], dict[str, Any]]], dict[str, Any]],
) -> None:
    """Add get_user_profile, list_facts, add_fact and delete_fact to `server` (built by
    engine.mcp.tools.build_server): each reads or changes `memory` through its `engine_call`
    and has its result cut to size by its `shaped`."""

    @_tool(server, READ)
    def get_user_profile(
        include_knowledge: Annotated[
            bool, Field(description="Also return the user facts (what is known about the person).")
        ] = True,
        include_assistant_knowledge: Annotated[
            bool, Field(description="Also return what the assistant did or promised.")
        ] = False,
        max_facts: Annotated[
            int, Field(ge=1, le=1000, description="Most facts (and knowledge) to return.")
        ] = 50,
    ) -> dict[str, Any]:
        """The person's profile (traits, preferences, values) and their user facts, newest first.

        `facts_total` counts them all; page through them with list_facts. Assistant knowledge
        (`knowledge`) only with include_assistant_knowledge. A profile entry's `id` is its ref
        (p3), the id delete_fact takes for it; a fact's `id` is a number (its ref: f12).
        """

        def read() -> tuple[list, list | None, list | None]:
            return (
                memory.profile(),
                memory.facts(kind=USER_FACT) if include_knowledge else None,
                memory.facts(kind=ASSISTANT_KNOWLEDGE) if include_assistant_knowledge else None,
            )

        slots, facts, knowledge = engine_call(read)

        def build(limit: int) -> dict[str, Any]:
            result: dict[str, Any] = {"profile": [slot_json(s, limit) for s in slots]}
            if facts is not None:
                result["facts"] = [fact_json(f, limit) for f in facts[:max_facts]]
                result["facts_total"] = len(facts)
            if knowledge is not None:
                result["knowledge"] = [fact_json(f, limit) for f in knowledge[:max_facts]]
                result["knowledge_total"] = len(knowledge)
            return result

        return shaped(build)

    @_tool(server, READ)
    def list_facts(
        kind: Annotated[Kind | None, Field(description="Only this kind; default both.")] = None,
        search: Annotated[
            str | None,
            Field(max_length=MAX_QUERY_CHARS, description="Only facts containing this text."),
        ] = None,
        include_superseded: Annotated[
            bool, Field(description="Also facts replaced by newer ones (kept for history).")
        ] = False,
        limit: Annotated[int, Field(ge=1, le=1000, description="Most facts to return.")] = 100,
        offset: Annotated[int, Field(ge=0, description="Skip this many (paging).")] = 0,
    ) -> dict[str, Any]:
        """List user facts and assistant knowledge, newest first, with ids, status, dates and
        the ids of the pages they came from.

        Status `candidate` marks the person's own statements kept verbatim until a capable
        model rewrites them; `active` facts are confirmed; `superseded` ones were replaced.
        Each fact and profile entry has a `ref` (f12, p3): the id the person's own `memoryos
        facts` command shows and takes, the one to show them.
        """
        facts = engine_call(
            lambda: memory.facts(
                kind=kind, include_superseded=include_superseded, search=search or None
            )
        )
        chosen = facts[offset : offset + limit]
        return shaped(
            lambda most: {"total": len(facts), "facts": [fact_json(f, most) for f in chosen]}
        )

    @_tool(server, WRITE)
    def add_fact(
        text: Annotated[
            str, Field(min_length=1, max_length=10_000, description="The fact, as one sentence.")
        ],
        kind: Annotated[Kind, Field(description="Whose fact it is.")] = "user_fact",
    ) -> dict[str, Any]:
        """Record a fact the person stated or confirmed, e.g. 'Is allergic to peanuts'."""
        if not text.strip():
            raise Refused("text must be non-empty text, not only spaces")
        fact = engine_call(lambda: memory.add_fact(text, kind=kind), embeds=True)
        return {"fact": fact_json(fact)}

    @_tool(server, DELETE)
    def delete_fact(
        id: Annotated[
            ItemId,
            Field(
                description="A fact's id (12) or ref (f12), or a profile entry's id (p3): the "
                "refs `memoryos facts delete` takes. A bare number is always a fact."
            ),
        ],
    ) -> dict[str, Any]:
        """Delete one fact (user fact or assistant knowledge) or one profile entry, everywhere
        in the vault: a fact by its number or ref (12 or f12), a profile entry by its id, which
        is its ref (p3). Returns `deleted_fact_id` (a number) for a fact,
        `deleted_profile_entry_id` (p3) for a profile entry, and the `ref` deleted."""
        kind, number = item_id(id)
        if kind == "profile":
            engine_call(lambda: memory.delete_profile_slot(number))
            return {"deleted_profile_entry_id": slot_ref(number), "ref": slot_ref(number)}
        engine_call(lambda: memory.delete_fact(number))
        return {"deleted_fact_id": number, "ref": fact_ref(number)}


def item_id(given: int | str) -> tuple[str, int]:
    """delete_fact's id as ("fact" | "profile", number): a number is a fact's; text is a ref
    as `memoryos facts delete` takes it (f12 or 12 a fact, p3 a profile entry)."""
    if isinstance(given, int):
        return "fact", given
    try:
        chosen = parse_item_ids([given])
    except InvalidInputError:
        chosen = []
    if len(chosen) != 1 or chosen[0][1] < 1:
        raise Refused(
            f"id must be a whole number of at least 1 (a fact) or a ref: {FACT_PREFIX}12 for a "
            f"fact, {PROFILE_PREFIX}3 for a profile entry, as list_facts and get_user_profile "
            f"give them (not {given!r})"
        )
    return chosen[0]
