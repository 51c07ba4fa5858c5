"""Forgetting that really forgets: pages go with everything derived from them.

A forget removes the pages, the facts and profile entries whose every source they were, and
rewrites what still quotes them: segment summaries, keywords and centroids are recomputed from
the remaining pages (or the segment goes), chain summaries that inherited their keywords are
rebuilt, a title taken from a forgotten first exchange is retaken from the new first one
(a title the person chose stays), staging rows of an interrupted re-embed are purged.
Then the WAL is checkpointed and truncated (it holds old page versions) and migration backups
taken before the forget are deleted (they hold the forgotten text, encrypted). `secure_delete`
(set at open) zeroes the freed pages.

The vault keeps a one-way key of each exchange, fact and profile entry it deletes, with the
time (engine/vault/forgotten.py, written by the deletes themselves), never its text: restoring
an export made before the forget leaves those out (engine/restore.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from engine import errors
from engine.memory import chains, keywords, mid_term, short_term, vocabulary
from engine.memory.context import MemoryContext
from engine.memory.persona_patterns import SLOT_WORDS
from engine.records import turn_ids

log = logging.getLogger(__name__)


def delete_question(count: int, quoted: str = "") -> str:
    """What deleting learned items (facts, profile entries) does, asked the same way by the
    app's privacy panel and `memoryos facts delete`; `quoted`, the items named, on a line of
    its own after the question."""
    one = count == 1
    asked = f"Delete {'this item' if one else f'these {count} items'}?"
    effect = f"{'It' if one else 'They'} will no longer be recalled or given to the model."
    return f"{asked}\n{quoted}\n\n{effect}" if quoted else f"{asked} {effect}"


def sources_stay(count: int) -> str:
    """What deleting learned items leaves: the exchanges they came from (a person saw an answer
    quote a deleted fact from its exchange and took it for a bug). The caller says how to
    forget those too."""
    one = count == 1
    return (
        f"The exchange{'' if one else 's'} {'it was' if one else 'they were'} learned from "
        f"stay{'s' if one else ''} in your conversations"
    )


@dataclass(frozen=True)
class ForgetPreview:
    """What a forget will remove or rewrite, shown to the person before they confirm."""

    pages: list[int]
    facts: list[int]
    slots: list[int]
    fact_texts: list[str] = field(default_factory=list)
    slot_texts: list[str] = field(default_factory=list)
    segments_removed: list[int] = field(default_factory=list)
    segments_rewritten: list[int] = field(default_factory=list)
    chain_summaries_rebuilt: list[int] = field(default_factory=list)
    conversations_removed: list[str] = field(default_factory=list)
    conversations_retitled: list[str] = field(default_factory=list)
    backups_deleted: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The preview in words, one line per kind of thing it touches."""
        out = [f"{_n(len(self.pages), 'exchange')} removed"]
        if self.facts:
            them = "it" if len(self.pages) == 1 else "them"  # the exchanges
            out.append(f"{_n(len(self.facts), 'fact')} learned only from {them} removed")
        if self.slots:
            out.append(f"{_n(len(self.slots), 'profile entry', 'profile entries')} removed")
        if self.segments_removed:
            out.append(f"{_n(len(self.segments_removed), 'topic')} removed")
        if self.segments_rewritten:
            out.append(
                f"{_n(len(self.segments_rewritten), 'topic summary', 'topic summaries')} "
                "rewritten without them"
            )
        if self.chain_summaries_rebuilt:
            out.append(
                f"{_n(len(self.chain_summaries_rebuilt), 'thread summary', 'thread summaries')} "
                "rebuilt"
            )
        if self.conversations_removed:
            out.append(f"{_n(len(self.conversations_removed), 'conversation')} removed")
        if self.conversations_retitled:
            out.append(f"{_n(len(self.conversations_retitled), 'conversation')} renamed")
        if self.backups_deleted:
            out.append(
                f"{_n(len(self.backups_deleted), 'upgrade backup')} of the vault deleted "
                "(they still hold this text)"
            )
        return out


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def title_of(text: str) -> str:
    """The title a conversation is given from its first exchange's text."""
    return short_term.title(text)


def new_title(vault, conversation_id: str, forgotten: set[int]) -> str | None:
    """The title forgetting `forgotten` gives the conversation, or None if it keeps its own.

    Only a title taken from the first exchange follows it, when that exchange goes (the title
    quotes it). A title the person chose (or an import gave) is not the one its first exchange
    would give, and stays: the vault does not record how a title was set, so that is the test.
    """
    title = vault.conversation_title(conversation_id)
    first = vault.retitle_conversation(conversation_id)
    if title is None or first is None or title != title_of(first):
        return None
    after = vault.retitle_conversation(conversation_id, without=forgotten)
    if after is None or title_of(after) == title:  # none left, or the first one stays
        return None
    return title_of(after)


def backups(path: Path) -> list[Path]:
    """Migration backups of the vault at `path`, oldest first."""
    return sorted(
        path.parent.glob(f"{path.name}.backup-*"), key=lambda p: (p.stat().st_mtime, p.name)
    )


def preview(ctx: MemoryContext, page_ids: list[int], keep_facts: bool = False) -> ForgetPreview:
    """What forgetting `page_ids` would remove and rewrite. Reads only. With `keep_facts`
    (retention that keeps what was learned) facts and profile entries stay, sourceless."""
    vault = ctx.vault
    ids = vault.existing_page_ids([int(i) for i in page_ids])
    derived = vault.only_derived_from(ids)
    quoting = _quoting(vault, ids, derived)
    if keep_facts:
        derived = {"facts": [], "slots": []}
        quoting["facts"], quoting["slots"] = [], []
    fact_ids = sorted(set(derived["facts"]) | set(quoting["facts"]))
    slot_ids = sorted(set(derived["slots"]) | set(quoting["slots"]))
    segments = vault.segments_of_pages(ids)
    for segment_id in quoting["segments"]:  # a batch summary may quote another segment's page
        segments.setdefault(segment_id, 1)
    conversations = vault.conversations_of_pages(ids)
    gone = set(ids)
    retitled = sorted(c for c, left in conversations.items() if left and new_title(vault, c, gone))
    facts = [vault.fact(i) for i in fact_ids]
    slots = [vault.slot(i) for i in slot_ids]
    return ForgetPreview(
        pages=ids,
        facts=fact_ids,
        slots=slot_ids,
        fact_texts=[f.text for f in facts],
        slot_texts=[s.text for s in slots],
        segments_removed=sorted(s for s, left in segments.items() if left == 0),
        segments_rewritten=sorted(s for s, left in segments.items() if left > 0),
        chain_summaries_rebuilt=vault.chain_descendants(ids),
        conversations_removed=sorted(c for c, left in conversations.items() if left == 0),
        conversations_retitled=retitled,
        backups_deleted=[str(p) for p in backups(vault.path)] if ids else [],
    )


MAX_WORDS = 5000  # distinct words of the forgotten pages checked one by one


def _distinctive(vault, ids: list[int]) -> list[str]:
    """Words of the forgotten pages that no other page contains."""
    pages = vault.pages(ids)
    words: list[str] = []
    seen: set[str] = set()
    for page in pages:
        for word in keywords.content_words(f"{page.user_input}\n{page.agent_response}"):
            if word not in seen:
                seen.add(word)
                words.append(word)
    return vault.only_in(words[:MAX_WORDS], ids)


def _quoting(vault, ids: list[int], derived: dict[str, list[int]]) -> dict[str, list[int]]:
    """What model-written memory still says only the forgotten pages said.

    A model may cite the wrong page, or copy a known fact into a new one, so provenance alone
    misses some; text catches them: a fact, profile entry or topic that contains a word which,
    once the pages are gone, no remaining page contains, could only have come from them.
    Facts and entries are matched by the word as said, give or take a plural or possessive
    ("ferrets", "Biscuit's"), not by its stem: a fact that paraphrases another exchange ("Maria
    is the name she goes by") is not taken for the forgotten "a cat named Biscuit". Topics are
    matched by stem (they are rewritten, not deleted). Facts and entries the person typed
    themselves are left alone."""
    out: dict[str, list[int]] = {"facts": [], "slots": [], "segments": []}
    if not ids:
        return out
    words = _distinctive(vault, ids)
    if not words:
        return out
    stems = keywords.normalise(words)
    said = _word_forms(words)
    for fact_id in vault.facts_saying(words):  # by stem (FTS), then by the word as said
        fact = vault.fact(fact_id)
        if fact_id in derived["facts"] or fact.origin == "user":
            continue
        if _word_forms(keywords.content_words(fact.text)) & said:
            out["facts"].append(fact_id)
    for slot in vault.slots(include_superseded=True):
        if slot.id in derived["slots"] or slot.origin == "user":
            continue
        # A field the profile's own patterns fill ("name", "occupation") is its own word, not
        # something said; a model may invent one from what was said ("Quembravia: Biscuit").
        named = "" if slot.name.lower() in SLOT_WORDS else slot.name
        if _word_forms(keywords.content_words(f"{named} {slot.value}")) & said:
            out["slots"].append(slot.id)
    for segment_id, text in vault.segment_texts():
        if keywords.normalise(keywords.content_words(text)) & stems:
            out["segments"].append(segment_id)
    return out


def _word_forms(words: list[str]) -> set[str]:
    """Words as said, without a possessive or a plural's s ("Biscuit's", "ferrets")."""
    out = set()
    for word in words:
        word = word.removesuffix("'s").removesuffix("\u2019s")
        out.add(word[:-1] if len(word) > 3 and word.endswith("s") and word[-2] != "s" else word)
    return out


def forget(ctx: MemoryContext, page_ids: list[int], keep_facts: bool = False) -> ForgetPreview:
    """Forget `page_ids` and everything derived from them, in one transaction; then make
    sure the old bytes leave the disk. Returns what was done (the same shape as `preview`)."""
    vault, settings = ctx.vault, ctx.settings
    with vault.transaction():  # the plan and the change see the same state
        done = preview(ctx, page_ids, keep_facts)
        if not done.pages:
            return done
        descendants = done.chain_summaries_rebuilt
        said = list(vocabulary.words_of(vault.pages(done.pages)))
        vault.delete_facts(done.facts, ctx.dimension)  # with those that quote the pages
        vault.delete_slots(done.slots)
        gone = set(done.pages)
        titles = {c: new_title(vault, c, gone) for c in done.conversations_retitled}
        removed = vault.delete_pages(done.pages, ctx.dimension, keep_derived=keep_facts)
        words = vocabulary.unsaid(ctx, said, done.pages)  # said by no remaining page
        vault.delete_words(words)
        removed["facts"] = sorted(set(removed["facts"]) | set(done.facts))
        vault.purge_staging(removed["pages"], removed["facts"])
        for segment_id in done.segments_rewritten:
            mid_term.recompute(vault, segment_id, settings)
        for page_id in descendants:  # chain order: a page's predecessor is already rebuilt
            _rebuild_chain_summary(vault, page_id)
        for conversation_id, title in titles.items():
            if title is not None:
                vault.set_conversation_title(conversation_id, title)
        vault.bump_vector_generation()
    ctx.page_mirror.remove(removed["pages"])
    ctx.keyword_index.remove(removed["pages"])
    ctx.turn_mirror.remove(turn_ids(removed["pages"]))
    ctx.fact_mirror.remove(removed["facts"])
    ctx.word_mirror.remove(words)
    scrub(ctx)
    return done


def forget_held(ctx: MemoryContext, persona, keys) -> tuple[int, int, int]:
    """Forget what this vault holds whose (kind, one-way key) is in `keys` (forget records a
    restore brought: the export's memory forgot these), as the person would: exchanges with
    the cascade of forget(), then the facts and profile entries left. Returns how many
    exchanges, facts and profile entries went (the cascade's included). Running it again
    forgets nothing more: what went is no longer held."""
    from engine.vault import forgotten as forgotten_keys

    vault = ctx.vault
    held = vault.held_of_keys({(kind, key) for kind, key in keys})
    facts, slots = len(vault.facts(None, True)), len(vault.slots(True))
    exchanges = 0
    if held[forgotten_keys.EXCHANGE]:
        exchanges = len(forget(ctx, held[forgotten_keys.EXCHANGE]).pages)
    still = [fact.id for fact in vault.facts(None, True, ids=held[forgotten_keys.FACT])]
    if still:  # those the cascade left
        persona.delete_facts(still)
    left = {slot.id for slot in vault.slots(True)}  # those not gone with a fact above
    gone_slots = [slot_id for slot_id in held[forgotten_keys.PROFILE] if slot_id in left]
    for slot_id in gone_slots:
        persona.delete_slot(slot_id)
    if still or gone_slots:
        scrub(ctx)
    return exchanges, facts - len(vault.facts(None, True)), slots - len(vault.slots(True))


def scrub(ctx: MemoryContext) -> None:
    """After a forget: truncate the WAL and delete backups that predate it."""
    if not ctx.vault.checkpoint_truncate():
        log.warning("the WAL could not be truncated now (another program is reading the vault)")
    for backup in backups(ctx.vault.path):
        try:
            backup.unlink()
        except OSError:
            log.warning("could not delete the vault backup %s", backup)


def _rebuild_chain_summary(vault, page_id: int) -> None:
    found = vault.pages([page_id])
    if not found:
        return
    page = found[0]
    prev = None
    if page.chain_prev_id is not None:
        before = vault.pages([page.chain_prev_id])
        prev = before[0] if before else None
    linked = prev is not None
    summary = chains.running_summary(prev, linked, list(page.keywords))
    vault.set_chain(page.id, prev.id if linked else None, summary)


RETENTION_BATCH = 500  # pages forgotten per transaction by the retention policy


def retention_cutoff(days: int, now: float) -> float:
    """The time before which a retention of `days` forgets exchanges."""
    return now - days * 86400.0


def apply_retention(ctx: MemoryContext, days: int, keep_facts: bool, now: float) -> int:
    """Forget pages older than `days` (consolidation runs this). Returns how many went."""
    if days <= 0:
        return 0
    cutoff = retention_cutoff(days, now)
    total = 0
    while True:
        ids = ctx.vault.page_ids_older_than(cutoff, RETENTION_BATCH)
        if not ids:
            return total
        total += len(forget(ctx, ids, keep_facts=keep_facts).pages)


def retention_note(days: int, timestamps, now: float) -> str:
    """What a retention of `days` will do to exchanges dated `timestamps` (an import; any form
    add_memory takes, None for now): "" when it keeps them all. Imported with older dates, they
    went at the next consolidation without a word. A retention set by the administrator's policy
    is said to be theirs: the person cannot turn it off."""
    from engine import policy
    from engine.timestamps import parse_timestamp

    if days <= 0:
        return ""
    cutoff = retention_cutoff(days, now)
    old = sum(1 for ts in timestamps if parse_timestamp(ts, default=now) < cutoff)
    if not old:
        return ""
    these = "1 of these exchanges is" if old == 1 else f"{old} of these exchanges are"
    span = "1 day" if days == 1 else f"{days} days"
    it = "it" if old == 1 else "them"
    rules = policy.current()
    if rules.retention_days is not None:  # the person's setting is locked: nothing to turn off
        return (
            f"{these} older than the {span} the administrator's policy ({rules.source}) keeps "
            f"exchanges, so consolidation will forget {it}."
        )
    return (
        f"{these} older than the {span} your memory keeps exchanges (Settings → Memory → "
        f"Forget exchanges after), so consolidation will forget {it}. Turn that off first to "
        f"keep {it}."
    )


def retention_preview(
    ctx: MemoryContext, days: int, keep_facts: bool, now: float
) -> ForgetPreview:
    """What `apply_retention` with these values would forget if it ran at `now` (reads only):
    the Settings dialog asks before a shorter retention deletes anything."""
    if days <= 0:
        return ForgetPreview(pages=[], facts=[], slots=[])
    cutoff = retention_cutoff(days, now)
    ids = ctx.vault.page_ids_older_than(cutoff, max(1, ctx.vault.count_pages()))
    return preview(ctx, ids, keep_facts=keep_facts)


def pages_of_segment(ctx: MemoryContext, segment_id: int) -> list[int]:
    """The pages forgetting a segment removes (NotFoundError for an unknown segment)."""
    if not ctx.vault.segments(include_archived=True, ids=[int(segment_id)]):
        raise errors.NotFoundError(f"no segment with id {segment_id}")
    return ctx.vault.page_ids_of_segment(int(segment_id))


def pages_of_conversation(ctx: MemoryContext, conversation_id: str) -> list[int]:
    """The pages forgetting a conversation removes (NotFoundError for an unknown one)."""
    ids = ctx.vault.page_ids_of_conversation(conversation_id)
    if not ids:
        raise errors.NotFoundError(f"no conversation {conversation_id!r}")
    return ids


def everything(ctx: MemoryContext) -> None:
    """Delete every memory (the schema and the key stay), on disk and in RAM."""
    with ctx.vault.transaction():
        ctx.vault.wipe(ctx.dimension)
        ctx.vault.purge_staging_all()
        ctx.vault.bump_vector_generation()
    for mirror in (ctx.page_mirror, ctx.fact_mirror, ctx.turn_mirror, ctx.word_mirror):
        mirror.reset()
    ctx.keyword_index.reset()
    scrub(ctx)
