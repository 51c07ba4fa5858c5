"""Reading conversation transcripts (JSON) into exchanges for `memoryos import`."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import InvalidInputError
from engine.records import new_conversation_id
from engine.terminal import wording


@dataclass
class Exchange:
    user_input: str
    agent_response: str
    timestamp: Any = None
    meta: dict = field(default_factory=dict)
    conversation: str | None = None


MAX_FILE_BYTES = 256_000_000  # a transcript file larger than this is refused unread
MAX_EXCHANGES = 500_000


def read(path: str | Path) -> list[Exchange]:
    """Exchanges from a transcript file; a clear error for anything we cannot read.

    The whole file is checked before anything is stored (size, JSON, each item's types,
    reserved metadata), so a bad file imports nothing rather than half of itself."""
    return exchanges_of(load(path))


def exchanges_of(data: Any) -> list[Exchange]:
    """The checked exchanges of a transcript already read by `load`."""
    exchanges = list(parse(data))
    check(exchanges)
    return exchanges


def load(path: str | Path) -> Any:
    """The JSON in a file to import (a transcript, or an export to restore): size, UTF-8 and
    JSON checked, with a clear error naming the file."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise InvalidInputError(
            f"{path} is {wording.size(size)}: transcripts up to "
            f"{wording.size(MAX_FILE_BYTES)} can be imported; split it into smaller files"
        )
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        from engine.vault.connection import PLAIN_SQLITE_HEADER

        if raw.startswith(PLAIN_SQLITE_HEADER):  # not encrypted, so not a vault of ours
            raise InvalidInputError(
                f"{path} is an SQLite database, not a transcript or an export, so it cannot "
                "be imported. Import a transcript (JSON) or a MemoryOS export "
                "(`memoryos export FILE`)"
            ) from None
        if ".memoryos" in path.name or is_sqlite_file(raw):
            from engine.paths import vaults_dir

            raise InvalidInputError(
                f"{path} is a MemoryOS vault (an encrypted memory, as `memoryos backup` writes), "
                "not a transcript or an export, so it cannot be imported. To use it, put it in "
                f"the vaults folder ({vaults_dir()}) as NAME.memoryos, with MemoryOS closed if "
                "it replaces a memory there, then open it with File → Switch memory… or "
                "`memoryos chat --vault NAME`; or open it where it is with `memoryos chat "
                "--vault-path FILE` (it opens with the key of the memory it was copied from)."
            ) from None
        raise InvalidInputError(f"{path} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        if cut_short(exc):
            raise InvalidInputError(
                f"{path} is not valid JSON: it ends in the middle, at line {exc.lineno}, so it "
                "was cut short (a copy or download that did not finish?). Copy or export it "
                "again, then import the new file"
            ) from None
        raise InvalidInputError(
            f"{path} is not valid JSON: it breaks at line {exc.lineno}, column {exc.colno} "
            f"({exc.msg}). Correct the file there, or copy or export it again"
        ) from None
    return data


def is_sqlite_file(raw: bytes) -> bool:
    """Whether `raw` is an SQLite file, encrypted (a vault or its backup) or not. Its first 16
    bytes are the cipher's random salt (so they may read as anything, "[" included), but bytes
    16-23 stay in the clear, as SQLite reads them before any key: the page size (a power of two,
    512-65536, 1 meaning 65536), the file format versions (1 or 2) and the payload fractions,
    which SQLite fixes at 64, 32 and 32. The file is a whole number of those pages."""
    if len(raw) < 512:
        return False
    page = int.from_bytes(raw[16:18], "big")
    page = 65536 if page == 1 else page
    return (
        512 <= page <= 65536
        and page & (page - 1) == 0
        and raw[18] in (1, 2)
        and raw[19] in (1, 2)
        and raw[21:24] == b"\x40\x20\x20"
        and len(raw) % page == 0
    )


_CUT_NUMBER = re.compile(r"[-+.0-9eE]+")


def cut_short(exc: json.JSONDecodeError) -> bool:
    """Does the JSON that raised `exc` stop part-way (a file cut short) rather than break in
    the middle? It does when the error is at its end, inside a quoted text that runs to the
    end ("Unterminated string", reported where the text starts), or in a word or number that
    the end cuts."""
    if exc.msg.startswith("Unterminated string"):
        return True
    rest = exc.doc[exc.pos :].rstrip()
    return (
        not rest
        or any(word.startswith(rest) for word in ("true", "false", "null"))
        or bool(_CUT_NUMBER.fullmatch(rest))
    )


def check(exchanges: list[Exchange]) -> None:
    """Every exchange as the engine will accept it, or an error naming the first bad item."""
    from engine import validation

    if len(exchanges) > MAX_EXCHANGES:
        raise InvalidInputError(
            f"{len(exchanges)} exchanges in one file: at most {MAX_EXCHANGES} can be imported "
            "at once; split the file"
        )
    for index, item in enumerate(exchanges):
        try:
            validation.text(item.user_input, "user")
            validation.text(item.agent_response, "assistant")
            validation.timestamp(item.timestamp, 0.0)
            validation.meta(item.meta)
            if item.conversation is not None and not isinstance(item.conversation, (str, int)):
                raise InvalidInputError(
                    "'conversation' must be text or a number: the name of the conversation "
                    "it belongs to (items with the same one are stored together)"
                )
        except InvalidInputError as exc:
            raise InvalidInputError(f"item {index + 1}: {exc}") from None


HELD_WINDOW = 0.001  # seconds either side of an exchange's time searched for its page
SCAN_BATCH = 2000  # pages read at a time when the whole vault is read


def split_held(memory: Any, exchanges: list[Exchange]) -> tuple[list[Exchange], int]:
    """The exchanges an open vault does not hold yet, and how many it does (see held())."""
    new, already, _ = held(memory, exchanges)
    return new, already


def held(memory: Any, exchanges: list[Exchange]) -> tuple[list[Exchange], int, dict]:
    """The exchanges an open vault (engine.api.MemoryOS) does not hold yet, in order, and how
    many it does: importing a transcript again adds nothing twice. An exchange is held when a
    page has its question, answer and time (to the millisecond, as a restore and a reference
    import recognise a repeat; from any source). An exchange without a time is stored at the
    moment of its import, so for it the same question and answer imported before count. Each
    page stands for one exchange: a file that repeats an exchange more often than the vault
    holds it adds the difference.

    The third value maps a transcript's conversation (Exchange.conversation) to the stored
    conversation its exchanges went into at an earlier import of it (a run stopped part-way):
    the rest continue that conversation rather than start another."""
    vault, held, into = memory.vault, Counter(), {}
    times = [_time_of(e) for e in exchanges]
    dated = sorted(set(times) - {None})
    # Every page read once when that is fewer reads than one look-up per distinct time
    scan = None in times or vault.count_pages() <= len(dated)
    if scan:
        offset = 0
        while batch := vault.list_pages(None, SCAN_BATCH, offset):
            offset += len(batch)
            for page in batch:
                key = (round(page.timestamp, 3), page.user_input, page.agent_response)
                held[key] += 1
                if page.meta.get("source") == "import":
                    held[(None, page.user_input, page.agent_response)] += 1
                    into.setdefault(key, []).append(page.conversation_id)
                    into.setdefault((None, *key[1:]), []).append(page.conversation_id)
    else:
        seen: set[int] = set()
        for when in dated:
            ids = vault.page_ids_in_time_range(when - HELD_WINDOW, when + HELD_WINDOW, 10_000)
            for page in vault.pages([i for i in ids if i not in seen]):
                seen.add(page.id)
                key = (round(page.timestamp, 3), page.user_input, page.agent_response)
                held[key] += 1
                if page.meta.get("source") == "import":
                    into.setdefault(key, []).append(page.conversation_id)
    new, already, conversations = [], 0, {}
    for exchange, when in zip(exchanges, times, strict=True):
        key = (None if when is None else round(when, 3), exchange.user_input or "",
               exchange.agent_response or "")  # fmt: skip
        if held[key] > 0:
            held[key] -= 1
            already += 1
            if into.get(key):  # imported before: the conversation it went into
                conversations[exchange.conversation] = into[key].pop(0)
        else:
            new.append(exchange)
    return new, already, conversations


def held_summary(added: int, already: int, vault_name: str, conversations: int = 1) -> str:
    """What `memoryos import` added: 'Imported 3 exchanges into bob.memoryos; 2 were already
    in this vault, not added again.', 'Imported 40 exchanges in 3 conversations into …',
    'Already in bob.memoryos: nothing new was added (…)'."""
    from engine.terminal.wording import count

    if already and not added:
        exchanges = count(already, "exchange")
        return f"Already in {vault_name}: nothing new was added ({exchanges})."
    text = f"Imported {count(added, 'exchange')}{in_conversations(conversations)} into {vault_name}"
    if already:
        verb = "was" if already == 1 else "were"
        return f"{text}; {already} {verb} already in this vault, not added again."
    return f"{text}."


def resumed_note(already: int, total: int) -> str:
    """Said before a run that continues an earlier import of the same file."""
    left = total - already
    return (
        f"{already} of {total} exchanges are already in this vault (an earlier import of this "
        f"file?): skipped; importing the other {left}."
    )


def in_conversations(conversations: int) -> str:
    """' in 3 conversations' after 'Imported 40 exchanges'; nothing for one (or none)."""
    return f" in {conversations} conversations" if conversations > 1 else ""


STORE_BATCH = 64  # exchanges per embedding call and transaction; Stop and Ctrl+C wait for one


def store(
    memory: Any, exchanges: list[Exchange], conversations: dict,
    new_conversation: Any = new_conversation_id, into: set | None = None,
) -> Iterator[int]:
    """Store the exchanges a batch at a time (_batches; memory.add_memories: one embedding call
    and one transaction each, many times faster than one exchange at a time); yields how many
    are stored after each batch, and adds to `into` the ids of the conversations stored into
    so far. Stopping between batches keeps what is stored.

    The exchanges of one transcript conversation (Exchange.conversation; None for those that
    name none) go into one stored conversation: `conversations` maps those continued from an
    earlier import (held()) and gets the others, each made by `new_conversation()` (which
    leaves the memory's current conversation as it is)."""
    done = 0
    for conversation, batch in _batches(exchanges):
        if conversation not in conversations:
            conversations[conversation] = new_conversation()
        memory.add_memories(
            [
                {"user_input": e.user_input, "agent_response": e.agent_response,
                 "timestamp": e.timestamp, "meta": e.meta}
                for e in batch
            ],  # fmt: skip
            conversation_id=conversations[conversation],
            source="import",
        )
        if into is not None:
            into.add(conversations[conversation])
        done += len(batch)
        yield done


def _batches(exchanges: list[Exchange]) -> Iterator[tuple[Any, list[Exchange]]]:
    """The exchanges of each conversation, at most STORE_BATCH at a time, in the file's order
    within a conversation. A file that interleaves its conversations item by item (messages
    sorted by time across conversations) got batches of one, as slow as storing one exchange
    at a time: each conversation's exchanges are gathered instead, and a batch stored when
    full, the rest in the order their conversations first appear. Exchanges without a time
    get the moment their batch is stored, so their order is kept within a conversation."""
    pending: dict[Any, list[Exchange]] = {}
    for exchange in exchanges:
        batch = pending.setdefault(exchange.conversation, [])
        batch.append(exchange)
        if len(batch) == STORE_BATCH:
            yield exchange.conversation, pending.pop(exchange.conversation)
    yield from pending.items()


def _time_of(exchange: Exchange) -> float | None:
    """The exchange's time as the vault stores it, None when the transcript gives none."""
    from engine.timestamps import parse_timestamp

    value = exchange.timestamp
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_timestamp(value)


PAIR_SHAPE = '{"user": "...", "assistant": "...", "timestamp"?, "conversation"?}'
MESSAGE_SHAPE = '{"role": "user" or "assistant", "content": "...", "timestamp"?, "conversation"?}'


def parse(data: Any) -> Iterator[Exchange]:
    """The exchanges of a transcript in one of three shapes, told apart by its first item: a
    list of exchanges (PAIR_SHAPE), of chat messages (MESSAGE_SHAPE, or {"messages": [...]}),
    or LoCoMo samples (an object "conversation" holding speaker_a, session_1, ...). An item's
    "conversation" (text or a number) names the conversation it belongs to."""
    if isinstance(data, dict) and isinstance(data.get("conversation"), dict):
        data = [data]  # one LoCoMo sample
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list) or not data:
        raise InvalidInputError(
            "expected a JSON list of exchanges or messages, e.g. "
            '[{"user": "...", "assistant": "..."}] or [{"role": "user", "content": "..."}] '
            "(or a LoCoMo-shaped file)"
        )
    first = data[0]
    if not isinstance(first, dict):
        raise InvalidInputError(
            f"item 1 is not a JSON object: each item is an exchange {PAIR_SHAPE} or a "
            f"message {MESSAGE_SHAPE}"
        )
    if isinstance(first.get("conversation"), dict) and not any(k in first for k in _PAIR_KEYS):
        yield from _locomo(data)  # LoCoMo's is an object; text is a conversation's name
    elif "role" in first:
        yield from _messages(data)
    else:
        yield from _pairs(data)


# each side of an exchange: its key, and the other name it may have (the reference's)
_SIDES = (("user", "user_input"), ("assistant", "agent_response"))
_PAIR_KEYS = tuple(name for side in _SIDES for name in side)
_OTHER_KEYS = ("timestamp", "conversation", "meta")
_KNOWN_KEYS = (*_PAIR_KEYS, *_OTHER_KEYS)
# Said when an item has a key outside _KNOWN_KEYS: "user, assistant, timestamp, conversation,
# meta, and user_input, agent_response for user, assistant".
_KNOWN_WORDS = (
    ", ".join((*(side[0] for side in _SIDES), *_OTHER_KEYS))
    + ", and " + ", ".join(side[1] for side in _SIDES)
    + " for " + ", ".join(side[0] for side in _SIDES)
)


def _pairs(items: list) -> Iterator[Exchange]:
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise InvalidInputError(f"item {number} is not a JSON object: expected {PAIR_SHAPE}")
        unknown = [key for key in item if key not in _KNOWN_KEYS]
        if unknown:
            # a misspelt "User" was ignored, and what it held was lost
            keys = ", ".join(repr(key) for key in unknown)
            raise InvalidInputError(
                f"item {number} has {'a key' if len(unknown) == 1 else 'keys'} that this format "
                f"does not know: {keys} (keys are lower case; known: {_KNOWN_WORDS}). "
                f"Correct the item to {PAIR_SHAPE}, then import again"
            )
        user, agent = (_side(item, number, *names) for names in _SIDES)
        meta = item.get("meta") or {}
        if not isinstance(meta, dict):
            raise InvalidInputError(f"item {number}: 'meta' must be a JSON object")
        yield Exchange(user, agent, item.get("timestamp"), meta, item.get("conversation"))


def _side(item: dict, number: int, key: str, other: str) -> str:
    """What one side said: its key (or the other name for it) must be there and hold text;
    a side where nothing was said is given as "", so a missing key is never taken for one."""
    given = [name for name in (key, other) if name in item]
    if not given:
        raise InvalidInputError(
            f"item {number} has no '{key}': each item is an exchange {PAIR_SHAPE}; where "
            f'nothing was said on one side, give it as "{key}": ""'
        )
    if len(given) == 2:
        raise InvalidInputError(f"item {number} has both '{key}' and '{other}': keep one")
    value = item[given[0]]
    if not isinstance(value, str):
        from engine.locomo_format import json_kind

        raise InvalidInputError(f"item {number}: '{given[0]}' must be text, not {json_kind(value)}")
    return value


def _messages(items: list) -> Iterator[Exchange]:
    """User messages paired with the assistant's reply that follows in the same conversation;
    messages of other roles (system, tool) are left out."""
    pending: dict | None = None
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("content", ""), str):
            raise InvalidInputError(f"message {number} needs a text 'content': {MESSAGE_SHAPE}")
        role = item.get("role")
        if not isinstance(role, str):
            raise InvalidInputError(
                f"message {number} has no 'role' (user or assistant): expected {MESSAGE_SHAPE}, "
                "as the first item is"
            )
        if role == "assistant" and pending is not None and _same(pending, item):
            yield _exchange(pending, item)
            pending = None
        elif role in ("user", "assistant"):
            if pending is not None:
                yield _exchange(pending, None)
                pending = None
            if role == "user":
                pending = item
            else:
                yield _exchange(None, item)
    if pending is not None:
        yield _exchange(pending, None)


def _same(user: dict, reply: dict) -> bool:
    """Is the reply in the user message's conversation (a reply elsewhere does not answer it)?"""
    return user.get("conversation") == reply.get("conversation")


def _exchange(user: dict | None, reply: dict | None) -> Exchange:
    said = user if user is not None else reply
    return Exchange(
        user["content"] if user is not None else "",
        reply["content"] if reply is not None else "",
        said.get("timestamp"),
        conversation=said.get("conversation"),
    )


def _locomo(samples: list) -> Iterator[Exchange]:
    from engine.locomo_format import exchanges, parse_conversation

    for index, sample in enumerate(samples):
        conversation = parse_conversation(sample, index)
        for exchange in exchanges(conversation):
            yield Exchange(
                exchange.first.text,
                exchange.second.text if exchange.second else "",
                exchange.first.timestamp,
                exchange.meta(),
                f"{conversation.sample_id}-session-{exchange.session}",
            )
