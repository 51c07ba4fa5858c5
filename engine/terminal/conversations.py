"""`memoryos conversations`, `search` and `forget`: the exchanges kept, found and forgotten."""

from __future__ import annotations

import json
import os
import sys
from types import SimpleNamespace

from engine import errors
from engine.records import ConversationInfo
from engine.terminal import wording
from engine.terminal.facts import learned_items
from engine.terminal.opening import _open, vault_to_open
from engine.vault.damage import naming_vault


def run_conversations(args) -> int:
    """Each conversation with the id `memoryos forget conversation ID` takes, newest first.
    A damaged vault lists what can be read, says what could not be and exits 1 (as export
    does): the person sees what it holds before deciding what to save."""
    if getattr(args, "pages", None) is not None:
        return _conversation_pages(args)
    path = vault_to_open(args)
    try:
        memory = _open(args, background=False)
    except errors.VaultCorruptError as exc:  # damaged where opening reads: say which vault
        raise naming_vault(exc, path) from exc
    damaged = ""
    try:
        try:
            conversations = memory.conversations()  # newest last exchange first
        except errors.VaultCorruptError:
            conversations, damaged = _readable_conversations(memory)
        if getattr(args, "json", False):
            data = [
                {"id": c.id, "title": c.title, "first_ts": c.first_ts, "last_ts": c.last_ts,
                 "first": wording.iso(c.first_ts), "last": wording.iso(c.last_ts),
                 "exchanges": c.pages}
                for c in conversations
            ]  # fmt: skip
            print(json.dumps(data, indent=1, ensure_ascii=False))
        elif not conversations:
            print("No conversation could be read." if damaged else "No conversations yet.")
        else:
            width = max(len(c.id) for c in conversations)
            for c in conversations:
                title = " ".join(c.title.split()) or "(untitled)"
                title = title if len(title) <= 70 else title[:69] + "…"
                print(
                    f"{c.id:<{width}}  {wording.when(c.first_ts)} – {wording.when(c.last_ts)}  "
                    f"{wording.count(c.pages, 'exchange'):>13}  {title}"
                )
    finally:
        memory.close()
    if damaged:  # after the list: a script reading it does not take it for the whole memory
        print(damaged, file=sys.stderr)
        return 1
    return 0


# What a damaged vault's listing could not read, as a person counts it
UNREAD = {"pages": "exchanges", "conversations": "conversation titles"}


def _readable(
    memory, tables: tuple[str, ...], left_out: str
) -> tuple[dict[str, list[dict]], str]:
    """The rows of `tables` that a damaged vault gives (engine/vault/damage.py), and what to
    say of it: how many rows could not be read (`left_out`: where they are missing), then
    what to do, the commands naming the vault."""
    from engine.vault.damage import advice, skipped_text

    read = {table: memory.vault.read_table(table) for table in tables}
    lost = list(skipped_text({t: r.skipped for t, r in read.items() if r.skipped != 0}, UNREAD))
    if lost:
        said = f"The vault file is damaged: {', '.join(lost)} could not be read ({left_out})"
    else:  # an index or other pages of the file, not these rows
        said = "The vault file is damaged: everything shown was read, the damage is elsewhere"
    return {t: r.rows for t, r in read.items()}, f"{said}. {advice(memory.path)}."


def _readable_conversations(memory) -> tuple[list[ConversationInfo], str]:
    """memory.conversations() from the rows a damaged vault gives, and what to say of it."""
    rows, damaged = _readable(memory, ("conversations", "pages"), "not counted above")
    titles = {row["id"]: row["title"] for row in rows["conversations"]}
    times: dict[str, list[float]] = {}
    for page in rows["pages"]:
        times.setdefault(page["conversation_id"], []).append(page["ts"])
    conversations = [
        ConversationInfo(id=cid, title=titles.get(cid, ""), first_ts=min(ts), last_ts=max(ts),
                         pages=len(ts))
        for cid, ts in times.items()
    ]  # fmt: skip
    conversations.sort(key=lambda c: c.last_ts, reverse=True)
    return conversations, damaged


def _conversation_pages(args) -> int:
    """`conversations --pages ID`: the exchanges of one conversation, oldest first, with the
    page ids `memoryos forget page ID` takes (export may be off by policy, and the app shows
    no ids)."""
    conversation_id = args.pages.strip()
    path = vault_to_open(args)
    try:
        memory = _open(args, background=False)
    except errors.VaultCorruptError as exc:
        raise naming_vault(exc, path) from exc
    damaged = ""
    try:
        try:
            pages = memory.pages(conversation_id=conversation_id, limit=1_000_000)
        except errors.VaultCorruptError:
            rows, damaged = _readable(memory, ("pages",), "some may be of this conversation")
            pages = [
                SimpleNamespace(id=row["id"], timestamp=row["ts"], user_input=row["user_input"],
                                agent_response=row["agent_response"])
                for row in rows["pages"] if row["conversation_id"] == conversation_id
            ]  # fmt: skip
        pages = sorted(pages, key=lambda p: (p.timestamp, p.id))
        if not pages and damaged and not getattr(args, "json", False):
            print(f"No exchange of conversation {conversation_id!r} could be read.")
        elif not pages:
            raise errors.NotFoundError(
                f"no conversation with id {conversation_id!r} in this vault: "
                "`memoryos conversations` lists the ids")
        if getattr(args, "json", False):
            data = [
                {"id": p.id, "timestamp": p.timestamp, "date": wording.iso(p.timestamp),
                 "user": p.user_input, "assistant": p.agent_response}
                for p in pages
            ]  # fmt: skip
            print(json.dumps(data, indent=1, ensure_ascii=False))
        elif pages:
            width = max(len(str(p.id)) for p in pages)
            for p in pages:
                said = " ".join(p.user_input.split()) or "(nothing said)"
                said = said if len(said) <= 70 else said[:69] + "…"
                print(f"{p.id:>{width}}  {wording.when(p.timestamp)}  {said}")
    finally:
        memory.close()
    if damaged:  # some of the vault's exchanges could not be read: maybe of this conversation
        print(damaged, file=sys.stderr)
        return 1
    return 0


def run_search(args) -> int:
    """`memoryos search WORDS`: what the app's sidebar search finds (every word, the last one a
    prefix), in its order (best match first, equal ones newest first) and with its count, then
    the facts and profile entries holding all the words."""
    from engine import conversations as past
    from engine.vault.search import MARK_END, MARK_START

    text = " ".join(args.words).strip()
    if not text:
        raise errors.InvalidInputError("say what to look for: memoryos search WORDS")
    if args.limit < 1:
        raise errors.InvalidInputError(f"--limit {args.limit}: give a number of 1 or more")
    memory = _open(args, background=False)
    try:
        found = past.find(memory, text, limit=args.limit)
        hits = found.hits
        words = [w.casefold() for w in text.split()]
        # the items `facts list` shows (not the superseded ones), facts before profile entries
        learned = sorted(learned_items(memory), key=lambda entry: entry.kind == "profile")
        items = [
            (entry.ref, entry.item.text)
            for entry in learned
            if all(w in entry.item.text.casefold() for w in words)
        ]
        if args.json:
            data = {
                "exchanges": [
                    {"page_id": h.page_id, "conversation_id": h.conversation_id,
                     "title": h.title, "timestamp": h.timestamp, "date": wording.iso(h.timestamp),
                     "snippet": h.snippet.replace(MARK_START, "").replace(MARK_END, "")}
                    for h in hits
                ],
                "facts": [{"ref": ref, "text": item_text} for ref, item_text in items],
                "exchanges_found": found.exchanges,  # the list holds the first --limit of them
                "conversations_found": found.conversations,
            }  # fmt: skip
            print(json.dumps(data, indent=1, ensure_ascii=False))
            return 0
        if not hits and not items:
            print(f"Nothing holds {text!r}.")
            return 1
        bold = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        start, end = ("\033[1m", "\033[0m") if bold else ("[", "]")
        if hits:
            print(f"{found.summary()}:")
        for hit in hits:
            title = " ".join(hit.title.split()) or "(untitled)"
            title = title if len(title) <= 50 else title[:49] + "…"
            snippet = " ".join(hit.snippet.split()).replace(MARK_START, start)
            print(f"page {hit.page_id}  {wording.when(hit.timestamp)}  {title}  "
                  f"({hit.conversation_id})")
            print(f"    {snippet.replace(MARK_END, end)}")
        if len(hits) < found.exchanges:
            print(f"(the first {len(hits)} of {found.exchanges}: --limit N for more)")
        if items:
            print("Facts and profile entries:")
            for ref, item_text in items:
                print(f"  {ref:>5}  {item_text}")
    finally:
        memory.close()
    return 0


def run_forget(args) -> int:
    if args.what != "everything" and args.id is None:
        raise errors.InvalidInputError(f"say which {args.what}: memoryos forget {args.what} ID")
    if not args.yes and not sys.stdin.isatty():
        raise errors.InvalidInputError("add --yes to confirm (no terminal to ask)")
    if args.what == "everything":  # before the passphrase and the question: it would be refused
        from engine.api_forgetting import EVERYTHING_ALSO, refuse_while_open_elsewhere

        refuse_while_open_elsewhere(
            vault_to_open(args), "nothing was forgotten", "forget everything again",
            closed_here=True, also=EVERYTHING_ALSO,
        )  # fmt: skip
    memory = _open(args, background=False)
    try:
        if args.what == "everything":
            target, preview = f"EVERYTHING in {_holding(memory)}", None
        else:
            target = f"{args.what} {args.id}"
            preview = {
                "page": lambda: memory.preview_forget_page(_int(args.id)),
                "segment": lambda: memory.preview_forget_segment(_int(args.id)),
                "conversation": lambda: memory.preview_forget_conversation(args.id),
            }[args.what]()  # NotFoundError before asking anything
        if not args.yes:
            from engine.unlock import confirm

            if preview is not None:  # what else goes, before the person confirms
                print("This will: " + "; ".join(preview.lines()) + ".")
                for line in _quoted(memory, preview):
                    print(line)
            if not confirm(f"Forget {target}? This cannot be undone. [y/N] "):
                print("Nothing was deleted.")
                return 1
        if args.what == "page":
            done = memory.forget_page(_int(args.id))
        elif args.what == "segment":
            done = memory.forget_segment(_int(args.id))
        elif args.what == "conversation":
            done = memory.forget_conversation(args.id)
        else:
            memory.forget_everything()
            done = None
        print("Forgotten" + (": " + "; ".join(done.lines()) if done else "") + ".")
    finally:
        memory.close()
    return 0


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


QUOTED = 5  # exchanges, then learned items, quoted before a forget; the rest are counted


def _quoted(memory, preview) -> list[str]:
    """What a forget removes, quoted: each exchange's first words, and the facts' and profile
    entries' text (a count says what went was all that was shown before)."""
    out: list[str] = []
    for page_id in preview.pages[:QUOTED]:
        said = _short(memory.page(page_id).user_input) or "(nothing said)"
        out.append(f"  exchange {page_id}: {said}")
    if len(preview.pages) > QUOTED:
        out.append(f"  and {wording.count(len(preview.pages) - QUOTED, 'more exchange')}")
    learned = [*preview.fact_texts, *preview.slot_texts]
    out += [f"  learned: {_short(text)}" for text in learned[:QUOTED]]
    if len(learned) > QUOTED:
        out.append(f"  and {len(learned) - QUOTED} more learned")
    return out


def _holding(memory) -> str:
    """'the vault work.memoryos (12 exchanges in 3 conversations, 7 facts · 5 profile
    entries)': which vault `forget everything` empties, and how much goes."""
    from engine import chat_commands

    conversations = len(memory.conversations())
    held = (
        f"{wording.count(memory.info().pages, 'exchange')} in "
        f"{wording.count(conversations, 'conversation')}, "
        f"{chat_commands.known_text(memory.consolidation_status())}"
    )
    return f"the vault {memory.path.name} at {memory.path} ({held})"


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise errors.InvalidInputError(f"{value!r} is not a number") from None
